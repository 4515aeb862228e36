package indexstatus

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
)

func withMessage(p corev1.Pod, msg string) corev1.Pod {
	p.Status.ContainerStatuses[0].State.Terminated.Message = msg
	return p
}

func summaryMessage(t *testing.T, shard string, completed, infra int) string {
	t.Helper()
	s := &receipt.Summary{APIVersion: receipt.APIVersion, Kind: receipt.SummaryKind, Attempt: receipt.Attempt{
		Manifest: contract.ManifestRef{Name: "m", Revision: "1"}, ShardID: shard, Job: contract.JobRef{Name: "j"}, AttemptID: "a",
		Assigned: receipt.Assigned{Count: 200, Digest: "sha256:" + strings.Repeat("0", 64)}}, Completed: completed}
	s.Failed.Infrastructure = infra
	b, err := receipt.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An index that exited 0 with cases missing from its receipt summary shows its counts and is
// named in the notes; a truncated summary is named as unreadable.
func TestCaseCountsFromTerminationMessages(t *testing.T) {
	job := newJob("j", 3, 3).status("0-2", nil, 3, 0, 0).cond("Complete", "CompletionsReached", "", 10*time.Second).get()
	p0 := withMessage(newPod(job, 0, 0, 0).exited(0, 5*time.Second).counted().get(), summaryMessage(t, "s0", 200, 0))
	p1 := withMessage(newPod(job, 1, 0, 0).exited(0, 5*time.Second).counted().get(), summaryMessage(t, "s1", 198, 2))
	full := summaryMessage(t, "s2", 200, 0)
	p2 := withMessage(newPod(job, 2, 0, 0).exited(0, 5*time.Second).counted().get(), full[:len(full)-30])
	r, err := Build(job, []corev1.Pod{p0, p1, p2}, Options{Clock: at(time.Minute), AllIndexes: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Indexes[0].Cases; c == nil || c.Text != "200/200 cases" || c.Pod != p0.Name {
		t.Errorf("index 0: %+v", c)
	}
	if c := r.Indexes[1].Cases; c == nil || c.Text != "198/200 cases, 2 infrastructure" || c.Infrastructure != 2 || c.ShardID != "s1" {
		t.Errorf("index 1: %+v", c)
	}
	if c := r.Indexes[2].Cases; c == nil || !strings.HasPrefix(c.Problem, "truncated") {
		t.Errorf("index 2: %+v", c)
	}
	notes := strings.Join(r.Notes, "\n")
	if !strings.Contains(notes, "2 indexes left a receipt summary with cases not evaluated: 1 (198/200 cases, 2 infrastructure), 2 (unreadable receipt summary)") {
		t.Errorf("notes:\n%s", notes)
	}
	var b strings.Builder
	if err := PrintText(&b, r, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "CASES") || !strings.Contains(b.String(), "198/200 cases, 2 infrastructure") {
		t.Errorf("wide text:\n%s", b.String())
	}
	// Without summaries nothing changes: no column, no note.
	r, _ = Build(job, []corev1.Pod{newPod(job, 0, 0, 0).exited(0, 5*time.Second).counted().get()}, Options{Clock: at(time.Minute), AllIndexes: true})
	b.Reset()
	_ = PrintText(&b, r, true)
	if strings.Contains(b.String(), "CASES") || r.Indexes[0].Cases != nil {
		t.Errorf("a pod without a summary has case counts:\n%s", b.String())
	}
}
