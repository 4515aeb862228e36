package reconcile

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
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
			row("Retry", fmt.Sprintf("%s (attempt %d, root indexes %s)", j.Name, j.RetryAttempt, j.OriginalIndexes))
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
