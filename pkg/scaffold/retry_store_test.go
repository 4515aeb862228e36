package scaffold

import (
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// Issue 35 item 7: two runs of one manifest (roots s2 and s3) retrying the same shards made
// one store, named from its content alone: s3-r1 mounted the store labelled root-job=s2, which
// the documented selector root-job=s3 missed and deleting s2's run by its label took away.
// Each run now has its own store, labelled for its root; the same retry of one run is still
// one object.
func TestRetryStorePerRun(t *testing.T) {
	parent := retryParent(t, 6)
	chosen := indexes.Of(2, 4)
	store := func(root string) string {
		t.Helper()
		l := &lineage.Lineage{RootJob: root, RootJobUID: "uid-" + root, ParentJob: root, ParentJobUID: "uid-" + root, Attempt: 1, Original: chosen}
		objs, err := BuildRetry(RetryOptions{Parent: parent.Job, ParentConfigMaps: parent.ConfigMaps(), Indexes: chosen, Lineage: l, JobName: root + "-r1", Namespace: "ml"})
		if err != nil {
			t.Fatal(err)
		}
		if got := objs.ConfigMap.Labels[shards.LabelRootJob]; got != root {
			t.Errorf("store of %s labelled root-job=%s", root, got)
		}
		return objs.ConfigMap.Name
	}
	s2, s3 := store("s2"), store("s3")
	if s2 == s3 {
		t.Errorf("runs s2 and s3 share store %s", s2)
	}
	if again := store("s2"); again != s2 {
		t.Errorf("the same retry of s2 made store %s, then %s", s2, again)
	}
}
