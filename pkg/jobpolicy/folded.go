package jobpolicy

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Folded holds the pods the controller is done with in a compact form, so that a report over a
// Job with many pods keeps a few bytes per pod besides its name instead of a summary of each.
// Two kinds of pod are folded (IsFoldable), both without the tracking finalizer, which the
// controller never counts again: a settled pod is terminal (Succeeded or Failed) and not being
// deleted (the controller already accounted for it, or deleted it itself without counting it);
// an untracked terminating pod is not terminal and is being deleted (deleteJobPods removes the
// finalizer before deleting: lower parallelism, a success policy met, suspension). The latter
// still matters: it is status.terminating, it holds its index under podReplacementPolicy
// Failed, its restarts count while it is pending or running (pastBackoffLimitOnFailure), and
// under TerminatingOrFailed it is failed (isPodFailed). EvaluateFolded with a pod folded here
// decides exactly what Evaluate decides with the pod in its list: each rule reads from a folded
// pod only what a FoldedPod keeps.
//
// A pod is identified by its completion index and name (a snapshot holds each namespace/name
// once, and the index annotation is set at creation): of several copies the last one folded is
// kept. Fold the pods, then Seal before reading them back (EvaluateFolded seals).
type Folded struct {
	pods  []FoldedPod
	names nameArena
	// restarts are the container restarts of the folded pending or running pods that have some
	// (foldRestarts), by Seq: pastBackoffLimitOnFailure sums them; most pods have none.
	restarts map[uint32]int32
	// sorted: pods are deduplicated and in list order; dropped counts pods marked by Drop.
	sorted  bool
	dropped int
}

// FoldedPod is one folded pod in 28 bytes, its name kept in the Folded's arena.
type FoldedPod struct {
	name         uint32 // offset in the arena: a length byte, then the name
	index        int32
	failureCount int32
	// created and finished are whole Unix seconds, 0 for the zero time (toUnix).
	created, finished uint32
	// Seq is the caller's arrival number of the pod: the later copy of a pod wins.
	Seq uint32
	// Tag is the caller's, kept as given (indexstatus: the pod's words).
	Tag          uint16
	ignoredCount uint8
	flags        uint8
}

const (
	foldFailed      uint8 = 1 << iota // isPodFailed: phase Failed, or deleting under TerminatingOrFailed
	foldCounts                        // failed, and no Ignore rule matched (Match.CountFailed)
	foldFailJob                       // failed, and a FailJob rule matched
	foldDropped                       // Drop: left out at the next Seal
	foldCaller                        // Fold's mark, for the caller (Marked)
	foldTerminating                   // not terminal and being deleted (Pod.Terminating)
	foldRestarts                      // terminating, phase Pending or Running, restarts in Folded.restarts
)

// Index is the pod's completion index.
func (p *FoldedPod) Index() int { return int(p.index) }

// Attempt is getIndexAbsoluteFailureCount (Pod.Attempt).
func (p *FoldedPod) Attempt() int32 { return p.failureCount + int32(p.ignoredCount) }

// FailureCount and IgnoredCount are the pod's annotations (Pod.FailureCount, Pod.IgnoredCount).
func (p *FoldedPod) FailureCount() int32 { return p.failureCount }

// IgnoredCount is the job-index-ignored-failure-count annotation.
func (p *FoldedPod) IgnoredCount() int32 { return int32(p.ignoredCount) }

// Failed is isPodFailed: for a settled pod phase Failed (else Succeeded); for a terminating
// one, being deleted under podReplacementPolicy TerminatingOrFailed.
func (p *FoldedPod) Failed() bool { return p.flags&foldFailed != 0 }

// FailJob: p failed and a FailJob rule of the podFailurePolicy matched it.
func (p *FoldedPod) FailJob() bool { return p.flags&foldFailJob != 0 }

// Terminating is Pod.Terminating: not terminal and being deleted (else settled).
func (p *FoldedPod) Terminating() bool { return p.flags&foldTerminating != 0 }

// Succeeded is phase Succeeded: settled and not failed.
func (p *FoldedPod) Succeeded() bool { return p.flags&(foldFailed|foldTerminating) == 0 }

// PhaseFailed is phase Failed: settled and failed.
func (p *FoldedPod) PhaseFailed() bool { return p.flags&(foldFailed|foldTerminating) == foldFailed }

// CountFailed is Pod.CountFailed.
func (p *FoldedPod) CountFailed() bool { return p.flags&foldCounts != 0 }

// Created is the pod's creation time.
func (p *FoldedPod) Created() time.Time { return fromUnix(p.created) }

// Finished is getFinishedTime.
func (p *FoldedPod) Finished() time.Time { return fromUnix(p.finished) }

// Marked reports whether the caller's flag bit is set (Fold's mark).
func (p *FoldedPod) Marked() bool { return p.flags&foldCaller != 0 }

// toUnix keeps t in 32 bits: 0 for the zero time, else whole Unix seconds after 1970 and before
// 2106 (the API server writes whole seconds). Another time is not kept: the pod is not folded.
func toUnix(t time.Time) (uint32, bool) {
	if t.IsZero() {
		return 0, true
	}
	u := t.Unix()
	if t.Nanosecond() != 0 || u <= 0 || u > math.MaxUint32 {
		return 0, false
	}
	return uint32(u), true
}

func fromUnix(n uint32) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(int64(n), 0)
}

// IsSettled reports whether p is terminal, untracked and not being deleted.
func IsSettled(p *Pod) bool {
	return !p.Tracked && !p.Deleting && (p.Phase == corev1.PodSucceeded || p.Phase == corev1.PodFailed)
}

// IsUntrackedTerminating reports whether p is not terminal, being deleted and untracked: the
// controller deleted it after removing its finalizer (deleteJobPods) and never counts it.
func IsUntrackedTerminating(p *Pod) bool { return !p.Tracked && p.Terminating() }

// IsFoldable reports whether Fold takes p: settled or untracked terminating.
func IsFoldable(p *Pod) bool { return IsSettled(p) || IsUntrackedTerminating(p) }

// Fold adds the pod p (IsFoldable, index below completions) with the caller's arrival number
// seq, tag and mark bit; seq is unique per pod folded. It reports false, keeping nothing, when p
// is not foldable or does not fit the compact record (a name longer than 255 bytes, more than
// 255 ignored failures, a time that is not a whole second between 1970 and 2106, negative
// restarts): the caller then keeps p as it is.
func (s *Folded) Fold(p *Pod, seq uint32, tag uint16, mark bool) bool {
	created, ok1 := toUnix(p.Created)
	finished, ok2 := toUnix(p.Finished)
	// A pod without a name is not folded: a folded pod's identity is its index and name.
	if !ok1 || !ok2 || p.Name == "" || len(p.Name) > math.MaxUint8 || p.IgnoredCount < 0 || p.IgnoredCount > math.MaxUint8 ||
		p.Index < 0 || p.Index > math.MaxInt32 || len(s.names.done) >= 1<<16-1 || !IsFoldable(p) || p.Restarts < 0 {
		return false
	}
	r := FoldedPod{created: created, finished: finished, index: int32(p.Index),
		failureCount: p.FailureCount, ignoredCount: uint8(p.IgnoredCount), Seq: seq, Tag: tag}
	r.name = s.names.add(p.Name)
	if p.Failed {
		r.flags |= foldFailed
		if p.Match.CountFailed() {
			r.flags |= foldCounts
		}
		if p.Match.Action == batchv1.PodFailurePolicyActionFailJob {
			r.flags |= foldFailJob
		}
	}
	if mark {
		r.flags |= foldCaller
	}
	if p.Terminating() {
		r.flags |= foldTerminating
		// pastBackoffLimitOnFailure sums the restarts of pending and running pods.
		if (p.Phase == corev1.PodPending || p.Phase == corev1.PodRunning) && p.Restarts != 0 {
			r.flags |= foldRestarts
			if s.restarts == nil {
				s.restarts = map[uint32]int32{}
			}
			s.restarts[seq] = p.Restarts
		}
	}
	s.pods = append(s.pods, r)
	s.sorted = false
	return true
}

// Name is p's name.
func (s *Folded) Name(p *FoldedPod) string { return s.names.get(p.name) }

// Seal drops the earlier copies of a pod (same index and name: the highest Seq is kept) and the
// pods marked by Drop, and puts the pods in list order: by index, then attempt, creation, name.
func (s *Folded) Seal() {
	if s == nil {
		return
	}
	s.names.seal()
	if !s.sorted {
		slices.SortFunc(s.pods, func(p, q FoldedPod) int {
			return cmp.Or(cmp.Compare(p.index, q.index), cmp.Compare(s.Name(&p), s.Name(&q)), cmp.Compare(p.Seq, q.Seq))
		})
		for k := 0; k+1 < len(s.pods); k++ {
			if p, q := &s.pods[k], &s.pods[k+1]; p.index == q.index && s.Name(p) == s.Name(q) {
				s.drop(p)
			}
		}
		s.compact()
		// ListOrder within an index, on the whole seconds kept (no time.Time built per compare).
		slices.SortFunc(s.pods, func(p, q FoldedPod) int {
			return cmp.Or(cmp.Compare(p.index, q.index), cmp.Compare(p.Attempt(), q.Attempt()),
				cmp.Compare(p.created, q.created), cmp.Compare(s.Name(&p), s.Name(&q)), cmp.Compare(p.Seq, q.Seq))
		})
		s.sorted = true
	}
	s.compact()
	if cap(s.pods)-len(s.pods) > len(s.pods)/16 {
		s.pods = append([]FoldedPod(nil), s.pods...) // what append grew beyond the pods
	}
}

func (s *Folded) drop(p *FoldedPod) {
	if p.flags&foldDropped == 0 {
		p.flags |= foldDropped
		s.dropped++
	}
}

// Drop leaves p out at the next Seal (an earlier copy of a pod the caller kept otherwise).
func (s *Folded) Drop(p *FoldedPod) { s.drop(p) }

func (s *Folded) compact() {
	if s.dropped == 0 {
		return
	}
	s.pods = slices.DeleteFunc(s.pods, func(p FoldedPod) bool { return p.flags&foldDropped != 0 })
	s.dropped = 0
}

// Index returns index i's folded pods in list order (Seal first); nil if none.
func (s *Folded) Index(i int) []FoldedPod {
	lo, hi := s.IndexRange(i)
	if lo == hi {
		return nil
	}
	return s.pods[lo:hi:hi]
}

// IndexRange returns where index i's folded pods are in All (Seal first).
func (s *Folded) IndexRange(i int) (lo, hi int) {
	if s == nil {
		return 0, 0
	}
	lo = sort.Search(len(s.pods), func(k int) bool { return int(s.pods[k].index) >= i })
	hi = lo
	for hi < len(s.pods) && int(s.pods[hi].index) == i {
		hi++
	}
	return lo, hi
}

// Find returns the folded pod of index i named name (Seal first), nil if none.
func (s *Folded) Find(i int, name string) *FoldedPod {
	ps := s.Index(i)
	for k := range ps {
		if s.Name(&ps[k]) == name {
			return &ps[k]
		}
	}
	return nil
}

// All returns every folded pod, in list order once sealed.
func (s *Folded) All() []FoldedPod {
	if s == nil {
		return nil
	}
	return s.pods
}

// Len is the number of pods folded (after Seal: without earlier copies).
func (s *Folded) Len() int {
	if s == nil {
		return 0
	}
	return len(s.pods) - s.dropped
}

// restartSum sums the restarts of the folded pending and running pods
// (pastBackoffLimitOnFailure), Seal first.
func (s *Folded) restartSum() int64 {
	var n int64
	for k := range s.All() {
		if p := &s.pods[k]; p.flags&foldRestarts != 0 {
			n += int64(s.restarts[p.Seq])
		}
	}
	return n
}

// hasTerminating reports whether a folded pod of index i is terminating (Seal first).
func (s *Folded) hasTerminating(i int) bool {
	for _, p := range s.Index(i) {
		if p.Terminating() {
			return true
		}
	}
	return false
}

// failJob: a folded failed pod matched a FailJob rule (getFailJobMessage).
func (s *Folded) failJob() bool {
	for k := range s.All() {
		if s.pods[k].FailJob() {
			return true
		}
	}
	return false
}

// nameArena keeps pod names back to back, each after a byte of its length, in strings of
// nameChunk bytes: a name costs its bytes and one, and reading it back is a substring, not a copy.
type nameArena struct {
	done []string
	cur  []byte
}

const nameChunk = 1 << 16

func (a *nameArena) add(name string) uint32 {
	if len(a.cur)+1+len(name) > nameChunk {
		a.seal()
	}
	if a.cur == nil {
		a.cur = make([]byte, 0, nameChunk)
	}
	off := uint32(len(a.done))<<16 | uint32(len(a.cur))
	a.cur = append(a.cur, byte(len(name)))
	a.cur = append(a.cur, name...)
	return off
}

// seal turns the chunk being filled into a string; the next name starts a new chunk.
func (a *nameArena) seal() {
	if len(a.cur) > 0 {
		a.done = append(a.done, string(a.cur))
		a.cur = a.cur[:0]
	}
}

func (a *nameArena) get(off uint32) string {
	c, o := off>>16, int(off&0xffff)
	if int(c) < len(a.done) {
		chunk := a.done[c]
		return chunk[o+1 : o+1+int(chunk[o])]
	}
	return string(a.cur[o+1 : o+1+int(a.cur[o])])
}
