package jobpolicy

import (
	"reflect"
	"testing"
)

// EvaluateSparse gives the same facts as Evaluate, and IndexAt (and FirstPending) the same
// facts of every index as Evaluate's Indexes, on the random Jobs and pods of FuzzFacts (every
// limit, rule action, suspension, success policy, recorded sets).
func TestEvaluateSparseMatchesEvaluate(t *testing.T) {
	for seed := range uint64(5000) {
		job, pods := randomCase(seed)
		obs := observe(job, pods...)
		full := Evaluate(job.Job, obs, t0)
		sparse := EvaluateSparse(job.Job, obs, t0)
		if sparse.Indexes != nil {
			t.Fatalf("seed %d: EvaluateSparse filled Indexes", seed)
		}
		for i := range full.Indexes {
			if got := sparse.IndexAt(i); !reflect.DeepEqual(got, full.Indexes[i]) {
				t.Fatalf("seed %d index %d: IndexAt %+v, Evaluate %+v", seed, i, got, full.Indexes[i])
			}
			if got := full.IndexAt(i); !reflect.DeepEqual(got, full.Indexes[i]) {
				t.Fatalf("seed %d index %d: IndexAt of Evaluate's facts differs", seed, i)
			}
		}
		// FirstPending, which passes over the succeeded and failed sets, gives the n lowest
		// Pending or Backoff indexes of a scan of every index.
		for n := range 4 {
			var want []Index
			for _, ix := range full.Indexes {
				if len(want) < n && (ix.State == IndexPending || ix.State == IndexBackoff) {
					want = append(want, ix)
				}
			}
			for _, f := range []*Facts{full, sparse} {
				if got := f.FirstPending(n); len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d: FirstPending(%d) = %+v, want %+v", seed, n, got, want)
				}
			}
		}
		a, b := *full, *sparse
		a.Indexes, b.Indexes = nil, nil
		a.job, a.sparse = nil, nil
		b.job, b.sparse = nil, nil
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: facts differ:\n full   %+v\n sparse %+v", seed, a, b)
		}
	}
}
