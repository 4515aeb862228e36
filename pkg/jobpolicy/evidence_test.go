package jobpolicy

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// Captures from the real v1.37.2 control plane (test/fixtures, never edited by hand), checked
// against facts written from the controller source: what the controller did there is what the
// model says it does.

const fixturesDir = "../../test/fixtures"

func loadCapture(t *testing.T, name string) (*batchv1.Job, []corev1.Pod) {
	t.Helper()
	dir := filepath.Join(fixturesDir, name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("fixture %s not captured: %v", name, err)
	}
	job, err := testutil.ReadJob(filepath.Join(dir, "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	pods, err := source.ReadPods(filepath.Join(dir, "pods.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return job, pods
}

func observeAll(job *batchv1.Job, pods []corev1.Pod) []Pod {
	out := make([]Pod, len(pods))
	for i := range pods {
		out[i] = ObservePod(job, &pods[i])
	}
	return out
}

func withoutConditions(job *batchv1.Job) *batchv1.Job {
	j := job.DeepCopy()
	j.Status.Conditions = nil
	return j
}

// Case 3: onfailure-restarts, backoffLimit 2, restartPolicy OnFailure. The controller added
// FailureTarget/BackoffLimitExceeded when index 1's container had restarted exactly twice and
// no pod had failed (pastBackoffLimitOnFailure: result >= backoffLimit), so one restart short
// of that, the next restart fails the Job.
func TestCaptureOnFailureRestarts(t *testing.T) {
	job, pods := loadCapture(t, "onfailure-restarts")
	restarts := int32(0)
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			restarts += cs.RestartCount
		}
		if p.Status.Phase == corev1.PodFailed {
			t.Fatalf("pod %s failed on its own", p.Name)
		}
	}
	if restarts != *job.Spec.BackoffLimit {
		t.Fatalf("captured %d restarts, backoffLimit %d", restarts, *job.Spec.BackoffLimit)
	}
	if c := ConditionTrue(job, batchv1.JobFailureTarget); c == nil || c.Reason != batchv1.JobReasonBackoffLimitExceeded {
		t.Fatalf("conditions %v", job.Status.Conditions)
	}
	// The model, on the Job before the controller acted (no condition, no pod counted yet):
	before := withoutConditions(job)
	before.Status.Failed = 0
	for i := range pods {
		pods[i].DeletionTimestamp = nil
	}
	f := Evaluate(before, observeAll(before, pods), pods[0].CreationTimestamp.Time)
	if f.Restarts != 2 || f.RestartsLeft != 0 || f.Decision.Reason != batchv1.JobReasonBackoffLimitExceeded {
		t.Fatalf("restarts %d left %d decision %+v", f.Restarts, f.RestartsLeft, f.Decision)
	}
	for i := range pods {
		for k := range pods[i].Status.ContainerStatuses {
			if pods[i].Status.ContainerStatuses[k].RestartCount > 0 {
				pods[i].Status.ContainerStatuses[k].RestartCount--
			}
		}
	}
	f = Evaluate(before, observeAll(before, pods), pods[0].CreationTimestamp.Time)
	if f.RestartsLeft != 1 || f.Decision.Kind != Continue {
		t.Fatalf("one restart earlier: left %d decision %+v", f.RestartsLeft, f.Decision)
	}
}

// Case 4: pods the controller deletes itself are never counted (deleteJobPods removes the
// tracking finalizer first): after an elastic scale-down (out-of-range index 5), after a
// suspension, after lowering parallelism; whereas the pods killed when a Job fails
// (deleteActivePods keeps the finalizer) are counted.
func TestCaptureControllerDeletedPods(t *testing.T) {
	for _, tc := range []struct {
		name        string
		wantFailed  int32
		wantSettled int // pods being deleted without the tracking finalizer
	}{
		{"elastic-scale-down", 0, 1},
		{"suspended-after-progress", 0, 0},
		{"parallelism-lowered", 0, 2},
		{"prepare-db-terminating", 10, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, pods := loadCapture(t, tc.name)
			if job.Status.Failed != tc.wantFailed {
				t.Fatalf("status.failed %d, want %d", job.Status.Failed, tc.wantFailed)
			}
			obs := observeAll(job, pods)
			settled := 0
			for k := range obs {
				if obs[k].Deleting && obs[k].CountFailed() && !obs[k].Tracked {
					settled++
				}
			}
			if settled != tc.wantSettled {
				t.Fatalf("%d settled pods being deleted, want %d", settled, tc.wantSettled)
			}
			// Nothing the model would count anew: status.failed is the whole count.
			if f := Evaluate(job, obs, job.CreationTimestamp.Time); f.CountedFailures != int64(tc.wantFailed) {
				t.Fatalf("counted failures %d, want %d", f.CountedFailures, tc.wantFailed)
			}
		})
	}
}

// Case 1: success-policy-after-failed-index: the controller completed the Job through its
// success policy with index 0 in failedIndexes.
func TestCaptureSuccessPolicyAfterFailedIndex(t *testing.T) {
	job, pods := loadCapture(t, "success-policy-after-failed-index")
	if c := ConditionTrue(job, batchv1.JobComplete); c == nil || c.Reason != batchv1.JobReasonSuccessPolicy {
		t.Fatalf("conditions %v", job.Status.Conditions)
	}
	if job.Status.FailedIndexes == nil || *job.Status.FailedIndexes != "0" {
		t.Fatalf("failedIndexes %v", job.Status.FailedIndexes)
	}
	// The model at the moment index 0 had failed and nothing had succeeded yet: it can succeed.
	before := withoutConditions(job)
	before.Status.CompletedIndexes = ""
	var running []corev1.Pod
	for _, p := range pods {
		if CompletionIndex(&p) == 0 {
			running = append(running, p)
		}
	}
	f := Evaluate(before, observeAll(before, running), job.CreationTimestamp.Time)
	if f.Failed.String() != "0" || f.Decision.Kind != Continue || !f.CanSucceed {
		t.Fatalf("failed %q decision %+v can succeed %v", f.Failed.String(), f.Decision, f.CanSucceed)
	}
	// And on the capture with the conditions taken away, the model decides SuccessPolicy.
	f = Evaluate(withoutConditions(job), observeAll(job, pods), job.CreationTimestamp.Time)
	if f.Decision.Kind != Succeed || f.Decision.Reason != batchv1.JobReasonSuccessPolicy {
		t.Fatalf("decision %+v", f.Decision)
	}
}

// Cases 2 and 5: deleted-during-retries: index 1's pod deleted on its last attempt is in
// failedIndexes while it still terminates and gets no new pod; index 2's replacement waited
// for the per-index backoff.
func TestCaptureDeletedDuringRetries(t *testing.T) {
	job, pods := loadCapture(t, "deleted-during-retries")
	if job.Status.FailedIndexes == nil || *job.Status.FailedIndexes != "1" {
		t.Fatalf("failedIndexes %v", job.Status.FailedIndexes)
	}
	obs := observeAll(job, pods)
	f := Evaluate(job, obs, job.CreationTimestamp.Time)
	if f.Indexes[1].State != IndexFailed || f.Indexes[2].State != IndexActive || f.Indexes[0].State != IndexActive {
		t.Fatalf("states %+v", f.Indexes)
	}
	// Before the controller recorded it (the status without index 1, the deleted pod still
	// tracked), the model already puts index 1 in the failed indexes.
	before := job.DeepCopy()
	before.Status.FailedIndexes = new(string)
	for i := range pods {
		if CompletionIndex(&pods[i]) == 1 && pods[i].DeletionTimestamp != nil {
			pods[i].Finalizers = append(pods[i].Finalizers, batchv1.JobTrackingFinalizer)
		}
	}
	f = Evaluate(before, observeAll(before, pods), job.CreationTimestamp.Time)
	if f.Failed.String() != "1" || f.Indexes[1].State != IndexFailed || !f.Indexes[1].NotYetRecorded {
		t.Fatalf("before: failed %q index 1 %+v", f.Failed.String(), f.Indexes[1])
	}
}

// Case 6: elastic-scale-up-again: index 4's succeeded pod, without its finalizer and dropped
// from completedIndexes by the scale-down, does not count: the controller ran index 4 again.
func TestCaptureElasticScaleUpAgain(t *testing.T) {
	job, pods := loadCapture(t, "elastic-scale-up-again")
	n := 0
	for _, p := range pods {
		if CompletionIndex(&p) == 4 {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("index 4 has %d pods", n)
	}
	// The model on the pods before the second one existed: index 4 is not succeeded and has a
	// forgotten pod.
	var first []corev1.Pod
	var newest *corev1.Pod
	for i := range pods {
		if CompletionIndex(&pods[i]) == 4 && (newest == nil || pods[i].CreationTimestamp.After(newest.CreationTimestamp.Time)) {
			newest = &pods[i]
		}
	}
	before := job.DeepCopy()
	before.Status.CompletedIndexes = ""
	for i := range pods {
		if &pods[i] != newest {
			first = append(first, pods[i])
		}
	}
	f := Evaluate(before, observeAll(before, first), job.CreationTimestamp.Time)
	if ix := f.Indexes[4]; ix.State == IndexSucceeded || len(ix.Forgotten) != 1 {
		t.Fatalf("index 4 %+v", ix)
	}
}

// Case 7: failed-index-across-suspension: failedIndexes survives the suspension and the resume
// does not start index 0 again; the pods the suspension deleted were not counted.
func TestCaptureFailedIndexAcrossSuspension(t *testing.T) {
	job, pods := loadCapture(t, "failed-index-across-suspension")
	if job.Status.FailedIndexes == nil || *job.Status.FailedIndexes != "0" || job.Status.Failed != 1 {
		t.Fatalf("failedIndexes %v failed %d", job.Status.FailedIndexes, job.Status.Failed)
	}
	f := Evaluate(job, observeAll(job, pods), job.CreationTimestamp.Time)
	if f.Indexes[0].State != IndexFailed || *f.Indexes[0].RetriesLeft != 0 || f.CountedFailures != 1 {
		t.Fatalf("index 0 %+v counted %d", f.Indexes[0], f.CountedFailures)
	}
	// The same Job suspended again: index 0 stays Failed, the others wait for the resume.
	suspended := job.DeepCopy()
	suspended.Spec.Suspend = new(bool)
	*suspended.Spec.Suspend = true
	var failedOnly []corev1.Pod
	for _, p := range pods {
		if CompletionIndex(&p) == 0 {
			failedOnly = append(failedOnly, p)
		}
	}
	f = Evaluate(suspended, observeAll(suspended, failedOnly), job.CreationTimestamp.Time)
	if f.Indexes[0].State != IndexFailed || f.Indexes[1].State != IndexSuspended || f.Indexes[2].State != IndexSuspended {
		t.Fatalf("suspended: %+v", f.Indexes)
	}
}

// Case 5 offline: index 2's replacement in deleted-during-retries was created after the
// per-index backoff (10s for the first failure), counted from the deleted pod's finish time
// (getFinishedTime: deletionTimestamp minus the grace period, or its Ready=False transition).
func TestCaptureReplacementWaitedForBackoff(t *testing.T) {
	job, pods := loadCapture(t, "deleted-during-retries")
	var old, repl *corev1.Pod
	for i := range pods {
		if CompletionIndex(&pods[i]) != 2 {
			continue
		}
		if pods[i].DeletionTimestamp != nil {
			old = &pods[i]
		} else {
			repl = &pods[i]
		}
	}
	if old == nil || repl == nil {
		t.Fatalf("index 2: old %v replacement %v", old != nil, repl != nil)
	}
	o := ObservePod(job, old)
	if !o.Failed || o.Attempt() != 0 {
		t.Fatalf("old pod %+v", o)
	}
	total, _ := Backoff(o.Attempt()+1, o.Finished(), o.Finished())
	if total != 10*time.Second {
		t.Fatalf("backoff %s", total)
	}
	if gap := repl.CreationTimestamp.Sub(o.Finished()); gap < total-time.Second {
		t.Fatalf("replacement created %s after the pod finished, before the %s backoff", gap, total)
	}
	if r := ObservePod(job, repl); r.FailureCount != 1 {
		t.Fatalf("replacement failure count %d", r.FailureCount)
	}
}
