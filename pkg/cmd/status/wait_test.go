package status

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// completeJob is j as the controller leaves it when every index succeeded.
func completeJob(j *batchv1.Job, rv string) *batchv1.Job {
	c := j.DeepCopy()
	c.ResourceVersion = rv
	c.Status.CompletedIndexes, c.Status.Succeeded, c.Status.Active, c.Status.Failed = "0-3", 4, 0, 0
	for _, ct := range []batchv1.JobConditionType{batchv1.JobSuccessCriteriaMet, batchv1.JobComplete} {
		c.Status.Conditions = append(c.Status.Conditions, batchv1.JobCondition{Type: ct, Status: corev1.ConditionTrue, Reason: "CompletionsReached", Message: "Reached expected number of succeeded pods"})
	}
	return c
}

// incompleteJob is j completed through a success policy with index 3 missing.
func incompleteJob(j *batchv1.Job, rv string) *batchv1.Job {
	c := completeJob(j, rv)
	c.Status.CompletedIndexes, c.Status.Succeeded = "0-2", 3
	for i := range c.Status.Conditions {
		c.Status.Conditions[i].Reason, c.Status.Conditions[i].Message = "SuccessPolicy", "Matched rules at index 0"
	}
	return c
}

// --wait prints nothing while the Job runs, the final report once when it finishes, and exits
// 0 complete, 1 failed, 1 complete with indexes missing.
func TestWaitPrintsTheFinalReportOnce(t *testing.T) {
	for _, c := range []struct {
		name   string
		final  func(*batchv1.Job, string) *batchv1.Job
		code   int
		phrase string
	}{
		{"complete", completeJob, exitcode.OK, "Complete"},
		{"failed", failedJob, exitcode.Findings, "Failed"},
		{"incomplete", incompleteJob, exitcode.Findings, "NOT complete"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, pods := watched()
			client := clientFor(j, pods)
			ws := newWatchServer(client)
			done := make(chan result, 1)
			go func() { done <- run(t, client, "", "run", "--wait") }()
			jw := ws.await(t, "jobs", 1)
			ws.await(t, "pods", 1)
			more := j.DeepCopy()
			more.ResourceVersion = "11"
			more.Status.CompletedIndexes, more.Status.Succeeded = "0,2", 2
			jw.Modify(more)
			jw.Modify(c.final(j, "12"))
			r := wait(t, done)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d:\n%s\n%s", r.code, c.code, r.out, r.errOut)
			}
			// One report: the text view starts with the Job line once.
			if n := strings.Count(r.out, "Job:          ns/run"); n != 1 || strings.HasPrefix(r.out, "\n") {
				t.Errorf("%d reports printed, want 1:\n%s", n, r.out)
			}
			if !strings.Contains(r.out, c.phrase) {
				t.Errorf("the report lacks %q:\n%s", c.phrase, r.out)
			}
		})
	}
}

func TestWaitNeedsALiveJob(t *testing.T) {
	j, pods := running()
	jobFile, _ := writeObjects(t, j, pods)
	// --lineage --wait is a live wait too (issue 36 item 5: it was refused); --timeout bounds a
	// wait, so it needs one.
	for _, args := range [][]string{{"-f", jobFile, "--wait"}, {"-f", jobFile, "--wait", "--lineage"}, {"run", "--timeout", "5s"}} {
		if r := run(t, clientFor(j, pods), "", args...); r.code != exitcode.Usage || !strings.Contains(r.errOut, "--wait") {
			t.Errorf("%v: exit %d, want 2 naming --wait: %s", args, r.code, r.errOut)
		}
	}
}
