package indexstatus

import (
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// causeKey is what indexes that need attention share to be one row of the text view: their
// state, the exit of their last finished attempt (code, reason, container), the
// podFailurePolicy rule that matched their last failure, the pod's own reason and why a pod
// waits.
type causeKey struct {
	state     State
	hasExit   bool
	exit      int32
	cause     string
	container string
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
			k.hasExit, k.exit, k.cause, k.container = true, e.code, e.cause, e.container
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
	Count   int
	Sample  IndexStatus

	bld    indexes.Builder
	sample *indexFacts
}

// grouper gathers the groups in order of their first index.
type grouper struct {
	byKey map[causeKey]*indexGroup
	order []*indexGroup
}

func (g *grouper) add(f *indexFacts) {
	k := causeOf(f)
	if g.byKey == nil {
		g.byKey = map[causeKey]*indexGroup{}
	}
	gr := g.byKey[k]
	if gr == nil {
		gr = &indexGroup{sample: f}
		g.byKey[k] = gr
		g.order = append(g.order, gr)
	}
	gr.Count++
	gr.bld.Add(f.index)
}

// done fills each group's set and sample row (the listed row when the sample index is listed).
func (g *grouper) done(b *reportBuilder) []indexGroup {
	listed := map[int]int{}
	for k := range b.r.Indexes {
		listed[b.r.Indexes[k].Index] = k
	}
	out := make([]indexGroup, 0, len(g.order))
	for _, gr := range g.order {
		gr.Indexes = gr.bld.Set()
		if k, ok := listed[gr.sample.index]; ok {
			gr.Sample = b.r.Indexes[k]
		} else {
			gr.Sample = b.indexStatus(gr.sample)
		}
		// Not bld and sample: the report does not keep the facts alive.
		out = append(out, indexGroup{Indexes: gr.Indexes, Count: gr.Count, Sample: gr.Sample})
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
		out = append(out, CauseGroup{Indexes: g.Indexes.String(), Count: g.Count, Sample: g.Sample})
	}
	return out
}
