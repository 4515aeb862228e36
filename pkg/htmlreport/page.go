package htmlreport

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
)

// Page is what one report page shows, whatever it is a report of (a Job's indexes, a lineage's
// shards, a reconcile's coverage): one template and one script draw any Page. Every string is
// text: the template escapes it, the script writes it with textContent.
type Page struct {
	// Tool names the command in the title and the footer ("status", "status --lineage").
	Tool string
	// Title is the heading ("Job ml/eval").
	Title string
	// Status is the one-word state beside the verdict; Good colours it green, else red.
	Status  string
	Good    bool
	Verdict string
	// Lines are paragraphs under the verdict (an explanation, coverage).
	Lines []string
	// Unit names a cell ("index", "shard"); Cells is how many there are (0..Cells-1).
	Unit  string
	Cells int
	// States are the cell states in legend order.
	States []State
	// Runs colour the grid: cells First..Last in state States[State], in increasing order;
	// a cell in no run has no state.
	Runs []Run
	// Facts are what hover and click show of a cell, beyond its state.
	Facts []Fact
	// FactsCut counts the cells whose facts were left out (MaxFacts).
	FactsCut int
	// Timeline, when set, is the section of attempts over time.
	Timeline *Timeline
	// Groups is a table under the grid (the cells that need attention, by cause).
	Groups *Table
	// Sections are titled lists (next steps, what is not known, notes).
	Sections []Section
	// Footer ends the page ("observed 2026-...").
	Footer string
}

// State is a cell state: Name identifies it (the state a report's JSON gives, or a name of the
// page's own for a state the JSON spells in two fields), Words say it in the legend and in the
// facts, Color fills its cells. Plain states need no facts: a cell of one without facts is not
// said to have lost them to MaxFacts. Optional states stay out of the legend while no cell has
// them.
type State struct {
	Name, Words, Color string
	Plain, Optional    bool
}

// Run is cells First..Last in one state (an index into Page.States).
type Run struct{ First, Last, State int }

// Fact is what is known of one cell, as label/value rows. In a value, Placeholder stands for
// Var, so that cells alike (the same detail naming each its own pod) share one string.
type Fact struct {
	Cell int
	Var  string
	Rows []Row
	// Attempts, shown after the rows, say where and when each attempt ran.
	Attempts []AttemptFact
}

// Row is one line of a cell's facts; a row without a label is a sentence of its own.
type Row struct{ Label, Value string }

// add adds the row label: value, unless value is empty.
func (f *Fact) add(label, value string) {
	if value != "" {
		f.Rows = append(f.Rows, Row{label, value})
	}
}

// Placeholder marks where a value names its cell's Var.
const Placeholder = "\x00"

// Table is a table of text; Rows[i].State (-1: none) puts that state's swatch in its first cell.
type Table struct {
	Title   string
	Headers []string
	Rows    []TableRow
	// ListColumn is the column of long lists (of indexes), set in a narrow monospace (-1: none).
	ListColumn int
}

// TableRow is a row of a Table.
type TableRow struct {
	State int
	Cells []string
}

// Section is a titled list.
type Section struct {
	Title string
	Items []string
}

//go:embed page.html
var pageHTML string

var tmpl = template.Must(template.New("report").Parse(pageHTML))

// data is what the page's script reads (JSON in the page; json.Marshal escapes <, > and &, so
// no string of the report can end the script element). It is packed for size: runs is the
// grid as (length, state) pairs from cell 0 (state -1: a cell in no state); facts are rows
// [cell, var, label, value, label, value, ...] whose labels and values are indexes into strs.
type data struct {
	Cells    int      `json:"cells"`
	Unit     string   `json:"unit"`
	States   []string `json:"states"`
	Words    []string `json:"words"`
	Colors   []string `json:"colors"`
	Plain    []bool   `json:"plain"`
	Runs     []int    `json:"runs"`
	Strs     []string `json:"strs"`
	Facts    [][]any  `json:"facts"`
	FactsCut int      `json:"factsCut"`
	// Att are the facts' attempts, six numbers each: cell, attempt, start and finish in
	// seconds after Base (Unix seconds; -1: not known), node and outcome (indexes into strs).
	Att  []int64 `json:"att"`
	Base int64   `json:"base"`
	// Timeline is the chart of attempts over time (absent: the page has none).
	Timeline *Timeline `json:"timeline,omitempty"`
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
	*Page
	Legend []legendRow
	Groups [][]groupCell // the rows of Page.Groups
	Data   template.JS
}

type legendRow struct {
	Name, Words, Color string
	Count              int
}

type groupCell struct {
	Text, Color string
	List        bool
}

// WritePage writes p as one self-contained HTML page.
func WritePage(w io.Writer, p *Page) error {
	d := data{Cells: p.Cells, Unit: p.Unit, Runs: []int{}, Facts: [][]any{}, FactsCut: p.FactsCut, Att: []int64{}, Timeline: p.Timeline}
	for _, s := range p.States {
		d.States = append(d.States, s.Name)
		d.Words = append(d.Words, s.Words)
		d.Colors = append(d.Colors, s.Color)
		d.Plain = append(d.Plain, s.Plain)
	}
	counts := make([]int, len(p.States))
	next := 0
	for _, run := range p.Runs {
		if run.State < 0 || run.State >= len(p.States) {
			return fmt.Errorf("cells %d-%d: state %d of %d", run.First, run.Last, run.State, len(p.States))
		}
		if run.First < next || run.Last < run.First || run.Last >= p.Cells {
			return fmt.Errorf("cells %d-%d: out of order or outside 0-%d", run.First, run.Last, p.Cells-1)
		}
		if run.First > next {
			d.Runs = append(d.Runs, run.First-next, -1)
		}
		d.Runs = append(d.Runs, run.Last-run.First+1, run.State)
		counts[run.State] += run.Last - run.First + 1
		next = run.Last + 1
	}
	st := &strs{at: map[string]int{}}
	st.id("")
	for _, f := range p.Facts {
		row := make([]any, 0, 2+2*len(f.Rows))
		row = append(row, f.Cell, strings.ReplaceAll(f.Var, Placeholder, ""))
		for _, r := range f.Rows {
			row = append(row, st.id(r.Label), st.id(r.Value))
		}
		d.Facts = append(d.Facts, row)
		for _, a := range f.Attempts {
			for _, t := range []int64{a.Start, a.Finish} {
				if t != 0 && (d.Base == 0 || t < d.Base) {
					d.Base = t
				}
			}
		}
	}
	for _, f := range p.Facts {
		d.Att = attemptRows(d.Att, f.Cell, f.Attempts, d.Base, st)
	}
	d.Strs = st.list
	js, _ := json.Marshal(d)                  // ints, strings and bools, which always encode
	v := view{Page: p, Data: template.JS(js)} //nolint:gosec // JSON from encoding/json, which escapes <, > and &
	for i, s := range p.States {
		if s.Optional && counts[i] == 0 {
			continue
		}
		v.Legend = append(v.Legend, legendRow{Name: s.Name, Words: s.Words, Color: s.Color, Count: counts[i]})
	}
	if p.Groups != nil {
		for _, r := range p.Groups.Rows {
			var g []groupCell
			for i, c := range r.Cells {
				gc := groupCell{Text: c, List: i == p.Groups.ListColumn}
				if i == 0 && r.State >= 0 && r.State < len(p.States) {
					gc.Color = p.States[r.State].Color
				}
				g = append(g, gc)
			}
			v.Groups = append(v.Groups, g)
		}
	}
	return tmpl.Execute(w, v)
}

// grid turns a state per cell (-1: none) into runs.
func grid(states []int) []Run {
	var runs []Run
	for i, s := range states {
		if s < 0 {
			continue
		}
		if n := len(runs); n > 0 && runs[n-1].State == s && runs[n-1].Last == i-1 {
			runs[n-1].Last = i
			continue
		}
		runs = append(runs, Run{First: i, Last: i, State: s})
	}
	return runs
}

// stateIndex finds a state by name in p.States (-1: none).
func (p *Page) stateIndex(name string) int {
	return slices.IndexFunc(p.States, func(s State) bool { return s.Name == name })
}

// addFact adds the facts fact makes, or only counts them in FactsCut once the page carries
// MaxFacts.
func (p *Page) addFact(fact func() Fact) {
	if len(p.Facts) == MaxFacts {
		p.FactsCut++
		return
	}
	p.Facts = append(p.Facts, fact())
}

// shardCell sets states[index] to the page's state named state, growing states with -1 (no
// cell) as needed.
func (p *Page) shardCell(states []int, index int, state string) ([]int, error) {
	k := p.stateIndex(state)
	if k < 0 {
		return nil, fmt.Errorf("shard state %q has no colour", state)
	}
	for len(states) <= index {
		states = append(states, -1)
	}
	states[index] = k
	return states, nil
}
