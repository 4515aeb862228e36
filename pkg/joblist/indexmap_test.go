package joblist

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
)

// TestRetryWithIndexMapInConfigMap: list needs only the root, parent and attempt of a retry,
// which a Job whose index map is kept in a ConfigMap carries in its annotations: its row is
// nested under its parent, with no error, and no ConfigMap is read.
func TestRetryWithIndexMapInConfigMap(t *testing.T) {
	indexed := batchv1.IndexedCompletion
	mk := func(name string, n int32) batchv1.Job {
		return batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ml", UID: types.UID("uid-" + name)},
			Spec: batchv1.JobSpec{CompletionMode: &indexed, Completions: &n}}
	}
	root, r1 := mk("eval", 6), mk("eval-r1", 2)
	im, err := lineage.NewIndexMap("eval", indexes.Of(2, 4))
	if err != nil {
		t.Fatal(err)
	}
	l := &lineage.Lineage{RootJob: "eval", RootJobUID: "uid-eval", ParentJob: "eval", ParentJobUID: "uid-eval", Attempt: 1, OriginalFrom: &im.Ref}
	r1.Annotations, r1.Labels = l.Annotations(), l.Labels()
	got := Build([]batchv1.Job{root, r1}, nil, nil)
	if len(got.Items) != 2 {
		t.Fatalf("%d rows", len(got.Items))
	}
	row := got.Items[1]
	if row.Name != "eval-r1" || row.Error != "" || row.Root != "eval" || row.Parent != "eval" || row.RetryAttempt != 1 || row.Depth != 1 {
		t.Errorf("row %+v", row)
	}
}
