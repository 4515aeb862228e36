package lineage

import (
	"fmt"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// retryJob is a retry of root (through parent) running the root indexes original, in the
// state its status gives: completed and failed are its own completion indexes.
func retryOfJob(name string, root, parent *batchv1.Job, attempt int, original string, completed, failed string, finished bool) *batchv1.Job {
	orig, err := indexes.Parse(original, indexes.Unbounded)
	if err != nil {
		panic(err)
	}
	l := &Lineage{RootJob: root.Name, RootJobUID: string(root.UID), ParentJob: parent.Name, ParentJobUID: string(parent.UID), Attempt: attempt, Original: orig}
	n := int32(orig.Len())
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Annotations: l.Annotations(), Labels: l.Labels()},
		Spec:       batchv1.JobSpec{Completions: &n},
		Status:     batchv1.JobStatus{CompletedIndexes: completed},
	}
	if failed != "" {
		j.Status.FailedIndexes = &failed
	}
	if finished {
		j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue}}
	}
	return j
}

func TestRetriesOf(t *testing.T) {
	n := int32(10)
	root := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", UID: "uid-j"}, Spec: batchv1.JobSpec{Completions: &n}}
	// r1 re-ran root indexes 1,3,7 (its 0,1,2): 1 succeeded, 3 failed, 7 still runs.
	r1 := retryOfJob("j-r1", root, root, 1, "1,3,7", "0", "1", false)
	// r2 re-ran r1's index 1 (root 3), and finished: it failed it.
	r2 := retryOfJob("j-r2", root, r1, 2, "3", "", "", true)
	// A Job of another root of the same name (deleted and made again): left out.
	other := retryOfJob("j-r9", &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", UID: "old"}}, root, 9, "5", "0", "", true)
	jobs := []*batchv1.Job{root, r2, other, r1}

	got := RetriesOf(root, jobs, nil)
	var s []string
	for _, r := range got {
		s = append(s, fmt.Sprintf("%s a%d %s ok=%s bad=%s fin=%v", r.Name, r.Attempt, r.Indexes, r.Succeeded, r.Failed, r.Finished))
	}
	want := []string{"j-r1 a1 1,3,7 ok=1 bad=3 fin=false", "j-r2 a2 3 ok= bad=3 fin=true"}
	if fmt.Sprint(s) != fmt.Sprint(want) {
		t.Errorf("root: %v\nwant %v", s, want)
	}

	// From r1: its own indexes (0,1,2 for root 1,3,7), and only later attempts.
	got = RetriesOf(r1, jobs, nil)
	if len(got) != 1 || got[0].Name != "j-r2" || got[0].Indexes.String() != "1" || got[0].Failed.String() != "1" {
		t.Errorf("from j-r1: %+v", got)
	}
}
