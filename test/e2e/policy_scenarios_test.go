//go:build e2e

package e2e

import (
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// policyScenarioRuns drives and checks the scenarios of issue 10 (policy_definitions_test.go).
// Every check is written from the v1.37.2 controller source (pkg/controller/job), not from the
// plugin's output.
func policyScenarioRuns() map[string]Scenario {
	return map[string]Scenario{
		"success-policy-after-failed-index": {
			Ready:   finished,
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				// syncJob: the FailedIndexes check needs failed + succeeded >= completions
				// (1 + 2 < 4), so matchSuccessPolicy is evaluated and rule 0 is met.
				wantCondition(t, j, batchv1.JobSuccessCriteriaMet, batchv1.JobReasonSuccessPolicy)
				wantCondition(t, j, batchv1.JobComplete, batchv1.JobReasonSuccessPolicy)
				noCondition(t, j, batchv1.JobFailed)
				noCondition(t, j, batchv1.JobFailureTarget)
				wantIndexes(t, j, "1,2", "0")
			},
		},
		"deleted-during-retries": {
			Drive: func(t *testing.T, ns string) {
				_, pods := WaitForJob(t, ns, "deleted", time.Minute, "index 1 on its second attempt, indexes 0 and 2 running", func(j *batchv1.Job, pods []corev1.Pod) bool {
					by := PodsByIndex(pods)
					return len(by[1]) == 2 && by[1][1].Status.Phase == corev1.PodRunning && len(by[2]) == 1 && by[2][0].Status.Phase == corev1.PodRunning && len(by[0]) == 1
				})
				by := PodsByIndex(pods)
				MustKubectl(t, "delete", "pod", "-n", ns, "--wait=false", by[1][1].Name, by[2][0].Name)
			},
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				by := PodsByIndex(pods)
				return j.Status.FailedIndexes != nil && *j.Status.FailedIndexes == "1" && len(by[2]) == 2 &&
					len(by[1]) == 2 && Terminating(by[1][1]) && Terminating(by[2][0])
			},
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				by := PodsByIndex(s.Pods)
				// isPodFailed: under TerminatingOrFailed a deleted pod is failed at once; on the
				// last attempt (failure count 1 >= backoffLimitPerIndex 1) isIndexFailed puts
				// index 1 in failedIndexes and firstPendingIndexes never starts it again.
				wantIndexes(t, j, "", "1")
				if len(by[1]) != 2 {
					t.Errorf("index 1 has %d pods, want 2 (no third attempt)", len(by[1]))
				}
				// Index 2's replacement carries the failure (getNewIndexFailureCounts) and was
				// created after the per-index backoff of 10s, counted from deletionTimestamp
				// minus the grace period (getFinishedTime, getRemainingTimePerIndex).
				if len(by[2]) == 2 {
					old, repl := by[2][0], by[2][1]
					if PodAttempt(repl) != 1 {
						t.Errorf("index 2's replacement has attempt %d, want 1", PodAttempt(repl))
					}
					finished := old.DeletionTimestamp.Add(-time.Duration(*old.DeletionGracePeriodSeconds) * time.Second)
					if c := PodCondition(old, corev1.PodReady); c != nil && c.Status == corev1.ConditionFalse && !c.LastTransitionTime.IsZero() {
						finished = c.LastTransitionTime.Time
					}
					if gap := repl.CreationTimestamp.Sub(finished); gap < 9*time.Second {
						t.Errorf("index 2's replacement came %s after its pod finished, want the 10s backoff", gap)
					}
				}
				if len(by[0]) != 1 || by[0][0].Status.Phase != corev1.PodRunning {
					t.Errorf("index 0 should run untouched\n%s", DescribeState(j, s.Pods))
				}
			},
		},
		"parallelism-lowered": {
			Drive: func(t *testing.T, ns string) {
				WaitForJob(t, ns, "lowered", time.Minute, "4 pods running", func(j *batchv1.Job, pods []corev1.Pod) bool {
					return j.Status.Active == 4 && j.Status.Ready != nil && *j.Status.Ready == 4
				})
				MustKubectl(t, "patch", "job", "lowered", "-n", ns, "--type=merge", "-p", `{"spec":{"parallelism":2}}`)
			},
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				terminating := 0
				for _, p := range pods {
					if Terminating(p) {
						terminating++
					}
				}
				return terminating == 2 && j.Status.Active == 2 && j.Status.Terminating != nil && *j.Status.Terminating == 2
			},
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				// manageJob deletes the extra pods with deleteJobPods, which removes the
				// tracking finalizer first: they are never counted as failed.
				wantCounts(t, j, 0, 0, 2)
				for _, p := range s.Pods {
					if Terminating(p) && slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
						t.Errorf("pod %s is being deleted with its tracking finalizer", p.Name)
					}
				}
				if len(s.Pods) != 4 {
					t.Errorf("%d pods, want 4 (none replaced)", len(s.Pods))
				}
			},
		},
		"elastic-scale-up-again": {
			Drive: func(t *testing.T, ns string) {
				WaitForJob(t, ns, "elastic-up", time.Minute, "index 4 complete, 5 pods running", func(j *batchv1.Job, pods []corev1.Pod) bool {
					return j.Status.CompletedIndexes == "4" && j.Status.Active == 5
				})
				MustKubectl(t, "patch", "job", "elastic-up", "-n", ns, "--type=merge", "-p", `{"spec":{"completions":3,"parallelism":3}}`)
				WaitForJob(t, ns, "elastic-up", time.Minute, "scaled down to 3", func(j *batchv1.Job, pods []corev1.Pod) bool {
					by := PodsByIndex(pods)
					return j.Status.CompletedIndexes == "" && j.Status.Active == 3 && len(by[3]) == 0 && len(by[5]) == 0 && len(by[4]) == 1
				})
				MustKubectl(t, "patch", "job", "elastic-up", "-n", ns, "--type=merge", "-p", `{"spec":{"completions":6,"parallelism":6}}`)
			},
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				return len(PodsByIndex(pods)[4]) == 2
			},
			Timeout: time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				// calculateSucceededIndexes counts a succeeded pod only while it carries the
				// tracking finalizer: index 4's old pod (counted, then dropped from
				// completedIndexes by the scale-down) does not count, and the index runs again.
				by := PodsByIndex(s.Pods)
				if len(by[4]) != 2 {
					t.Fatalf("index 4 has %d pods, want 2\n%s", len(by[4]), DescribeState(s.Job, s.Pods))
				}
				old := by[4][0]
				if old.CreationTimestamp.After(by[4][1].CreationTimestamp.Time) {
					old = by[4][1]
				}
				if old.Status.Phase != corev1.PodSucceeded || slices.Contains(old.Finalizers, batchv1.JobTrackingFinalizer) {
					t.Errorf("index 4's first pod: phase %s finalizers %v, want Succeeded without the tracking finalizer", old.Status.Phase, old.Finalizers)
				}
			},
		},
		"failed-index-across-suspension": {
			Drive: func(t *testing.T, ns string) {
				WaitForJob(t, ns, "suspend-failed", time.Minute, "index 0 failed, 1 and 2 running", func(j *batchv1.Job, pods []corev1.Pod) bool {
					return j.Status.FailedIndexes != nil && *j.Status.FailedIndexes == "0" && j.Status.Active == 2
				})
				MustKubectl(t, "patch", "job", "suspend-failed", "-n", ns, "--type=merge", "-p", `{"spec":{"suspend":true}}`)
				WaitForJob(t, ns, "suspend-failed", time.Minute, "suspended, running pods gone", func(j *batchv1.Job, pods []corev1.Pod) bool {
					return Condition(j, batchv1.JobSuspended) != nil && j.Status.Active == 0 && len(pods) == 1
				})
				MustKubectl(t, "patch", "job", "suspend-failed", "-n", ns, "--type=merge", "-p", `{"spec":{"suspend":false}}`)
			},
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				by := PodsByIndex(pods)
				return j.Status.Active == 2 && len(by[1]) == 1 && len(by[2]) == 1 &&
					by[1][0].Status.Phase == corev1.PodRunning && by[2][0].Status.Phase == corev1.PodRunning
			},
			Timeout: time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				// calculateFailedIndexes keeps failedIndexes through the suspension and
				// firstPendingIndexes skips a failed index on resume; the pods deleted by the
				// suspension (deleteJobPods) were not counted: failed stays 1.
				wantIndexes(t, j, "", "0")
				wantCounts(t, j, 0, 1, 2)
				if n := len(PodsByIndex(s.Pods)[0]); n != 1 {
					t.Errorf("index 0 has %d pods, want its one failed pod", n)
				}
			},
		},
	}
}
