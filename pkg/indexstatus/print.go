package indexstatus

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// TextViewRows is how many indexes that need attention the text view lists (Options.ListLimit).
const TextViewRows = 50

// PrintText writes the report as text. With wide, every index gets a row (with its pods);
// otherwise only the indexes that need attention do, and the state table folds the rest.
func PrintText(w io.Writer, r *IndexedJobStatus, wide bool) error {
	return PrintTextWith(w, r, TextOptions{Wide: wide})
}

// TextOptions says how PrintTextWith lays the text view out.
type TextOptions struct {
	// Wide is -o wide: a row per index, with its pods; the state table lists every index.
	Wide bool
	// Width is the width the text is fitted to; Width (80) when smaller (a wider terminal).
	Width int
	// States, when set, keeps only the rows of these states in the tables (status --state),
	// and the state table lists every index of each, as -o wide does.
	States []State
}

// PrintTextWith writes the report as text, laid out as opts says.
func PrintTextWith(w io.Writer, r *IndexedJobStatus, opts TextOptions) error {
	p := &textPrinter{w: w, wide: opts.Wide, width: max(opts.Width, Width), full: opts.Wide || len(opts.States) > 0, only: sets.New(opts.States...)}
	p.header(r)
	p.queue(r)
	p.states(r)
	if p.wide {
		p.indexes(r)
	} else {
		p.groups(r)
	}
	p.next(r)
	p.list("Cannot be known", r.Unknown)
	p.list("Notes", r.Notes)
	return p.err
}

type textPrinter struct {
	w     io.Writer
	wide  bool
	width int
	// full: the state table lists every index of a state (-o wide, --state), wrapped.
	full bool
	// only, when not empty, are the states whose rows the tables keep (--state).
	only sets.Set[State]
	err  error
}

// keeps says whether the tables show rows of state s.
func (p *textPrinter) keeps(s State) bool { return p.only.Len() == 0 || p.only.Has(s) }

// Width is the width the text view fits by default.
const Width = 80

// WideWidth bounds the lines of -o wide, as kubectl's wide tables stay within a wide screen:
// its header, lists and commands wrap there, and an index row's DETAIL is cut to what the row
// leaves (-o json has every word). Its state table keeps the text view's width (a wider
// terminal's included).
const WideWidth = 160

// wrapWidth is the width the header, the lists and the commands are wrapped to.
func (p *textPrinter) wrapWidth() int {
	if p.wide {
		return WideWidth
	}
	return p.width
}

// headerKeyWidth is the width of the header's key column ("Completeness: ").
const headerKeyWidth = len("Completeness: ")

func (p *textPrinter) printf(format string, a ...any) { p.fprintf(p.w, format, a...) }

// fprintf writes to w, the printer's writer or a table of it, unless a write failed before.
func (p *textPrinter) fprintf(w io.Writer, format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(w, format, a...)
	}
}

// flush flushes a table unless a write failed before.
func (p *textPrinter) flush(tw *tabwriter.Writer) {
	if p.err == nil {
		p.err = tw.Flush()
	}
}

func (p *textPrinter) header(r *IndexedJobStatus) {
	tw := textwrap.NewTable(p.w, 1)
	row := func(k, v string) {
		if v == "" {
			return
		}
		// Wrapped to the terminal width (-o wide: WideWidth) under the value column.
		lines := textwrap.Words(v, p.wrapWidth()-headerKeyWidth)
		p.fprintf(tw, "%s:\t%s\n", k, strings.Join(lines, "\n\t"))
	}
	row("Job", cmp.Or(r.Job.Namespace, "(no namespace)")+"/"+r.Job.Name)
	row("Phase", string(r.Phase))
	if r.Reason != "" || r.Message != "" {
		row("Condition", strings.TrimSpace(r.Reason+": "+r.Message))
	}
	row("Why", r.Explanation)
	row("Waiting for", r.WaitingFor)
	row("Completeness", r.Completeness.Verdict)
	row("Flaky", r.flakyWords)
	row("Policy", policyWords(r))
	notRead := ""
	if r.Pods.NotRead > 0 { // live, without --all-pods: else "0 succeeded" reads as none
		notRead = fmt.Sprintf(", %d succeeded not read (--all-pods reads them)", r.Pods.NotRead)
	}
	row("Pods", fmt.Sprintf("%d seen (%d active, %d terminating, %d succeeded, %d failed)%s; status: active %d, terminating %d, succeeded %d, failed %d",
		r.Pods.Seen, r.Pods.Active, r.Pods.Terminating, r.Pods.Succeeded, r.Pods.Failed, notRead,
		r.Counters.Active, r.Counters.Terminating, r.Counters.Succeeded, r.Counters.Failed))
	if r.Shards != nil {
		src := "given"
		if r.Shards.ConfigMap != "" {
			src = "configmap " + r.Shards.ConfigMap
		}
		row("Shards", fmt.Sprintf("%d shard IDs from %s", r.Shards.Count, src))
	}
	p.flush(tw)
}

func policyWords(r *IndexedJobStatus) string {
	pol := r.Policy
	parts := []string{fmt.Sprintf("completions %d", r.Completions), fmt.Sprintf("parallelism %d", r.Parallelism)}
	add := func(set bool, format string, a any) {
		if set {
			parts = append(parts, fmt.Sprintf(format, a))
		}
	}
	add(pol.BackoffLimitPerIndex != nil, "backoffLimitPerIndex %d", ptr.Deref(pol.BackoffLimitPerIndex, 0))
	add(pol.MaxFailedIndexes != nil, "maxFailedIndexes %d", ptr.Deref(pol.MaxFailedIndexes, 0))
	add(pol.BackoffLimit != nil && (pol.BackoffLimitPerIndex == nil || *pol.BackoffLimit != jobpolicy.UnlimitedBackoffLimit),
		"backoffLimit %d", ptr.Deref(pol.BackoffLimit, 0))
	add(pol.PodFailurePolicyRules > 0, "podFailurePolicy %s", textwrap.Count(pol.PodFailurePolicyRules, "rule", "rules"))
	add(pol.SuccessPolicyRules > 0, "successPolicy %s", textwrap.Count(pol.SuccessPolicyRules, "rule", "rules"))
	add(pol.PodReplacementPolicy != "", "podReplacementPolicy %s", pol.PodReplacementPolicy)
	add(pol.ActiveDeadlineSeconds != nil, "activeDeadlineSeconds %d", ptr.Deref(pol.ActiveDeadlineSeconds, 0))
	add(pol.RestartPolicy != "" && pol.RestartPolicy != "Never", "restartPolicy %s", pol.RestartPolicy)
	return strings.Join(parts, ", ")
}

// states prints one line per state with its indexes folded into ranges.
func (p *textPrinter) states(r *IndexedJobStatus) {
	// Every state with a count has a run in the grid, so a builder.
	var builders ordered[State, indexes.Builder]
	for _, run := range r.Grid {
		builders.get(run.State, func() *indexes.Builder { return &indexes.Builder{} }).AddInterval(run.First, run.Last)
	}
	stateW, countW := len("STATE"), len("COUNT")
	var shown []State
	for _, s := range States {
		if n := r.Summary.Count(s); n > 0 && p.keeps(s) {
			shown = append(shown, s)
			stateW, countW = max(stateW, len(s)), max(countW, len(strconv.Itoa(n)))
		}
	}
	indent := stateW + 2 + countW + 2
	p.printf("\n")
	if p.full {
		// Every index of each state is listed, wrapped to the width under the INDEXES column
		// (-o wide, --state): a 2,000-index Job's 40 failed indexes are all there, not
		// "(and 23 more)".
		if len(shown) == 0 {
			p.printf("No index is %s.\n", stateWords(p.only))
			return
		}
		p.printf("%-*s%-*s%s\n", stateW+2, "STATE", countW+2, "COUNT", "INDEXES")
		for _, s := range shown {
			lines := builders.by[s].Set().Wrapped(max(p.width-indent, 16))
			p.lines(fmt.Sprintf("%-*s%-*d", stateW+2, s, countW+2, r.Summary.Count(s)), strings.Repeat(" ", indent), lines)
		}
		return
	}
	// The INDEXES cell gets what the STATE and COUNT columns leave of the width, " (and N
	// more)" included, so that a cut list ends at the width (it overshot by up to 10).
	room := p.width - indent
	tw := textwrap.NewTable(p.w, 2)
	p.fprintf(tw, "STATE\tCOUNT\tINDEXES\n")
	for _, s := range shown {
		n := r.Summary.Count(s)
		p.fprintf(tw, "%s\t%d\t%s\n", s, n, fit(builders.by[s].Set(), room))
	}
	p.flush(tw)
}

// aligned lays rows (the header first) out as a table, each line ending in its last column's
// padding, so that a column added at the end of each line starts at one place.
func (p *textPrinter) aligned(rows [][]string) []string {
	var table strings.Builder
	tw := textwrap.NewTable(&table, 2)
	for _, r := range rows {
		p.fprintf(tw, "%s\t\n", strings.Join(r, "\t"))
	}
	p.flush(tw)
	return strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n")
}

// fit is the indexes of set in room columns: cut, and followed by " (and N more)", when they
// do not fit.
func fit(set indexes.Set, room int) string {
	if s := set.String(); len(s) <= room {
		return s
	}
	return set.Truncated(max(room-len(fmt.Sprintf(" (and %d more)", set.Len())), 1))
}

// lines prints lines, the first after first and the others after rest (one empty line when
// there are none).
func (p *textPrinter) lines(first, rest string, lines []string) {
	p.printf("%s%s\n", first, strings.Join(lines, "\n"+rest))
}

// stateWords names the states of a --state filter: "Failed or Retrying".
func stateWords(only sets.Set[State]) string {
	var names []string
	for _, s := range States {
		if only.Has(s) {
			names = append(names, string(s))
		}
	}
	return strings.Join(names, " or ")
}

// indexes prints a row per listed index, with its pods (-o wide).
func (p *textPrinter) indexes(r *IndexedJobStatus) {
	if len(r.Indexes) == 0 {
		return
	}
	cases := r.omittedCases || slices.ContainsFunc(r.Indexes, func(st IndexStatus) bool { return st.Cases != nil })
	p.printf("\n")
	// The rows are aligned first; then each is printed with its detail at its end, cut to what
	// WideWidth leaves.
	cols := []string{"INDEX"}
	if r.Shards != nil {
		cols = append(cols, "SHARD")
	}
	cols = append(cols, "STATE", "ATTEMPTS", "EXIT", "CONTAINER", "RULE", "FAILURES", "RETRIES LEFT")
	if cases {
		cols = append(cols, "CASES")
	}
	rows := [][]string{append(cols, "POD")}
	var details []string
	for k := range r.Indexes {
		st := &r.Indexes[k]
		if !p.keeps(st.State) {
			continue
		}
		vals := []string{strconv.Itoa(st.Index)}
		if r.Shards != nil {
			vals = append(vals, cmp.Or(st.ShardID, "-"))
		}
		exit, rule, left := cells(st)
		vals = append(vals, string(st.State), strconv.Itoa(st.Attempts), exit, cmp.Or(st.LastContainer, "-"), rule, failureText(st), left)
		if cases {
			vals = append(vals, caseText(st))
		}
		rows = append(rows, append(vals, podText(st)))
		details = append(details, st.Detail)
	}
	lines := p.aligned(rows)
	p.printf("%sDETAIL\n", lines[0])
	for k, l := range lines[1:] {
		p.printf("%s\n", strings.TrimRight(l+Cut(details[k], WideWidth-len(l)), " "))
	}
	if more := r.omitted.Len(); more > 0 {
		p.printf("... and %d more indexes that need attention; -o wide lists every index.\n", more)
	}
}

// cells are the EXIT, RULE and RETRIES LEFT cells of an index, "-" for what it lacks.
func cells(st *IndexStatus) (exit, rule, left string) {
	exit, rule, left = "-", "-", "-"
	if st.LastExitCode != nil {
		exit = strconv.Itoa(int(*st.LastExitCode))
	}
	if st.Rule != nil {
		rule = fmt.Sprintf("%d %s", st.Rule.Index, st.Rule.Action)
	}
	if st.RetriesLeft != nil {
		left = strconv.Itoa(int(*st.RetriesLeft))
	}
	return exit, rule, left
}

// failureText is -o wide's FAILURES: the failures counted against backoffLimitPerIndex, and
// those an Ignore rule matched when there are any ("2 (+1 ignored)", as kubectl's RESTARTS
// adds "(5m ago)").
func failureText(st *IndexStatus) string {
	s := strconv.Itoa(int(st.FailureCount))
	if st.IgnoredFailureCount > 0 {
		s += fmt.Sprintf(" (+%d ignored)", st.IgnoredFailureCount)
	}
	return s
}

// podText is -o wide's POD: the index's latest pod, and how many older ones are still present
// ("eval-4-rgpds (+1)"); -o json lists every pod.
func podText(st *IndexStatus) string {
	switch n := len(st.Pods); n {
	case 0:
		return "-"
	case 1:
		return st.Pods[0]
	default:
		return fmt.Sprintf("%s (+%d)", st.Pods[n-1], n-1)
	}
}

// Cut shortens s to n columns, ending in "..." when it had to (-o json has it whole); at
// least the first 20 columns are kept.
func Cut(s string, n int) string {
	n = max(n, 20)
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-3]) + "..."
}

// maxGroupRows is how many groups of indexes the text view shows.
const maxGroupRows = 10

// groups prints the indexes that need attention by cause: a row per group with its count, the
// exit, the rule and the indexes as ranges, the words of its first index under it (the others
// alike), then the pods of the first index of each failed group. Every index is one range
// away; -o wide lists each.
func (p *textPrinter) groups(r *IndexedJobStatus) {
	all := slices.DeleteFunc(slices.Clone(r.groups), func(g indexGroup) bool { return !p.keeps(g.Sample.State) })
	if len(all) == 0 {
		return
	}
	p.printf("\n")
	// The INDEXES column is added after the others are aligned, so that the index list is cut
	// to what the width leaves.
	rows := [][]string{{"STATE", "COUNT", "EXIT", "RULE", "RETRIES LEFT"}}
	gs := all[:min(len(all), maxGroupRows)]
	var details [][]string
	for k := range gs {
		g, st := &gs[k], &gs[k].Sample
		exit, rule, left := cells(st)
		rows = append(rows, []string{string(st.State), strconv.Itoa(g.Indexes.Len()), exit, rule, left})
		// The first index of the group names its shard, as the per-index table did.
		label := strconv.Itoa(int(st.Index))
		var also []string
		if st.ShardID != "" {
			also = append(also, st.ShardID)
		}
		if n := g.Indexes.Len(); n > 1 {
			also = append(also, fmt.Sprintf("and %d alike", n-1))
		}
		if len(also) > 0 {
			label += " (" + strings.Join(also, ", ") + ")"
		}
		words := label + ": " + st.Detail
		details = append(details, textwrap.Words(words, p.width-4))
	}
	lines := p.aligned(rows)
	p.printf("%sINDEXES\n", lines[0])
	for k, l := range lines[1:] {
		g := &gs[k]
		cell := fit(g.Indexes, p.width-len(l))
		p.printf("%s%s\n", l, cell)
		if p.full && cell != g.Indexes.String() {
			// -o wide and --state list every index of the group under its row.
			p.lines("    indexes: ", "             ", g.Indexes.Wrapped(p.width-4-len("indexes: ")))
		}
		p.lines("    ", "    ", details[k])
	}
	if len(all) > len(gs) {
		rest := 0
		for _, g := range all[len(gs):] {
			rest += g.Indexes.Len()
		}
		p.printf("... and %s more (%s); -o wide lists every index.\n", textwrap.Count(len(all)-len(gs), "group", "groups"), textwrap.Count(rest, "index", "indexes"))
	}
	p.failedPods(gs)
}

// maxPodRows is how many failed indexes the text view names the pods of.
const maxPodRows = 10

// failedPods names, without -o wide, the pods of the first index of the failed or unfinished
// groups listed (oldest attempt first), so their logs can be fetched by name.
func (p *textPrinter) failedPods(gs []indexGroup) {
	n, more := 0, 0
	for k := range gs {
		st := &gs[k].Sample
		if (st.State != StateFailed && st.State != StateUnfinished) || len(st.Pods) == 0 {
			continue
		}
		if n == maxPodRows {
			more++
			continue
		}
		if n == 0 {
			p.printf("\nPods of the first index of each group (oldest attempt first):\n")
		}
		n++
		p.lines("  ", "    ", textwrap.Words(fmt.Sprintf("%d: %s", st.Index, strings.Join(st.Pods, ", ")), p.width-4))
	}
	if more > 0 {
		p.printf("  ... and %d more; -o wide lists the pods of every index.\n", more)
	}
}

// next prints Next; a command that ends an entry goes on a line of its own, unwrapped, so it
// can be copied.
func (p *textPrinter) next(r *IndexedJobStatus) {
	if len(r.NextEntries) == 0 {
		return
	}
	p.printf("\nNext:\n")
	for _, e := range r.NextEntries {
		text, cmd := e.Text, ""
		if e.Command != "" && strings.HasSuffix(text, ": "+e.Command) {
			text, cmd = strings.TrimSuffix(text, " "+e.Command), e.Command
		}
		p.lines("  - ", "    ", textwrap.Words(text, p.wrapWidth()-4))
		if cmd != "" {
			// A pipeline too long for the width breaks after its pipe (the shell reads on).
			if left, right, ok := strings.Cut(cmd, " | "); ok && 6+len(cmd) > p.wrapWidth() {
				p.command(left+" |", "      ")
				p.command(right, "        ")
			} else {
				p.command(cmd, "      ")
			}
		}
	}
}

// command prints a shell command at indent; one too long for the width breaks at spaces
// outside quotes, each line but the last ending in a backslash, so that it still runs when
// pasted (textwrap.Command).
func (p *textPrinter) command(cmd, indent string) {
	p.lines(indent, indent, textwrap.Command(cmd, p.wrapWidth()-len(indent)))
}

func (p *textPrinter) list(title string, items []string) {
	if len(items) == 0 {
		return
	}
	p.printf("\n%s:\n", title)
	for _, it := range items {
		p.lines("  - ", "    ", textwrap.Words(it, p.wrapWidth()-4))
	}
}

// caseText is the CASES column: the receipt summary's counts, or "-" without one.
func caseText(st *IndexStatus) string {
	if st.Cases == nil {
		return "-"
	}
	return st.Cases.Text
}

// queue prints the Queue block of a Kueue Job (pkg/kueue): a key and a value a line.
func (p *textPrinter) queue(r *IndexedJobStatus) {
	if r.Queue == nil {
		return
	}
	p.printf("\nQueue:\n")
	for _, kv := range r.Queue.Lines() {
		p.lines(fmt.Sprintf("  %-10s ", kv[0]+":"), strings.Repeat(" ", 13), textwrap.Words(kv[1], p.wrapWidth()-13))
	}
}
