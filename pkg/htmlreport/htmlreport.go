// Package htmlreport writes a report as one self-contained HTML page: every cell (a Job's
// index, a lineage's shard, a manifest's shard under reconcile) a cell of a grid coloured by its
// state, a legend in words with counts, each cell's facts on hover or click, the cells that need
// attention grouped by cause as the text view groups them, and what happens next. The page
// makes no request (no script, style or font from elsewhere), opens from a file in any browser
// and prints.
//
// One template and one script (page.html) draw any Page; Write, WriteLineage and
// WriteReconcile are the adapters from an IndexedJobStatus, a lineage report and a reconcile
// report. The grid is drawn from runs of cells in one state, so its colours are the states the
// report's -o json prints, and 100,000 cells cost a few bytes per run, not per cell. Facts are
// written for the cells whose row says more than their state, at most MaxFacts of them.
package htmlreport

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// MaxFacts bounds the cells whose facts the page carries: the others show their state.
const MaxFacts = 20000

// Colors are the cell colours of the states, in the order of indexstatus.States; the legend
// names each in words, so the grid does not rely on colour alone.
var Colors = map[indexstatus.State]string{
	indexstatus.StateSucceeded:   "#2e7d32",
	indexstatus.StateFailed:      "#c62828",
	indexstatus.StateRunning:     "#1565c0",
	indexstatus.StatePending:     "#f9a825",
	indexstatus.StateRetrying:    "#ef6c00",
	indexstatus.StateTerminating: "#6a1b9a",
	indexstatus.StateUnfinished:  "#9e9e9e",
}

// Write writes r, the report of one Job, as the page: a cell per index, in its index state.
func Write(w io.Writer, r *indexstatus.IndexedJobStatus) error {
	p := &Page{
		Tool: "status", Title: fmt.Sprintf("Job %s/%s", r.Job.Namespace, r.Job.Name),
		Status: string(r.Phase), Good: r.Completeness.Complete, Verdict: r.Completeness.Verdict,
		Lines: nonEmpty(r.Explanation), Unit: "index", Cells: int(r.Completions),
		Footer:   "observed " + utc(r.ObservedAt.Unix()),
		Sections: []Section{{"Next", r.Next}, {"Not known", r.Unknown}, {"Notes", r.Notes}},
	}
	stateIdx := map[indexstatus.State]int{}
	for i, s := range indexstatus.States {
		stateIdx[s] = i
		p.States = append(p.States, State{Name: string(s), Words: string(s), Color: Colors[s], Plain: s == indexstatus.StateSucceeded})
	}
	// An Unfinished index of a Job that failed at maxFailedIndexes is drawn as excluded by it.
	p.States = append(p.States, State{Name: ExcludedState, Words: excludedWords(r), Color: excludedColor, Optional: true})
	if r.Reason == batchv1.JobReasonMaxFailedIndexesExceeded {
		// r's Unfinished indexes were left out by maxFailedIndexes: no cell is left
		// Unfinished, and the legend leaves it out.
		p.States[stateIdx[indexstatus.StateUnfinished]].Optional = true
		stateIdx[indexstatus.StateUnfinished] = len(p.States) - 1
	}
	for _, run := range r.Grid {
		k, ok := stateIdx[run.State]
		if !ok {
			return fmt.Errorf("index state %q has no colour", run.State)
		}
		p.Runs = append(p.Runs, Run{First: run.First, Last: run.Last, State: k})
	}
	p.Timeline = timeline(r)
	for i := range r.Indexes {
		ix := &r.Indexes[i]
		if ix.State == indexstatus.StateSucceeded && ix.Attempts <= 1 && ix.ShardID == "" && !ix.Flaky {
			continue
		}
		p.addFact(func() Fact { return statusFact(ix) })
	}
	groups := r.CauseGroups()
	if len(groups) > 0 {
		p.Groups = &Table{Title: "Indexes that need attention, by cause", Headers: []string{"State", "Count", "Exit", "Rule", "Indexes", "Why"}, ListColumn: 4}
	}
	for _, g := range groups {
		rule := "-"
		if ru := g.Sample.Rule; ru != nil {
			rule = fmt.Sprintf("%d %s", ru.Index, ru.Action)
		}
		p.Groups.Rows = append(p.Groups.Rows, TableRow{State: stateIdx[g.Sample.State],
			Cells: []string{string(g.Sample.State), strconv.Itoa(g.Count), exitWords(g.Sample.LastExitCode, false), rule, cutList(g.Indexes, g.Count, "indexes"), g.Sample.Detail}})
	}
	return WritePage(w, p)
}

// statusFact is an index's facts: shard, attempts and last exit, the podFailurePolicy rule, the
// pods, each attempt the report lists (where and when it ran, how it ended), and the detail with the index's own pod names
// replaced by the placeholder (the last pod), so that indexes alike share one string.
func statusFact(ix *indexstatus.IndexStatus) Fact {
	f := Fact{Cell: ix.Index}
	f.add("shard", ix.ShardID)
	att := strconv.Itoa(int(ix.Attempts))
	if ix.LastExitCode != nil {
		att += fmt.Sprintf(", last exit code %d", *ix.LastExitCode)
	}
	if ix.LastReason != "" {
		att += " (" + ix.LastReason + ")"
	}
	f.Rows = append(f.Rows, Row{"attempts", att})
	if ix.Rule != nil {
		f.Rows = append(f.Rows, Row{"podFailurePolicy", fmt.Sprintf("rule %d, %s: %s", ix.Rule.Index, ix.Rule.Action, ix.Rule.On)})
	}
	if n := len(ix.Pods); n > 0 {
		// The last pod is the placeholder: written once per index, and the row of an index
		// with one pod is the same string for every index.
		f.Var = ix.Pods[n-1]
		f.Rows = append(f.Rows, Row{"pods", strings.Join(append(ix.Pods[:n-1:n-1], Placeholder), ", ")})
	}
	f.Attempts = attemptFacts(ix)
	if ix.Detail != "" {
		detail := strings.ReplaceAll(ix.Detail, Placeholder, "")
		for _, pod := range ix.Pods {
			detail = strings.ReplaceAll(detail, pod, Placeholder)
		}
		f.Rows = append(f.Rows, Row{"", detail})
	}
	return f
}

// nonEmpty is line as a list of paragraphs: none when it is empty.
func nonEmpty(line string) []string {
	if line == "" {
		return nil
	}
	return []string{line}
}

// maxIndexesText bounds the index list of a cause group in the table: the grid shows each.
const maxIndexesText = 240

// cutList shortens a list of count things called noun to about maxIndexesText characters, at
// a comma.
func cutList(list string, count int, noun string) string {
	if len(list) <= maxIndexesText {
		return list
	}
	head := list[:maxIndexesText]
	if i := strings.LastIndexByte(head, ','); i > 0 {
		head = head[:i]
	}
	return fmt.Sprintf("%s, … (%d %s in all; the grid shows each)", head, count, noun)
}
