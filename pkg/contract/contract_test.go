package contract

import (
	"os"
	"strings"
	"testing"
)

// TestEveryKindIsDocumented: docs/contracts.md names every kind, in backquotes, in its table.
// Kinds lists every kind of contract.go, for the test that keeps the documentation whole.
var Kinds = []string{
	LintReport, JobDiff, IndexedJobStatus, IndexedJobLineage, IndexedJobList,
	ShardManifest, ShardManifestSummary, ShardManifestSummaryList, ShardTable,
	ShardReceipt, ShardReceiptSummary, ReconcileReport, SimulationReport, SimulationComparison, PodRecord,
}

func TestEveryKindIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/contracts.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, k := range Kinds {
		if seen[k] {
			t.Errorf("kind %s is listed twice in Kinds", k)
		}
		seen[k] = true
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("docs/contracts.md does not name kind `%s`", k)
		}
	}
	if !strings.Contains(string(doc), "`apiVersion: "+APIVersion+"`") {
		t.Errorf("docs/contracts.md does not name apiVersion %s", APIVersion)
	}
}
