package simulate

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pods deleted because the success policy was met are not counted as failed
// (job_controller.go: trackJobStatusAndRemoveFinalizers counts killed pods only for a failure),
// and the timeline must not say they are (issue 25, item 7; checked by test/oracle).
func TestSuccessPolicyKilledPodsAreNotCountedAsFailed(t *testing.T) {
	mode := batchv1.IndexedCompletion
	one, two := int32(1), int32(2)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "sp", Namespace: "ns"}, Spec: batchv1.JobSpec{
		CompletionMode: &mode, Completions: &two, Parallelism: &two,
		SuccessPolicy: &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededCount: &one}}},
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: "x"}}}}}}
	out := NewOutcomes()
	if err := out.ParseDuration("1=never"); err != nil {
		t.Fatal(err)
	}
	r, err := Simulate(job, out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Job.Status.Failed != 0 {
		t.Errorf("status.failed %d, want 0", r.Job.Status.Failed)
	}
	killed := 0
	for _, e := range r.Events {
		if e.Type != "PodsKilled" {
			continue
		}
		killed++
		if strings.Contains(e.Message, "count as failed") {
			t.Errorf("event %q says the killed pods count as failed", e.Message)
		}
	}
	if killed != 1 {
		t.Errorf("%d PodsKilled events, want 1 (index 1 runs until the success policy is met)", killed)
	}
}
