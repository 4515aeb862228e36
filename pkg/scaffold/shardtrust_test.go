package scaffold

import (
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// TestShardsChanged: the stores create and retry write are trusted for their own Jobs; a store
// whose manifest copy, IDs or (without a copy) manifest-hash annotation disagree with the
// Job's manifest hash is not (issue 26, item 5).
func TestShardsChanged(t *testing.T) {
	m, err := shards.Parse("m", []byte("apiVersion: indexed.kubectl.io/v1alpha1\nkind: ShardManifest\nmetadata: {name: m}\nrevision: 1\nshards:\n- {id: a, cases: [c1]}\n- {id: b, cases: [c2]}\n- {id: c, cases: [c3]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Build(Options{Manifest: m, JobName: "j", Namespace: "ns", Image: "w"})
	if err != nil {
		t.Fatal(err)
	}
	root := objs.Job
	root.UID = "root-uid"
	l := &lineage.Lineage{RootJob: "j", RootJobUID: "root-uid", ParentJob: "j", ParentJobUID: "root-uid", Attempt: 1, Original: indexes.Of(2)}
	ro, err := BuildRetry(RetryOptions{Parent: root, ParentConfigMaps: objs.ConfigMaps(), Indexes: indexes.Of(2), Lineage: l, JobName: "j-r1", Namespace: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(cm string) []string {
		if cm == "root" {
			return m.IDs()
		}
		return []string{"c"}
	}
	if why := ShardsChanged(root, objs.ConfigMap, ids("root")); why != "" {
		t.Errorf("create's store: %s", why)
	}
	if why := ShardsChanged(ro.Job, ro.ConfigMap, ids("retry")); why != "" {
		t.Errorf("retry's store: %s", why)
	}
	if why := ShardsChanged(root, objs.ConfigMap, []string{"b", "a", "c"}); !strings.Contains(why, "not those of its manifest copy") {
		t.Errorf("root IDs reordered: %q", why)
	}
	if why := ShardsChanged(ro.Job, ro.ConfigMap, []string{"d"}); !strings.Contains(why, `index 0 shard ID "d"`) {
		t.Errorf("retry ID not in the manifest: %q", why)
	}
	other := root.DeepCopy()
	other.Annotations[shards.AnnotationManifestHash] = "sha256:00"
	if why := ShardsChanged(other, objs.ConfigMap, ids("root")); !strings.Contains(why, "but the Job records sha256:00: it was replaced or changed") {
		t.Errorf("another hash: %q", why)
	}
	bare := objs.ConfigMap.DeepCopy()
	delete(bare.Data, shards.KeyManifest)
	if why := ShardsChanged(root, bare, ids("root")); why != "" {
		t.Errorf("no copy, same annotation: %q", why)
	}
	if why := ShardsChanged(other, bare, ids("root")); !strings.Contains(why, "is annotated with manifest") {
		t.Errorf("no copy, another annotation: %q", why)
	}
	delete(other.Annotations, shards.AnnotationManifestHash)
	if why := ShardsChanged(other, bare, []string{"q"}); why != "" {
		t.Errorf("nothing to check against: %q", why)
	}
}
