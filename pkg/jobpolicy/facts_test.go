package jobpolicy

import (
	"math"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

const (
	in    = batchv1.PodFailurePolicyOnExitCodesOpIn
	notIn = batchv1.PodFailurePolicyOnExitCodesOpNotIn
)

func wantDecision(t *testing.T, f *Facts, kind DecisionKind, reason string) {
	t.Helper()
	if f.Decision.Kind != kind || f.Decision.Reason != reason {
		t.Fatalf("decision = %+v, want %s %q", f.Decision, kind, reason)
	}
}

func wantState(t *testing.T, f *Facts, i int, s IndexState) {
	t.Helper()
	if got := f.Indexes[i].State; got != s {
		t.Fatalf("index %d state = %s, want %s (%+v)", i, got, s, f.Indexes[i])
	}
}

// Cases transcribed from TestSyncJobWithJobBackoffLimitPerIndex (job_controller_test.go,
// k8s.io/kubernetes v1.37.2): the inputs and the status the controller writes, as facts.
func TestUpstreamBackoffLimitPerIndex(t *testing.T) {
	t.Run("single failed index due to exceeding the backoff limit per index, the job continues", func(t *testing.T) {
		job := indexedJob(2, 2).backoff(math.MaxInt32).perIndex(1)
		f := eval(job, pod("a", 0).phase(corev1.PodFailed).count(1).tracked())
		// wantStatus: Active 1, Failed 1, FailedIndexes "0".
		if f.Failed.String() != "0" || f.CountedFailures != 1 {
			t.Fatalf("failed %q counted %d", f.Failed.String(), f.CountedFailures)
		}
		wantDecision(t, f, Continue, "")
		wantState(t, f, 0, IndexFailed)
		wantState(t, f, 1, IndexPending)
		if *f.Indexes[0].RetriesLeft != 0 || !f.Indexes[0].NotYetRecorded {
			t.Fatalf("index 0: %+v", f.Indexes[0])
		}
	})
	t.Run("single failed index due to FailIndex action, the job continues", func(t *testing.T) {
		job := indexedJob(2, 2).backoff(math.MaxInt32).perIndex(1).rules(exitRule(batchv1.PodFailurePolicyActionFailIndex, in, 3))
		f := eval(job, pod("a", 0).phase(corev1.PodFailed).exit(3, t0.Add(-time.Minute)).count(0).tracked())
		if f.Failed.String() != "0" || f.CountedFailures != 1 {
			t.Fatalf("failed %q counted %d", f.Failed.String(), f.CountedFailures)
		}
		wantDecision(t, f, Continue, "")
	})
	t.Run("job failed index due to FailJob action", func(t *testing.T) {
		job := indexedJob(2, 2).backoff(6).perIndex(1).rules(exitRule(batchv1.PodFailurePolicyActionFailJob, in, 3))
		f := eval(job, pod("a", 0).phase(corev1.PodFailed).exit(3, t0.Add(-time.Minute)).count(0).tracked())
		// wantStatus: Failed 1, FailedIndexes "", FailureTarget PodFailurePolicy.
		if f.Failed.String() != "" || f.CountedFailures != 1 {
			t.Fatalf("failed %q counted %d", f.Failed.String(), f.CountedFailures)
		}
		wantDecision(t, f, Fail, batchv1.JobReasonPodFailurePolicy)
		wantState(t, f, 0, IndexNoResult)
		if f.CanSucceed {
			t.Fatal("a failing Job cannot succeed")
		}
	})
	t.Run("job pod failure ignored due to matching Ignore action", func(t *testing.T) {
		job := indexedJob(2, 2).backoff(6).perIndex(1).rules(exitRule(batchv1.PodFailurePolicyActionIgnore, in, 3))
		f := eval(job, pod("a", 0).phase(corev1.PodFailed).exit(3, t0.Add(-time.Hour)).count(0).tracked())
		// wantStatus: Active 2 (index 0 replaced), Failed 0.
		if f.CountedFailures != 0 || !f.Failed.IsEmpty() {
			t.Fatalf("counted %d failed %q", f.CountedFailures, f.Failed.String())
		}
		wantState(t, f, 0, IndexPending)
		if ix := f.Indexes[0]; ix.FailureCount != 0 || ix.IgnoredCount != 1 || *ix.RetriesLeft != 1 {
			t.Fatalf("index 0: %+v", ix)
		}
	})
	t.Run("job failed due to exceeding backoffLimit before backoffLimitPerIndex", func(t *testing.T) {
		job := indexedJob(2, 2).backoff(1).perIndex(1)
		f := eval(job, pod("a", 0).phase(corev1.PodFailed).count(0).tracked(), pod("b", 1).phase(corev1.PodFailed).count(0).tracked())
		// wantStatus: Failed 2, FailedIndexes "", BackoffLimitExceeded.
		if f.CountedFailures != 2 || !f.Failed.IsEmpty() || f.FailuresLeft != 0 {
			t.Fatalf("counted %d failed %q left %d", f.CountedFailures, f.Failed.String(), f.FailuresLeft)
		}
		wantDecision(t, f, Fail, batchv1.JobReasonBackoffLimitExceeded)
	})
	t.Run("job failed due to failed indexes", func(t *testing.T) {
		job := indexedJob(2, 2).backoff(math.MaxInt32).perIndex(1)
		f := eval(job, pod("a", 0).phase(corev1.PodFailed).count(1).tracked(), pod("b", 1).phase(corev1.PodSucceeded).count(0).tracked())
		// wantStatus: FailedIndexes "0", CompletedIndexes "1", FailedIndexes reason.
		if f.Failed.String() != "0" || f.Succeeded.String() != "1" {
			t.Fatalf("failed %q succeeded %q", f.Failed.String(), f.Succeeded.String())
		}
		wantDecision(t, f, Fail, batchv1.JobReasonFailedIndexes)
	})
	t.Run("job failed due to exceeding max failed indexes", func(t *testing.T) {
		job := indexedJob(4, 4).backoff(math.MaxInt32).perIndex(1).maxFailed(1)
		f := eval(job,
			pod("a", 0).phase(corev1.PodFailed).count(1).tracked(),
			pod("b", 1).phase(corev1.PodSucceeded).count(0).tracked(),
			pod("c", 2).phase(corev1.PodFailed).count(1).tracked(),
			pod("d", 3).phase(corev1.PodRunning).count(0).tracked())
		// wantStatus: FailedIndexes "0,2", Failed 3 (2 counted here, plus the running pod
		// deleteActivePods kills), MaxFailedIndexesExceeded.
		if f.Failed.String() != "0,2" || f.CountedFailures != 2 || *f.FailedIndexesLeft != 0 {
			t.Fatalf("failed %q counted %d left %d", f.Failed.String(), f.CountedFailures, *f.FailedIndexesLeft)
		}
		wantDecision(t, f, Fail, batchv1.JobReasonMaxFailedIndexesExceeded)
		wantState(t, f, 3, IndexActive)
	})
	t.Run("single failed pod, not counted as the replacement pod creation is delayed", func(t *testing.T) {
		job := indexedJob(2, 2).backoff(math.MaxInt32).perIndex(1)
		f := eval(job, pod("a", 0).phase(corev1.PodFailed).exit(1, t0.Add(-4*time.Second)).count(0).tracked())
		wantState(t, f, 0, IndexBackoff)
		if ix := f.Indexes[0]; !ix.NextAttemptAt.Equal(t0.Add(6*time.Second)) || ix.Backoff != 10*time.Second || *ix.RetriesLeft != 0 || !ix.LastAttempt {
			t.Fatalf("index 0: %+v", ix)
		}
	})
}

// Cases from TestJobBackoffForOnFailure (job_controller_test.go): restarts of pending and
// running pods against backoffLimit (pastBackoffLimitOnFailure).
func TestUpstreamBackoffForOnFailure(t *testing.T) {
	for _, tc := range []struct {
		name         string
		backoffLimit int32
		restarts     int32
		phase        corev1.PodPhase
		fail         bool
	}{
		{"backoffLimit 0 should have 1 pod active", 0, 0, corev1.PodRunning, false},
		{"backoffLimit 1 with restartCount 0 should have 1 pod active", 1, 0, corev1.PodRunning, false},
		{"backoffLimit 1 with restartCount 1 and podRunning should have 0 pod active", 1, 1, corev1.PodRunning, true},
		{"backoffLimit 1 with restartCount 1 and podPending should have 0 pod active", 1, 1, corev1.PodPending, true},
		{"too many job failures with podRunning - single pod", 2, 2, corev1.PodRunning, true},
		{"backoffLimit 0 with one restart (case 3 of issue 10)", 0, 1, corev1.PodRunning, true},
		{"restarts of a succeeded pod do not count", 1, 3, corev1.PodSucceeded, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := indexedJob(5, 1).backoff(tc.backoffLimit).onFailure()
			f := eval(job, pod("a", 0).phase(tc.phase).restarts(tc.restarts).tracked())
			if got := f.Decision.Kind == Fail; got != tc.fail {
				t.Fatalf("fail = %v, want %v (%+v, restarts %d left %d)", got, tc.fail, f.Decision, f.Restarts, f.RestartsLeft)
			}
		})
	}
	// Case 3: with backoffLimit 4 and 3 restarts one more restart fails the Job.
	f := eval(indexedJob(5, 2).backoff(4).onFailure(), pod("a", 0).phase(corev1.PodRunning).restarts(2).tracked(), pod("b", 1).phase(corev1.PodPending).restarts(1).tracked())
	if f.Restarts != 3 || f.RestartsLeft != 1 || f.FailuresLeft != 5 {
		t.Fatalf("restarts %d left %d failures left %d", f.Restarts, f.RestartsLeft, f.FailuresLeft)
	}
	if s := SpecOf(indexedJob(5, 2).backoff(0).onFailure().Job); s.RestartsToFail() != 1 || s.FailuresToFail() != 1 {
		t.Fatalf("backoffLimit 0: restarts to fail %d failures to fail %d", s.RestartsToFail(), s.FailuresToFail())
	}
}

// Case 1 of issue 10: failed indexes do not rule success out while a success policy can still
// be met: syncJob fails the Job for FailedIndexes only once failed + succeeded >= completions
// (job_controller.go, syncJob), and evaluates matchSuccessPolicy before that.
func TestCanSucceedWithSuccessPolicy(t *testing.T) {
	rule := func(ix string, count int32) batchv1.SuccessPolicyRule {
		r := batchv1.SuccessPolicyRule{}
		if ix != "" {
			r.SucceededIndexes = ptr.To(ix)
		}
		if count > 0 {
			r.SucceededCount = ptr.To(count)
		}
		return r
	}
	for _, tc := range []struct {
		name string
		rule batchv1.SuccessPolicyRule
		want bool
	}{
		{"count 2 of 4 with one failed", rule("", 2), true},
		{"count 3 of 4 with one failed: the third success completes every index", rule("", 3), false},
		{"indexes 1-2 without the failed index", rule("1-2", 0), true},
		{"indexes 0-1 contain the failed index", rule("0-1", 0), false},
		{"one of indexes 0-1", rule("0-1", 1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := indexedJob(4, 4).perIndex(0).success(tc.rule)
			f := eval(job, pod("a", 0).phase(corev1.PodFailed).count(0).tracked(), pod("b", 1).phase(corev1.PodRunning).tracked())
			if f.Failed.String() != "0" {
				t.Fatalf("failed %q", f.Failed.String())
			}
			wantDecision(t, f, Continue, "")
			if f.CanSucceed != tc.want {
				t.Fatalf("CanSucceed = %v, want %v", f.CanSucceed, tc.want)
			}
		})
	}
	// TestSyncJobWithJobSuccessPolicy: the success policy is met once index 1 succeeds.
	job := indexedJob(4, 4).perIndex(0).success(rule("", 1))
	f := eval(job, pod("a", 0).phase(corev1.PodFailed).count(0).tracked(), pod("b", 1).phase(corev1.PodSucceeded).tracked())
	wantDecision(t, f, Succeed, batchv1.JobReasonSuccessPolicy)
	if !f.CanSucceed {
		t.Fatal("a succeeding Job can succeed")
	}
	// Without a success policy a failed index rules success out.
	f = eval(indexedJob(4, 4).perIndex(0), pod("a", 0).phase(corev1.PodFailed).count(0).tracked())
	if f.CanSucceed {
		t.Fatal("without a success policy a failed index rules success out")
	}
}

// Cases 2 and 5 of issue 10: under TerminatingOrFailed a pod being deleted is failed at once
// (isPodFailed); on its index's last attempt the index fails (isIndexFailed via
// calculateFailedIndexes), otherwise the replacement waits for the per-index backoff measured
// from deletionTimestamp minus the grace period (getFinishedTime, getRemainingTimePerIndex).
func TestDeletedPodUnderTerminatingOrFailed(t *testing.T) {
	del := t0.Add(-5 * time.Second) // deleted 5s ago with 30s grace: finished 35s ago
	job := indexedJob(3, 3).perIndex(1).maxFailed(0)
	f := eval(job,
		pod("last", 0).phase(corev1.PodRunning).count(1).tracked().deleted(del.Add(30*time.Second), 30),
		pod("first", 1).phase(corev1.PodRunning).count(0).tracked().deleted(t0.Add(25*time.Second), 30),
		pod("ok", 2).phase(corev1.PodRunning).tracked())
	wantState(t, f, 0, IndexFailed)
	wantState(t, f, 1, IndexNoResult) // the Job fails: nothing is retried
	if f.Failed.String() != "0" || f.CountedFailures != 2 {
		t.Fatalf("failed %q counted %d", f.Failed.String(), f.CountedFailures)
	}
	// It counts toward maxFailedIndexes: 0 allowed, 1 failed.
	wantDecision(t, f, Fail, batchv1.JobReasonMaxFailedIndexesExceeded)
	job = indexedJob(3, 3).perIndex(1)
	f = eval(job,
		pod("last", 0).phase(corev1.PodRunning).count(1).tracked().deleted(del.Add(30*time.Second), 30),
		pod("first", 1).phase(corev1.PodRunning).count(0).tracked().deleted(t0.Add(25*time.Second), 30))
	wantDecision(t, f, Continue, "")
	if ix := f.Indexes[1]; ix.State != IndexBackoff || !ix.NextAttemptAt.Equal(t0.Add(5*time.Second)) || ix.FailureCount != 1 {
		t.Fatalf("index 1: %+v", ix)
	}
	if ix := f.Indexes[0]; *ix.RetriesLeft != 0 || ix.LastAttempt {
		t.Fatalf("index 0: %+v", ix)
	}
	// Under podReplacementPolicy Failed the same pod is not failed yet and blocks its index.
	f = eval(indexedJob(2, 2).perIndex(1).replacement(batchv1.Failed),
		pod("last", 0).phase(corev1.PodRunning).count(1).tracked().deleted(t0, 30))
	wantState(t, f, 0, IndexTerminating)
	if f.CountedFailures != 0 {
		t.Fatalf("counted %d", f.CountedFailures)
	}
	// Global backoff (no backoffLimitPerIndex): 2 failures since the last success: 20s.
	f = eval(indexedJob(3, 3),
		pod("a", 0).phase(corev1.PodFailed).exit(1, t0.Add(-15*time.Second)),
		pod("b", 1).phase(corev1.PodRunning).tracked().deleted(t0.Add(25*time.Second), 30))
	if f.Global == nil || f.Global.Failures != 2 || f.Global.Delay != 20*time.Second || !f.Global.Due.Equal(t0.Add(15*time.Second)) {
		t.Fatalf("global %+v", f.Global)
	}
	wantState(t, f, 0, IndexBackoff)
	wantState(t, f, 1, IndexBackoff)
	wantState(t, f, 2, IndexBackoff)
	if f.CountedFailures != 1 { // pod a has no finalizer: counted before; b counts next
		t.Fatalf("counted %d", f.CountedFailures)
	}
}

// Case 4 of issue 10: pods the controller deletes itself lose the tracking finalizer first
// (deleteJobPods) and are never counted (getValidPodsWithFilter skips pods without it).
func TestControllerDeletedPodsAreNotCounted(t *testing.T) {
	job := indexedJob(2, 1)
	pods := observe(job, pod("a", 1).phase(corev1.PodRunning).deleted(t0.Add(20*time.Second), 30))
	f := Evaluate(job.Job, pods, t0)
	if f.CountedFailures != 0 || !pods[0].Failed || countsNext(job.Job, &pods[0]) {
		t.Fatalf("counted %d, failed %v, counts next %v", f.CountedFailures, pods[0].Failed, countsNext(job.Job, &pods[0]))
	}
	// The same pod with its finalizer (deleted by someone else) counts at the next sync.
	pods = observe(job, pod("a", 1).phase(corev1.PodRunning).tracked().deleted(t0.Add(20*time.Second), 30))
	if !countsNext(job.Job, &pods[0]) {
		t.Fatal("a tracked failed pod does not count at the next sync")
	}
	job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{Failed: []types.UID{"a"}}
	if countsNext(job.Job, &pods[0]) {
		t.Fatal("a pod in uncountedTerminatedPods counts again")
	}
	// Out-of-range and duplicate pods are deleted, never counted.
	f = eval(indexedJob(2, 2), pod("x", 5).phase(corev1.PodRunning).tracked(), pod("d1", 0).phase(corev1.PodRunning).tracked(), pod("d2", 0).phase(corev1.PodRunning).tracked())
	if f.Duplicates != 1 || f.CountedFailures != 0 {
		t.Fatalf("duplicates %d counted %d", f.Duplicates, f.CountedFailures)
	}
}

// Case 6 of issue 10: a succeeded pod without the tracking finalizer whose index is not in
// status.completedIndexes is not counted (calculateSucceededIndexes needs the finalizer): the
// index runs again. The same for a failed pod under backoffLimitPerIndex: its count is not
// handed on (getPodsWithDelayedDeletionPerIndex needs the finalizer).
func TestForgottenPods(t *testing.T) {
	job := indexedJob(3, 3).status("0", nil, 0)
	f := eval(job, pod("s", 1).phase(corev1.PodSucceeded).exit(0, t0.Add(-time.Hour)), pod("z", 0).phase(corev1.PodSucceeded))
	wantState(t, f, 0, IndexSucceeded)
	wantState(t, f, 1, IndexPending)
	if got := f.Indexes[1].Forgotten; len(got) != 1 || got[0] != "s" {
		t.Fatalf("forgotten %v", got)
	}
	if f.Indexes[0].NotYetRecorded {
		t.Fatal("index 0 is recorded")
	}
	// Tracked, the same pod makes the index Succeeded, not yet recorded.
	f = eval(job, pod("s", 1).phase(corev1.PodSucceeded).tracked())
	if ix := f.Indexes[1]; ix.State != IndexSucceeded || !ix.NotYetRecorded {
		t.Fatalf("index 1: %+v", ix)
	}
	job = indexedJob(2, 2).perIndex(1).status("", ptr.To(""), 1)
	f = eval(job, pod("f", 0).phase(corev1.PodFailed).count(1).exit(1, t0.Add(-time.Hour)))
	wantState(t, f, 0, IndexPending)
	if ix := f.Indexes[0]; ix.FailureCount != 0 || *ix.RetriesLeft != 1 || len(ix.Forgotten) != 1 {
		t.Fatalf("index 0: %+v", ix)
	}
}

// Case 7 of issue 10: calculateFailedIndexes runs while the Job is suspended too: a pod that
// failed on the index's last attempt makes the index Failed, not "retried after resume".
func TestSuspendedJobFailedIndex(t *testing.T) {
	job := indexedJob(3, 3).perIndex(1).suspend()
	f := eval(job, pod("f", 0).phase(corev1.PodFailed).count(1).tracked(), pod("g", 1).phase(corev1.PodFailed).count(0).tracked().exit(1, t0.Add(-time.Hour)))
	wantState(t, f, 0, IndexFailed)
	wantState(t, f, 1, IndexSuspended)
	wantState(t, f, 2, IndexSuspended)
	if f.Failed.String() != "0" || !f.DeadlineAt.IsZero() {
		t.Fatalf("failed %q", f.Failed.String())
	}
	// With every other index succeeded, FailedIndexes fails the suspended Job.
	f = eval(indexedJob(2, 2).perIndex(0).suspend().status("1", ptr.To(""), 0), pod("f", 0).phase(corev1.PodFailed).tracked())
	wantDecision(t, f, Fail, batchv1.JobReasonFailedIndexes)
}

// Case 8 of issue 10: getCompletionIndex reads the annotation only.
func TestCompletionIndexAnnotationOnly(t *testing.T) {
	p := pod("a", 3)
	delete(p.Annotations, batchv1.JobCompletionIndexAnnotation)
	p.Labels = map[string]string{batchv1.JobCompletionIndexAnnotation: "3"}
	if got := CompletionIndex(p.Pod); got != NoIndex {
		t.Fatalf("index from the label: %d", got)
	}
	for v, want := range map[string]int{"2": 2, "-1": NoIndex, "x": NoIndex} {
		p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: v}
		if got := CompletionIndex(p.Pod); got != want {
			t.Fatalf("%q: %d, want %d", v, got, want)
		}
	}
}
