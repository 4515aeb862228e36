package reconcile

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// maxTextCases is how many missing or not-evaluated cases the text view names per shard.
const maxTextCases = 10

// PrintText writes the default text view, problems first: the header and verdict, then the
// shards that are not complete grouped by state and reason (each group with its count, its
// indexes as ranges and its shard IDs), a count of the rest, the rejected receipts that name no
// shard, and the notes. It fits 80 columns; -o wide (PrintWide) lists every shard.
func PrintText(w io.Writer, rep *Report) error {
	p := &printer{w: w}
	p.header(rep, false)
	p.groups(rep)
	p.unplaced(rep, maxTextRejected)
	p.duplicates(rep, false)
	p.notes(rep, false)
	return p.err
}

// PrintWide writes every shard: the header, a row per shard, the cases that are missing or were
// not evaluated, every rejected receipt and the notes (unwrapped).
func PrintWide(w io.Writer, rep *Report) error {
	p := &printer{w: w}
	p.header(rep, true)
	p.printf("\n")
	tw := textwrap.NewTable(w, 2) // it buffers the rows: a write error shows at Flush
	_, _ = fmt.Fprintln(tw, "INDEX\tSHARD\tSTATE\tEVALUATED\tMODEL\tINFRA\tMISSING\tSOURCE\tDETAIL")
	for k := range rep.Shards {
		s := &rep.Shards[k]
		_, _ = fmt.Fprintf(tw, "%d\t%s\t%s\t%d/%d\t%d\t%d\t%d\t%s\t%s\n", s.Index, s.ShardID, s.State, s.Evaluated, s.Results,
			s.ModelFailures, s.Infrastructure, s.Missing, cmp.Or(s.Source, "-"), s.Detail)
	}
	if p.err == nil {
		p.err = tw.Flush()
	}
	for k := range rep.Shards {
		p.cases(&rep.Shards[k], true)
	}
	if len(rep.Rejected) > 0 {
		p.printf("\nRejected (not merged):\n")
		for _, rj := range rep.Rejected {
			p.printf("  - %s\n", rj.line())
		}
	}
	p.duplicates(rep, true)
	p.notes(rep, true)
	return p.err
}

func (p *printer) header(rep *Report, wide bool) {
	c := &rep.Coverage
	tw := textwrap.NewTable(p.w, 1)
	row := func(k, v string) {
		if v == "" || p.err != nil {
			return
		}
		lines := []string{v}
		if !wide {
			lines = textwrap.Words(v, textWidth-keyWidth)
		}
		_, p.err = fmt.Fprintf(tw, "%s:\t%s\n", k, strings.Join(lines, "\n\t"))
	}
	hash := rep.Manifest.Hash
	if !wide {
		hash = shortHash(hash)
	}
	row("Manifest", fmt.Sprintf("%s revision %s (%s)", rep.Manifest.Name, rep.Manifest.Revision, hash))
	row("Candidate", rep.Candidate)
	for _, j := range rep.Jobs {
		if j.RetryAttempt == 0 {
			row("Job", j.Name)
		} else {
			row("Retry", retryLine(j.Name, j.RetryAttempt, j.OriginalIndexes))
		}
	}
	row("Verdict", rep.Verdict)
	row("Coverage", fmt.Sprintf("%s results evaluated (%d passed, %d model %s); %d not evaluated (infrastructure); %d missing",
		c.Text, c.Passed, c.ModelFailures, textwrap.Plural(c.ModelFailures, "failure", "failures"), c.Infrastructure, c.Missing))
	row("Shards", fmt.Sprintf("%d/%d evaluated (%s)", c.ShardsEvaluated, c.Shards, c.stateCounts(States...)))
	if p.err == nil {
		p.err = tw.Flush()
	}
}

// shortHash is a manifest hash as the default view shows it: its algorithm and the first 16
// hex digits (64 bits, like a short commit ID), so the row fits 80 columns; -o wide and the
// reports keep the whole hash.
func shortHash(h string) string {
	alg, hex, ok := strings.Cut(h, ":")
	if !ok || len(hex) <= 16 {
		return h
	}
	return alg + ":" + hex[:16]
}

// Bounds of the default view: shard IDs named per group, groups shown, rejected receipts
// without a shard, and shards whose cases are named.
const (
	maxGroupIDs     = 20
	maxGroups       = 8
	maxTextRejected = 10
	maxCaseShards   = 5
)

// group is the shards of one state that share a reason.
type group struct {
	state  State
	reason string
	ix     indexes.Builder
	ids    []string
	n      int
	shards []*ShardReport
}

// groupReason is what the shards of a group share: the rejection's reason code, the first
// infrastructure reason; a missing shard has none beyond its state.
func groupReason(s *ShardReport, rejected map[string]string) string {
	switch s.State {
	case StateRejected:
		return rejected[s.ShardID]
	case StateNotEvaluated, StatePartial:
		var r []string
		if s.Missing > 0 {
			r = append(r, "results missing")
		}
		if len(s.Reasons) > 0 {
			r = append(r, "infrastructure: "+s.Reasons[0].Reason)
		}
		return strings.Join(r, "; ")
	case StateMissing:
		return "no receipt and no summary"
	}
	return ""
}

func (p *printer) groups(rep *Report) {
	rejected := map[string]string{}
	for _, rj := range rep.Rejected {
		if _, ok := rejected[rj.ShardID]; !ok && rj.ShardID != "" {
			rejected[rj.ShardID] = rj.Reason + ": " + rj.Message
		}
	}
	var gs []*group
	byKey := map[[2]string]*group{}
	for k := range rep.Shards {
		s := &rep.Shards[k]
		if s.State == StateComplete || s.State == StateFailed {
			continue
		}
		reason := groupReason(s, rejected)
		key := [2]string{string(s.State), reason}
		g := byKey[key]
		if g == nil {
			g = &group{state: s.State, reason: reason}
			byKey[key] = g
			gs = append(gs, g)
		}
		g.n++
		g.ix.Add(s.Index)
		if len(g.ids) < maxGroupIDs {
			g.ids = append(g.ids, s.ShardID)
		}
		if len(g.shards) < maxCaseShards {
			g.shards = append(g.shards, s)
		}
	}
	// Problems first, by state (States order), then the larger group.
	slices.SortStableFunc(gs, func(a, b *group) int {
		return cmp.Or(slices.Index(States, b.state)-slices.Index(States, a.state), b.n-a.n)
	})
	p.printf("\n")
	complete, failed := rep.Coverage.ShardStates[StateComplete], rep.Coverage.ShardStates[StateFailed]
	evaluated := fmt.Sprintf("%d complete", complete)
	if failed > 0 {
		evaluated += fmt.Sprintf(", %d evaluated with model failures", failed)
	}
	if len(gs) == 0 {
		p.para(fmt.Sprintf("Every shard has all its results evaluated (%s).", evaluated), "")
		return
	}
	n := len(rep.Shards) - complete - failed
	p.para(fmt.Sprintf("%d %s not complete (%s; -o wide lists every shard):", n, textwrap.Plural(n, "shard is", "shards are"), evaluated), "")
	for k, g := range gs {
		if k == maxGroups {
			p.printf("  ... and %s more; -o wide lists every shard.\n", textwrap.Count(len(gs)-maxGroups, "group", "groups"))
			break
		}
		head := fmt.Sprintf("%s, %d %s", g.state, g.n, textwrap.Plural(g.n, "shard", "shards"))
		if g.reason != "" {
			head += ": " + g.reason
		}
		p.para("- "+head, "    ")
		set := g.ix.Set()
		p.para(textwrap.Plural(set.Len(), "index ", "indexes ")+set.Truncated(textWidth-6-len("indexes ")), "      ")
		ids := strings.Join(g.ids, ", ")
		if g.n > len(g.ids) {
			ids += fmt.Sprintf(" and %d more", g.n-len(g.ids))
		}
		p.para(textwrap.Plural(g.n, "shard ", "shards ")+ids, "      ")
	}
	cased := 0
	for _, g := range gs {
		for _, s := range g.shards {
			if cased == maxCaseShards {
				break
			}
			if len(s.MissingCases) > 0 || len(s.NotEvaluatedCases) > 0 || len(s.Conflicts) > 0 {
				cased++
				p.cases(s, false)
			}
		}
	}
}

// para writes text wrapped to 80 columns, continuation lines indented by indent (the first
// line by two spaces less, or none when indent is "").
func (p *printer) para(text, indent string) {
	first := ""
	if len(indent) >= 2 {
		first = indent[2:]
	}
	p.printf("%s%s\n", first, strings.Join(textwrap.Words(text, textWidth-len(indent)), "\n"+indent))
}

// unplaced lists, up to limit, the rejected receipts not already shown as a rejected shard's
// reason: those that name no shard of the manifest, and those of shards other receipts covered.
func (p *printer) unplaced(rep *Report, limit int) {
	known := map[string]bool{}
	for k := range rep.Shards {
		if rep.Shards[k].State == StateRejected {
			known[rep.Shards[k].ShardID] = true
		}
	}
	var rest []Rejection
	for _, rj := range rep.Rejected {
		if !known[rj.ShardID] {
			rest = append(rest, rj)
		}
	}
	if len(rest) == 0 {
		return
	}
	p.printf("\nOther rejected receipts (not merged):\n")
	for k, rj := range rest {
		if k == limit {
			p.printf("  ... and %d more; -o wide lists every rejected receipt.\n", len(rest)-limit)
			break
		}
		p.para("- "+rj.line(), "    ")
	}
}

// duplicates counts the results reported by several attempts. The rule that resolved them is
// always the same: the default view names where it is written (the help, docs/reconcile.md)
// instead of repeating its nine lines on every run; -o wide and -o json|yaml state it.
func (p *printer) duplicates(rep *Report, wide bool) {
	dups := 0
	for k := range rep.Shards {
		dups += rep.Shards[k].Duplicates
	}
	if dups > 0 {
		p.printf("\n")
		rule := "Each was resolved by the duplicate rule (reconcile --help; -o wide states it)."
		if wide {
			rule = rep.DuplicateRule
		}
		p.para(fmt.Sprintf("Duplicates: %d %s reported by more than one attempt. %s", dups, textwrap.Plural(dups, "result was", "results were"), rule), "")
	}
}

func (p *printer) notes(rep *Report, wide bool) {
	if len(rep.Notes) == 0 {
		return
	}
	p.printf("\nNotes:\n")
	for _, n := range rep.Notes {
		if wide {
			p.printf("  - %s\n", n)
			continue
		}
		p.para("- "+n, "    ")
	}
}

// textWidth is the terminal width the text view's Retry rows are kept within, and keyWidth
// what the key column takes at most ("Candidate:" and the tabwriter's padding).
const (
	textWidth = 80
	keyWidth  = len("Candidate: ")
)

// retryLine is a retry's row: its name, attempt and the root indexes it ran. A retry's index map
// may hold hundreds of KiB of interval text; text that does not fit 80 columns is cut at an
// interval boundary and counted: "root indexes 0,2,4,6,8,... (50000 indexes)". A Job name
// too long to leave room keeps the first interval only. The JSON and YAML reports keep the
// whole string.
func retryLine(name string, attempt int, set indexes.Set) string {
	head := fmt.Sprintf("%s (attempt %d, root indexes ", name, attempt)
	room := textWidth - keyWidth - len(head) - len(")")
	if original := set.String(); len(original) <= room {
		return head + original + ")"
	}
	tail := fmt.Sprintf(",... (%d indexes)", set.Len())
	shown, _, cut := strings.Cut(set.Truncated(max(room-len(tail), 1)), " (and ")
	if !cut { // one interval, shown whole
		tail = fmt.Sprintf(" (%d indexes)", set.Len())
	}
	return head + shown + tail + ")"
}

// line is a rejected receipt in the text views: "SOURCE shard ID: REASON: MESSAGE".
func (rj Rejection) line() string {
	shard := ""
	if rj.ShardID != "" {
		shard = " shard " + rj.ShardID
	}
	return fmt.Sprintf("%s%s: %s: %s", rj.Source, shard, rj.Reason, rj.Message)
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, a...)
	}
}

func (p *printer) cases(s *ShardReport, wide bool) {
	line := func(text string) {
		p.printf("\n")
		if wide {
			p.printf("%s\n", text)
			return
		}
		p.para(text, "  ")
	}
	if len(s.MissingCases) > 0 {
		names := make([]string, 0, maxTextCases)
		for _, c := range s.MissingCases[:min(maxTextCases, len(s.MissingCases))] {
			names = append(names, c.String())
		}
		line(fmt.Sprintf("Shard %s: %d missing: %s%s", s.ShardID, len(s.MissingCases), strings.Join(names, ", "), more(len(s.MissingCases))))
	}
	if len(s.NotEvaluatedCases) > 0 {
		names := make([]string, 0, maxTextCases)
		for _, c := range s.NotEvaluatedCases[:min(maxTextCases, len(s.NotEvaluatedCases))] {
			n := c.String()
			if c.Reason != "" {
				n += " (" + c.Reason + ")"
			}
			names = append(names, n)
		}
		line(fmt.Sprintf("Shard %s: %d not evaluated: %s%s", s.ShardID, len(s.NotEvaluatedCases), strings.Join(names, ", "), more(len(s.NotEvaluatedCases))))
	}
	for _, c := range s.Conflicts {
		line(fmt.Sprintf("Shard %s: %s conflict: kept %s from attempt %s over %s from attempt %s", s.ShardID,
			c.CaseRef, c.KeptOutcome, c.KeptAttempt, c.OtherOutcome, c.OtherAttempt))
	}
}

func more(n int) string {
	if n > maxTextCases {
		return " and " + strconv.Itoa(n-maxTextCases) + " more (-o json lists every one)"
	}
	return ""
}
