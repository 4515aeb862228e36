package jobpolicy

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
)

// The condition messages, verbatim as the v1.37 Job controller writes them (job-semantics.md
// §2.3; the FailJob ones as test/e2e/scenarios_test.go sees them on a real control plane).
func TestConditionMessages(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{ConditionMessage(batchv1.JobReasonBackoffLimitExceeded), "Job has reached the specified backoff limit"},
		{ConditionMessage(batchv1.JobReasonDeadlineExceeded), "Job was active longer than specified deadline"},
		{ConditionMessage(batchv1.JobReasonMaxFailedIndexesExceeded), "Job has exceeded the specified maximal number of failed indexes"},
		{ConditionMessage(batchv1.JobReasonFailedIndexes), "Job has failed indexes"},
		{ConditionMessage(batchv1.JobReasonCompletionsReached), "Reached expected number of succeeded pods"},
		{ConditionMessage(batchv1.JobReasonPodFailurePolicy), ""},
		{FailJobMessage("ns", "fj-2-a0", &Match{Rule: 0, Action: batchv1.PodFailurePolicyActionFailJob, Container: "worker", ExitCode: 3}), "Container worker for pod ns/fj-2-a0 failed with exit code 3 matching FailJob rule at index 0"},
		{FailJobMessage("ns", "p", &Match{Rule: 1, Action: batchv1.PodFailurePolicyActionFailJob, Condition: "example.com/InputCorrupt"}), "Pod ns/p has condition example.com/InputCorrupt matching FailJob rule at index 1"},
		{SuccessPolicyMessage(2), "Matched rules at index 2"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
