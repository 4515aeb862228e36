package lineage

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

func retryJob(ann map[string]string, completions int32) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "r", Annotations: ann}, Spec: batchv1.JobSpec{Completions: &completions}}
}

func TestReadWriteRoundTrip(t *testing.T) {
	l := &Lineage{RootJob: "seed", RootJobUID: "u0", ParentJob: "seed-r1", ParentJobUID: "u1", Attempt: 2, Original: indexes.Of(2, 4, 10, 11, 12)}
	got, ok, err := Read(retryJob(l.Annotations(), 5))
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if got.RootJob != l.RootJob || got.RootJobUID != l.RootJobUID || got.ParentJob != l.ParentJob || got.ParentJobUID != l.ParentJobUID || got.Attempt != 2 || !got.Original.Equal(l.Original) {
		t.Errorf("got %+v", got)
	}
	if l.Annotations()[shards.AnnotationOriginalIndexes] != "2,4,10-12" {
		t.Errorf("original-indexes %q", l.Annotations()[shards.AnnotationOriginalIndexes])
	}
	if _, ok, err := Read(retryJob(nil, 3)); ok || err != nil {
		t.Errorf("a root Job: ok %v err %v", ok, err)
	}
}

func TestReadRejects(t *testing.T) {
	base := (&Lineage{RootJob: "seed", RootJobUID: "u0", ParentJob: "seed", ParentJobUID: "u0", Attempt: 1, Original: indexes.Of(2, 4)}).Annotations()
	for _, tc := range []struct {
		key, value, want string
		completions      int32
	}{
		{shards.AnnotationRetryAttempt, "0", "not a whole number", 2},
		{shards.AnnotationRetryAttempt, "01", "not a whole number", 2},
		{shards.AnnotationRetryAttempt, "x", "not a whole number", 2},
		{shards.AnnotationOriginalIndexes, "4,2", "original-indexes", 2},
		{shards.AnnotationOriginalIndexes, "-1", "original-indexes", 2},
		{shards.AnnotationOriginalIndexes, "2,4", "2 indexes but the Job has 3", 3},
		{shards.AnnotationParentJobUID, "", "but not " + shards.AnnotationParentJobUID, 2},
	} {
		a := map[string]string{}
		for k, v := range base {
			a[k] = v
		}
		a[tc.key] = tc.value
		if _, ok, err := Read(retryJob(a, tc.completions)); !ok || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%q: ok %v err %v, want %q", tc.key, tc.value, ok, err, tc.want)
		}
	}
}

func TestComposeAndRootIndex(t *testing.T) {
	// seed ran 6 indexes; r1 ran root 2,4; r1's index 0 failed: r2 runs root 2.
	r1 := &Lineage{Original: indexes.Of(2, 4)}
	got, err := Compose(r1, 2, indexes.Of(0))
	if err != nil || got.String() != "2" {
		t.Errorf("compose: %s %v", got, err)
	}
	big := &Lineage{Original: indexes.FromIntervals(indexes.Interval{First: 10, Last: 19}, indexes.Interval{First: 30, Last: 39})}
	got, _ = Compose(big, 20, indexes.Of(0, 9, 10, 19))
	if got.String() != "10,19,30,39" {
		t.Errorf("compose: %s", got)
	}
	if _, err := Compose(big, 20, indexes.Of(20)); err == nil {
		t.Error("out of range accepted")
	}
	if _, err := Compose(nil, 6, indexes.Of(6)); err == nil {
		t.Error("out of range accepted for a root")
	}
	for k, want := range map[int]int{0: 10, 9: 19, 10: 30, 19: 39} {
		if got, ok := big.RootIndex(k); !ok || got != want {
			t.Errorf("RootIndex(%d) = %d %v, want %d", k, got, ok, want)
		}
	}
	if _, ok := big.RootIndex(20); ok {
		t.Error("RootIndex(20) in range")
	}
}

func job(completed, failed string, perIndex bool, cond batchv1.JobConditionType) *batchv1.Job {
	n := int32(6)
	mode := batchv1.IndexedCompletion
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "seed"}, Spec: batchv1.JobSpec{Completions: &n, CompletionMode: &mode}}
	j.Status.CompletedIndexes = completed
	if perIndex {
		one := int32(1)
		j.Spec.BackoffLimitPerIndex = &one
		j.Status.FailedIndexes = &failed
	}
	if cond != "" {
		j.Status.Conditions = []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue}}
	}
	return j
}

func TestSelect(t *testing.T) {
	failedJob := job("0,3", "2,4", true, batchv1.JobFailed)
	for _, tc := range []struct {
		j            *batchv1.Job
		spec         string
		allowRunning bool
		want, err    string
	}{
		{failedJob, "failed", false, "2,4", ""},
		{failedJob, "unfinished", false, "1,5", ""},
		{failedJob, "missing", false, "1,2,4,5", ""},
		{failedJob, "5,1", false, "", "--indexes"},
		{failedJob, "1,5", false, "1,5", ""},
		{job("0-5", "", true, batchv1.JobComplete), "failed", false, "", "nothing to retry"},
		{job("0", "2", true, ""), "failed", false, "", "still running"},
		{job("0", "2", true, ""), "2", true, "2", ""},
		{job("0", "2", true, ""), "2,3", true, "", "index 3 has not failed"},
		{job("0", "", false, batchv1.JobFailed), "failed", false, "", "no backoffLimitPerIndex"},
		{job("0", "", false, batchv1.JobFailed), "missing", false, "1-5", ""},
		{job("0-3", "", true, batchv1.JobComplete), "failed", false, "", "indexes 4,5 are unfinished (killed or never ran): --indexes unfinished"},
	} {
		sel, err := Select(tc.j, tc.spec, tc.allowRunning)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.spec, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.spec, err)
		case sel.Indexes.String() != tc.want:
			t.Errorf("%s: %s, want %s", tc.spec, sel.Indexes, tc.want)
		}
	}
}

// TestStillRunningRefusalCommandsWork: the refusal of a running Job prints commands that
// work when followed: status with the Job's -n, and --allow-running only with the indexes
// that failed for good, never "--indexes - --allow-running" (issue 26 item 9: both failed).
// Fails before the fix.
func TestStillRunningRefusalCommandsWork(t *testing.T) {
	none := job("0", "", true, "")
	none.Namespace = "team a"
	_, err := Select(none, "failed", false)
	if err == nil || !strings.Contains(err.Error(), "kubectl indexed status seed -n 'team a' --watch") ||
		strings.Contains(err.Error(), "--allow-running") || strings.Contains(err.Error(), "--indexes -") {
		t.Errorf("no failed index: %v", err)
	}
	some := job("0", "2,4", true, "")
	some.Namespace = "ns"
	_, err = Select(some, "missing", false)
	if err == nil || !strings.Contains(err.Error(), "kubectl indexed retry seed -n ns --indexes 2,4 --allow-running") {
		t.Errorf("failed indexes: %v", err)
	}
	// A suspended Job never finishes until it is resumed: the refusal says to resume it, not
	// to wait with --watch, which would never end (issue 35, LOW).
	suspended := job("0", "", true, "")
	suspended.Namespace = "ns"
	suspended.Spec.Suspend = new(true)
	_, err = Select(suspended, "failed", false)
	if err == nil || !strings.Contains(err.Error(), "is suspended") || strings.Contains(err.Error(), "--watch") ||
		!strings.Contains(err.Error(), `kubectl patch job seed -n ns --type=merge -p '{"spec":{"suspend":false}}'`) {
		t.Errorf("suspended: %v", err)
	}
	// The command offered is accepted by Select itself.
	if sel, err := Select(some, "2,4", true); err != nil || sel.Indexes.String() != "2,4" {
		t.Errorf("following it: %v", err)
	}
}
