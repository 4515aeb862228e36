package reconcile

import (
	"encoding/json"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
)

// FuzzReconcile: whatever receipts arrive, in whatever order, every result of the manifest is
// accounted for exactly once (evaluated + infrastructure + missing = results, per shard and in
// all), a shard is complete only when every result was evaluated, and nothing panics.
func FuzzReconcile(f *testing.F) {
	m := manifestFor(f)
	for _, r := range []*receipt.Receipt{rcpt(m, 0, "p0", 1, "a", "b"), rcpt(m, 1, "p1", 2, "c:model", "d:infra"), rcpt(m, 2, "p2", 3, "e", "x")} {
		b, _ := json.Marshal(r)
		f.Add(b, b)
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		rec, err := New(Options{Manifest: m})
		if err != nil {
			t.Fatal(err)
		}
		for i, data := range [][]byte{a, b} {
			r, err := receipt.Parse("f", data)
			if err != nil {
				rec.Reject("f", "", err)
				continue
			}
			if i == 1 {
				// The same receipt for the other shards too, so duplicates and rejections mix.
				for k := range m.Shards {
					c := *r
					c.ShardID = m.Shards[k].ID
					rec.AddReceipt("g", &c)
				}
			}
			rec.AddReceipt("f", r)
		}
		rep := rec.Report()
		c := rep.Coverage
		if c.Evaluated+c.Infrastructure+c.Missing != c.Results || c.Results != 6 || c.Missing < 0 {
			t.Fatalf("coverage does not add up: %+v", c)
		}
		for _, s := range rep.Shards {
			if s.Evaluated+s.Infrastructure+s.Missing != s.Results || s.Evaluated != s.Passed+s.ModelFailures {
				t.Fatalf("shard does not add up: %+v", s)
			}
			if (s.State == StateComplete || s.State == StateFailed) != (s.Evaluated == s.Results) {
				t.Fatalf("state %s with %d/%d", s.State, s.Evaluated, s.Results)
			}
			if s.MissingNamed && len(s.MissingCases) != s.Missing {
				t.Fatalf("%d missing, %d named", s.Missing, len(s.MissingCases))
			}
		}
		if rep.Complete != (c.Evaluated == c.Results) {
			t.Fatalf("complete %v with %+v", rep.Complete, c)
		}
	})
}
