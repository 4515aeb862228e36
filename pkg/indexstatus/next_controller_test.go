package indexstatus

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// A Job with an external spec.managedBy (MultiKueue): syncJob returns before acting
// (job_controller.go: managedByExternalController), so status promises no built-in retry.
func TestNextExternalManagedByPromisesNoRetry(t *testing.T) {
	j := newJob("mk", 3, 3).perIndex(2, nil).status("", ptr.To(""), 0, 1, 2).get()
	j.Spec.ManagedBy = ptr.To("kueue.x-k8s.io/multikueue")
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(1, 2*time.Second).get(),
		newPod(j, 1, 0, 0).running(0).get(),
		newPod(j, 2, 0, 0).running(0).get(),
	}
	r := build(t, j, pods, at(5*time.Second))
	next := strings.Join(r.Next, "\n")
	if strings.Contains(next, "retried") {
		t.Errorf("next promises a retry the built-in controller never makes:\n%s", next)
	}
	wantContains(t, "next", next, `spec.managedBy is "kueue.x-k8s.io/multikueue": the built-in Job controller does not act on this Job`)
	if len(r.NextEntries) == 0 || r.NextEntries[0].Kind != EntryExternalController {
		t.Errorf("entries %+v", r.NextEntries)
	}
}

// A Job suspended by Kueue (label kueue.x-k8s.io/queue-name): Kueue owns spec.suspend; status
// must never tell the user to un-suspend it, and shows how to see its Workload.
func TestNextKueueSuspendedWaitsForAdmission(t *testing.T) {
	j := newJob("kq", 4, 2).suspend().get()
	j.Labels = map[string]string{"kueue.x-k8s.io/queue-name": "team-a"}
	j.UID = "uid-kq"
	r := build(t, j, nil, at(5*time.Second))
	next := strings.Join(r.Next, "\n")
	if strings.Contains(next, "suspend is set to false") || strings.Contains(next, `"suspend":false`) {
		t.Errorf("next advises un-suspending a Kueue Job:\n%s", next)
	}
	wantContains(t, "next", next, "waiting for admission by Kueue (LocalQueue team-a)")
	var e *Entry
	for i := range r.NextEntries {
		if r.NextEntries[i].Kind == EntryAwaitingAdmission {
			e = &r.NextEntries[i]
		}
	}
	if e == nil {
		t.Fatalf("no %s entry in %+v", EntryAwaitingAdmission, r.NextEntries)
	}
	if want := "kubectl get workloads.kueue.x-k8s.io -n ns -l kueue.x-k8s.io/job-uid=uid-kq"; e.Command != want {
		t.Errorf("command %q, want %q", e.Command, want)
	}
}

// status.failed holds no ignored failure (trackJobStatusAndRemoveFinalizers counts only
// failures whose pod failure policy action is not Ignore), so the pods killed are status.failed
// minus the counted failed pods left: 5 - 3 = 2, not 5 - 4 (issue 25, item 8).
func TestKilledPodsLeaveIgnoredFailuresOut(t *testing.T) {
	j := newJob("kw", 6, 6).backoffLimit(2).rule(batchv1.PodFailurePolicyActionIgnore, "", batchv1.PodFailurePolicyOnExitCodesOpIn, 42).
		status("", nil, 0, 5, 0).
		cond(batchv1.JobFailureTarget, "BackoffLimitExceeded", "Job has reached the specified backoff limit", 4*time.Second).
		cond(batchv1.JobFailed, "BackoffLimitExceeded", "Job has reached the specified backoff limit", 5*time.Second).get()
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(1, 2*time.Second).counted().get(),
		newPod(j, 1, 0, 0).exited(1, 3*time.Second).counted().get(),
		newPod(j, 2, 0, 0).exited(1, 4*time.Second).counted().get(),
		newPod(j, 3, 0, 0).exited(42, 2*time.Second).counted().get(),
	}
	r := build(t, j, pods, at(10*time.Second))
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "report", string(js), "status.failed counts 5 failed pods of which 3 are left, so 2 were killed")
}
