package indexstatus

import (
	"hash/fnv"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// fold keeps, instead of a summary per pod, what the report reads from the settled pods
// (terminal, no tracking finalizer, not being deleted: jobpolicy.IsSettled) of an index: its
// names, in the order the report lists them, jobpolicy's folded facts, and the few summaries the
// words name (the latest failed, succeeded and finished attempt, the latest in list order, the
// latest with a receipt summary). Memory then grows with the indexes and the pod names, not
// with the summaries of every retry.
type fold struct {
	pol     jobpolicy.Folded
	keys    map[uint64]struct{} // FNV-64a of the keys of the folded pods
	indexes map[int]*foldIndex
	n       int

	// Job-wide: the settled pods by outcome, the first listLimit failed ones by index then
	// creation (ownFailureList), and the first that matched a FailJob rule (failJobWords).
	failed, counted, succeeded int
	ownFailed                  []*podSummary
	failJob                    *podSummary
}

// foldIndex holds the summaries of one index's settled pods that the words read.
type foldIndex struct {
	// lastFailed and lastFinished are the latest attempts (laterAttempt, the first in list
	// order on a tie), succeeded and lastListed the last ones in list order, cases the latest
	// with a receipt summary.
	lastFailed, lastFinished, succeeded, lastListed, cases *podSummary
}

// FoldSettled makes the accumulator keep only what the report reads from settled pods
// (terminal, without the tracking finalizer, not being deleted) instead of a summary of each,
// so that memory grows with the indexes, not with the retries. It is for one pass over a pod
// list (the offline report): a settled pod cannot be removed or replaced once added, and a pod
// added again after it was folded is ignored (the first copy is kept). Call it before Add.
func (a *Accumulator) FoldSettled() {
	if a.fold == nil {
		a.fold = &fold{keys: map[uint64]struct{}{}, indexes: map[int]*foldIndex{}}
	}
}

func keyHash(key string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return h.Sum64()
}

// folded reports whether key was folded.
func (f *fold) folded(key string) bool {
	_, ok := f.keys[keyHash(key)]
	return ok
}

// take folds s if it is settled, reporting whether it did.
func (f *fold) take(job *batchv1.Job, key string, s *podSummary) bool {
	if !jobpolicy.IsSettled(&s.Pod) || s.Index >= int(*job.Spec.Completions) {
		return false
	}
	f.keys[keyHash(key)] = struct{}{}
	f.n++
	f.pol.Fold(&s.Pod)
	ix := f.indexes[s.Index]
	if ix == nil {
		ix = &foldIndex{}
		f.indexes[s.Index] = ix
	}
	if s.Failed {
		f.failed++
		if s.CountFailed() {
			f.counted++
		}
		if ix.lastFailed == nil || firstLater(s, ix.lastFailed) {
			ix.lastFailed = s
		}
		f.addOwnFailed(s)
		if f.failJob == nil && s.Match.Action == batchv1.PodFailurePolicyActionFailJob {
			f.failJob = s
		}
	}
	if s.Phase == corev1.PodSucceeded {
		f.succeeded++
		if ix.succeeded == nil || listedAfter(s, ix.succeeded) {
			ix.succeeded = s
		}
	}
	if ix.lastFinished == nil || firstLater(s, ix.lastFinished) {
		ix.lastFinished = s
	}
	if ix.lastListed == nil || listedAfter(s, ix.lastListed) {
		ix.lastListed = s
	}
	if s.cases != nil && (ix.cases == nil || s.Attempt() > ix.cases.Attempt() || s.Attempt() == ix.cases.Attempt() && s.Created.After(ix.cases.Created)) {
		ix.cases = s
	}
	return true
}

// addOwnFailed keeps the first listLimit failed pods by index then creation.
func (f *fold) addOwnFailed(s *podSummary) {
	before := func(p, q *podSummary) bool {
		if p.Index != q.Index {
			return p.Index < q.Index
		}
		return p.Created.Before(q.Created)
	}
	k := len(f.ownFailed)
	for k > 0 && before(s, f.ownFailed[k-1]) {
		k--
	}
	if k >= listLimit {
		return
	}
	f.ownFailed = append(f.ownFailed, nil)
	copy(f.ownFailed[k+1:], f.ownFailed[k:])
	f.ownFailed[k] = s
	if len(f.ownFailed) > listLimit {
		f.ownFailed = f.ownFailed[:listLimit]
	}
}

// reps are the distinct summaries kept for index i.
func (f *fold) reps(i int) []*podSummary {
	ix := f.indexes[i]
	if ix == nil {
		return nil
	}
	var out []*podSummary
	for _, p := range []*podSummary{ix.lastFailed, ix.lastFinished, ix.succeeded, ix.lastListed} {
		if p != nil && !containsPod(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func containsPod(ps []*podSummary, p *podSummary) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// listOrder is the order the report lists an index's pods in: attempt, creation, name.
func listOrder(pa, qa int32, pc, qc time.Time, pn, qn string) int {
	switch {
	case pa != qa:
		if pa < qa {
			return -1
		}
		return 1
	case !pc.Equal(qc):
		if pc.Before(qc) {
			return -1
		}
		return 1
	case pn < qn:
		return -1
	case pn > qn:
		return 1
	}
	return 0
}

// listedAfter: p comes after q in list order.
func listedAfter(p, q *podSummary) bool {
	return listOrder(p.Attempt(), q.Attempt(), p.Created, q.Created, p.Name, q.Name) > 0
}

// firstLater: p is the later attempt (laterAttempt), or on a tie comes first in list order, as
// a walk of the index's pods in list order keeping the later attempt picks.
func firstLater(p, q *podSummary) bool {
	if laterAttempt(p, q) {
		return true
	}
	return !laterAttempt(q, p) && listedAfter(q, p)
}

// settled lists index i's settled pods.
func (f *fold) settled(i int) []jobpolicy.FoldedPod {
	if ix := f.pol.Index(i); ix != nil {
		return ix.Pods
	}
	return nil
}

// names lists the names of the index's pods in list order: the summaries in pods (sorted,
// the kept settled ones among them) and every settled pod of the index.
func (f *fold) names(i int, pods []*podSummary) []string {
	settled := f.settled(i)
	if len(settled) == 0 {
		out := make([]string, 0, len(pods))
		for _, p := range pods {
			out = append(out, p.Name)
		}
		return out
	}
	reps := f.reps(i)
	all := make([]jobpolicy.FoldedPod, 0, len(pods)+len(settled)-len(reps))
	for _, p := range pods {
		if !containsPod(reps, p) {
			all = append(all, jobpolicy.FoldedPod{Name: p.Name, Created: p.Created, Attempt: p.Attempt()})
		}
	}
	all = append(all, settled...)
	sort.Slice(all, func(x, y int) bool {
		return listOrder(all[x].Attempt, all[y].Attempt, all[x].Created, all[y].Created, all[x].Name, all[y].Name) < 0
	})
	out := make([]string, len(all))
	for k := range all {
		out[k] = all[k].Name
	}
	return out
}

// hasName returns the index of the settled pod named name.
func (f *fold) hasName(name string) (int, bool) {
	for i := range f.indexes {
		for _, p := range f.settled(i) {
			if p.Name == name {
				return i, true
			}
		}
	}
	return 0, false
}
