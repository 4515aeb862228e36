package indexstatus

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// The eight statements issue 10 found wrong, each against the upstream rule it contradicted
// (pkg/controller/job of Kubernetes v1.37.2).

func nextKinds(r *IndexedJobStatus) map[EntryKind]Entry {
	out := map[EntryKind]Entry{}
	for _, e := range r.NextEntries {
		out[e.Kind] = e
	}
	return out
}

// Case 1: syncJob fails a Job for FailedIndexes only once failed + succeeded indexes reach
// completions (job_controller.go, `jobCtx.failedIndexes.total()+jobCtx.succeededIndexes.total()
// >= int(*job.Spec.Completions)`) and evaluates matchSuccessPolicy before that: with a
// success policy that can still be met the Job can end Complete.
func TestCase1SuccessPolicyWithFailedIndex(t *testing.T) {
	j := newJob("sp", 4, 4).perIndex(0, nil).status("", ptr.To("0"), 0, 1, 3).get()
	j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededCount: ptr.To[int32](2)}}}
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(1, 5*time.Second).counted().get(),
		newPod(j, 1, 0, 0).running(0).get(), newPod(j, 2, 0, 0).running(0).get(), newPod(j, 3, 0, 0).running(0).get(),
	}
	r := build(t, j, pods, at(time.Minute))
	next := strings.Join(r.Next, "\n")
	if strings.Contains(next, "cannot succeed") {
		t.Fatalf("a Job whose success policy can still be met is called lost:\n%s", next)
	}
	if e, ok := nextKinds(r)[EntryCanStillSucceed]; !ok || e.Indexes.String() != "0" {
		t.Fatalf("no CanStillSucceed entry: %+v", r.NextEntries)
	}
	// Without the success policy the same Job cannot succeed.
	j.Spec.SuccessPolicy = nil
	r = build(t, j, pods, at(time.Minute))
	if _, ok := nextKinds(r)[EntryCannotSucceed]; !ok {
		t.Fatalf("no CannotSucceed entry: %+v", r.NextEntries)
	}
}

// Case 2: under the default podReplacementPolicy TerminatingOrFailed a pod being deleted is
// failed at once (isPodFailed); on its index's last attempt isIndexFailed puts the index in
// failedIndexes (calculateFailedIndexes), firstPendingIndexes never starts it again, and it
// counts toward maxFailedIndexes.
func TestCase2DeletedOnLastAttempt(t *testing.T) {
	j := newJob("ev", 3, 3).perIndex(1, ptr.To[int32](1)).status("", ptr.To(""), 0, 1, 3).get()
	pods := []corev1.Pod{
		newPod(j, 0, 1, 0).running(0).deleting(50 * time.Second).get(), // 30s grace: finished at 20s
		newPod(j, 1, 0, 0).running(0).get(),
		newPod(j, 2, 0, 0).running(0).get(),
	}
	r := build(t, j, pods, at(time.Minute))
	st := indexOf(t, r, 0)
	if st.State != StateFailed || *st.RetriesLeft != 0 || strings.Contains(st.Detail, "replaced at once") {
		t.Fatalf("index 0: %s retries %d: %s", st.State, *st.RetriesLeft, st.Detail)
	}
	wantContains(t, "detail", st.Detail, "TerminatingOrFailed", "never started again")
	if e := nextKinds(r)[EntryMaxFailed]; e.Count == nil || *e.Count != 1 {
		t.Fatalf("maxFailedIndexes 1 with 1 failed index: %+v", e)
	}
}

// Case 3: with restartPolicy OnFailure container restarts of pending and running pods count
// against backoffLimit (pastBackoffLimitOnFailure: result >= backoffLimit, > 0 for 0).
func TestCase3OnFailureRestarts(t *testing.T) {
	j := newJob("of", 2, 2).backoffLimit(4).get()
	j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	p0 := newPod(j, 0, 0, 0).running(0).get()
	p0.Status.ContainerStatuses[0].RestartCount = 2
	p1 := newPod(j, 1, 0, 0).running(0).get()
	p1.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init", RestartCount: 1}}
	r := build(t, j, []corev1.Pod{p0, p1}, at(time.Minute))
	e, ok := nextKinds(r)[EntryRestartLimit]
	if !ok || *e.Count != 1 {
		t.Fatalf("3 restarts against backoffLimit 4: %+v", r.NextEntries)
	}
	wantContains(t, "restart entry", e.Text, "The next container restart", "3 restarts so far")
}

// Case 4: pods the controller deletes itself lose the tracking finalizer first (deleteJobPods)
// and are never counted.
func TestCase4ControllerDeletedPod(t *testing.T) {
	j := newJob("pl", 3, 1).status("", nil, 0, 0, 1).get()
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).running(0).get(),
		newPod(j, 1, 0, 0).running(0).deleting(40 * time.Second).counted().get(), // parallelism lowered
	}
	r := build(t, j, pods, at(time.Minute))
	st := indexOf(t, r, 1)
	if strings.Contains(st.Detail, "counts as failed") || st.FailureCount != 0 {
		t.Fatalf("index 1: %s", st.Detail)
	}
	wantContains(t, "detail", st.Detail, "not counted as failed")
}

// Case 5: the replacement of a pod deleted under TerminatingOrFailed waits for the backoff,
// per index from deletionTimestamp minus the grace period (getFinishedTime,
// getRemainingTimePerIndex) or global (backoffRecord.getRemainingTime).
func TestCase5BackoffOfDeletedPod(t *testing.T) {
	j := newJob("bo", 2, 2).perIndex(2, nil).get()
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).running(0).deleting(55 * time.Second).get(), // finished at 25s: due at 35s
		newPod(j, 1, 0, 0).running(0).get(),
	}
	r := build(t, j, pods, at(30*time.Second))
	st := indexOf(t, r, 0)
	if strings.Contains(st.Detail, "at once and") || strings.Contains(st.Detail, "replaced at once") || *st.BackoffRemainingSeconds != 5 {
		t.Fatalf("index 0: %s (remaining %v)", st.Detail, st.BackoffRemainingSeconds)
	}
	wantContains(t, "detail", st.Detail, "counts as failed at once", "the replacement is created in 5s (backoff 10s)")
	if e := nextKinds(r)[EntryRetry]; e.DueAt == nil || !e.DueAt.Equal(t0.Add(35*time.Second)) {
		t.Fatalf("retry entry: %+v", e)
	}
	// Global backoff: one failure since the last success, 10s from the deletion.
	j = newJob("bg", 2, 2).get()
	pods = []corev1.Pod{newPod(j, 0, 0, 0).running(0).deleting(55 * time.Second).get(), newPod(j, 1, 0, 0).running(0).get()}
	r = build(t, j, pods, at(30*time.Second))
	wantContains(t, "detail", indexOf(t, r, 0).Detail, "the replacement is created in about 5s (backoff 10s)")
}

// Case 6: a succeeded pod without the tracking finalizer whose index is not in
// completedIndexes (an elastic scale-down then up) is not counted (calculateSucceededIndexes
// needs hasJobTrackingFinalizer): the index runs again.
func TestCase6SucceededPodWithoutFinalizer(t *testing.T) {
	j := newJob("el", 3, 3).status("0", nil, 1, 0, 1).get()
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(0, 5*time.Second).counted().get(),
		newPod(j, 1, 0, 0).exited(0, 5*time.Second).counted().get(),
		newPod(j, 2, 0, 0).running(0).get(),
	}
	r := build(t, j, pods, at(time.Minute))
	st := indexOf(t, r, 1)
	if st.State == StateSucceeded {
		t.Fatalf("index 1 shown as Succeeded: %s", st.Detail)
	}
	wantContains(t, "detail", st.Detail, "not count it", "runs again")
	if e := nextKinds(r)[EntryRunsAgain]; e.Indexes.String() != "1" {
		t.Fatalf("runs-again entry: %+v", r.NextEntries)
	}
}

// Case 7: calculateFailedIndexes runs while the Job is suspended: a pod that failed with the
// index's budget exhausted fails the index; it is not "retried after the Job resumes".
func TestCase7SuspendedFailedIndex(t *testing.T) {
	j := newJob("su", 3, 3).perIndex(1, nil).suspend().status("", ptr.To(""), 0, 1, 0).get()
	pods := []corev1.Pod{newPod(j, 0, 1, 0).exited(1, 5*time.Second).get()}
	r := build(t, j, pods, at(time.Minute))
	st := indexOf(t, r, 0)
	if st.State != StateFailed || strings.Contains(st.Detail, "retried after the Job resumes") {
		t.Fatalf("index 0: %s: %s", st.State, st.Detail)
	}
	if _, ok := nextKinds(r)[EntryCannotSucceed]; !ok {
		t.Fatalf("no entry for the failed index: %+v", r.NextEntries)
	}
	wantContains(t, "next", strings.Join(r.Next, "\n"), "starts the 2 indexes without a result")
}

// Case 8: getCompletionIndex reads the annotation only: a pod with only the label is not one
// of the Job's indexed pods.
func TestCase8IndexFromAnnotationOnly(t *testing.T) {
	j := newJob("an", 2, 2).get()
	p := newPod(j, 1, 0, 0).running(0).get()
	delete(p.Annotations, batchv1.JobCompletionIndexAnnotation)
	r := build(t, j, []corev1.Pod{p}, at(time.Minute))
	if r.Pods.Ignored != 1 || indexOf(t, r, 1).State != StatePending {
		t.Fatalf("ignored %d, index 1 %s", r.Pods.Ignored, indexOf(t, r, 1).State)
	}
}
