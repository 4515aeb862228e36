package indexstatus

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// What status says about the controller's next sync, against the v1.37.2 Job controller's
// source (k8s.io/kubernetes pkg/controller/job); test/oracle plays each snapshot through the
// controller's own syncJob (TestNextSync*) and checks the same statements. Issue 25, items
// 2, 4, 5, 6 and 9: each test failed before the fix.

// retryEntries are the Retry entries of the report, by index.
func retryEntries(r *IndexedJobStatus) map[string]Entry {
	out := map[string]Entry{}
	for _, e := range r.NextEntries {
		if e.Kind == EntryRetry {
			out[e.Indexes.String()] = e
		}
	}
	return out
}

// Parallelism 1 (lowered), index 0 in a 20 s backoff, index 1 in a 10 s one. manageJob asks
// firstPendingIndexes (indexed_job_utils.go:245-273) for wantActive − active = 1 index, the
// lowest pending one: index 0; getPodCreationInfoForIndependentIndexes (job_controller.go:
// 1970-1990) then requeues after index 0's backoff (job_controller.go:1843-1850). Index 1 is
// not looked at before index 0 runs: no "retried after 5s" for it (issue 25, item 2).
func TestNextRetryWaitsBehindLowerIndexInBackoff(t *testing.T) {
	j := newJob("order", 3, 1).perIndex(3, nil).status("", ptr.To(""), 0, 1, 0).get()
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(1, 2*time.Second).counted().get(),
		newPod(j, 0, 1, 2*time.Second).exited(1, 12*time.Second).get(), // 2nd failure: 20s
		newPod(j, 1, 0, 0).exited(1, 10*time.Second).get(),             // 1st failure: 10s
		newPod(j, 2, 0, 0).exited(0, 3*time.Second).get(),
	}
	r := build(t, j, pods, at(15*time.Second))
	next := strings.Join(r.Next, "\n")
	if strings.Contains(next, "Index 1 will be retried after") || strings.Contains(next, "Index 1 is due") {
		t.Errorf("index 1 is promised a retry while index 0, lower, holds the one free slot:\n%s", next)
	}
	re := retryEntries(r)
	if e, ok := re["0"]; !ok || e.DueAt == nil || !e.DueAt.Equal(t0.Add(32*time.Second)) {
		t.Errorf("index 0's retry entry %+v, want due at +32s", e)
	}
	if e, ok := re["1"]; ok {
		t.Errorf("index 1 has a Retry entry %+v; want %s", e, EntryRetryWaits)
	}
	var waits *Entry
	for k := range r.NextEntries {
		if r.NextEntries[k].Kind == EntryRetryWaits {
			waits = &r.NextEntries[k]
		}
	}
	if waits == nil || waits.Indexes.String() != "1" || waits.DueAt != nil {
		t.Fatalf("no %s entry for index 1 without a due time: %+v", EntryRetryWaits, r.NextEntries)
	}
	wantContains(t, "entry", waits.Text, "Index 1 waits", "lowest pending indexes first", "index 0")
	wantContains(t, "detail", indexOf(t, r, 1).Detail, "waits for a free pod slot")
}

// The same Job with parallelism 2: two slots, both indexes are looked at, and each is
// created once its own backoff has passed.
func TestNextRetryWithSlotsForBoth(t *testing.T) {
	j := newJob("order2", 3, 2).perIndex(3, nil).status("", ptr.To(""), 0, 1, 0).get()
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(1, 2*time.Second).counted().get(),
		newPod(j, 0, 1, 2*time.Second).exited(1, 12*time.Second).get(),
		newPod(j, 1, 0, 0).exited(1, 10*time.Second).get(),
		newPod(j, 2, 0, 0).exited(0, 3*time.Second).get(),
	}
	r := build(t, j, pods, at(15*time.Second))
	re := retryEntries(r)
	if e := re["1"]; e.DueAt == nil || !e.DueAt.Equal(t0.Add(20*time.Second)) {
		t.Errorf("index 1's retry %+v, want due at +20s", e)
	}
	if e := re["0"]; e.DueAt == nil || !e.DueAt.Equal(t0.Add(32*time.Second)) {
		t.Errorf("index 0's retry %+v, want due at +32s", e)
	}
}

// podReplacementPolicy Failed: a pod being deleted keeps its index out of
// firstPendingIndexes only while it is not terminal (controller.FilterTerminatingPods,
// indexed_job_utils.go:252-255); once Failed, the per-index backoff counts from its finish
// (getRemainingTimePerIndex), and canRemoveFinalizer keeps its tracking finalizer until the
// replacement exists (job_controller.go:1461-1476, getPodsWithDelayedDeletionPerIndex
// indexed_job_utils.go:321-346). The replacement never waits for the pod to be "gone"
// (issue 25, item 4).
func TestTerminatingUnderFailedPolicyIsNotWaitingForGone(t *testing.T) {
	j := newJob("rpf", 2, 2).perIndex(2, nil).get()
	j.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).running(0).deleting(5 * time.Second).get(),
		newPod(j, 1, 0, 0).running(0).get(),
	}
	r := build(t, j, pods, at(6*time.Second))
	d := indexOf(t, r, 0).Detail
	if strings.Contains(d, "once it is gone") {
		t.Errorf("detail waits for the pod to be gone: %s", d)
	}
	wantContains(t, "detail", d, "once the pod has terminated", "backoff", "keeps the pod's tracking finalizer until the replacement exists")
}

// A Job being deleted (metadata.deletionTimestamp, foreground deletion): syncJob runs
// manageJob only when job.DeletionTimestamp == nil (job_controller.go:1139), and
// canRemoveFinalizer removes every pod's finalizer (job_controller.go:1462): no retry comes
// (issue 25, item 5).
func TestNextNoRetryWhileJobBeingDeleted(t *testing.T) {
	j := newJob("gone", 2, 2).perIndex(2, nil).status("", ptr.To(""), 0, 0, 1).get()
	j.DeletionTimestamp = &metav1.Time{Time: t0.Add(12 * time.Second)}
	j.Finalizers = []string{"foregroundDeletion"}
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(1, 10*time.Second).get(),
		newPod(j, 1, 0, 0).running(0).get(),
	}
	r := build(t, j, pods, at(13*time.Second))
	next := strings.Join(r.Next, "\n")
	if strings.Contains(next, "retried") || strings.Contains(next, "last attempt") {
		t.Errorf("next predicts retries for a Job being deleted:\n%s", next)
	}
	if len(r.NextEntries) != 1 || r.NextEntries[0].Kind != EntryBeingDeleted {
		t.Fatalf("entries %+v, want one %s", r.NextEntries, EntryBeingDeleted)
	}
	wantContains(t, "next", next, "being deleted", "creates and retries no pod", "tracking finalizers")
	if d := indexOf(t, r, 0).Detail; strings.Contains(d, "replacement is created") {
		t.Errorf("index 0 detail promises a replacement: %s", d)
	}
}

// A pod matched a FailJob rule and the controller has not synced since: no condition yet,
// so the phase is still Running, but the next syncJob sets FailureTarget
// (getFailJobMessage, job_controller.go:1090-1093) and deletes the active pods
// (deleteActivePods, 1125) (issue 25, item 6).
func TestNextFailJobPodNotYetProcessed(t *testing.T) {
	j := newJob("fj", 2, 2).rule(batchv1.PodFailurePolicyActionFailJob, "worker", batchv1.PodFailurePolicyOnExitCodesOpIn, 42).get()
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(42, 3*time.Second).get(),
		newPod(j, 1, 0, 0).running(0).get(),
	}
	r := build(t, j, pods, at(4*time.Second))
	next := strings.Join(r.Next, "\n")
	if len(r.NextEntries) == 0 || r.NextEntries[0].Kind != EntryNextSyncFinishes || r.NextEntries[0].Reason != batchv1.JobReasonPodFailurePolicy {
		t.Fatalf("entries %+v, want %s (PodFailurePolicy) first", r.NextEntries, EntryNextSyncFinishes)
	}
	wantContains(t, "next", next, "next sync fails the Job", "FailJob", "1 running pod")
	wantContains(t, "explanation", r.Explanation, "next sync fails it")
	if strings.Contains(next, "backoffLimit") {
		t.Errorf("next still counts the backoffLimit budget of a Job that fails at its next sync:\n%s", next)
	}
}

// Elastic scale-down to completions 2 with both indexes succeeded and pods of indexes 2 and
// 3 still running: manageJob's wantActive is completions − succeeded = 0, so it deletes
// every active pod (job_controller.go:1781-1806) and returns active 0, and syncJob then
// finds succeeded >= completions && active == 0 (1154): the Job completes (issue 25, item 6).
func TestNextAllSucceededPodsAboveCompletionsComplete(t *testing.T) {
	j := newJob("el", 2, 2).status("0,1", nil, 2, 0, 2).get()
	pods := []corev1.Pod{
		newPod(j, 2, 0, 0).running(0).get(),
		newPod(j, 3, 0, 0).running(0).get(),
	}
	r := build(t, j, pods, at(10*time.Second))
	if len(r.NextEntries) == 0 || r.NextEntries[0].Kind != EntryNextSyncFinishes || r.NextEntries[0].Reason != batchv1.JobReasonCompletionsReached {
		t.Fatalf("entries %+v, want %s (CompletionsReached)", r.NextEntries, EntryNextSyncFinishes)
	}
	wantContains(t, "next", r.NextEntries[0].Text, "deletes the 2 pods still running", "completes")
	wantContains(t, "explanation", r.Explanation, "next sync completes it")
}

// After a suspend and resume under backoffLimitPerIndex: index 0's first pod failed on its
// own and was counted (status.failed 1; its finalizer went once its replacement existed),
// the replacement was deleted by the suspension (deleteJobPods removes the finalizer first:
// never counted) and is gone. No pod with the finalizer hands the count on
// (getValidPodsWithFilter needs the finalizer, job_controller.go:2033), so the index runs
// again with its failure count at 0; but the first failure was counted and stays in
// status.failed: the words must not say it never was (issue 25, item 9).
func TestRunsAgainAfterResumeKeepsCountedFailure(t *testing.T) {
	j := newJob("sr", 2, 2).perIndex(1, nil).status("1", ptr.To(""), 1, 1, 0).
		cond(batchv1.JobSuspended, "JobResumed", "Job resumed", 20*time.Second).get()
	j.Status.Conditions[0].Status = corev1.ConditionFalse
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(1, 3*time.Second).counted().get(),
		newPod(j, 1, 0, 0).exited(0, 4*time.Second).counted().get(),
	}
	r := build(t, j, pods, at(21*time.Second))
	var e *Entry
	for k := range r.NextEntries {
		if r.NextEntries[k].Kind == EntryRunsAgain {
			e = &r.NextEntries[k]
		}
	}
	if e == nil || e.Indexes.String() != "0" {
		t.Fatalf("no RunsAgain entry for index 0: %+v", r.NextEntries)
	}
	for _, wrong := range []string{"before the controller recorded", "not counted"} {
		if strings.Contains(e.Text, wrong) {
			t.Errorf("next says the counted failure was never counted (%q):\n%s", wrong, e.Text)
		}
	}
	wantContains(t, "next", e.Text, "failure count back at 0", "status.failed")
	d := indexOf(t, r, 0).Detail
	if strings.Contains(d, "no longer counts it") {
		t.Errorf("detail says the controller no longer counts a failure status.failed holds: %s", d)
	}
	wantContains(t, "detail", d, "failure count back at 0")
}

// Offline without the pods (status -f job.json): whether pods still run is not known, so no
// statement about what the next sync finishes; with them, the same Job completes at its next
// sync (see TestNextAllSucceededPodsAboveCompletionsComplete).
func TestNextSyncFinishesNeedsThePods(t *testing.T) {
	j := newJob("nopods", 2, 2).status("0,1", nil, 2, 0, 0).get()
	r, err := Build(j, nil, Options{Clock: at(10 * time.Second), AllIndexes: true, PodsNotGiven: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range r.NextEntries {
		if e.Kind == EntryNextSyncFinishes {
			t.Errorf("a report without the pods says what the next sync finishes: %+v", e)
		}
	}
	if strings.Contains(r.Explanation, "next sync") {
		t.Errorf("explanation: %s", r.Explanation)
	}
	if r := build(t, j, nil, at(10*time.Second)); len(r.NextEntries) == 0 || r.NextEntries[0].Kind != EntryNextSyncFinishes {
		t.Errorf("with the pods (none): %+v", r.NextEntries)
	}
}
