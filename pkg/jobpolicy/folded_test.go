package jobpolicy

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Folding the settled and the untracked terminating pods changes nothing EvaluateFolded
// decides: over random Jobs and pod sets, the facts equal Evaluate's with every pod listed
// (folded ones last, so that ties in the per-index counts' latest attempt resolve the same way;
// Forgotten compared as a set). On top of randomCase, a quarter of the pods are made untracked
// and deleting (pending, running, unknown or terminal), and a third of the Jobs get
// podReplacementPolicy TerminatingOrFailed explicitly, so that deleting pods are failed and
// matched by the rules (Ignore, Count, FailJob, FailIndex), with restarts under OnFailure. A
// third of the folded pods are folded twice, an earlier different copy first (another phase,
// failure count, finish time, a FailJob match, not deleting): the copy must leave no trace.
func TestEvaluateFoldedEqualsEvaluate(t *testing.T) {
	var folds, terminating, failedTerm, restarting, matched, replaceFailed int
	actions := map[batchv1.PodFailurePolicyAction]int{}
	phases := []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodUnknown, corev1.PodFailed, corev1.PodSucceeded}
	for seed := range uint64(20000) {
		job, pods := randomCase(seed)
		r := rand.New(rand.NewPCG(seed, 7))
		if r.IntN(3) == 0 {
			job.Spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		}
		for _, p := range pods {
			if r.IntN(4) == 0 {
				p.Finalizers = nil
				p.Status.Phase = phases[r.IntN(len(phases))]
				if p.DeletionTimestamp == nil {
					p.deleted(t0.Add(time.Duration(r.IntN(40))*time.Second), int64(r.IntN(31)))
				}
			}
		}
		obs := observe(job, pods...)
		for k := range obs {
			obs[k].Created = obs[k].Created.Add(time.Duration(r.IntN(3)) * time.Second)
		}
		completions := int(*job.Spec.Completions)
		var listed, settled []Pod
		folded := &Folded{}
		for k, p := range obs {
			foldable := IsFoldable(&p) && p.Index != NoIndex && p.Index < completions
			if foldable && r.IntN(3) == 0 {
				// An earlier copy of the pod, folded first: Seal keeps the later one.
				q := p
				q.Failed, q.FailureCount, q.Finished, q.Deleting = !q.Failed, q.FailureCount+1, q.Finished.Add(time.Hour), false
				q.Phase = map[bool]corev1.PodPhase{true: corev1.PodFailed, false: corev1.PodSucceeded}[q.Failed]
				if q.Failed {
					q.Match.Action = batchv1.PodFailurePolicyActionFailJob
				}
				if !folded.Fold(&q, uint32(2*k), 0, false) {
					t.Fatalf("seed %d: the earlier copy %+v was not folded", seed, q)
				}
			}
			if foldable && folded.Fold(&p, uint32(2*k+1), 0, false) {
				settled = append(settled, p)
				if p.Terminating() {
					terminating++
					if p.Failed {
						failedTerm++
					}
					if p.Match.Matched() {
						matched++
						actions[p.Match.Action]++
					}
					if p.Restarts > 0 && SpecOf(job.Job).RestartsCount() && (p.Phase == corev1.PodPending || p.Phase == corev1.PodRunning) {
						restarting++
					}
					if OnlyReplaceFailedPods(job.Job) {
						replaceFailed++
					}
				}
				continue
			}
			if foldable {
				t.Fatalf("seed %d: foldable pod %+v not folded", seed, p)
			}
			listed = append(listed, p)
		}
		folds += len(settled)
		// Listed as the report lists them (indexstatus sorts its pods so): by index, then
		// ListOrder, the folded pods among the listed ones.
		order := func(p, q Pod) int {
			return cmp.Or(cmp.Compare(p.Index, q.Index), ListOrder(p.Attempt(), p.Created, p.Name, q.Attempt(), q.Created, q.Name))
		}
		all := append(slices.Clone(listed), settled...)
		slices.SortStableFunc(all, order)
		slices.SortStableFunc(listed, order)
		want := Evaluate(job.Job, all, t0)
		ptrs := make([]*Pod, len(listed))
		for k := range listed {
			ptrs[k] = &listed[k]
		}
		got := EvaluateFolded(job.Job, ptrs, folded, t0)
		for _, f := range []*Facts{want, got} {
			for k := range f.Indexes {
				slices.Sort(f.Indexes[k].Forgotten)
			}
		}
		// A folded time is kept as whole Unix seconds: the same instant, in another location.
		if want.Global != nil && got.Global != nil && want.Global.LastFailure.Equal(got.Global.LastFailure) {
			got.Global.LastFailure = want.Global.LastFailure
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("seed %d: folded facts differ\nwant %+v\ngot  %+v", seed, want, got)
		}
	}
	t.Logf("%d pods folded, %d of them untracked terminating: %d failed (TerminatingOrFailed), %d matched by a rule %v, %d restarting under OnFailure, %d under podReplacementPolicy Failed",
		folds, terminating, failedTerm, matched, actions, restarting, replaceFailed)
	if folds == 0 || terminating == 0 || failedTerm == 0 || restarting == 0 || replaceFailed == 0 || len(actions) < 4 {
		t.Fatal("some kind of folded pod never occurs: the test does not exercise it")
	}
}

// A pod that does not fit the compact record is not folded (the caller keeps it as it is);
// names come back whole across the arena's chunks, after Seal and after more pods are folded.
func TestFoldCompactRecord(t *testing.T) {
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	settled := func(name string, index int) Pod {
		return Pod{Name: name, Index: index, Phase: corev1.PodSucceeded, Created: at, Finished: at.Add(time.Second), Match: Match{Rule: -1}}
	}
	for _, c := range []struct {
		what string
		edit func(*Pod)
		ok   bool
	}{
		{"as the API server writes it", func(*Pod) {}, true},
		{"zero times", func(p *Pod) { p.Created, p.Finished = time.Time{}, time.Time{} }, true},
		{"a name of 255 bytes", func(p *Pod) { p.Name = strings.Repeat("n", 255) }, true},
		{"a name of 256 bytes", func(p *Pod) { p.Name = strings.Repeat("n", 256) }, false},
		{"a fraction of a second", func(p *Pod) { p.Created = p.Created.Add(time.Millisecond) }, false},
		{"a finish before 1970", func(p *Pod) { p.Finished = time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC) }, false},
		{"a finish after 2106", func(p *Pod) { p.Finished = time.Date(2107, 1, 1, 0, 0, 0, 0, time.UTC) }, false},
		{"255 ignored failures", func(p *Pod) { p.IgnoredCount = 255 }, true},
		{"256 ignored failures", func(p *Pod) { p.IgnoredCount = 256 }, false},
		{"still tracked", func(p *Pod) { p.Tracked = true }, false},
		{"terminal and being deleted", func(p *Pod) { p.Deleting = true }, false},
		{"running, untracked, being deleted", func(p *Pod) { p.Phase, p.Deleting, p.Restarts = corev1.PodRunning, true, 3 }, true},
		{"running, not being deleted", func(p *Pod) { p.Phase = corev1.PodRunning }, false},
	} {
		p := settled("p", 3)
		c.edit(&p)
		var f Folded
		if got := f.Fold(&p, 1, 7, true); got != c.ok {
			t.Errorf("%s: Fold = %v, want %v", c.what, got, c.ok)
			continue
		}
		f.Seal()
		if !c.ok {
			if f.Len() != 0 {
				t.Errorf("%s: not folded, but %d pods kept", c.what, f.Len())
			}
			continue
		}
		q := f.Index(3)
		if len(q) != 1 {
			t.Fatalf("%s: %d pods in index 3", c.what, len(q))
		}
		r := &q[0]
		if f.Name(r) != p.Name || !r.Created().Equal(p.Created) || !r.Finished().Equal(p.Finished) || r.IgnoredCount() != p.IgnoredCount ||
			r.Tag != 7 || !r.Marked() || r.Failed() || r.Index() != 3 || r.Created().IsZero() != p.Created.IsZero() {
			t.Errorf("%s: read back %+v (%q), folded %+v", c.what, *r, f.Name(r), p)
		}
	}

	// 3,000 names of 40 bytes fill two chunks of 64 KiB; folding more after a Seal starts
	// another.
	var f Folded
	want := map[int]string{}
	for i := range 3000 {
		p := settled(fmt.Sprintf("%s-%05d", strings.Repeat("x", 34), i), i)
		want[i] = p.Name
		if !f.Fold(&p, uint32(i), 0, false) {
			t.Fatalf("pod %d not folded", i)
		}
		if i == 2000 {
			f.Seal()
		}
	}
	f.Seal()
	if f.Len() != 3000 || len(f.names.done) < 2 {
		t.Fatalf("%d pods in %d chunks, want 3000 in at least 2", f.Len(), len(f.names.done))
	}
	for i, name := range want {
		if p := f.Find(i, name); p == nil || f.Name(p) != name {
			t.Fatalf("index %d: %q not found back", i, name)
		}
	}
}
