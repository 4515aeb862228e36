package htmlreport

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

type clock time.Time

func (c clock) Now() time.Time { return time.Time(c) }

// capture reads a captured fixture (test/fixtures, from the real control plane) and builds its
// report with every index listed, the clock at the Job's last condition.
func capture(t *testing.T, name string) (*batchv1.Job, []corev1.Pod, *indexstatus.IndexedJobStatus) {
	t.Helper()
	dir := filepath.Join("..", "..", "test", "fixtures", name)
	job, err := testutil.ReadJob(filepath.Join(dir, "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	pods, err := source.ReadPods(filepath.Join(dir, "pods.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	now := job.Status.StartTime.Time
	for _, c := range job.Status.Conditions {
		if c.LastTransitionTime.After(now) {
			now = c.LastTransitionTime.Time
		}
	}
	r, err := indexstatus.Build(job, pods, indexstatus.Options{Clock: clock(now.Add(time.Second)), AllIndexes: true})
	if err != nil {
		t.Fatal(err)
	}
	return job, pods, r
}

// TestExcludedByMaxFailedIndexes: the captured max-failed-indexes-exceeded Job (8 indexes,
// backoffLimitPerIndex 0, maxFailedIndexes 1; indexes 2 and 5 exit 1). The expected cells come
// from the controller's rules applied to the Job's own status, not from the report: syncJob
// fails the Job with MaxFailedIndexesExceeded once failedIndexes holds more than
// maxFailedIndexes indexes, and deletes the active pods without adding their indexes to
// failedIndexes, so every index in neither completedIndexes nor failedIndexes never runs to
// the end: the page draws those as excluded, the failed ones as failed.
func TestExcludedByMaxFailedIndexes(t *testing.T) {
	job, _, r := capture(t, "max-failed-indexes-exceeded")
	failed, err := indexes.Parse(*job.Status.FailedIndexes, int(*job.Spec.Completions))
	if err != nil {
		t.Fatal(err)
	}
	completed, err := indexes.Parse(job.Status.CompletedIndexes, int(*job.Spec.Completions))
	if err != nil {
		t.Fatal(err)
	}
	if failed.Len() <= int(*job.Spec.MaxFailedIndexes) {
		t.Fatalf("failedIndexes %q does not exceed maxFailedIndexes %d: not the case this test is about", *job.Status.FailedIndexes, *job.Spec.MaxFailedIndexes)
	}
	reason := ""
	for _, c := range job.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			reason = c.Reason
		}
	}
	if reason != batchv1.JobReasonMaxFailedIndexesExceeded {
		t.Fatalf("the captured Job failed with %q", reason)
	}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	d := pageData(t, b.String())
	got := cellStates(d)
	excludedCells := 0
	for i := range int(*job.Spec.Completions) {
		want := ExcludedState
		switch {
		case failed.Has(i):
			want = string(indexstatus.StateFailed)
		case completed.Has(i):
			want = string(indexstatus.StateSucceeded)
		default:
			excludedCells++
		}
		if got[i] != want {
			t.Errorf("index %d drawn %q, want %q", i, got[i], want)
		}
		// The cell's colour is the state status -o json gives with the Job's reason.
		if js := r.Indexes[i].State; want == ExcludedState && js != indexstatus.StateUnfinished {
			t.Errorf("index %d: -o json says %s, the page draws excluded", i, js)
		}
	}
	if excludedCells != 6 {
		t.Errorf("%d excluded indexes, want the 6 the scenario's killed pods ran", excludedCells)
	}
	page := b.String()
	if !strings.Contains(page, `data-state="`+ExcludedState+`"`) || strings.Contains(page, `data-state="Unfinished"`) {
		t.Error("the legend does not name the excluded state in place of Unfinished")
	}
}

// TestNotExcludedOtherwise: an Unfinished index of a Job that failed for another reason stays
// Unfinished (the captured backoff-limit Job, prepare-db-failed).
func TestNotExcludedOtherwise(t *testing.T) {
	_, _, r := capture(t, "prepare-db-failed")
	if r.Reason == batchv1.JobReasonMaxFailedIndexesExceeded || r.Summary.Unfinished == 0 {
		t.Fatalf("reason %s, %d unfinished: not the case this test is about", r.Reason, r.Summary.Unfinished)
	}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	for i, s := range cellStates(pageData(t, b.String())) {
		if s == ExcludedState {
			t.Errorf("index %d drawn excluded, the Job failed with %s", i, r.Reason)
		}
	}
}

// TestAttemptFacts: a failed index's facts carry its attempt's node, start and finish, as its
// pod says them; the timeline counts each attempt once.
func TestAttemptFacts(t *testing.T) {
	_, pods, r := capture(t, "max-failed-indexes-exceeded")
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	d := pageData(t, b.String())
	found := 0
	for k := 0; k+5 < len(d.Att); k += 6 {
		cell := d.Att[k]
		for _, p := range pods {
			if p.Annotations[batchv1.JobCompletionIndexAnnotation] != strconv.FormatInt(cell, 10) {
				continue
			}
			found++
			var finished time.Time
			for _, c := range p.Status.ContainerStatuses {
				if tt := c.State.Terminated; tt != nil && tt.FinishedAt.After(finished) {
					finished = tt.FinishedAt.Time
				}
			}
			if node := d.Strs[d.Att[k+4]]; node != p.Spec.NodeName || node == "" {
				t.Errorf("index %d: node %q, its pod ran on %q", cell, node, p.Spec.NodeName)
			}
			if start := d.Base + d.Att[k+2]; start != p.Status.StartTime.Unix() {
				t.Errorf("index %d: started %d, its pod %d", cell, start, p.Status.StartTime.Unix())
			}
			if fin := d.Base + d.Att[k+3]; fin != finished.Unix() {
				t.Errorf("index %d: finished %d, its container %d", cell, fin, finished.Unix())
			}
			if o := d.Strs[d.Att[k+5]]; o != "Failed, exit 1 (Error)" {
				t.Errorf("index %d: outcome %q", cell, o)
			}
		}
	}
	if found != 2 {
		t.Errorf("%d attempts with facts matched a pod, want the 2 failed indexes' pods", found)
	}
	tl := d.Timeline
	if tl == nil || tl.Attempts != 2 {
		t.Fatalf("timeline %+v, want 2 attempts", tl)
	}
	sum := func(v []int) (n int) {
		for _, x := range v {
			n += x
		}
		return n
	}
	if sum(tl.Failed) != 2 || sum(tl.Succeeded) != 0 {
		t.Errorf("timeline: %d failed and %d succeeded endings, want 2 and 0", sum(tl.Failed), sum(tl.Succeeded))
	}
}

// TestNoTimesSaysSo: a report without attempt times says so in words, and draws no chart.
func TestNoTimesSaysSo(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, report()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, "No attempt&#39;s times are known") || strings.Contains(page, `<canvas id="timeline"`) {
		t.Error("a report without times does not say so, or draws a chart")
	}
}
