package indexstatus

import (
	"cmp"
	"math"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// fold keeps the settled pods (terminal, no tracking finalizer, not being deleted:
// jobpolicy.IsSettled) and the untracked terminating ones (not terminal, being deleted, no
// tracking finalizer: jobpolicy.IsUntrackedTerminating) as jobpolicy.FoldedPod records of 28
// bytes plus the name, instead of a summary each. What the words read of such a pod besides its
// name, index, attempt and times (phase, restarts, exit code, reasons, matched rule: its shape)
// is the same for most pods, so each distinct shape is kept once and a record names it by
// number; a word that needs the identity (a terminating pod's name and deletion time) rebuilds
// the pod's summary for that sentence only (summary). Receipt summaries are kept for the pods that
// left one, then (sealForReport) only the one of each index the report shows. Memory then grows with the
// pod names, not with a summary of every pod.
type fold struct {
	pol jobpolicy.Folded
	// seq numbers every pod added, folded or not: the later copy of a pod wins.
	seq uint32
	// shapes are the distinct summaries with the identity left out (shapeOf), by number.
	shapes  []*podSummary
	shapeOf map[shape]uint16
	// cases are the receipt summaries of the folded pods that left one, in seq order (the order
	// take sees them); once sealed for a report, only those AddCaseCounts can read (pruneCases).
	// A list, not a map: at 100,000 pods that left one, a map's entries cost twice as much.
	cases []seqReceipt
	// gone are the names of the pods added as ignored (not the Job's, or without an index),
	// each with the seq of its last such copy: seal drops the folded copies added before it.
	gone map[string]uint32
	// sealed: pol is sealed and the copies of a pod among the kept summaries are resolved.
	sealed bool
}

// FoldSettled makes the accumulator keep settled pods (terminal, without the tracking
// finalizer, not being deleted) and untracked terminating pods (not terminal, being deleted,
// without the tracking finalizer) compactly instead of a summary of each, so that memory grows
// with the pod names, not with a summary of every pod. It is for one pass over a pod list (the
// offline report, or a live report of one LIST): Remove does not reach a folded pod. A pod is identified by its completion
// index and name (a snapshot holds each namespace/name once; the index annotation is set at
// creation), and of several copies of a pod the last one added is kept, folded or not. Call it
// before Add.
func (a *Accumulator) FoldSettled() {
	if a.fold == nil {
		a.fold = &fold{shapeOf: map[shape]uint16{}, gone: map[string]uint32{}}
	}
}

// shape is a summary without what identifies the pod and orders it, its rare words by value
// (each summary has its own pointer to them).
type shape struct {
	s    podSummary
	rare podRare
}

// shapeKey is s's shape.
func shapeKey(s *podSummary) shape {
	k := *s
	k.Name, k.UID, k.Index, k.Created, k.Finished, k.FailureCount, k.IgnoredCount = "", "", 0, time.Time{}, time.Time{}, 0, 0
	k.started, k.cases, k.seq, k.rare = time.Time{}, nil, 0, nil
	return shape{s: k, rare: *s.r()}
}

// take folds s if it is settled or untracked terminating, reporting whether it did.
func (f *fold) take(job *batchv1.Job, s *podSummary) bool {
	if !jobpolicy.IsFoldable(&s.Pod) || s.Index >= int(*job.Spec.Completions) {
		return false
	}
	// The shape is interned only once Fold took the pod: a refused pod leaves no shape.
	k := shapeKey(s)
	tag, ok := f.shapeOf[k]
	if !ok {
		if len(f.shapes) > math.MaxUint16 {
			return false
		}
		tag = uint16(len(f.shapes))
	}
	if !f.pol.Fold(&s.Pod, s.seq, tag, s.cases != nil) {
		return false
	}
	if !ok {
		sh := new(podSummary)
		*sh = k.s
		if k.rare != (podRare{}) {
			rare := k.rare
			sh.rare = &rare
		}
		f.shapes = append(f.shapes, sh)
		f.shapeOf[k] = tag
	}
	if s.cases != nil {
		f.cases = append(f.cases, seqReceipt{s.seq, *s.cases})
	}
	return true
}

// seal drops the earlier copies of a pod: among the folded pods (jobpolicy.Folded.Seal), and
// between the folded pods and the kept summaries (same index and name).
func (a *Accumulator) seal() {
	f := a.fold
	if f == nil || f.sealed {
		return
	}
	f.pol.Seal()
	if len(f.gone) > 0 {
		all := f.pol.All()
		for k := range all {
			if p := &all[k]; f.gone[f.pol.Name(p)] > p.Seq {
				f.pol.Drop(p)
			}
		}
	}
	completions := int(*a.job.Spec.Completions)
	for key, s := range a.pods {
		if s.Index >= completions {
			continue
		}
		if p := f.pol.Find(s.Index, s.Name); p != nil {
			if p.Seq > s.seq {
				delete(a.pods, key)
			} else {
				f.pol.Drop(p)
			}
		}
	}
	f.pol.Seal()
	f.sealed = true
}

// sealForReport seals and then keeps only the receipt summaries the report reads (pruneCases):
// for Report and AddCaseCounts only, so that a pod added after a Len still finds the summaries
// of its index's other pods.
func (a *Accumulator) sealForReport() {
	a.seal()
	if a.fold != nil {
		a.fold.pruneCases()
	}
}

// pruneCases keeps, of each index's folded pods, only the receipt summary AddCaseCounts can
// read: the latest attempt's that left one (by attempt then creation, the first in list order
// on a tie).
func (f *fold) pruneCases() {
	if len(f.cases) == 0 {
		return
	}
	var kept []seqReceipt
	all := f.pol.All()
	var best *jobpolicy.FoldedPod
	keep := func() {
		if best != nil {
			rc, _ := f.receipt(best.Seq)
			kept = append(kept, seqReceipt{best.Seq, *rc})
		}
	}
	for k := range all {
		p := &all[k]
		if best != nil && best.Index() != p.Index() {
			keep()
			best = nil
		}
		if _, ok := f.receipt(p.Seq); !p.Marked() || !ok {
			continue
		}
		if best == nil || p.Attempt() > best.Attempt() || p.Attempt() == best.Attempt() && p.Created().After(best.Created()) {
			best = p
		}
	}
	keep()
	slices.SortFunc(kept, func(x, y seqReceipt) int { return cmp.Compare(x.seq, y.seq) })
	f.cases = kept
}

// seqReceipt is the receipt summary a folded pod left, by the pod's seq.
type seqReceipt struct {
	seq uint32
	rc  receiptCounts
}

// receipt returns the receipt summary the folded pod seq left, if any.
func (f *fold) receipt(seq uint32) (*receiptCounts, bool) {
	k, ok := slices.BinarySearchFunc(f.cases, seq, func(x seqReceipt, s uint32) int { return cmp.Compare(x.seq, s) })
	if !ok {
		return nil, false
	}
	return &f.cases[k].rc, true
}

// shape is the summary of p with its identity left out.
func (f *fold) shape(p *jobpolicy.FoldedPod) *podSummary { return f.shapes[p.Tag] }

// summary rebuilds p's summary (for the few pods a sentence names).
func (f *fold) summary(p *jobpolicy.FoldedPod) *podSummary {
	s := *f.shape(p)
	s.Name, s.Index, s.Created, s.Finished = f.pol.Name(p), p.Index(), p.Created(), p.Finished()
	s.FailureCount, s.IgnoredCount, s.seq = p.FailureCount(), p.IgnoredCount(), p.Seq
	if rc, ok := f.receipt(p.Seq); p.Marked() && ok {
		c := *rc
		s.cases = &c
	}
	return &s
}

// foldCounts are the folded pods by kind: succeeded and failed are settled (phase Succeeded,
// Failed), terminating the others; counted are the failed ones whose failure counts
// (Pod.CountFailed), settled or terminating under TerminatingOrFailed.
type foldCounts struct{ n, succeeded, failed, terminating, counted int }

// counts are the folded pods by kind.
func (f *fold) counts() foldCounts {
	var c foldCounts
	all := f.pol.All()
	for k := range all {
		p := &all[k]
		c.n++
		switch {
		case p.Terminating():
			c.terminating++
		case p.Failed():
			c.failed++
		default:
			c.succeeded++
		}
		if p.CountFailed() {
			c.counted++
		}
	}
	return c
}

// first returns the first listLimit folded pods whose shape keep selects, by index then
// creation (list order on a tie), and the number of the others.
func (f *fold) first(keep func(shape *podSummary) bool) ([]*podSummary, int) {
	var first []*jobpolicy.FoldedPod
	all := f.pol.All()
	n := 0
	before := func(p, q *jobpolicy.FoldedPod) bool {
		return cmp.Or(cmp.Compare(p.Index(), q.Index()), p.Created().Compare(q.Created())) < 0
	}
	for k := range all {
		p := &all[k]
		if !keep(f.shape(p)) {
			continue
		}
		n++
		at := len(first)
		for at > 0 && before(p, first[at-1]) {
			at--
		}
		if at >= listLimit {
			continue
		}
		first = append(first, nil)
		copy(first[at+1:], first[at:])
		first[at] = p
		if len(first) > listLimit {
			first = first[:listLimit]
		}
	}
	out := make([]*podSummary, len(first))
	for k, p := range first {
		out[k] = f.summary(p)
	}
	return out, n - len(out)
}

// failJob returns the first folded pod (in list order) that matched a FailJob rule, nil if
// none.
func (f *fold) failJob() *podSummary {
	if f == nil {
		return nil
	}
	all := f.pol.All()
	for k := range all {
		if p := &all[k]; p.FailJob() {
			return f.summary(p)
		}
	}
	return nil
}

// hasName returns the index of the folded pod named name.
func (f *fold) hasName(name string) (int, bool) {
	all := f.pol.All()
	for k := range all {
		if p := &all[k]; f.pol.Name(p) == name {
			return p.Index(), true
		}
	}
	return 0, false
}

// attemptID is what orders a pod among its index's attempts (later) and in the list (listedBefore).
type attemptID struct {
	attempt           int32
	created, finished time.Time
	name              string
}

func idOf(p *podSummary) attemptID {
	return attemptID{p.Attempt(), p.Created, p.Finished, p.Name}
}

func (f *fold) idOf(p *jobpolicy.FoldedPod) attemptID {
	return attemptID{p.Attempt(), p.Created(), p.Finished(), f.pol.Name(p)}
}

// later orders attempts: by the attempt annotation, then by creation, then finish time.
func (p attemptID) later(q attemptID) bool {
	if p.attempt != q.attempt {
		return p.attempt > q.attempt
	}
	if !p.created.Equal(q.created) {
		return p.created.After(q.created)
	}
	return p.finished.After(q.finished)
}

// listedBefore is the order the report lists an index's pods in: attempt, creation, name.
func (p attemptID) listedBefore(q attemptID) bool {
	return jobpolicy.ListOrder(p.attempt, p.created, p.name, q.attempt, q.created, q.name) < 0
}

// eachListed calls visit for the index's pods in list order: the kept summaries pods (sorted)
// and the folded pods of index i, for which s is the shape, id the identity and at one more
// than the pod's place in f.pol.All() (0 for a kept summary).
func (f *fold) eachListed(i int, pods []*podSummary, visit func(s *podSummary, id attemptID, at int32)) {
	var all []jobpolicy.FoldedPod
	k, hi := 0, 0
	if f != nil {
		all = f.pol.All()
		k, hi = f.pol.IndexRange(i)
	}
	for _, p := range pods {
		id := idOf(p)
		for ; k < hi; k++ {
			sid := f.idOf(&all[k])
			if !sid.listedBefore(id) {
				break
			}
			visit(f.shape(&all[k]), sid, int32(k+1))
		}
		visit(p, id, 0)
	}
	for ; k < hi; k++ {
		visit(f.shape(&all[k]), f.idOf(&all[k]), int32(k+1))
	}
}

// name is the name of the pod a visit saw at at (eachListed), else p's.
func (f *fold) name(p *podSummary, at int32) string {
	if at == 0 {
		return p.Name
	}
	return f.pol.Name(&f.pol.All()[at-1])
}

// pod is the summary of the pod a visit saw at at (eachListed), rebuilt for a folded one (a new
// copy each call: for a sentence, not to keep), else p.
func (f *fold) pod(p *podSummary, at int32) *podSummary {
	if at == 0 {
		return p
	}
	return f.summary(&f.pol.All()[at-1])
}

// foldedCount is the number of index i's folded pods.
func (f *fold) foldedCount(i int) int {
	if f == nil {
		return 0
	}
	return len(f.pol.Index(i))
}

// names lists the names of the index's pods in list order.
func (f *fold) names(i int, pods []*podSummary) []string {
	out := make([]string, 0, len(pods)+f.foldedCount(i))
	f.eachListed(i, pods, func(_ *podSummary, id attemptID, _ int32) { out = append(out, id.name) })
	return out
}

// eachCases calls visit for every folded pod that left a receipt summary, in list order.
func (f *fold) eachCases(visit func(i int, attempt int32, created time.Time, name string, c *receiptCounts)) {
	all := f.pol.All()
	for k := range all {
		if p := &all[k]; p.Marked() {
			if rc, ok := f.receipt(p.Seq); ok {
				visit(p.Index(), p.Attempt(), p.Created(), f.pol.Name(p), rc)
			}
		}
	}
}
