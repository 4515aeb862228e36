package htmlreport

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/reconcile"
)

// ReconcileStates are the states of a reconcile page, reconcile's own shard states
// (reconcile.States), in legend order.
var ReconcileStates = []State{
	{Name: string(reconcile.StateComplete), Words: "complete: every result evaluated", Color: "#2e7d32", Plain: true},
	{Name: string(reconcile.StateFailed), Words: "evaluated, some results failed for the model", Color: "#9e9d24"},
	{Name: string(reconcile.StatePartial), Words: "partial: some results not evaluated", Color: "#f9a825"},
	{Name: string(reconcile.StateNotEvaluated), Words: "not evaluated: infrastructure failures", Color: "#ef6c00"},
	{Name: string(reconcile.StateMissing), Words: "missing: no receipt", Color: "#37474f"},
	{Name: string(reconcile.StateRejected), Words: "rejected: every receipt rejected", Color: "#c62828"},
}

// maxCasesNamed bounds the missing and not-evaluated results a shard's facts name.
const maxCasesNamed = 5

// WriteReconcile writes r, the coverage of a manifest by its receipts, as the page: a cell per
// shard of the manifest (its completion index) in its reconcile state, the facts counting its
// results and naming its attempts and what is missing; the rejected receipts in the table.
func WriteReconcile(w io.Writer, r *reconcile.Report) error {
	status := "incomplete"
	if r.Complete {
		status = "complete"
	}
	title := "Reconcile of manifest " + r.Manifest.Name
	if r.Manifest.Revision != "" {
		title += " revision " + r.Manifest.Revision
	}
	p := &Page{
		Tool: "reconcile", Title: title, Status: status, Good: r.Complete,
		// The verdict opens with the same word ("incomplete: 4290/8000 ..."): said once.
		Verdict: strings.TrimPrefix(r.Verdict, status+": "), Unit: "shard", States: ReconcileStates,
		Sections: []Section{{"Duplicate rule", nonEmpty(r.DuplicateRule)}, {"Notes", r.Notes}},
	}
	if !strings.Contains(r.Verdict, r.Coverage.Text) {
		p.Lines = append(p.Lines, "Coverage "+r.Coverage.Text+" results evaluated.")
	}
	if r.Candidate != "" {
		p.Lines = append(p.Lines, "Candidate "+r.Candidate+".")
	}
	if len(r.Jobs) > 0 {
		names := make([]string, 0, len(r.Jobs))
		for _, j := range r.Jobs {
			names = append(names, j.Name)
		}
		p.Lines = append(p.Lines, "Jobs read: "+strings.Join(names, ", ")+".")
	}
	states := slices.Repeat([]int{-1}, r.Coverage.Shards) // every shard of the manifest a cell
	for i := range r.Shards {
		s := &r.Shards[i]
		if s.Index < 0 {
			return fmt.Errorf("shard %s: negative index %d", s.ShardID, s.Index)
		}
		var err error
		if states, err = p.shardCell(states, s.Index, string(s.State)); err != nil {
			return err
		}
		p.addFact(func() Fact { return reconcileFact(s) })
	}
	p.Cells, p.Runs = len(states), grid(states)
	if len(r.Rejected) > 0 {
		p.Groups = &Table{Title: "Rejected receipts (never merged), by reason", Headers: []string{"Reason", "Count", "Shards", "First", "Why (the first)"}, ListColumn: 2}
	}
	rejected := p.stateIndex(string(reconcile.StateRejected))
	for _, g := range rejectionGroups(r.Rejected) {
		slices.Sort(g.shards)
		g.shards = slices.Compact(g.shards)
		p.Groups.Rows = append(p.Groups.Rows, TableRow{State: rejected, Cells: []string{g.first.Reason, strconv.Itoa(g.count), cutList(strings.Join(g.shards, ","), len(g.shards), "shards"), g.first.Source, g.first.Message}})
	}
	return WritePage(w, p)
}

// reconcileFact is a shard's facts: its ID, its results by outcome, what the outcome rests on,
// the infrastructure reasons, the first missing results, every attempt, duplicates, conflicts
// and rejections, the outputs and the detail.
func reconcileFact(s *reconcile.ShardReport) Fact {
	f := Fact{Cell: s.Index, Rows: []Row{{"shard", s.ShardID},
		{"results", fmt.Sprintf("%d evaluated of %d (passed %d, model failures %d, infrastructure %d, missing %d)",
			s.Evaluated, s.Results, s.Passed, s.ModelFailures, s.Infrastructure, s.Missing)}}}
	f.add("from", s.Source)
	var rs []string // a reason's row is never empty: it has " × "
	for _, r := range s.Reasons {
		rs = append(rs, fmt.Sprintf("%s × %d", r.Reason, r.Count))
	}
	f.add("infrastructure", strings.Join(rs, ", "))
	if len(s.MissingCases) > 0 {
		var cs []string
		for i, c := range s.MissingCases {
			if i == maxCasesNamed {
				cs = append(cs, fmt.Sprintf("and %d more", len(s.MissingCases)-maxCasesNamed))
				break
			}
			cs = append(cs, c.String())
		}
		f.Rows = append(f.Rows, Row{"missing", strings.Join(cs, ", ")})
	}
	for _, a := range s.Attempts {
		v := fmt.Sprintf("%s %s, %d results, %d kept", a.Kind, a.Source, a.Results, a.Kept)
		if !a.Used {
			v += ", not used"
		}
		f.Rows = append(f.Rows, Row{"  attempt " + a.AttemptID, v})
	}
	if s.Duplicates > 0 || len(s.Conflicts) > 0 {
		f.Rows = append(f.Rows, Row{"duplicates", fmt.Sprintf("%d (%d with conflicting outcomes)", s.Duplicates, len(s.Conflicts))})
	}
	if s.Rejected > 0 {
		f.Rows = append(f.Rows, Row{"rejected receipts", strconv.Itoa(s.Rejected)})
	}
	if len(s.Outputs) > 0 {
		f.Rows = append(f.Rows, Row{"outputs", strings.Join(s.Outputs, ", ")})
	}
	f.add("", strings.ReplaceAll(s.Detail, Placeholder, ""))
	return f
}

// rejectionGroup is the rejections of one reason: how many, the shards they name, the first.
type rejectionGroup struct {
	first  reconcile.Rejection
	count  int
	shards []string
}

// rejectionGroups groups rejections by reason, in the order each reason first appears, so that
// a thousand receipts of another manifest are one row.
func rejectionGroups(rs []reconcile.Rejection) []*rejectionGroup {
	var out []*rejectionGroup
	at := map[string]*rejectionGroup{}
	for _, x := range rs {
		g := at[x.Reason]
		if g == nil {
			g = &rejectionGroup{first: x}
			at[x.Reason] = g
			out = append(out, g)
		}
		g.count++
		if x.ShardID != "" {
			g.shards = append(g.shards, x.ShardID)
		}
	}
	return out
}
