package htmlreport

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/reconcile"
)

// reconcileReport has a shard in each of reconcile's states, out of order as a report never
// is (the page places each by its index), and receipts that say markup.
func reconcileReport() *reconcile.Report {
	return &reconcile.Report{Manifest: contract.ManifestRef{Name: "gsm8k", Revision: "3"}, Verdict: "coverage is incomplete: no score",
		Coverage: reconcile.Coverage{Shards: 7, Text: "10/24 (41.7%)"}, DuplicateRule: reconcile.DuplicateRule,
		Shards: []reconcile.ShardReport{
			{Index: 0, ShardID: "shard-0", State: reconcile.StateComplete, Results: 4, Evaluated: 4, Passed: 4, Source: "receipts",
				Attempts: []reconcile.Attempt{{AttemptID: "a0", Source: "shard-0/a0.receipt.json", Kind: "receipt", Results: 4, Kept: 4, Used: true}}},
			{Index: 2, ShardID: "shard-2", State: reconcile.StatePartial, Results: 4, Evaluated: 2, Passed: 2, Missing: 2, MissingNamed: true,
				MissingCases: []reconcile.CaseRef{{Case: "c-3"}, {Case: "c-4", Repetition: 1}}},
			{Index: 1, ShardID: "shard-1", State: reconcile.StateFailed, Results: 4, Evaluated: 4, Passed: 3, ModelFailures: 1},
			{Index: 3, ShardID: "shard-3", State: reconcile.StateNotEvaluated, Results: 4, Infrastructure: 4, Reasons: []reconcile.ReasonCount{{Reason: "timeout", Count: 4}}},
			{Index: 4, ShardID: "shard-4", State: reconcile.StateMissing, Results: 4, Missing: 4},
			{Index: 5, ShardID: "shard-5", State: reconcile.StateRejected, Results: 4, Missing: 4, Rejected: 1, Detail: `</script><script>alert(1)</script>`},
		},
		Rejected: []reconcile.Rejection{{Source: `x/<b>y</b>.receipt.json`, ShardID: "shard-5", Reason: reconcile.RejectManifest, Message: `<img src=x onerror=alert(2)>`},
			{Source: "shard-6/b.receipt.json", ShardID: "shard-6", Reason: reconcile.RejectManifest, Message: "another hash"},
			{Source: "c.receipt.json", Reason: reconcile.RejectMalformed, Message: "not JSON"}}}
}

// TestReconcilePage: every shard of the manifest is drawn in the state reconcile gives it, a
// shard the report does not list is left blank, the legend counts states in words, the facts
// count a shard's results and name what is missing, rejected receipts are a table.
func TestReconcilePage(t *testing.T) {
	var b bytes.Buffer
	if err := WriteReconcile(&b, reconcileReport()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	d := pageData(t, page)
	want := []string{"complete", "failed", "partial", "not-evaluated", "missing", "rejected", ""}
	if got := cellStates(d); !slices.Equal(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
	for _, w := range []string{"complete: every result evaluated: 1", "partial: some results not evaluated: 1", "missing: no receipt: 1", "rejected: every receipt rejected: 1",
		"Coverage 10/24 (41.7%) results evaluated.", "Reconcile of manifest gsm8k revision 3", "<h2>Rejected receipts (never merged), by reason</h2>", "manifest-mismatch</td><td>2</td><td class=\"ix\">shard-5,shard-6</td>", "malformed</td><td>1</td>"} {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if r := rowsOf(d, 2); r["missing"] != "c-3, c-4#1" || r["results"] != "2 evaluated of 4 (passed 2, model failures 0, infrastructure 0, missing 2)" {
		t.Errorf("shard 2's facts: %v", r)
	}
	if r := rowsOf(d, 3); r["infrastructure"] != "timeout × 4" {
		t.Errorf("shard 3's facts: %v", r)
	}
	if r := rowsOf(d, 0); r["  attempt a0"] != "receipt shard-0/a0.receipt.json, 4 results, 4 kept" {
		t.Errorf("shard 0's facts: %v", r)
	}
	for _, bad := range []string{"<script>alert", "<b>y", "<img src"} {
		if strings.Contains(page, bad) {
			t.Errorf("a report string became markup: %q", bad)
		}
	}
}

// TestPagesKeepTheirPolicy: every page keeps the Content-Security-Policy that forbids any
// request, and names nothing to fetch.
func TestPagesKeepTheirPolicy(t *testing.T) {
	pages := map[string]func(*bytes.Buffer) error{
		"status":    func(b *bytes.Buffer) error { return Write(b, report()) },
		"lineage":   func(b *bytes.Buffer) error { return WriteLineage(b, lineageReport()) },
		"reconcile": func(b *bytes.Buffer) error { return WriteReconcile(b, reconcileReport()) },
	}
	for name, write := range pages {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"`) {
			t.Errorf("%s: the page lost its Content-Security-Policy", name)
		}
		for _, fetch := range []string{"http:", "https:", "src=\"", "@import", "url("} {
			if strings.Contains(page, fetch) {
				t.Errorf("%s: the page names something to fetch: %q", name, fetch)
			}
		}
	}
}
