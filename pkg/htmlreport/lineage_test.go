package htmlreport

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
)

// lineageReport is seed's run as pkg/lineage's TestBuildReportSeedAndRetry builds it (shard 2
// failed as invalid input in the root and its retry, shard 4 succeeded in the retry), with a
// second retry still running shard 5, a shard no Job shows, and words that look like markup.
func lineageReport() *lineage.Report {
	exit42, exit1 := int32(42), int32(1)
	ok := func(i int) lineage.ShardStatus {
		return lineage.ShardStatus{Index: i, ShardID: "s-" + string(rune('0'+i)), State: indexstatus.StateSucceeded, From: "seed",
			Runs: []lineage.Run{{Job: "seed", Index: i, State: indexstatus.StateSucceeded}}}
	}
	s2 := lineage.ShardStatus{Index: 2, ShardID: "s-2", State: indexstatus.StateFailed, From: "seed-r1", Attempt: 1, LastExitCode: &exit42, InvalidInput: true,
		Detail: `failed </script><script>alert(1)</script>`,
		Runs: []lineage.Run{{Job: "seed", Index: 2, State: indexstatus.StateFailed, LastExitCode: &exit42, InvalidInput: true},
			{Job: "seed-r1", Index: 0, State: indexstatus.StateFailed, LastExitCode: &exit42, InvalidInput: true}}}
	s4 := lineage.ShardStatus{Index: 4, ShardID: "s-4", State: indexstatus.StateSucceeded, From: "seed-r1", Attempt: 1,
		Runs: []lineage.Run{{Job: "seed", Index: 4, State: indexstatus.StateFailed, LastExitCode: &exit1}, {Job: "seed-r1", Index: 1, State: indexstatus.StateSucceeded}}}
	s5 := lineage.ShardStatus{Index: 5, State: indexstatus.StateRunning, From: "seed-r2", Attempt: 2, Unsettled: true,
		Runs: []lineage.Run{{Job: "seed", Index: 5, State: indexstatus.StateFailed, LastExitCode: &exit1}, {Job: "seed-r2", Index: 0, State: indexstatus.StateRunning}}}
	s3 := ok(3)
	s3.ShardID = "" // a Job create did not make: its shard is its index
	s6 := lineage.ShardStatus{Index: 6, State: lineage.StateMissing, Detail: "no Job of the lineage shows it"}
	return &lineage.Report{Root: contract.JobRef{Name: "seed", Namespace: "ml"}, Shards: 7, ManifestFrom: "job seed",
		Verdict: `4 of 7 shards succeeded <b>bold</b>`, Notes: []string{`<img src=x onerror=alert(2)>`},
		Jobs: []lineage.JobSummary{{Name: "seed", Phase: "Failed", Completions: 7, OriginalIndexes: indexes.Range(0, 6)}, {Name: "seed-r1", Attempt: 1, Phase: "Failed", Completions: 2, OriginalIndexes: indexes.Of(2, 4)},
			{Name: "seed-r2", Attempt: 2, Phase: "Running", Completions: 1, OriginalIndexes: indexes.Of(5)}},
		ShardStatuses: []lineage.ShardStatus{ok(0), ok(1), s2, s3, s4, s5, s6}}
}

// TestLineagePage: each shard is drawn in its lineage state, a success in a retry apart from
// one in the root and a shard a running Job holds as not settled; the legend counts them in
// words; the facts say which Job settled a shard and list its runs.
func TestLineagePage(t *testing.T) {
	var b bytes.Buffer
	if err := WriteLineage(&b, lineageReport()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	d := pageData(t, page)
	want := []string{"Succeeded", "Succeeded", "Failed", "Succeeded", LineageSucceededInRetry, LineageUnsettled, "Missing"}
	if got := cellStates(d); !slices.Equal(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
	for _, w := range []string{"succeeded in the root Job: 3", "succeeded in a retry: 1", "failed: 1", "not settled: a Job that runs it is still running: 1", "missing: no Job of the lineage shows it: 1",
		"<h2>Every shard</h2>", "<h2>Jobs of the lineage</h2>", "<td>retry 2</td>"} {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if strings.Contains(page, ">running: ") {
		t.Error("an optional state no shard is in is in the legend")
	}
	if r := rowsOf(d, 4); r["settled by"] != "seed-r1 (retry 1)" || r["  run in seed"] != "index 4, Failed, exit code 1" || r["  run in seed-r1"] != "index 1, Succeeded" {
		t.Errorf("shard 4's facts: %v", r)
	}
	if r := rowsOf(d, 2); r["last run by"] != "seed-r1 (retry 1)" || r["last exit code"] != "42 (invalid input)" || r["  run in seed-r1"] != "index 0, Failed, exit code 42 (invalid input)" {
		t.Errorf("shard 2's facts: %v", r)
	}
	if rowsOf(d, 3) != nil || rowsOf(d, 0)["settled by"] != "seed (the root Job)" || rowsOf(d, 5)["last run by"] != "seed-r2 (retry 2)" {
		t.Errorf("a shard that succeeded in its one run in the root, with no shard ID, carries facts, or another lacks them: %v %v %v", rowsOf(d, 3), rowsOf(d, 0), rowsOf(d, 5))
	}
	for _, bad := range []string{"<script>alert", "<b>bold", "<img src"} {
		if strings.Contains(page, bad) {
			t.Errorf("a report string became markup: %q", bad)
		}
	}
}
