package reconcile

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Report makes the report from everything added so far.
func (r *Reconciler) Report() *Report {
	m := r.m
	rep := &Report{
		APIVersion:    APIVersion,
		Kind:          Kind,
		Manifest:      contract.ManifestRef{Name: m.Metadata.Name, Revision: string(m.Revision), Hash: r.hash},
		Candidate:     r.opts.Candidate,
		Repetitions:   r.reps,
		Jobs:          r.jobs,
		DuplicateRule: DuplicateRule,
		Shards:        make([]ShardReport, 0, len(m.Shards)),
		Rejected:      r.rejected,
	}
	names := slices.Sorted(maps.Keys(r.candidates))
	if rep.Candidate == "" && len(names) == 1 {
		rep.Candidate = names[0]
	}
	if len(names) > 1 {
		for i, c := range names {
			names[i] = strconv.Quote(c)
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("The accepted receipts name %d candidates (%s): their results are different results; give --candidate to check one.",
			len(names), strings.Join(names, ", ")))
	}
	// Shard reports add notes; they belong to this report only.
	base := len(r.notes)
	defer func() { r.notes = r.notes[:base] }()
	cov := &rep.Coverage
	cov.ShardStates = map[State]int{}
	for _, s := range States {
		cov.ShardStates[s] = 0
	}
	cov.Shards = len(m.Shards)
	for i := range m.Shards {
		sr := r.shardReport(i)
		cov.Results += sr.Results
		cov.Passed += sr.Passed
		cov.ModelFailures += sr.ModelFailures
		cov.Infrastructure += sr.Infrastructure
		cov.ShardStates[sr.State]++
		if sr.State == StateComplete || sr.State == StateFailed {
			cov.ShardsEvaluated++
		}
		rep.Shards = append(rep.Shards, sr)
	}
	rep.Notes = append(rep.Notes, r.notes...)
	if r.rereads > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d %s of an attempt already read (the same attempt ID for the same shard, e.g. a copy of a file) read as that one attempt, not as duplicates: %s.",
			r.rereads, textwrap.Plural(r.rereads, "receipt was", "receipts were"), r.reread))
	}
	cov.Evaluated = cov.Passed + cov.ModelFailures
	cov.Missing = cov.Results - cov.Evaluated - cov.Infrastructure
	if cov.Results > 0 {
		cov.Fraction = float64(cov.Evaluated) / float64(cov.Results)
	}
	cov.Text = fmt.Sprintf("%d/%d (%s)", cov.Evaluated, cov.Results, percent(cov.Evaluated, cov.Results))
	rep.Complete = cov.Evaluated == cov.Results && cov.Results > 0
	rep.Verdict = verdict(rep)
	if r.noFiles != "" {
		rep.Verdict += "; " + r.noFiles
	}
	return rep
}

// percent formats n/d with one decimal, never rounding an incomplete fraction up to 100%.
func percent(n, d int) string {
	if d == 0 {
		return "0%"
	}
	if n == d {
		return "100%"
	}
	return fmt.Sprintf("%.1f%%", min(float64(n)*100/float64(d), 99.9))
}

func verdict(rep *Report) string {
	c := &rep.Coverage
	if rep.Complete {
		v := fmt.Sprintf("complete: every result of the manifest was evaluated (%d, of which %d failed for the model); a score can be computed", c.Results, c.ModelFailures)
		if len(rep.Rejected) > 0 {
			v += fmt.Sprintf("; %d rejected %s were not merged", len(rep.Rejected), textwrap.Plural(len(rep.Rejected), "receipt", "receipts"))
		}
		return v
	}
	return fmt.Sprintf("incomplete: %s of the results evaluated, %d/%d shards (%s); a score from these receipts would not cover the manifest",
		c.Text, c.ShardsEvaluated, c.Shards, c.stateCounts(StatePartial, StateNotEvaluated, StateMissing, StateRejected))
}

// stateCounts counts the shards in each of states that has any: "2 partial, 1 missing".
func (c *Coverage) stateCounts(states ...State) string {
	var parts []string
	for _, s := range states {
		if n := c.ShardStates[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	return strings.Join(parts, ", ")
}

func (r *Reconciler) shardReport(i int) ShardReport {
	sh := r.m.Shards[i]
	st := &r.shards[i]
	sr := ShardReport{Index: i, ShardID: sh.ID, Results: len(sh.Cases) * r.reps, Rejected: st.rejected}
	switch {
	case st.outcome != nil:
		r.fromReceipts(i, &sr)
	case len(st.attempts) > 0:
		r.fromSummaries(i, &sr)
	default:
		sr.Missing = sr.Results
		if st.rejected > 0 {
			sr.State = StateRejected
			sr.Detail = fmt.Sprintf("rejected: %s; its %s as missing", st.rejection, textwrap.Count(sr.Results, "result counts", "results count"))
			if st.rejected > 1 {
				sr.Detail = fmt.Sprintf("all %d receipts rejected, the first: %s; its %s as missing", st.rejected, st.rejection, textwrap.Count(sr.Results, "result counts", "results count"))
			}
		} else {
			sr.State = StateMissing
			sr.Detail = fmt.Sprintf("no receipt and no summary: its %s as missing", textwrap.Count(sr.Results, "result counts", "results count"))
		}
		return sr
	}
	sr.Evaluated = sr.Passed + sr.ModelFailures
	sr.State = stateOf(&sr)
	sr.Detail = detail(&sr)
	if st.rejected > 0 {
		sr.Detail += fmt.Sprintf("; %d rejected %s not merged", st.rejected, textwrap.Plural(st.rejected, "receipt", "receipts"))
	}
	return sr
}

func stateOf(sr *ShardReport) State {
	switch {
	case sr.Evaluated == sr.Results && sr.ModelFailures == 0:
		return StateComplete
	case sr.Evaluated == sr.Results:
		return StateFailed
	case sr.Evaluated == 0 && sr.Infrastructure > 0:
		return StateNotEvaluated
	default:
		return StatePartial
	}
}

func detail(sr *ShardReport) string {
	s := fmt.Sprintf("%d/%d results evaluated", sr.Evaluated, sr.Results)
	if sr.ModelFailures > 0 {
		s += fmt.Sprintf(", %d failed for the model", sr.ModelFailures)
	}
	if sr.Infrastructure > 0 {
		s += fmt.Sprintf(", %d not evaluated (infrastructure", sr.Infrastructure)
		if len(sr.Reasons) > 0 && sr.Reasons[0].Reason != "" {
			s += ": " + sr.Reasons[0].Reason
		}
		s += ")"
	}
	if sr.Missing > 0 {
		s += fmt.Sprintf(", %d missing", sr.Missing)
		if sr.MissingNamed {
			names := make([]string, 0, 3)
			for _, c := range sr.MissingCases[:min(3, len(sr.MissingCases))] {
				names = append(names, c.String())
			}
			s += ": " + strings.Join(names, ", ")
			if len(sr.MissingCases) > 3 {
				s += fmt.Sprintf(" and %d more", len(sr.MissingCases)-3)
			}
		} else {
			s += " (not named: the summary counts only; give --receipts DIR)"
		}
	}
	if sr.Duplicates > 0 {
		s += fmt.Sprintf("; %d duplicate %s resolved", sr.Duplicates, textwrap.Plural(sr.Duplicates, "result", "results"))
		if len(sr.Conflicts) > 0 {
			s += fmt.Sprintf(" (%d conflicting)", len(sr.Conflicts))
		}
	}
	return s
}

// String names the result as the reports do: the case, then "#" and the repetition unless it
// is 0.
func (c CaseRef) String() string {
	if c.Repetition == 0 {
		return c.Case
	}
	return fmt.Sprintf("%s#%d", c.Case, c.Repetition)
}

func (r *Reconciler) fromReceipts(i int, sr *ShardReport) {
	st := &r.shards[i]
	cases := r.m.Shards[i].Cases
	kept := make([]int, len(st.attempts))
	reasons := map[string]int{}
	for k, o := range st.outcome {
		c := CaseRef{Case: cases[k/r.reps], Repetition: k % r.reps}
		switch o {
		case outNone:
			sr.Missing++
			sr.MissingCases = append(sr.MissingCases, c)
			continue
		case outPassed:
			sr.Passed++
		case outModel:
			sr.ModelFailures++
		case outInfrastructure:
			sr.Infrastructure++
			reason := st.reasons[k]
			reasons[reason]++
			sr.NotEvaluatedCases = append(sr.NotEvaluatedCases, CaseFailure{CaseRef: c, Reason: reason, AttemptID: st.attempts[st.from[k]].id})
		}
		kept[st.from[k]]++
	}
	sr.MissingNamed = true
	sr.Source = "receipts"
	sr.Duplicates = st.duplicates
	sr.Conflicts = st.conflicts
	if st.nConflicts > len(st.conflicts) {
		r.notes = append(r.notes, fmt.Sprintf("Shard %q: %d conflicting results, the first %d listed.", sr.ShardID, st.nConflicts, len(st.conflicts)))
	}
	sr.Reasons = topReasons(reasons)
	used := func(k int) bool { return st.attempts[k].kind == "receipt" }
	for k := range st.attempts {
		sr.Attempts = append(sr.Attempts, attemptReport(&st.attempts[k], kept[k], used(k)))
	}
	sr.Outputs = sortedOutputs(st.attempts, used)
	r.crossCheck(i, sr)
}

// crossCheck notes summaries whose counts disagree with the receipt of the same attempt.
func (r *Reconciler) crossCheck(i int, sr *ShardReport) {
	st := &r.shards[i]
	for k := range st.attempts {
		s := st.attempts[k].summary
		if s == nil {
			continue
		}
		for j := range st.attempts {
			a := &st.attempts[j]
			if a.kind == "receipt" && a.id == s.AttemptID && a.results != st.attempts[k].results {
				r.notes = append(r.notes, fmt.Sprintf("Shard %q attempt %q: its summary (%s) reports %d results, its receipt (%s) %d.",
					sr.ShardID, s.AttemptID, st.attempts[k].source, st.attempts[k].results, a.source, a.results))
			}
		}
	}
}

func topReasons(reasons map[string]int) []ReasonCount {
	if len(reasons) == 0 {
		return nil
	}
	out := make([]ReasonCount, 0, len(reasons))
	for reason, n := range reasons {
		out = append(out, ReasonCount{Reason: reason, Count: n})
	}
	slices.SortFunc(out, func(a, b ReasonCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Reason, b.Reason))
	})
	return out[:min(len(out), maxReasons)]
}

func attemptReport(a *attempt, kept int, used bool) Attempt {
	at := Attempt{AttemptID: a.id, Source: a.source, Kind: a.kind, Results: a.results, Kept: kept, Used: used}
	if a.hasTime {
		t := a.finished.Truncate(time.Second)
		at.FinishedAt = &t
	}
	return at
}

func (r *Reconciler) fromSummaries(i int, sr *ShardReport) {
	st := &r.shards[i]
	best := 0
	for k := 1; k < len(st.attempts); k++ {
		a, b := st.attempts[k].summary, st.attempts[best].summary
		if a.Evaluated() > b.Evaluated() || a.Evaluated() == b.Evaluated() && st.attempts[k].later(&st.attempts[best]) {
			best = k
		}
	}
	s := st.attempts[best].summary
	sr.Passed, sr.ModelFailures, sr.Infrastructure = s.Completed, s.Failed.Model, s.Failed.Infrastructure
	sr.Missing = sr.Results - sr.Passed - sr.ModelFailures - sr.Infrastructure
	sr.MissingNamed = sr.Missing == 0
	sr.Source = "summary"
	if s.Failed.Infrastructure > 0 {
		sr.Reasons = []ReasonCount{{Reason: s.Reason, Count: s.Failed.Infrastructure}}
	}
	if len(st.attempts) > 1 {
		r.notes = append(r.notes, fmt.Sprintf("Shard %q: %d summaries from different attempts; the one from attempt %q (%s) is used, as summaries name no case and cannot be merged.",
			sr.ShardID, len(st.attempts), s.AttemptID, st.attempts[best].source))
	}
	for k := range st.attempts {
		kept := 0
		if k == best {
			kept = st.attempts[k].results
		}
		sr.Attempts = append(sr.Attempts, attemptReport(&st.attempts[k], kept, k == best))
	}
	sr.Outputs = sortedOutputs(st.attempts, func(k int) bool { return k == best })
}
