package htmlreport

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
)

// Lineage states of the page that the LineageReport spells in two fields: a shard succeeded in
// a retry (state Succeeded, attempt above 0), and a shard a Job still running runs (unsettled:
// true, whatever its state so far).
const (
	LineageSucceededInRetry = "SucceededInRetry"
	LineageUnsettled        = "Unsettled"
)

// LineageStates are the states of a lineage page, in legend order: a success in the root and a
// success in a retry are told apart, so that what the retries closed shows.
var LineageStates = []State{
	{Name: string(indexstatus.StateSucceeded), Words: "succeeded in the root Job", Color: Colors[indexstatus.StateSucceeded], Plain: true},
	{Name: LineageSucceededInRetry, Words: "succeeded in a retry", Color: "#00acc1"},
	{Name: string(indexstatus.StateFailed), Words: "failed", Color: Colors[indexstatus.StateFailed]},
	{Name: LineageUnsettled, Words: "not settled: a Job that runs it is still running", Color: "#5c6bc0"},
	{Name: string(indexstatus.StateRunning), Words: "running", Color: Colors[indexstatus.StateRunning], Optional: true},
	{Name: string(indexstatus.StatePending), Words: "pending", Color: Colors[indexstatus.StatePending], Optional: true},
	{Name: string(indexstatus.StateRetrying), Words: "retrying", Color: Colors[indexstatus.StateRetrying], Optional: true},
	{Name: string(indexstatus.StateTerminating), Words: "terminating", Color: Colors[indexstatus.StateTerminating], Optional: true},
	{Name: string(indexstatus.StateUnfinished), Words: "unfinished", Color: Colors[indexstatus.StateUnfinished], Optional: true},
	{Name: string(lineage.StateMissing), Words: "missing: no Job of the lineage shows it", Color: "#37474f"},
}

// LineageState is the page state of a shard: Unsettled when a Job still running runs it,
// SucceededInRetry when a retry's success stands, else its state.
func LineageState(s *lineage.ShardStatus) string {
	switch {
	case s.Unsettled:
		return LineageUnsettled
	case s.State == indexstatus.StateSucceeded && s.Attempt > 0:
		return LineageSucceededInRetry
	}
	return string(s.State)
}

// WriteLineage writes r, the report of a run across its root Job and every retry, as the page:
// a cell per shard (root completion index) in its lineage state, the facts saying which Job
// settled it and every run of it; the Jobs of the lineage in the table.
func WriteLineage(w io.Writer, r *lineage.Report) error {
	status := "Not complete"
	if r.Complete {
		status = "Complete"
	}
	p := &Page{
		Tool: "status --lineage", Title: fmt.Sprintf("Lineage of Job %s/%s", r.Root.Namespace, r.Root.Name),
		Status: status, Good: r.Complete, Verdict: r.Verdict, Unit: "shard", States: LineageStates,
		Sections: []Section{{"Notes", r.Notes}},
	}
	if r.ManifestFrom != "" {
		p.Lines = append(p.Lines, fmt.Sprintf("%d shards, counted from %s; %d Jobs in the lineage.", r.Shards, r.ManifestFrom, len(r.Jobs)))
	}
	states := []int{}
	for i := range r.ShardStatuses {
		s := &r.ShardStatuses[i]
		if s.Index < 0 {
			return fmt.Errorf("shard %d: negative index", s.Index)
		}
		var err error
		if states, err = p.shardCell(states, s.Index, LineageState(s)); err != nil {
			return err
		}
		if states[s.Index] == 0 && len(s.Runs) <= 1 && s.ShardID == "" {
			continue // succeeded in the root, its one run: the cell says it all
		}
		p.addFact(func() Fact { return lineageFact(s) })
	}
	p.Cells, p.Runs = len(states), grid(states)
	if len(r.Jobs) > 0 {
		p.Groups = &Table{Title: "Jobs of the lineage", Headers: []string{"Job", "Attempt", "Phase", "Indexes", "Root indexes", "Succeeded", "Failed"}, ListColumn: 4}
	}
	for _, j := range r.Jobs {
		attempt := "root"
		if j.Attempt > 0 {
			attempt = "retry " + strconv.Itoa(j.Attempt)
		}
		p.Groups.Rows = append(p.Groups.Rows, TableRow{State: -1, Cells: []string{j.Name, attempt, j.Phase, strconv.Itoa(j.Completions),
			cutList(j.OriginalIndexes.String(), j.Completions, "indexes"), strconv.Itoa(j.Succeeded), strconv.Itoa(j.Failed)}})
	}
	return WritePage(w, p)
}

// lineageFact is a shard's facts: its ID, the Job whose result stands (the first that succeeded
// it, else the last that ran it), its last exit code and whether that was invalid input, each
// run (Job, index there, state, exit code), and the detail.
func lineageFact(s *lineage.ShardStatus) Fact {
	f := Fact{Cell: s.Index}
	f.add("shard", s.ShardID)
	if s.From != "" {
		label := "last run by"
		if s.State == indexstatus.StateSucceeded {
			label = "settled by"
		}
		f.Rows = append(f.Rows, Row{label, s.From + " (" + attemptWords(s.Attempt) + ")"})
	}
	if s.LastExitCode != nil || s.InvalidInput {
		f.Rows = append(f.Rows, Row{"last exit code", exitWords(s.LastExitCode, s.InvalidInput)})
	}
	for _, run := range s.Runs {
		v := fmt.Sprintf("index %d, %s", run.Index, run.State)
		if run.LastExitCode != nil || run.InvalidInput {
			v += ", exit code " + exitWords(run.LastExitCode, run.InvalidInput)
		}
		f.Rows = append(f.Rows, Row{"  run in " + run.Job, v})
	}
	f.add("", strings.ReplaceAll(s.Detail, Placeholder, ""))
	return f
}

func attemptWords(attempt int) string {
	if attempt == 0 {
		return "the root Job"
	}
	return "retry " + strconv.Itoa(attempt)
}

func exitWords(code *int32, invalid bool) string {
	v := "-"
	if code != nil {
		v = strconv.Itoa(int(*code))
	}
	if invalid {
		v += " (invalid input)"
	}
	return v
}
