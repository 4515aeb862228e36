package joblist

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
)

// Issue 35 (LOW): a retry is nested under the Job of its root's name only when that Job is its
// root by UID (lineage.RunOf, the rule status --lineage and reconcile use): a Job made again
// under the root's name after the root was deleted is another run, and the old retry is listed
// on its own. Before, list nested it under the new Job.
func TestRetryNotNestedUnderAJobThatTookTheRootsName(t *testing.T) {
	indexed := batchv1.IndexedCompletion
	mk := func(name, uid string, n int32) batchv1.Job {
		return batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ml", UID: types.UID(uid)},
			Spec: batchv1.JobSpec{CompletionMode: &indexed, Completions: &n}}
	}
	r1 := mk("lr-r1", "uid-r1", 2)
	l := &lineage.Lineage{RootJob: "lr", RootJobUID: "uid-old-lr", ParentJob: "lr", ParentJobUID: "uid-old-lr", Attempt: 1, Original: indexes.Of(2, 4)}
	r1.Annotations, r1.Labels = l.Annotations(), l.Labels()
	got := Build([]batchv1.Job{mk("lr", "uid-new-lr", 6), r1}, nil, nil)
	if len(got.Items) != 2 || got.Items[1].Name != "lr-r1" || got.Items[1].Depth != 0 {
		t.Errorf("the retry of the old lr nests under the new one: %+v", got.Items)
	}
	// Its own root: nested.
	got = Build([]batchv1.Job{mk("lr", "uid-old-lr", 6), r1}, nil, nil)
	if len(got.Items) != 2 || got.Items[1].Depth != 1 {
		t.Errorf("not nested under its root: %+v", got.Items)
	}
}
