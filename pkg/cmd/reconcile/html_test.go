package reconcile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	domain "github.com/kubectl-indexed/kubectl-indexed/pkg/reconcile"
)

var htmlData = regexp.MustCompile(`(?s)<script id="report-data" type="application/json">(.*?)</script>`)

// TestOfflineHTML: reconcile -o html of the example workers' receipts, one of them cut short
// and one shard without a receipt, draws every shard of the manifest in the state -o json
// gives it, with the same exit code.
func TestOfflineHTML(t *testing.T) {
	m, objs := exampleRun(t)
	results := t.TempDir()
	for i := range m.Shards {
		if i == 3 {
			continue // no receipt: missing
		}
		runWorker(t, m, objs, i, results, fmt.Sprintf("demo-%d-abcde", i))
	}
	file := filepath.Join(results, "shard-2", "demo-2-abcde.receipt.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `,{"case":"`+m.Shards[2].Cases[9]+`"}`, "", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(examples, "manifest.yaml")
	r := run(t, nil, "--manifest", manifest, "--receipts", results, "-o", "json")
	var rep domain.Report
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	page := run(t, nil, "--manifest", manifest, "--receipts", results, "-o", "html")
	if page.code != r.code || page.code != 1 || !strings.HasPrefix(page.out, "<!DOCTYPE html>") || page.errOut != "" {
		t.Fatalf("-o html: exit %d (-o json: %d)\n%s%s", page.code, r.code, page.out, page.errOut)
	}
	mm := htmlData.FindStringSubmatch(page.out)
	if mm == nil {
		t.Fatal("no report data")
	}
	var d struct {
		Cells  int      `json:"cells"`
		States []string `json:"states"`
		Runs   []int    `json:"runs"`
	}
	if err := json.Unmarshal([]byte(mm[1]), &d); err != nil {
		t.Fatal(err)
	}
	var drawn []string
	for k := 0; k+1 < len(d.Runs); k += 2 {
		for range d.Runs[k] {
			drawn = append(drawn, d.States[d.Runs[k+1]])
		}
	}
	if d.Cells != len(m.Shards) || len(drawn) != len(rep.Shards) {
		t.Fatalf("%d cells, %d drawn, %d shards", d.Cells, len(drawn), len(rep.Shards))
	}
	for _, s := range rep.Shards {
		if drawn[s.Index] != string(s.State) {
			t.Errorf("shard %d drawn %q, -o json says %q", s.Index, drawn[s.Index], s.State)
		}
	}
	if drawn[2] != string(domain.StatePartial) || drawn[3] != string(domain.StateMissing) || drawn[0] != string(domain.StateComplete) {
		t.Errorf("drawn %v", drawn)
	}
}
