package jobpolicy

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Folding the settled pods changes nothing EvaluateFolded decides: over random Jobs and pod
// sets, the facts equal Evaluate's with every pod listed (settled ones last, so that ties in
// the per-index counts' latest attempt resolve the same way; Forgotten compared as a set). A
// third of the settled pods are folded twice, an earlier different copy first (another phase,
// failure count, finish time, a FailJob match): the copy must leave no trace.
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
		for k, p := range obs {
			if IsSettled(&p) && p.Index != NoIndex && p.Index < completions && r.IntN(3) == 0 {
				// An earlier copy of the pod, folded first: Seal keeps the later one.
				q := p
				q.Failed, q.FailureCount, q.Finished = !q.Failed, q.FailureCount+1, q.Finished.Add(time.Hour)
				q.Phase = map[bool]corev1.PodPhase{true: corev1.PodFailed, false: corev1.PodSucceeded}[q.Failed]
				if q.Failed {
					q.Match.Action = batchv1.PodFailurePolicyActionFailJob
				}
				folded.Fold(&q, uint32(2*k), 0, false)
			}
			if IsSettled(&p) && p.Index != NoIndex && p.Index < completions && folded.Fold(&p, uint32(2*k+1), 0, false) {
				settled = append(settled, p)
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
		// A folded time is kept as Unix nanoseconds: the same instant, in another location.
		if want.Global != nil && got.Global != nil && want.Global.LastFailure.Equal(got.Global.LastFailure) {
			got.Global.LastFailure = want.Global.LastFailure
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("seed %d: folded facts differ\nwant %+v\ngot  %+v", seed, want, got)
		}
	}
	if folds == 0 {
		t.Fatal("no settled pod was folded: the test does not exercise folding")
	}
}
