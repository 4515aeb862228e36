package scaffold

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// retryParent is what create makes for a manifest of n one-case shards, as the API server
// returns it (with a UID).
func retryParent(t *testing.T, n int) *Objects {
	t.Helper()
	cases := make([]string, n)
	for i := range cases {
		cases[i] = fmt.Sprintf("c%06d", i)
	}
	m, _, err := shards.Split(cases, shards.SplitOptions{Name: "eval", Revision: "1", Shards: n})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Build(Options{Manifest: m, JobName: "eval", Namespace: "ml", Image: "registry.example/eval:1"})
	if err != nil {
		t.Fatal(err)
	}
	objs.Job.UID = "uid-eval"
	return objs
}

func buildRetryOf(t *testing.T, parent *Objects, chosen indexes.Set, placement IndexMapPlacement) (*Objects, error) {
	t.Helper()
	l := &lineage.Lineage{RootJob: "eval", RootJobUID: "uid-eval", ParentJob: "eval", ParentJobUID: "uid-eval", Attempt: 1, Original: chosen}
	return BuildRetry(RetryOptions{Parent: parent.Job, ParentConfigMaps: parent.ConfigMaps(), Indexes: chosen, Lineage: l,
		JobName: "eval-r1", Namespace: "ml", IndexMap: placement})
}

// readBack reads the retry Job's lineage as every reader does: the annotation, or the ConfigMap.
func readBack(t *testing.T, objs *Objects) *lineage.Lineage {
	t.Helper()
	l, ok, err := lineage.Read(objs.Job)
	if !ok || err != nil {
		t.Fatalf("read: ok %v err %v", ok, err)
	}
	if err := l.Resolve(objs.Job, objs.IndexMap); err != nil {
		t.Fatal(err)
	}
	return l
}

// everyOther is the set {0, 2, 4, ...} whose interval text is the longest not above limit,
// and the same with one more index (just over).
func everyOther(limit int) (under, over indexes.Set) {
	var b indexes.Builder
	size, i := 0, 0
	for {
		add := len(strconv.Itoa(i))
		if size > 0 {
			add++ // the comma
		}
		if size+add > limit {
			under = b.Set()
			b.Add(i)
			return under, b.Set()
		}
		b.Add(i)
		size += add
		i += 2
	}
}

// TestRetryIndexMapThreshold: at the real limit (128 KiB of intervals), a map just under it is
// written in the annotation and one index more moves it to a ConfigMap of its own, which
// reads back to the same map.
func TestRetryIndexMapThreshold(t *testing.T) {
	under, over := everyOther(lineage.MaxOriginalIndexesBytes)
	if u, o := len(under.String()), len(over.String()); u > lineage.MaxOriginalIndexesBytes || o <= lineage.MaxOriginalIndexesBytes || o-u > 7 {
		t.Fatalf("test sets: %d and %d bytes", u, o)
	}
	parent := retryParent(t, over.Max()+1)

	objs, err := buildRetryOf(t, parent, under, IndexMapAuto)
	if err != nil {
		t.Fatal(err)
	}
	if objs.IndexMap != nil || objs.Job.Annotations[shards.AnnotationOriginalIndexes] != under.String() {
		t.Errorf("just under: index map ConfigMap %v, annotation of %d bytes", objs.IndexMap != nil, len(objs.Job.Annotations[shards.AnnotationOriginalIndexes]))
	}
	if _, ok := objs.Job.Annotations[shards.AnnotationOriginalIndexesFrom]; ok {
		t.Error("just under: original-indexes-from set")
	}
	if l := readBack(t, objs); !l.Original.Equal(under) {
		t.Error("just under: the map read back differs")
	}

	objs, err = buildRetryOf(t, parent, over, IndexMapAuto)
	if err != nil {
		t.Fatal(err)
	}
	cm := objs.IndexMap
	if cm == nil {
		t.Fatal("just over: no index map ConfigMap")
	}
	if _, ok := objs.Job.Annotations[shards.AnnotationOriginalIndexes]; ok {
		t.Error("just over: original-indexes still set")
	}
	wantName := "eval-index-map-" + lineage.MapHash(over.String())
	if got := objs.Job.Annotations[shards.AnnotationOriginalIndexesFrom]; got != wantName+"/"+shards.KeyOriginalIndexes {
		t.Errorf("original-indexes-from = %q", got)
	}
	if cm.Name != wantName || cm.Namespace != "ml" || cm.Immutable == nil || !*cm.Immutable || cm.Data[shards.KeyOriginalIndexes] != over.String() || len(cm.BinaryData) != 0 {
		t.Errorf("index map ConfigMap %s/%s immutable %v, %d bytes", cm.Namespace, cm.Name, cm.Immutable, len(cm.Data[shards.KeyOriginalIndexes]))
	}
	if cm.Labels[shards.LabelRootJob] != "eval" {
		t.Errorf("labels %v", cm.Labels)
	}
	// Sent after the store and before the Job; never mounted by the pods.
	all := objs.ConfigMaps()
	if all[len(all)-1] != cm {
		t.Error("the index map is not among the ConfigMaps sent")
	}
	for _, n := range ShardConfigMapNames(&objs.Job.Spec.Template.Spec) {
		if n == cm.Name {
			t.Error("the pods mount the index map")
		}
	}
	if l := readBack(t, objs); !l.Original.Equal(over) {
		t.Error("just over: the map read back differs")
	}
	// Forced into the annotation, the same map is refused with the way out.
	if _, err := buildRetryOf(t, parent, over, IndexMapAnnotation); err == nil || !strings.Contains(err.Error(), "--index-map=auto") {
		t.Errorf("annotation forced over the limit: %v", err)
	}
	if _, err := buildRetryOf(t, parent, over, "elsewhere"); err == nil {
		t.Error("an unknown placement was accepted")
	}
}

// TestRetryIndexMapGolden pins the objects of a retry whose map is in a ConfigMap, with the
// annotation limit lowered so that the files stay small: "auto" then takes the ConfigMap path
// a large map takes. The content is checked by TestRetryIndexMapThreshold, not taken from here.
func TestRetryIndexMapGolden(t *testing.T) {
	defer func(v int) { annotationMapLimit = v }(annotationMapLimit)
	annotationMapLimit = 8
	parent := retryParent(t, 40)
	chosen := indexes.Of(1, 3, 5, 7, 20, 21, 22, 39)
	objs, err := buildRetryOf(t, parent, chosen, IndexMapAuto)
	if err != nil {
		t.Fatal(err)
	}
	if objs.IndexMap == nil {
		t.Fatal("no index map ConfigMap above the lowered limit")
	}
	testutil.Golden(t, filepath.Join("testdata", "golden", "retry-index-map.yaml"), yamlDocs(t, objs.IndexMap, objs.Job))
	if l := readBack(t, &Objects{Job: objs.Job, IndexMap: objs.IndexMap}); !l.Original.Equal(chosen) {
		t.Errorf("read back %s", l.Original)
	}
}

// TestRetryOfRetryDropsParentMapKey: a retry copies its parent's annotations; a parent whose
// map was in a ConfigMap must not leave original-indexes-from on a retry that writes the
// annotation (a Job with both keys is refused by every reader).
func TestRetryOfRetryDropsParentMapKey(t *testing.T) {
	parent := retryParent(t, 10)
	first, err := buildRetryOf(t, parent, indexes.Of(1, 3, 5), IndexMapConfigMap)
	if err != nil {
		t.Fatal(err)
	}
	r1 := first.Job.DeepCopy()
	r1.UID = "uid-r1"
	pl := readBack(t, first)
	chosen := indexes.Of(0, 2) // of r1: root indexes 1 and 5
	orig, err := lineage.Compose(pl, 3, chosen)
	if err != nil || orig.String() != "1,5" {
		t.Fatalf("compose: %s %v", orig, err)
	}
	l := &lineage.Lineage{RootJob: "eval", RootJobUID: "uid-eval", ParentJob: "eval-r1", ParentJobUID: "uid-r1", Attempt: 2, Original: orig}
	second, err := BuildRetry(RetryOptions{Parent: r1, ParentConfigMaps: first.ConfigMaps()[:1], Indexes: chosen, Lineage: l, JobName: "eval-r2", Namespace: "ml"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := second.Job.Annotations[shards.AnnotationOriginalIndexesFrom]; ok || second.IndexMap != nil {
		t.Errorf("r2 annotations %v", second.Job.Annotations)
	}
	if got := readBack(t, second); got.Original.String() != "1,5" {
		t.Errorf("r2 runs %s", got.Original)
	}
}

// TestScaleBudget: a retry's maxFailedIndexes keeps the parent's share rounded up, so a small
// retry of a Job with a budget keeps at least 1 (floor rounding gave 0: its first failure
// stopped every other shard), and a parent's 0 stays 0.
func TestScaleBudget(t *testing.T) {
	for _, tc := range []struct {
		parentMax   int32
		pn, n, want int
	}{
		{2, 100, 3, 1},  // floor gave 0
		{3, 6, 2, 1},    // the seed: 3 of 6, retry of 2
		{50, 100, 3, 2}, // 1.5 rounds up
		{0, 100, 50, 0}, // stop at the first failure stays so
		{10, 10, 4, 4},  // every index may fail: never more than n
		{1, 100000, 1, 1},
	} {
		if got := ScaleBudget(tc.parentMax, tc.pn, tc.n); int(got) != tc.want {
			t.Errorf("ScaleBudget(%d, %d, %d) = %d, want %d", tc.parentMax, tc.pn, tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		b    Budget
		n    int
		want string
	}{
		{Budget{Percent: true, Value: 10}, 3, "1"},
		{Budget{Percent: true, Value: 50}, 1, "1"},
		{Budget{Percent: true, Value: 0}, 5, "0"},
		{Budget{Value: 2}, 5, "2"},
		{Budget{Unlimited: true}, 5, "none"},
	} {
		if got := intOrNone(RetryBudget(tc.b, tc.n)); got != tc.want {
			t.Errorf("RetryBudget(%s, %d) = %s, want %s", tc.b, tc.n, got, tc.want)
		}
	}
}
