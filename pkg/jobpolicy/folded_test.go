package jobpolicy

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// Folding the settled pods changes nothing EvaluateFolded decides: over random Jobs and pod
// sets, the facts equal Evaluate's with every pod listed (settled ones last, so that ties in
// the per-index counts' latest attempt resolve the same way; Forgotten compared as a set).
func TestEvaluateFoldedEqualsEvaluate(t *testing.T) {
	folds := 0
	for seed := range uint64(20000) {
		job, pods := randomCase(seed)
		r := rand.New(rand.NewPCG(seed, 7))
		obs := observe(job, pods...)
		for k := range obs {
			obs[k].Created = obs[k].Created.Add(time.Duration(r.IntN(3)) * time.Second)
		}
		completions := int(*job.Spec.Completions)
		var listed, settled []Pod
		folded := &Folded{}
		for _, p := range obs {
			if IsSettled(&p) && p.Index != NoIndex && p.Index < completions {
				settled = append(settled, p)
				folded.Fold(&p)
				continue
			}
			listed = append(listed, p)
		}
		folds += len(settled)
		want := Evaluate(job.Job, append(slices.Clone(listed), settled...), t0)
		got := EvaluateFolded(job.Job, listed, folded, t0)
		for _, f := range []*Facts{want, got} {
			for k := range f.Indexes {
				slices.Sort(f.Indexes[k].Forgotten)
			}
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("seed %d: folded facts differ\nwant %+v\ngot  %+v", seed, want, got)
		}
	}
	if folds == 0 {
		t.Fatal("no settled pod was folded: the test does not exercise folding")
	}
}
