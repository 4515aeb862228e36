package e2e

// Scenarios of issue 10 (jobpolicy: the controller's decisions behind status, lint and diff):
// each shows on the real control plane a moment where status used to say what the v1.37.2 Job
// controller does not do. How they are driven and checked is in policy_scenarios_test.go.

// policyDefinitions are the scenarios of issue 10, run after the others.
func policyDefinitions() []Definition {
	return []Definition{
		{
			Name:        "success-policy-after-failed-index",
			Description: "4 indexes, parallelism 4, backoffLimitPerIndex 0, successPolicy succeededCount 2; index 0 exits 1 after 1s (its index fails), indexes 1 and 2 succeed after 8s, index 3 runs until the Job ends.",
			JobName:     "sp-failed",
			Manifest: indexedJob("sp-failed", `  completions: 4
  parallelism: 4
  backoffLimitPerIndex: 0
  successPolicy:
    rules:
    - succeededCount: 2
`, map[string]string{"run-time": "never", "run-time.0": "1s", "exit-code.0": "1", "run-time.1": "8s", "run-time.2": "8s"}),
			CapturePoint: "final: Complete=True (SuccessPolicy) although index 0 is in failedIndexes",
		},
		{
			Name:        "deleted-during-retries",
			Description: "3 indexes, parallelism 3, backoffLimitPerIndex 1, default podReplacementPolicy (TerminatingOrFailed); index 1's first attempt exits 1 after 2s, every other pod runs; then the pods of index 1 (its last attempt) and index 2 (its first) are deleted (kubectl delete pod) and take their whole 120s grace period to stop.",
			JobName:     "deleted",
			Manifest: withGracePeriod(indexedJob("deleted", `  completions: 3
  parallelism: 3
  backoffLimitPerIndex: 1
`, map[string]string{"run-time": "never", "run-time.1.0": "2s", "exit-code.1.0": "1", "termination-delay": "120s"}), 120),
			CapturePoint: "both deleted pods still Terminating, index 1 in failedIndexes with no new pod, index 2's replacement created",
		},
		{
			Name:        "parallelism-lowered",
			Description: "4 indexes, parallelism 4, pods run until deleted; then parallelism is lowered to 2 (kubectl patch); the two pods the controller deletes take their whole 120s grace period to stop.",
			JobName:     "lowered",
			Manifest: withGracePeriod(indexedJob("lowered", `  completions: 4
  parallelism: 4
`, map[string]string{"run-time": "never", "termination-delay": "120s"}), 120),
			CapturePoint: "after lowering parallelism to 2: two pods Running, two Terminating",
			Changed:      []string{"spec.parallelism"},
		},
		{
			Name:        "elastic-scale-up-again",
			Description: "6 indexes, parallelism 6; index 4 succeeds after 2s, the others run; completions and parallelism are scaled down to 3, then back up to 6 (kubectl patch).",
			JobName:     "elastic-up",
			Manifest: indexedJob("elastic-up", `  completions: 6
  parallelism: 6
`, map[string]string{"run-time": "never", "run-time.4": "2s"}),
			CapturePoint: "after the scale-up back to 6: index 4 has its old succeeded pod and a new one",
			// completions and parallelism are changed, then changed back: job.json has the
			// manifest's values again.
		},
		{
			Name:        "failed-index-across-suspension",
			Description: "3 indexes, parallelism 3, backoffLimitPerIndex 0; index 0 exits 1 after 1s (its index fails), the others run; the Job is then suspended (kubectl patch) and, once its pods are gone, resumed.",
			JobName:     "suspend-failed",
			Manifest: indexedJob("suspend-failed", `  completions: 3
  parallelism: 3
  backoffLimitPerIndex: 0
`, map[string]string{"run-time": "never", "run-time.0": "1s", "exit-code.0": "1"}),
			CapturePoint: "after the resume: indexes 1 and 2 running new pods, index 0 still failed with its one pod",
		},
	}
}
