// Package htmlreport writes an IndexedJobStatus as one self-contained HTML page: every index a
// cell of a grid coloured by its state, a legend in words with counts, each index's facts on
// hover or click, the indexes that need attention grouped by cause as the text view groups
// them, and what happens next. The page makes no request (no script, style or font from
// elsewhere), opens from a file in any browser and prints.
//
// The grid is drawn from the report's runs of indexes in one state (IndexedJobStatus.Grid), so
// its colours are the states `status -o json` prints, and 100,000 indexes cost a few bytes per
// run, not per index. Facts are written for the indexes whose row says more than "succeeded on
// its first attempt", at most MaxFacts of them.
package htmlreport

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// MaxFacts bounds the indexes whose facts the page carries: the others show their state.
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

//go:embed page.html
var page string

var tmpl = template.Must(template.New("report").Parse(page))

// data is what the page's script reads (JSON in the page; json.Marshal escapes <, > and &, so
// no string of the report can end the script element). It is packed for size: runs is the
// grid as (length, state) pairs from index 0 (state -1: an index the report has no row for);
// facts are rows [index, attempts, last exit code or null, reason, rule, detail, shard, pods,
// history] whose strings are indexes into strs (details with the index's own pod names
// replaced by {pod}, so that indexes alike share one string).
type data struct {
	Completions int      `json:"completions"`
	States      []string `json:"states"`
	Colors      []string `json:"colors"`
	Runs        []int    `json:"runs"`
	Strs        []string `json:"strs"`
	Facts       [][]any  `json:"facts"`
	FactsCut    int      `json:"factsCut"`
}

// strs interns the strings of the facts.
type strs struct {
	list []string
	at   map[string]int
}

func (s *strs) id(v string) int {
	if i, ok := s.at[v]; ok {
		return i
	}
	s.at[v] = len(s.list)
	s.list = append(s.list, v)
	return len(s.list) - 1
}

// view is what the template prints as HTML (escaped by html/template).
type view struct {
	Title, Phase, Verdict, Explanation, Observed string
	Complete                                     bool
	Legend                                       []legendRow
	Groups                                       []groupRow
	Next, Unknown, Notes                         []string
	Data                                         template.JS
}

type legendRow struct {
	State, Color string
	Count        int
}

type groupRow struct {
	State, Color, Exit, Rule, Indexes, Detail string
	Count                                     int
}

// Write writes r as the page.
func Write(w io.Writer, r *indexstatus.IndexedJobStatus) error {
	d := data{Completions: int(r.Completions)}
	stateIdx := map[indexstatus.State]int{}
	for i, s := range indexstatus.States {
		stateIdx[s] = i
		d.States = append(d.States, string(s))
		d.Colors = append(d.Colors, Colors[s])
	}
	counts := make([]int, len(indexstatus.States))
	next := 0
	for _, run := range r.Grid {
		k, ok := stateIdx[run.State]
		if !ok {
			return fmt.Errorf("index state %q has no colour", run.State)
		}
		if run.First > next {
			d.Runs = append(d.Runs, run.First-next, -1)
		}
		d.Runs = append(d.Runs, run.Last-run.First+1, k)
		counts[k] += run.Last - run.First + 1
		next = run.Last + 1
	}
	st := &strs{at: map[string]int{}}
	st.id("")
	for i := range r.Indexes {
		ix := &r.Indexes[i]
		if ix.State == indexstatus.StateSucceeded && ix.Attempts <= 1 && ix.ShardID == "" && !ix.Flaky {
			continue
		}
		if len(d.Facts) == MaxFacts {
			d.FactsCut++
			continue
		}
		rule, detail := "", ix.Detail
		if ix.Rule != nil {
			rule = fmt.Sprintf("rule %d, %s: %s", ix.Rule.Index, ix.Rule.Action, ix.Rule.On)
		}
		for _, pod := range ix.Pods {
			detail = strings.ReplaceAll(detail, pod, "{pod}")
		}
		var hist []string
		if len(ix.AttemptHistory) > 1 {
			for _, a := range ix.AttemptHistory {
				exit := "-"
				if a.ExitCode != nil {
					exit = strconv.Itoa(int(*a.ExitCode))
				}
				hist = append(hist, fmt.Sprintf("%d %s exit %s %s", a.Attempt, a.Phase, exit, a.Reason))
			}
		}
		d.Facts = append(d.Facts, []any{ix.Index, ix.Attempts, ix.LastExitCode, st.id(ix.LastReason), st.id(rule), st.id(detail),
			st.id(ix.ShardID), strings.Join(ix.Pods, " "), strings.Join(hist, "; ")})
	}
	d.Strs = st.list
	js, err := json.Marshal(d)
	if err != nil {
		return err
	}
	v := view{
		Title:       fmt.Sprintf("%s/%s", r.Job.Namespace, r.Job.Name),
		Phase:       string(r.Phase),
		Verdict:     r.Completeness.Verdict,
		Complete:    r.Completeness.Complete,
		Explanation: r.Explanation,
		Observed:    r.ObservedAt.UTC().Format("2006-01-02 15:04:05 UTC"),
		Next:        r.Next, Unknown: r.Unknown, Notes: r.Notes,
		Data: template.JS(js), //nolint:gosec // JSON from encoding/json, which escapes <, > and &
	}
	for i, s := range indexstatus.States {
		v.Legend = append(v.Legend, legendRow{State: string(s), Color: Colors[s], Count: counts[i]})
	}
	for _, g := range r.CauseGroups() {
		row := groupRow{State: string(g.Sample.State), Color: Colors[g.Sample.State], Count: g.Count, Indexes: cut(g.Indexes, g.Count), Detail: g.Sample.Detail, Exit: "-", Rule: "-"}
		if g.Sample.LastExitCode != nil {
			row.Exit = strconv.Itoa(int(*g.Sample.LastExitCode))
		}
		if ru := g.Sample.Rule; ru != nil {
			row.Rule = fmt.Sprintf("%d %s", ru.Index, ru.Action)
		}
		v.Groups = append(v.Groups, row)
	}
	return tmpl.Execute(w, v)
}

// maxIndexesText bounds the index list of a cause group in the table: the grid shows each.
const maxIndexesText = 240

// cut shortens an interval list of count indexes to about maxIndexesText characters, at a comma.
func cut(list string, count int) string {
	if len(list) <= maxIndexesText {
		return list
	}
	head := list[:maxIndexesText]
	if i := strings.LastIndexByte(head, ','); i > 0 {
		head = head[:i]
	}
	return fmt.Sprintf("%s, … (%d indexes in all; the grid shows each)", head, count)
}
