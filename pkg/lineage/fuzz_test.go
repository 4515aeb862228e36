package lineage

import (
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// FuzzRead feeds arbitrary annotation values to Read: it must never panic, and whatever it
// accepts must be written back by Annotations to values that Read reads to the same lineage.
func FuzzRead(f *testing.F) {
	f.Add("seed", "u", "seed", "u", "1", "2,4", int32(2))
	f.Add("seed", "u", "seed-r1", "u1", "2", "0-99999", int32(100000))
	f.Add("a", "b", "c", "d", "01", "1-0", int32(0))
	f.Add("", "", "", "", "-1", ",", int32(-1))
	f.Fuzz(func(t *testing.T, root, rootUID, parent, parentUID, attempt, original string, completions int32) {
		ann := map[string]string{
			shards.AnnotationRootJob: root, shards.AnnotationRootJobUID: rootUID,
			shards.AnnotationParentJob: parent, shards.AnnotationParentJobUID: parentUID,
			shards.AnnotationRetryAttempt: attempt, shards.AnnotationOriginalIndexes: original,
		}
		l, ok, err := Read(retryJob(ann, completions))
		if !ok {
			t.Fatal("a Job with root-job is a retry")
		}
		if err != nil {
			return
		}
		if l.Attempt < 1 || l.Original.Len() != int(completions) {
			t.Fatalf("accepted attempt %d, %d indexes for %d completions", l.Attempt, l.Original.Len(), completions)
		}
		back, _, err := Read(retryJob(l.Annotations(), completions))
		if err != nil || back.Original.String() != l.Original.String() || back.Attempt != l.Attempt || back.RootJob != l.RootJob {
			t.Fatalf("round trip: %+v, %v", back, err)
		}
		for k := range min(l.Original.Len(), 100) {
			if r, ok := l.RootIndex(k); !ok || !l.Original.Has(r) {
				t.Fatalf("RootIndex(%d) = %d %v", k, r, ok)
			}
		}
	})
}
