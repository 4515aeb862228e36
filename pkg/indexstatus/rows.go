package indexstatus

import (
	"cmp"
	"slices"
	"time"

	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// The rows of the report: each index's facts walked once into the summary, the grid and the
// listed rows (indexes[]).

// walkIndexes words every index's facts, folding the grid and the summary as it goes.
func (b *reportBuilder) walkIndexes() {
	r := b.r
	var omitted indexes.Builder
	var groups grouper
	defer func() { r.omitted = omitted.Set(); r.groups = groups.done(b) }()
	if b.opts.AllIndexes {
		// One allocation: growing by append copies the list many times over (about five
		// times its size at 100,000 indexes).
		r.Indexes = make([]IndexStatus, 0, len(b.facts))
	}
	for k := range b.facts {
		f := &b.facts[k]
		r.Summary.Add(f.state)
		if n := len(r.Grid); n > 0 && r.Grid[n-1].State == f.state && r.Grid[n-1].Last == f.index-1 {
			r.Grid[n-1].Last = f.index
		} else {
			r.Grid = append(r.Grid, Run{First: f.index, Last: f.index, State: f.state})
		}
		// An index's words are made only when it is listed: at 100,000 completions the
		// text view lists a few, and words for all the others were most of the report's
		// garbage.
		if needsAttention(f.state, int(f.count)) {
			groups.add(f)
		}
		switch {
		case b.opts.AllIndexes:
			r.Indexes = append(r.Indexes, b.indexStatus(f))
		case !needsAttention(f.state, int(f.count)):
		case b.opts.ListLimit > 0 && len(r.Indexes) >= b.opts.ListLimit:
			omitted.Add(f.index)
		default:
			r.Indexes = append(r.Indexes, b.indexStatus(f))
		}
	}
	for k := range r.Grid {
		r.Grid[k].Indexes = indexes.Range(r.Grid[k].First, r.Grid[k].Last).String()
	}
}

// needsAttention selects the indexes the text view lists when not every index is wanted, from
// an index's state and its number of pods.
func needsAttention(state State, pods int) bool {
	switch state {
	case StateSucceeded:
		return false
	case StatePending, StateUnfinished:
		return pods > 0
	}
	return true
}

// indexStatus puts one index's facts into the report's fields and words.
func (b *reportBuilder) indexStatus(f *indexFacts) IndexStatus {
	st := IndexStatus{Index: f.index, State: f.state, Attempts: f.attempts, Pods: []string{},
		FailureCount: f.pol.FailureCount, IgnoredFailureCount: f.pol.IgnoredCount, RetriesLeft: f.pol.RetriesLeft}
	if f.unread && b.perIndex {
		// jobpolicy counted the pods read; the succeeded pod's own annotations were these.
		left := max(b.limit-f.unreadCounts[0], 0)
		st.FailureCount, st.IgnoredFailureCount, st.RetriesLeft = f.unreadCounts[0], f.unreadCounts[1], &left
	}
	if f.index < len(b.opts.ShardIDs) {
		st.ShardID = b.opts.ShardIDs[f.index]
	}
	st.Pods = make([]string, len(b.byIndex[f.index]))
	for k, p := range b.byIndex[f.index] {
		st.Pods[k] = p.Name
	}
	if lf := f.lastFinished; lf != nil {
		if e := lf.exit; e != nil {
			st.LastExitCode, st.LastReason, st.LastContainer = ptr.To(e.code), e.cause, e.container
		}
		st.LastReason = cmp.Or(st.LastReason, lf.r().podReason)
	}
	if lf := f.lastFailed; lf != nil && lf.Match.Matched() {
		st.Rule = &RuleMatch{Index: lf.Match.Rule, Action: string(lf.Match.Action), On: lf.r().matchedBy}
	}
	if f.retrying || f.state == StateRetrying {
		ts, rs := int64(f.pol.Backoff/time.Second), int64((f.remaining+time.Second-1)/time.Second)
		st.BackoffSeconds, st.BackoffRemainingSeconds = &ts, &rs
	}
	st.Flaky = isFlaky(f)
	st.AttemptHistory, st.AttemptsNotListed = b.attemptHistory(f)
	st.Detail = b.detail(f)
	return st
}

// causeKey is what indexes that need attention share to be one row of the text view: their
// state, the exit of their last finished attempt (code, reason, container), the
// podFailurePolicy rule that matched their last failure, the pod's own reason and why a pod
// waits.
type causeKey struct {
	state     State
	hasExit   bool
	exit      podExit
	ruleSet   bool
	rule      int
	action    string
	podReason string
	waiting   string
	waitsSlot bool
}

func causeOf(f *indexFacts) causeKey {
	k := causeKey{state: f.state, waitsSlot: f.waitsSlot}
	if lf := f.lastFinished; lf != nil {
		if e := lf.exit; e != nil {
			k.hasExit, k.exit = true, *e
		}
		k.podReason = lf.r().podReason
	}
	if lf := f.lastFailed; lf != nil && lf.Match.Matched() {
		k.ruleSet, k.rule, k.action = true, lf.Match.Rule, string(lf.Match.Action)
	}
	if c := f.current; c != nil {
		k.waiting = c.r().waiting
		if u := c.r().unschedulable; u != "" {
			k.waiting = u
		}
	}
	return k
}

// indexGroup is the indexes of one cause: their set, and the first one's row, whose words
// stand for all of them.
type indexGroup struct {
	Indexes indexes.Set
	Sample  IndexStatus

	bld    indexes.Builder
	sample *indexFacts
}

// grouper gathers the groups in order of their first index.
type grouper struct{ ordered[causeKey, indexGroup] }

func (g *grouper) add(f *indexFacts) {
	gr := g.get(causeOf(f), func() *indexGroup { return &indexGroup{sample: f} })
	gr.bld.Add(f.index)
}

// done fills each group's set and sample row (the listed row when the sample index is listed).
func (g *grouper) done(b *reportBuilder) []indexGroup {
	out := make([]indexGroup, 0, len(g.order))
	for _, gr := range g.order {
		// The listed rows are in index order (walkIndexes).
		var sample IndexStatus
		if k, ok := slices.BinarySearchFunc(b.r.Indexes, gr.sample.index, func(st IndexStatus, i int) int { return cmp.Compare(st.Index, i) }); ok {
			sample = b.r.Indexes[k]
		} else {
			sample = b.indexStatus(gr.sample)
		}
		// Not bld and sample: the report does not keep the facts alive.
		out = append(out, indexGroup{Indexes: gr.bld.Set(), Sample: sample})
	}
	return out
}

// CauseGroup is one row of the text view's table of indexes that need attention: the indexes
// of one cause, and the first one's row, whose words stand for all of them.
type CauseGroup struct {
	Indexes string
	Count   int
	Sample  IndexStatus
}

// CauseGroups are the report's indexes that need attention grouped by cause, in order of their
// first index, as the text view prints them (the HTML report shows the same groups).
func (r *IndexedJobStatus) CauseGroups() []CauseGroup {
	out := make([]CauseGroup, 0, len(r.groups))
	for _, g := range r.groups {
		out = append(out, CauseGroup{Indexes: g.Indexes.String(), Count: g.Indexes.Len(), Sample: g.Sample})
	}
	return out
}
