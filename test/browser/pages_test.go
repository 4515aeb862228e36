package browser

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// plugin runs the plugin with args and returns its standard output; exit 1 (findings: the
// lineage or the coverage is incomplete) is expected, any other failure is fatal.
func runPlugin(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(plugin, args...).Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return out
	}
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return out
}

// TestLineageRenders: status --lineage -o html of the seed run and its retry (test/bench/
// lineagegen: the captured seed fixture as the root, its retry of shards 2 and 4) draws each
// shard in the state status --lineage -o json gives it, a success in the retry in its own
// colour; the facts of shard 4 say which Job settled it.
func TestLineageRenders(t *testing.T) {
	dir := t.TempDir()
	all := filepath.Join(dir, "all.json")
	gen := exec.Command("go", "run", "./test/bench/lineagegen", "-out", all)
	gen.Dir, gen.Stderr = root, os.Stderr
	if err := gen.Run(); err != nil {
		t.Fatalf("lineagegen: %v", err)
	}
	var rep struct {
		Shards        int `json:"shards"`
		ShardStatuses []struct {
			Index     int    `json:"index"`
			State     string `json:"state"`
			Attempt   int    `json:"attempt"`
			Unsettled bool   `json:"unsettled"`
		} `json:"shardStatuses"`
	}
	if err := json.Unmarshal(runPlugin(t, "status", "--lineage", "-f", all, "-o", "json"), &rep); err != nil {
		t.Fatal(err)
	}
	// The page's names of the states -o json spells in two fields (pkg/htmlreport.LineageState).
	w := want{states: make([]string, rep.Shards), failed: -1}
	retried := 0
	for _, s := range rep.ShardStatuses {
		switch {
		case s.Unsettled:
			w.states[s.Index] = "Unsettled"
		case s.State == "Succeeded" && s.Attempt > 0:
			w.states[s.Index] = "SucceededInRetry"
			retried++
		default:
			w.states[s.Index] = s.State
		}
	}
	if retried == 0 {
		t.Fatal("no shard succeeded in a retry: the page's colour of it is not checked")
	}
	html := filepath.Join(dir, "lineage.html")
	b := runPlugin(t, "status", "--lineage", "-f", all, "-o", "html")
	if err := os.WriteFile(html, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("out", 0o755); err != nil {
		t.Fatal(err)
	}
	p := render(t, html, filepath.Join("out", "lineage-html.png"), 4)
	check(t, "lineage", w, p, html)
	if !strings.Contains(p.hover, "settled by: seed-r1 (retry 1)") || !strings.Contains(p.hover, "run in seed: index 4, Failed, exit code 1") {
		t.Errorf("lineage: the facts of shard 4 do not say seed-r1 settled it after seed failed it: %q", p.hover)
	}
	t.Logf("lineage of %d shards (%d succeeded in a retry): %d bytes, checked cell by cell", rep.Shards, retried, len(b))
}

// TestReconcileRenders: reconcile -o html of a manifest of 2,000 shards whose receipts put them
// in every state reconcile gives (test/bench/reconcilegen -mixed) draws each shard in the state
// reconcile -o json gives it; the facts of a partial shard name the result it misses.
func TestReconcileRenders(t *testing.T) {
	dir := t.TempDir()
	gen := exec.Command("go", "run", "./test/bench/reconcilegen", "-mixed", "-shards", "2000", "-cases", "8000", "-dir", dir)
	gen.Dir, gen.Stderr = root, os.Stderr
	if err := gen.Run(); err != nil {
		t.Fatalf("reconcilegen: %v", err)
	}
	args := []string{"reconcile", "--manifest", filepath.Join(dir, "manifest.json"), "--receipts", filepath.Join(dir, "receipts")}
	var rep struct {
		Coverage struct {
			Shards int `json:"shards"`
		} `json:"coverage"`
		Shards []struct {
			Index int    `json:"index"`
			State string `json:"state"`
		} `json:"shards"`
	}
	if err := json.Unmarshal(runPlugin(t, append(args, "-o", "json")...), &rep); err != nil {
		t.Fatal(err)
	}
	w := want{states: make([]string, rep.Coverage.Shards), failed: -1}
	seen := map[string]int{}
	partial := -1
	for _, s := range rep.Shards {
		w.states[s.Index] = s.State
		seen[s.State]++
		if partial < 0 && s.State == "partial" {
			partial = s.Index
		}
	}
	if len(seen) != 6 {
		t.Fatalf("the receipts put the shards in %d states, want reconcile's 6: %v", len(seen), seen)
	}
	html := filepath.Join(dir, "reconcile.html")
	b := runPlugin(t, append(args, "-o", "html")...)
	if err := os.WriteFile(html, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("out", 0o755); err != nil {
		t.Fatal(err)
	}
	p := render(t, html, filepath.Join("out", "reconcile-html.png"), partial)
	check(t, "reconcile", w, p, html)
	if !strings.Contains(p.hover, "shard "+itoa(partial)+": partial") || !strings.Contains(p.hover, "missing: mixed/case-") {
		t.Errorf("reconcile: the facts of partial shard %d do not name its missing result: %q", partial, p.hover)
	}
	t.Logf("reconcile of %d shards in %d states: %d bytes; script drew the grid in %.0f ms; checked cell by cell", len(rep.Shards), len(seen), len(b), p.draw)
}

func itoa(i int) string { return strconv.Itoa(i) }
