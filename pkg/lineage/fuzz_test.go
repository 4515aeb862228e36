package lineage

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// FuzzRead feeds arbitrary annotation values to Read: it must never panic, and whatever it
// accepts must be written back by Annotations to values that Read reads to the same lineage.
// When from is not empty the Job names an index map in a ConfigMap (annotation
// original-indexes-from) holding mapText in data, or mapBin in binaryData: Resolve must never
// panic either, and a map it accepts must have one root index per completion.
func FuzzRead(f *testing.F) {
	f.Add("seed", "u", "seed", "u", "1", "2,4", int32(2), "", "", []byte(nil))
	f.Add("seed", "u", "seed-r1", "u1", "2", "0-99999", int32(100000), "", "", []byte(nil))
	f.Add("a", "b", "c", "d", "01", "1-0", int32(0), "", "", []byte(nil))
	f.Add("", "", "", "", "-1", ",", int32(-1), "", "", []byte(nil))
	f.Add("seed", "u", "seed", "u", "1", "", int32(2), "seed-index-map-"+MapHash("2,4")+"/original-indexes", "2,4", []byte(nil))
	f.Add("seed", "u", "seed", "u", "1", "", int32(3), "seed-index-map-0/original-indexes.gz", "", []byte{0x1f, 0x8b, 8, 0})
	f.Add("seed", "u", "seed", "u", "1", "2", int32(1), "x/original-indexes", "2", []byte(nil))
	f.Fuzz(func(t *testing.T, root, rootUID, parent, parentUID, attempt, original string, completions int32, from, mapText string, mapBin []byte) {
		ann := map[string]string{
			shards.AnnotationRootJob: root, shards.AnnotationRootJobUID: rootUID,
			shards.AnnotationParentJob: parent, shards.AnnotationParentJobUID: parentUID,
			shards.AnnotationRetryAttempt: attempt,
		}
		if original != "" || from == "" {
			ann[shards.AnnotationOriginalIndexes] = original
		}
		if from != "" {
			ann[shards.AnnotationOriginalIndexesFrom] = from
		}
		job := retryJob(ann, completions)
		l, ok, err := Read(job)
		if !ok {
			t.Fatal("a Job with root-job is a retry")
		}
		if err != nil {
			return
		}
		if l.OriginalFrom != nil {
			if l.Resolved() {
				t.Fatal("a map in a ConfigMap is resolved before it was read")
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: l.OriginalFrom.ConfigMap},
				Data: map[string]string{shards.KeyOriginalIndexes: mapText}, BinaryData: map[string][]byte{shards.KeyOriginalIndexesGzip: mapBin}}
			if err := l.Resolve(job, cm); err != nil {
				if l.Resolved() {
					t.Fatal("resolved after an error")
				}
				return
			}
		}
		if l.Attempt < 1 || l.Original.Len() != int(completions) {
			t.Fatalf("accepted attempt %d, %d indexes for %d completions", l.Attempt, l.Original.Len(), completions)
		}
		back, _, err := Read(retryJob(l.Annotations(), completions))
		if err != nil || back.Attempt != l.Attempt || back.RootJob != l.RootJob {
			t.Fatalf("round trip: %+v, %v", back, err)
		}
		if l.OriginalFrom == nil && back.Original.String() != l.Original.String() {
			t.Fatalf("round trip of the map: %q, %q", back.Original.String(), l.Original.String())
		}
		if l.OriginalFrom != nil && (back.OriginalFrom == nil || *back.OriginalFrom != *l.OriginalFrom) {
			t.Fatalf("round trip of the map's place: %+v", back.OriginalFrom)
		}
		for k := range min(l.Original.Len(), 100) {
			if r, ok := l.RootIndex(k); !ok || !l.Original.Has(r) {
				t.Fatalf("RootIndex(%d) = %d %v", k, r, ok)
			}
		}
	})
}
