package retry

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func jobNames(t *testing.T, c *fake.Clientset) string {
	t.Helper()
	list, err := c.BatchV1().Jobs("ml").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, j := range list.Items {
		names = append(names, j.Name)
	}
	return strings.Join(names, ",")
}

// Issue 35 item 6: a retry of a Job create made, run again after it created its Job (cut short,
// or its Job already finished), makes no second retry of the same shards: it says the Job it
// made exists and covers them, prints it unchanged and exits 0, as a plain Job's retry does.
// Before, with seed-r1 finished, it made seed-r2 for the same set.
func TestRetryRunAgainCreatesNoSecondRetry(t *testing.T) {
	job, cm, _ := seed(t)
	c := fake.NewClientset(job, cm)
	if r := run(t, c, "seed"); r.code != 0 {
		t.Fatalf("first retry: exit %d %v", r.code, r.err)
	}
	for _, state := range []string{"running", "finished"} {
		if state == "finished" {
			r1, _ := c.BatchV1().Jobs("ml").Get(context.Background(), "seed-r1", metav1.GetOptions{})
			r1.UID = "uid-r1"
			finish(r1, "0-1", "", batchv1.JobComplete)
			if _, err := c.BatchV1().Jobs("ml").Update(context.Background(), r1, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		r := run(t, c, "seed")
		if r.code != 0 || r.stdout != "job.batch/seed-r1 unchanged\n" || !strings.Contains(r.stderr, `job seed-r1 of job "seed" already exists`) ||
			!strings.Contains(r.stderr, "it covers indexes 2,4") || !strings.Contains(r.stderr, "--force") {
			t.Errorf("%s: exit %d %v\n%s%s", state, r.code, r.err, r.stdout, r.stderr)
		}
		if got := jobNames(t, c); got != "seed,seed-r1" {
			t.Errorf("%s: jobs %s", state, got)
		}
	}
	// Deliberately once more: --force makes the next attempt.
	if r := run(t, c, "seed", "--force", "--dry-run=client", "-o", "name"); r.code != 0 || !strings.Contains(r.stdout, "job.batch/seed-r2") {
		t.Errorf("--force: exit %d %v %s", r.code, r.err, r.stdout)
	}
}

// Issue 35 item 6: shards a later retry already succeeded are not re-run without a word:
// --indexes missing leaves them out (saying so), an explicit list warns, and nothing left is a
// refusal that says how to run them anyway.
func TestRetryLeavesOutSettledShards(t *testing.T) {
	job, cm, _ := seed(t)
	finish(job, "0,1,3", "2,4", batchv1.JobFailed) // index 5 never finished
	c := fake.NewClientset(job, cm)
	if r := run(t, c, "seed"); r.code != 0 {
		t.Fatalf("first retry: exit %d %v", r.code, r.err)
	}
	r1, _ := c.BatchV1().Jobs("ml").Get(context.Background(), "seed-r1", metav1.GetOptions{})
	r1.UID = "uid-r1"
	finish(r1, "0-1", "", batchv1.JobComplete) // shards 2 and 4 succeeded in seed-r1
	if _, err := c.BatchV1().Jobs("ml").Update(context.Background(), r1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r := run(t, c, "seed", "--indexes", "missing", "--dry-run=client", "-o", "jsonpath={.items[-1:].metadata.annotations.indexed\\.kubectl\\.io/original-indexes}")
	if r.code != 0 || r.stdout != "5" || !strings.Contains(r.stderr, `indexes 2,4 of job "seed" already succeeded in its retry seed-r1: left out`) {
		t.Errorf("--indexes missing: exit %d %v %q\n%s", r.code, r.err, r.stdout, r.stderr)
	}
	r = run(t, c, "seed", "--indexes", "2,5", "--dry-run=client", "-o", "name")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: "+`index 2 of job "seed" already succeeded in its retry seed-r1; it runs again as asked`) {
		t.Errorf("--indexes 2,5: exit %d %v\n%s", r.code, r.err, r.stderr)
	}
	// Every index chosen settled (another selection than seed-r1's, which alone would be that
	// retry run again): refused, with the two ways to run them anyway.
	finish(job, "0,1,3,5", "4", batchv1.JobFailed)
	if _, err := c.BatchV1().Jobs("ml").Update(context.Background(), job, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r = run(t, c, "seed")
	if r.code != 2 || !strings.Contains(r.err.Error(), "already succeeded in its retry seed-r1") || !strings.Contains(r.err.Error(), "--indexes 4") || !strings.Contains(r.err.Error(), "--force") {
		t.Errorf("all settled: exit %d %v", r.code, r.err)
	}
	if r := run(t, c, "seed", "--force", "--dry-run=client", "-o", "name"); r.code != 0 || !strings.Contains(r.stderr, "runs again as --force asks") {
		t.Errorf("all settled, --force: exit %d %v\n%s", r.code, r.err, r.stderr)
	}
}
