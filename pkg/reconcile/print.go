package reconcile

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// maxTextCases is how many missing or not-evaluated cases the text view names per shard.
const maxTextCases = 10

// PrintText writes the report as text: the coverage, a row per shard, the cases that are
// missing or were not evaluated, the rejected receipts and the notes.
func PrintText(w io.Writer, rep *Report) error {
	p := &printer{w: w}
	c := &rep.Coverage
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	row := func(k, v string) {
		if v != "" && p.err == nil {
			_, p.err = fmt.Fprintf(tw, "%s:\t%s\n", k, v)
		}
	}
	row("Manifest", fmt.Sprintf("%s revision %s (%s)", rep.Manifest.Name, rep.Manifest.Revision, rep.Manifest.Hash))
	if rep.Candidate != "" {
		row("Candidate", rep.Candidate)
	}
	for _, j := range rep.Jobs {
		if j.RetryAttempt == 0 {
			row("Job", j.Name)
		} else {
			row("Retry", retryLine(j.Name, j.RetryAttempt, j.OriginalIndexes))
		}
	}
	row("Coverage", fmt.Sprintf("%s results evaluated (%d passed, %d model failures); %d not evaluated (infrastructure); %d missing",
		c.Text, c.Passed, c.ModelFailures, c.Infrastructure, c.Missing))
	var states []string
	for _, s := range States {
		if n := c.ShardStates[s]; n > 0 {
			states = append(states, fmt.Sprintf("%d %s", n, s))
		}
	}
	row("Shards", fmt.Sprintf("%d/%d evaluated (%s)", c.ShardsEvaluated, c.Shards, strings.Join(states, ", ")))
	row("Verdict", rep.Verdict)
	if p.err == nil {
		p.err = tw.Flush()
	}

	p.printf("\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if p.err == nil {
		_, p.err = fmt.Fprintln(tw, "INDEX\tSHARD\tSTATE\tEVALUATED\tMODEL\tINFRA\tMISSING\tSOURCE\tDETAIL")
	}
	for k := range rep.Shards {
		s := &rep.Shards[k]
		if p.err != nil {
			break
		}
		_, p.err = fmt.Fprintf(tw, "%d\t%s\t%s\t%d/%d\t%d\t%d\t%d\t%s\t%s\n", s.Index, s.ShardID, s.State, s.Evaluated, s.Results,
			s.ModelFailures, s.Infrastructure, s.Missing, dash(s.Source), s.Detail)
	}
	if p.err == nil {
		p.err = tw.Flush()
	}
	for k := range rep.Shards {
		p.cases(&rep.Shards[k])
	}
	if len(rep.Rejected) > 0 {
		p.printf("\nRejected (not merged):\n")
		for _, rj := range rep.Rejected {
			shard := ""
			if rj.ShardID != "" {
				shard = " shard " + rj.ShardID
			}
			p.printf("  - %s%s: %s: %s\n", rj.Source, shard, rj.Reason, rj.Message)
		}
	}
	dups := 0
	for k := range rep.Shards {
		dups += rep.Shards[k].Duplicates
	}
	if dups > 0 {
		p.printf("\nDuplicates: %d results were reported by more than one attempt. %s\n", dups, rep.DuplicateRule)
	}
	if len(rep.Notes) > 0 {
		p.printf("\nNotes:\n")
		for _, n := range rep.Notes {
			p.printf("  - %s\n", n)
		}
	}
	return p.err
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
func retryLine(name string, attempt int, original string) string {
	head := fmt.Sprintf("%s (attempt %d, root indexes ", name, attempt)
	room := textWidth - keyWidth - len(head) - len(")")
	if len(original) <= room {
		return head + original + ")"
	}
	set, err := indexes.Parse(original, indexes.Unbounded)
	if err != nil { // not interval text (never from this project's tools): cut it by bytes
		tail := fmt.Sprintf("... (%d bytes)", len(original))
		return head + cutUTF8(original, max(room-len(tail), 1)) + tail + ")"
	}
	tail := fmt.Sprintf(",... (%d indexes)", set.Len())
	shown, _, cut := strings.Cut(set.Truncated(max(room-len(tail), 1)), " (and ")
	if !cut { // text the controller writes shorter ("1-2" as "1,2"): all of it fits
		tail = fmt.Sprintf(" (%d indexes)", set.Len())
	}
	return head + shown + tail + ")"
}

// cutUTF8 returns at most n bytes of s, not splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
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

func (p *printer) cases(s *ShardReport) {
	if len(s.MissingCases) > 0 {
		names := make([]string, 0, maxTextCases)
		for _, c := range s.MissingCases[:min(maxTextCases, len(s.MissingCases))] {
			names = append(names, caseName(c))
		}
		p.printf("\nShard %s: %d missing: %s%s\n", s.ShardID, len(s.MissingCases), strings.Join(names, ", "), more(len(s.MissingCases)))
	}
	if len(s.NotEvaluatedCases) > 0 {
		names := make([]string, 0, maxTextCases)
		for _, c := range s.NotEvaluatedCases[:min(maxTextCases, len(s.NotEvaluatedCases))] {
			n := caseName(CaseRef{Case: c.Case, Repetition: c.Repetition})
			if c.Reason != "" {
				n += " (" + c.Reason + ")"
			}
			names = append(names, n)
		}
		p.printf("\nShard %s: %d not evaluated: %s%s\n", s.ShardID, len(s.NotEvaluatedCases), strings.Join(names, ", "), more(len(s.NotEvaluatedCases)))
	}
	for _, c := range s.Conflicts {
		p.printf("\nShard %s: %s conflict: kept %s from attempt %s over %s from attempt %s\n", s.ShardID,
			caseName(CaseRef{Case: c.Case, Repetition: c.Repetition}), c.KeptOutcome, c.KeptAttempt, c.OtherOutcome, c.OtherAttempt)
	}
}

func more(n int) string {
	if n > maxTextCases {
		return " and " + strconv.Itoa(n-maxTextCases) + " more (-o json lists every one)"
	}
	return ""
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
