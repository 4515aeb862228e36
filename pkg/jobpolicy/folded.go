package jobpolicy

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Folded folds the pods the controller is done with, so that a report over a Job with many
// retries keeps a few facts per index instead of every pod. A settled pod is terminal
// (Succeeded or Failed), has no tracking finalizer and is not being deleted: the controller
// already accounted for it (or deleted it itself without counting it) and never counts it
// again. EvaluateFolded with a pod folded here decides exactly what Evaluate decides with the
// pod in its list: what each rule reads from such a pod is kept below.
type Folded struct {
	indexes map[int]*FoldedIndex
	// failJob: a settled failed pod matched a FailJob rule (getFailJobMessage).
	failJob bool
	// lastSuccess is the latest finish of a settled succeeded pod; failures the finish times of
	// the settled failed pods after it (newBackoffRecord's input, pruned as lastSuccess grows).
	lastSuccess time.Time
	failures    []time.Time
}

// FoldedIndex is what is kept of one index's settled pods.
type FoldedIndex struct {
	// Pods names every settled pod with what orders it among the index's pods.
	Pods []FoldedPod
	// counted and ignored count the failed ones by whether their failure counts (without
	// backoffLimitPerIndex an index's counts are its failed pods still present).
	counted, ignored int32
	// latest and latestOK are the latest attempt (by attempt, then creation) of all settled
	// pods and of the succeeded ones, as the per-index counts read them.
	latest, latestOK *Pod
}

// FoldedPod is one settled pod: its name, and what orders it within its index.
type FoldedPod struct {
	Name    string
	Created time.Time
	Attempt int32
	Failed  bool
}

// IsSettled reports whether p is terminal, untracked and not being deleted.
func IsSettled(p *Pod) bool {
	return !p.Tracked && !p.Deleting && (p.Phase == corev1.PodSucceeded || p.Phase == corev1.PodFailed)
}

// Fold adds the settled pod p (IsSettled, index below completions).
func (s *Folded) Fold(p *Pod) {
	if s.indexes == nil {
		s.indexes = map[int]*FoldedIndex{}
	}
	ix := s.indexes[p.Index]
	if ix == nil {
		ix = &FoldedIndex{}
		s.indexes[p.Index] = ix
	}
	ix.Pods = append(ix.Pods, FoldedPod{Name: p.Name, Created: p.Created, Attempt: p.Attempt(), Failed: p.Failed})
	if p.Failed {
		if p.Match.CountFailed() {
			ix.counted++
		} else {
			ix.ignored++
		}
		if p.Match.Action == batchv1.PodFailurePolicyActionFailJob {
			s.failJob = true
		}
	}
	later := func(q *Pod) bool {
		return q == nil || p.Attempt() > q.Attempt() || (p.Attempt() == q.Attempt() && p.Created.After(q.Created))
	}
	if later(ix.latest) {
		c := *p
		ix.latest = &c
	}
	if !p.Failed && later(ix.latestOK) {
		c := *p
		ix.latestOK = &c
	}
	switch {
	case p.Phase == corev1.PodSucceeded && p.Finished.After(s.lastSuccess):
		s.lastSuccess = p.Finished
		kept := s.failures[:0]
		for _, t := range s.failures {
			if t.After(s.lastSuccess) {
				kept = append(kept, t)
			}
		}
		s.failures = kept
	case p.Failed && p.Phase == corev1.PodFailed && p.Finished.After(s.lastSuccess):
		s.failures = append(s.failures, p.Finished)
	}
}

// Index returns what is kept of index i's settled pods, nil if none.
func (s *Folded) Index(i int) *FoldedIndex {
	if s == nil {
		return nil
	}
	return s.indexes[i]
}

// Len is the number of settled pods folded.
func (s *Folded) Len() int {
	if s == nil {
		return 0
	}
	n := 0
	for _, ix := range s.indexes {
		n += len(ix.Pods)
	}
	return n
}
