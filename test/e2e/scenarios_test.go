//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Scenario is a Job run on the real control plane until a capture point, then checked.
// TestScenarios runs every scenario and checks it; TestCaptureFixtures (-capture) also writes
// test/fixtures/<name>/. What a scenario is (its Definition: manifest, description, capture
// point) is in definitions_test.go, which has no build tag so that a unit test can check the
// fixtures against it; how it is driven and checked is here.
type Scenario struct {
	Definition
	// Drive, if set, acts on the running Job (e.g. suspends it) before the capture point is awaited.
	Drive func(t *testing.T, ns string)
	// Ready is the capture point.
	Ready func(j *batchv1.Job, pods []corev1.Pod) bool
	// Check asserts the captured state.
	Check func(t *testing.T, s Snapshot)
	// Timeout bounds the wait for Ready.
	Timeout time.Duration
}

// scenarios returns every defined scenario with how it runs, in definition order. A definition
// without a run entry has a nil Ready (selectedScenarios rejects it).
func scenarios() []Scenario {
	runs := scenarioRuns()
	for name, run := range policyScenarioRuns() {
		runs[name] = run
	}
	defs := definitions()
	out := make([]Scenario, 0, len(defs))
	for _, d := range defs {
		s := runs[d.Name]
		s.Definition = d
		out = append(out, s)
	}
	return out
}

var failingShards = map[int]bool{1: true, 4: true, 7: true}

// scenarioRuns says, by scenario name, how each scenario is driven, when it is captured and what
// the captured state must show.
func scenarioRuns() map[string]Scenario {
	return map[string]Scenario{
		"seed": {
			Ready:   finished,
			Timeout: 3 * time.Minute,
			Check:   checkSeed,
		},
		"prepare-db-terminating": {
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				terminating := 0
				for _, p := range pods {
					if Terminating(p) {
						terminating++
					}
				}
				return Condition(j, batchv1.JobFailureTarget) != nil && Condition(j, batchv1.JobFailed) == nil &&
					terminating == 7 && j.Status.Terminating != nil && *j.Status.Terminating == 7
			},
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				wantCondition(t, j, batchv1.JobFailureTarget, "BackoffLimitExceeded")
				noCondition(t, j, batchv1.JobFailed)
				wantCounts(t, j, 0, 10, 0)
				if j.Status.Terminating == nil || *j.Status.Terminating != 7 {
					t.Errorf("terminating = %s, want 7", intPtr(j.Status.Terminating))
				}
				for _, p := range s.Pods {
					i := PodIndex(p)
					if failingShards[i] {
						if p.Status.Phase != corev1.PodFailed || ExitCode(p, "worker") != 1 {
							t.Errorf("index %d: phase %s exit %d, want Failed with exit 1", i, p.Status.Phase, ExitCode(p, "worker"))
						}
					} else if !Terminating(p) || p.Status.Phase != corev1.PodRunning {
						t.Errorf("index %d: pod %s phase %s terminating %v, want Running and Terminating", i, p.Name, p.Status.Phase, Terminating(p))
					}
				}
				if len(s.Pods) != 10 {
					t.Errorf("%d pods, want 10 (3 failed + 7 terminating)", len(s.Pods))
				}
			},
		},
		"prepare-db-failed": {
			Ready:   finished,
			Timeout: 2 * time.Minute,
			Check:   checkPrepareDBFailed,
		},
		"per-index-recovered": {
			Ready:   finished,
			Timeout: 3 * time.Minute,
			Check:   checkPerIndexRecovered,
		},
		"max-failed-indexes-exceeded": {
			Ready:   finished,
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				wantCondition(t, j, batchv1.JobFailureTarget, "MaxFailedIndexesExceeded")
				wantCondition(t, j, batchv1.JobFailed, "MaxFailedIndexesExceeded")
				wantIndexes(t, j, "", "2,5")
				// The two failed pods plus the six running ones killed when the limit was exceeded.
				wantCounts(t, j, 0, 8, 0)
			},
		},
		"retrying": {
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				by := PodsByIndex(pods)
				return j.Status.CompletedIndexes == "0" && len(by[1]) == 1 && by[1][0].Status.Phase == corev1.PodFailed &&
					len(by[2]) == 1 && by[2][0].Status.Phase == corev1.PodRunning && len(by[3]) == 1 && by[3][0].Status.Phase == corev1.PodRunning
			},
			Timeout: 90 * time.Second,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				if Finished(j) || Condition(j, batchv1.JobFailureTarget) != nil {
					t.Errorf("job finished or failing: %v", j.Status.Conditions)
				}
				wantIndexes(t, j, "0", "")
				by := PodsByIndex(s.Pods)
				if n := len(by[1]); n != 1 {
					t.Fatalf("index 1 has %d pods, want 1 (replacement not yet created)", n)
				}
				p := by[1][0]
				if PodAttempt(p) != 0 || ExitCode(p, "worker") != 1 {
					t.Errorf("index 1 pod: attempt %d exit %d, want attempt 0 exit 1", PodAttempt(p), ExitCode(p, "worker"))
				}
			},
		},
		"success-policy": {
			Ready:   finished,
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				wantCondition(t, j, batchv1.JobSuccessCriteriaMet, "SuccessPolicy")
				wantCondition(t, j, batchv1.JobComplete, "SuccessPolicy")
				wantIndexes(t, j, "0", "")
				// The pods still running when the policy matched are deleted without counting as failed.
				wantCounts(t, j, 1, 0, 0)
				if j.Status.CompletionTime == nil {
					t.Errorf("no completionTime on a Complete Job")
				}
			},
		},
		"suspended": {
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				return Condition(j, batchv1.JobSuspended) != nil && len(pods) == 0
			},
			Timeout: time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				wantCondition(t, s.Job, batchv1.JobSuspended, "JobSuspended")
				wantCounts(t, s.Job, 0, 0, 0)
				if s.Job.Status.StartTime != nil {
					t.Errorf("startTime %v on a Job that never ran", s.Job.Status.StartTime)
				}
				if len(s.Pods) != 0 {
					t.Errorf("%d pods, want none", len(s.Pods))
				}
			},
		},
		"suspended-after-progress": {
			Drive: func(t *testing.T, ns string) {
				WaitForJob(t, ns, "suspended-after-progress", time.Minute, "indexes 0,1 complete and 2 pods running", func(j *batchv1.Job, pods []corev1.Pod) bool {
					running := 0
					for _, p := range pods {
						if p.Status.Phase == corev1.PodRunning {
							running++
						}
					}
					return j.Status.CompletedIndexes == "0,1" && running == 2
				})
				MustKubectl(t, "patch", "job", "suspended-after-progress", "-n", ns, "--type=merge", "-p", `{"spec":{"suspend":true}}`)
			},
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				return Condition(j, batchv1.JobSuspended) != nil && j.Status.Active == 0 && len(pods) == 2 &&
					j.Status.Terminating != nil && *j.Status.Terminating == 0
			},
			Timeout: time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				wantCondition(t, s.Job, batchv1.JobSuspended, "JobSuspended")
				wantIndexes(t, s.Job, "0,1", "")
				// Pods deleted by suspend are not counted as failed.
				wantCounts(t, s.Job, 2, 0, 0)
			},
		},
		"transient-recovered": {
			Ready:   finished,
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				wantCondition(t, s.Job, batchv1.JobComplete, "CompletionsReached")
				wantIndexes(t, s.Job, "0-2", "")
				wantCounts(t, s.Job, 3, 1, 0)
				by := PodsByIndex(s.Pods)
				if len(by[1]) != 2 || ExitCode(by[1][0], "worker") != 1 || ExitCode(by[1][1], "worker") != 0 || PodAttempt(by[1][1]) != 1 {
					t.Errorf("index 1 pods: want attempt 0 exit 1, attempt 1 exit 0; got %s", DescribeState(s.Job, by[1]))
				}
			},
		},
		"flaky-recovered": {
			Ready:   finished,
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				wantCondition(t, s.Job, batchv1.JobComplete, "CompletionsReached")
				wantIndexes(t, s.Job, "0-3", "")
				wantCounts(t, s.Job, 4, 2, 0)
				by := PodsByIndex(s.Pods)
				for i, code := range map[int]int{1: 1, 2: 137} {
					if len(by[i]) != 2 || ExitCode(by[i][0], "worker") != code || ExitCode(by[i][1], "worker") != 0 || PodAttempt(by[i][1]) != 1 {
						t.Errorf("index %d pods: want attempt 0 exit %d, attempt 1 exit 0; got %s", i, code, DescribeState(s.Job, by[i]))
					}
				}
			},
		},
		"pod-failure-policy-failjob": {
			Ready:   finished,
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				wantCondition(t, s.Job, batchv1.JobFailureTarget, "PodFailurePolicy")
				wantCondition(t, s.Job, batchv1.JobFailed, "PodFailurePolicy")
				if c := Condition(s.Job, batchv1.JobFailed); c != nil && !strings.Contains(c.Message, "exit code 3 matching FailJob rule at index 0") {
					t.Errorf("Failed message %q does not name the exit code and rule", c.Message)
				}
				wantCounts(t, s.Job, 0, 4, 0)
			},
		},
		"disruption-ignored": {
			Ready:   finished,
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				wantCondition(t, s.Job, batchv1.JobComplete, "CompletionsReached")
				wantIndexes(t, s.Job, "0-2", "")
				// The disrupted pod is ignored: not counted as failed.
				wantCounts(t, s.Job, 3, 0, 0)
				by := PodsByIndex(s.Pods)
				if len(by[1]) != 2 {
					t.Fatalf("index 1 has %d pods, want 2", len(by[1]))
				}
				first, second := by[1][0], by[1][1]
				hasDisruption := false
				for _, c := range first.Status.Conditions {
					if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
						hasDisruption = true
					}
				}
				if !hasDisruption || first.Status.Phase != corev1.PodFailed {
					t.Errorf("first pod of index 1: phase %s, DisruptionTarget %v", first.Status.Phase, hasDisruption)
				}
				if second.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] != "1" || second.Annotations[batchv1.JobIndexFailureCountAnnotation] != "0" {
					t.Errorf("replacement annotations: %v, want failure-count 0, ignored-failure-count 1", second.Annotations)
				}
			},
		},
		"deadline-exceeded": {
			Ready:   finished,
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				wantCondition(t, s.Job, batchv1.JobFailureTarget, "DeadlineExceeded")
				wantCondition(t, s.Job, batchv1.JobFailed, "DeadlineExceeded")
				wantCounts(t, s.Job, 0, 2, 0)
			},
		},
		"running": {
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				return j.Status.Succeeded >= 8 && j.Status.Active > 0 && !Finished(j)
			},
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				if Finished(j) || Condition(j, batchv1.JobFailureTarget) != nil || Condition(j, batchv1.JobSuccessCriteriaMet) != nil {
					t.Errorf("job not mid-flight: %v", j.Status.Conditions)
				}
				if j.Status.Active == 0 || j.Status.Active > 5 {
					t.Errorf("active = %d, want 1..5", j.Status.Active)
				}
				if j.Status.Succeeded < 8 {
					t.Errorf("succeeded = %d, want >= 8", j.Status.Succeeded)
				}
			},
		},
		"failjob-on-condition": {
			Ready:   finished,
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				wantCondition(t, j, batchv1.JobFailureTarget, "PodFailurePolicy")
				wantCondition(t, j, batchv1.JobFailed, "PodFailurePolicy")
				wantIndexes(t, j, "", "")
				// The matching pod plus the three running ones killed when the Job failed.
				wantCounts(t, j, 0, 4, 0)
				by := PodsByIndex(s.Pods)
				if len(by[2]) != 1 {
					t.Fatalf("index 2 has %d pods, want 1\n%s", len(by[2]), DescribeState(j, s.Pods))
				}
				p := by[2][0]
				if p.Status.Phase != corev1.PodFailed || PodCondition(p, "example.com/InputCorrupt") == nil {
					t.Errorf("index 2 pod: phase %s, want Failed with example.com/InputCorrupt=True", p.Status.Phase)
				}
				want := "Pod " + p.Namespace + "/" + p.Name + " has condition example.com/InputCorrupt matching FailJob rule at index 1"
				if c := Condition(j, batchv1.JobFailureTarget); c != nil && c.Message != want {
					t.Errorf("FailureTarget message %q, want %q", c.Message, want)
				}
			},
		},
		"onfailure-restarts": {
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				terminating := 0
				for _, p := range pods {
					if Terminating(p) && p.Status.Phase == corev1.PodRunning {
						terminating++
					}
				}
				return Condition(j, batchv1.JobFailureTarget) != nil && Condition(j, batchv1.JobFailed) == nil &&
					terminating == 4 && j.Status.Terminating != nil && *j.Status.Terminating == 4
			},
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				wantCondition(t, j, batchv1.JobFailureTarget, "BackoffLimitExceeded")
				noCondition(t, j, batchv1.JobFailed)
				// No pod failed on its own: the four killed pods are the failures
				// (podReplacementPolicy TerminatingOrFailed counts a deleted pod at once).
				wantCounts(t, j, 0, 4, 0)
				if len(s.Pods) != 4 {
					t.Errorf("%d pods, want 4 (one per index, none replaced)", len(s.Pods))
				}
				restarts := 0
				for _, p := range s.Pods {
					if p.Status.Phase != corev1.PodRunning || !Terminating(p) {
						t.Errorf("pod %s: phase %s terminating %v, want Running and Terminating", p.Name, p.Status.Phase, Terminating(p))
					}
					n := RestartCount(p)
					restarts += n
					if i := PodIndex(p); i == 1 {
						if n < 2 || LastExitCode(p, "worker") != 1 {
							t.Errorf("index 1 pod: restartCount %d last exit %d, want >= 2 restarts after exit 1", n, LastExitCode(p, "worker"))
						}
					} else if n != 0 {
						t.Errorf("index %d pod restarted %d times, want 0", i, n)
					}
				}
				// pastBackoffLimitOnFailure: the restarts of pending and running pods reach backoffLimit.
				if restarts < 2 {
					t.Errorf("%d restarts in all, want at least backoffLimit 2", restarts)
				}
			},
		},
		"elastic-scale-down": {
			Drive: func(t *testing.T, ns string) {
				WaitForJob(t, ns, "elastic", time.Minute, "indexes 0,4 complete and 4 pods running", func(j *batchv1.Job, pods []corev1.Pod) bool {
					running := 0
					for _, p := range pods {
						if p.Status.Phase == corev1.PodRunning && !Terminating(p) {
							running++
						}
					}
					return j.Status.CompletedIndexes == "0,4" && running == 4
				})
				MustKubectl(t, "patch", "job", "elastic", "-n", ns, "--type=merge", "-p", `{"spec":{"completions":3,"parallelism":3}}`)
			},
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				by := PodsByIndex(pods)
				return j.Spec.Completions != nil && *j.Spec.Completions == 3 && j.Status.CompletedIndexes == "0" &&
					j.Status.Active == 2 && j.Status.Terminating != nil && *j.Status.Terminating == 1 &&
					len(by[3]) == 0 && len(by[5]) == 1 && Terminating(by[5][0]) && len(by[4]) == 1
			},
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				if Finished(j) || Condition(j, batchv1.JobFailureTarget) != nil || Condition(j, batchv1.JobSuccessCriteriaMet) != nil {
					t.Errorf("job not running: %v", j.Status.Conditions)
				}
				// completedIndexes is cut to the new completions and succeeded follows it; the pods
				// deleted by the scale-down are not counted as failed.
				wantIndexes(t, j, "0", "")
				wantCounts(t, j, 1, 0, 2)
				by := PodsByIndex(s.Pods)
				for i, want := range map[int]corev1.PodPhase{0: corev1.PodSucceeded, 1: corev1.PodRunning, 2: corev1.PodRunning, 4: corev1.PodSucceeded, 5: corev1.PodRunning} {
					if len(by[i]) != 1 || by[i][0].Status.Phase != want {
						t.Errorf("index %d: want one %s pod\n%s", i, want, DescribeState(j, s.Pods))
					}
				}
				if len(by[5]) == 1 && !Terminating(by[5][0]) {
					t.Errorf("index 5's pod is not being deleted")
				}
			},
		},
		"completing": {
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				terminating := 0
				for _, p := range pods {
					if Terminating(p) && p.Status.Phase == corev1.PodRunning {
						terminating++
					}
				}
				return Condition(j, batchv1.JobSuccessCriteriaMet) != nil && Condition(j, batchv1.JobComplete) == nil &&
					terminating == 3 && j.Status.Terminating != nil && *j.Status.Terminating == 3
			},
			Timeout: 2 * time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				wantCondition(t, j, batchv1.JobSuccessCriteriaMet, "SuccessPolicy")
				if c := Condition(j, batchv1.JobSuccessCriteriaMet); c != nil && c.Message != "Matched rules at index 1" {
					t.Errorf("SuccessCriteriaMet message %q, want %q", c.Message, "Matched rules at index 1")
				}
				noCondition(t, j, batchv1.JobComplete)
				wantIndexes(t, j, "0,1", "")
				// The lingering pods are deleted without being counted as failed.
				wantCounts(t, j, 2, 0, 0)
				if j.Status.CompletionTime != nil {
					t.Errorf("completionTime %v before Complete", j.Status.CompletionTime)
				}
			},
		},
		"pending-unschedulable": {
			Ready: func(j *batchv1.Job, pods []corev1.Pod) bool {
				if len(pods) != 2 || j.Status.Active != 2 {
					return false
				}
				for _, p := range pods {
					c := PodCondition(p, corev1.PodScheduled)
					if p.Status.Phase != corev1.PodPending || c == nil || c.Status != corev1.ConditionFalse || c.Reason != corev1.PodReasonUnschedulable {
						return false
					}
				}
				return true
			},
			Timeout: time.Minute,
			Check: func(t *testing.T, s Snapshot) {
				j := s.Job
				if Finished(j) || len(j.Status.Conditions) != 0 {
					t.Errorf("conditions %v, want none", j.Status.Conditions)
				}
				wantCounts(t, j, 0, 0, 2)
				if j.Status.Ready == nil || *j.Status.Ready != 0 {
					t.Errorf("ready = %s, want 0", intPtr(j.Status.Ready))
				}
				by := PodsByIndex(s.Pods)
				if len(by[0]) != 1 || len(by[1]) != 1 || len(by[2]) != 0 {
					t.Errorf("want one pod for indexes 0 and 1 and none for 2\n%s", DescribeState(j, s.Pods))
				}
				for _, p := range s.Pods {
					if p.Spec.NodeName != "" {
						t.Errorf("pod %s was bound to node %s", p.Name, p.Spec.NodeName)
					}
				}
			},
		},
	}
}

func finished(j *batchv1.Job, _ []corev1.Pod) bool { return Finished(j) }

func checkSeed(t *testing.T, s Snapshot) {
	j := s.Job
	wantIndexes(t, j, "0,1,3,5", "2,4")
	wantCondition(t, j, batchv1.JobFailureTarget, "FailedIndexes")
	wantCondition(t, j, batchv1.JobFailed, "FailedIndexes")
	noCondition(t, j, batchv1.JobComplete)
	wantCounts(t, j, 4, 3, 0)
	if len(s.Pods) != 7 {
		t.Errorf("%d pods, want 7\n%s", len(s.Pods), DescribeState(j, s.Pods))
	}
	by := PodsByIndex(s.Pods)
	for i := 0; i < 6; i++ {
		want := 1
		if i == 4 {
			want = 2
		}
		if len(by[i]) != want {
			t.Errorf("index %d has %d pods, want %d", i, len(by[i]), want)
		}
	}
	if len(by[2]) == 1 && ExitCode(by[2][0], "worker") != 42 {
		t.Errorf("index 2 exit code %d, want 42", ExitCode(by[2][0], "worker"))
	}
	for a, p := range by[4] {
		if PodAttempt(p) != a || ExitCode(p, "worker") != 1 || p.Status.Phase != corev1.PodFailed {
			t.Errorf("index 4 pod %d: attempt %d exit %d phase %s, want attempt %d exit 1 Failed", a, PodAttempt(p), ExitCode(p, "worker"), p.Status.Phase, a)
		}
	}
}

func checkPrepareDBFailed(t *testing.T, s Snapshot) {
	j := s.Job
	wantCondition(t, j, batchv1.JobFailureTarget, "BackoffLimitExceeded")
	wantCondition(t, j, batchv1.JobFailed, "BackoffLimitExceeded")
	// Three failures plus the seven healthy shards killed by the backoff limit.
	wantCounts(t, j, 0, 10, 0)
	wantIndexes(t, j, "", "")
	for _, p := range s.Pods {
		if !failingShards[PodIndex(p)] {
			t.Errorf("pod %s of healthy index %d still listed; killed pods should be gone", p.Name, PodIndex(p))
		}
	}
	if len(s.Pods) != 3 {
		t.Errorf("%d pods listed, want the 3 failed ones\n%s", len(s.Pods), DescribeState(j, s.Pods))
	}
}

func checkPerIndexRecovered(t *testing.T, s Snapshot) {
	j := s.Job
	wantIndexes(t, j, "0,2,3,5,6,8,9", "1,4,7")
	wantCondition(t, j, batchv1.JobFailureTarget, "FailedIndexes")
	wantCondition(t, j, batchv1.JobFailed, "FailedIndexes")
	// Two counted failures per failing index; no healthy shard was killed.
	wantCounts(t, j, 7, 6, 0)
	by := PodsByIndex(s.Pods)
	for i := 0; i < 10; i++ {
		want := 1
		if failingShards[i] {
			want = 2
		}
		if len(by[i]) != want {
			t.Errorf("index %d has %d pods, want %d", i, len(by[i]), want)
		}
		for _, p := range by[i] {
			wantPhase := corev1.PodSucceeded
			if failingShards[i] {
				wantPhase = corev1.PodFailed
			}
			if p.Status.Phase != wantPhase {
				t.Errorf("index %d pod %s: phase %s, want %s", i, p.Name, p.Status.Phase, wantPhase)
			}
		}
	}
}

// wantIndexes compares completedIndexes and failedIndexes ("" means unset or empty).
func wantIndexes(t *testing.T, j *batchv1.Job, completed, failed string) {
	t.Helper()
	if j.Status.CompletedIndexes != completed {
		t.Errorf("completedIndexes = %q, want %q", j.Status.CompletedIndexes, completed)
	}
	got := ""
	if j.Status.FailedIndexes != nil {
		got = *j.Status.FailedIndexes
	}
	if got != failed {
		t.Errorf("failedIndexes = %q, want %q", got, failed)
	}
}

func wantCounts(t *testing.T, j *batchv1.Job, succeeded, failed, active int32) {
	t.Helper()
	st := j.Status
	if st.Succeeded != succeeded || st.Failed != failed || st.Active != active {
		t.Errorf("succeeded/failed/active = %d/%d/%d, want %d/%d/%d", st.Succeeded, st.Failed, st.Active, succeeded, failed, active)
	}
}

func wantCondition(t *testing.T, j *batchv1.Job, ctype batchv1.JobConditionType, reason string) {
	t.Helper()
	c := Condition(j, ctype)
	if c == nil {
		t.Errorf("no %s=True condition; conditions: %+v", ctype, j.Status.Conditions)
		return
	}
	if c.Reason != reason {
		t.Errorf("%s reason = %q, want %q (message %q)", ctype, c.Reason, reason, c.Message)
	}
}

func noCondition(t *testing.T, j *batchv1.Job, ctype batchv1.JobConditionType) {
	t.Helper()
	if c := Condition(j, ctype); c != nil {
		t.Errorf("unexpected %s=True condition (reason %s)", ctype, c.Reason)
	}
}
