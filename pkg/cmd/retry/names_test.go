package retry

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// A root Job named with a -r<k> suffix (create's examples name a second revision eval-r1) is
// retried as -r<k+1>, and the retry of that retry as -r<k+2>: never seed-r1-r1 (issue 36,
// item 8).
func TestRetryNamesNeverStack(t *testing.T) {
	job, cm, _ := seed(t)
	job.Name = "seed-r1"
	job.Spec.Template.Labels[batchv1.JobNameLabel] = "seed-r1"
	c := fake.NewClientset(job, cm)
	r := run(t, c, "seed-r1")
	if r.code != 0 || !strings.Contains(r.stdout, "job.batch/seed-r2 created") {
		t.Fatalf("retry of root seed-r1: exit %d %q %v", r.code, r.stdout, r.err)
	}
	r2, err := c.BatchV1().Jobs("ml").Get(context.Background(), "seed-r2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r2.UID = "uid-r2"
	finish(r2, "1", "0", batchv1.JobFailed)
	if _, err := c.BatchV1().Jobs("ml").Update(context.Background(), r2, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r = run(t, c, "seed-r2", "--dry-run=client", "-o", "name")
	if r.code != 0 || !strings.Contains(r.stdout, "job.batch/seed-r3") || strings.Contains(r.stdout, "-r2-r") {
		t.Errorf("retry of retry seed-r2: exit %d %q %v", r.code, r.stdout, r.err)
	}
}
