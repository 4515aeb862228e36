package gather

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// A pod is another Job's by its controller reference, else by its controller-uid label; the
// error (status -f and retry -f alike) counts them, names the first five and the first owner.
func TestForeignPods(t *testing.T) {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u"}}
	yes := true
	owned := func(name, uid string) *corev1.Pod {
		p := pod(name, corev1.PodFailed)
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "Job", Name: "other", UID: "o", Controller: &yes}}
		p.Labels[batchv1.ControllerUidLabel] = uid
		return &p
	}
	labelled := func(name, uid string) *corev1.Pod {
		p := pod(name, corev1.PodFailed)
		p.Labels[batchv1.ControllerUidLabel] = uid
		return &p
	}
	mine := pod("mine", corev1.PodFailed)
	f := ForeignPods{Job: job}
	f.Check(&mine)
	if err := f.Err(); err != nil {
		t.Fatalf("the Job's own pod: %v", err)
	}
	f.Check(owned("p1", "o"))
	for _, n := range []string{"p2", "p3", "p4", "p5", "p6"} {
		f.Check(labelled(n, "x"))
	}
	err := f.Err()
	want := `6 of the pods given belong to another Job, not to Job "j" (uid u): p1, p2, p3, p4, p5, and 1 more (the first belongs to Job "other"); give only this Job's pods: kubectl get pods -n ns -l batch.kubernetes.io/controller-uid=u -o json`
	if exitcode.Code(err) != exitcode.Usage || err.Error() != want {
		t.Errorf("got %v (exit %d), want %q", err, exitcode.Code(err), want)
	}
	// A Job saved without a UID (a manifest) has no pods of another Job.
	f = ForeignPods{Job: &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}}}
	f.Check(owned("p1", "o"))
	if err := f.Err(); err != nil {
		t.Errorf("a Job without a UID: %v", err)
	}
}
