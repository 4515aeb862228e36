package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every verb's default text view fits 80 columns (issue 22, item 3), run on what the project
// ships: the captured fixtures of the real controller (test/fixtures) and the examples. The
// verbs that need a cluster (list, diff, live status, logs) are checked with fakes in their own
// packages; help pages in TestGlobalFlagsListedOnceByOptions. The one exception is a line that
// holds one shell word of a printed command, longer than the width.
func TestEveryDefaultViewFits80Columns(t *testing.T) {
	repo := filepath.Join("..", "..")
	fixtures, err := filepath.Glob(filepath.Join(repo, "test", "fixtures", "*", "job.json"))
	if err != nil || len(fixtures) < 20 {
		t.Fatalf("fixtures: %v (%d)", err, len(fixtures))
	}
	examples := filepath.Join(repo, "examples")
	manifest := filepath.Join(examples, "manifest.yaml")
	var runs [][]string
	for _, f := range fixtures {
		dir := filepath.Dir(f)
		runs = append(runs,
			[]string{"status", "-f", f, "--pods-file", filepath.Join(dir, "pods.json")},
			[]string{"status", "-f", f},
			[]string{"lint", f},
			[]string{"simulate", f},
		)
	}
	for _, e := range []string{"evaluation-job.yaml", "prepare-db.yaml"} {
		runs = append(runs, []string{"lint", filepath.Join(examples, e)}, []string{"simulate", filepath.Join(examples, e), "--outcome", "1,3-5=1"})
	}
	empty := t.TempDir()
	runs = append(runs,
		[]string{"lint", "--list-rules"},
		[]string{"shards", "validate", manifest},
		[]string{"shards", "show", manifest},
		[]string{"shards", "show", manifest, "--index", "0-2"},
		[]string{"reconcile", "--manifest", manifest, "--receipts", empty},
		[]string{"version"},
	)
	if _, err := os.Stat(manifest); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, args := range runs {
		out, errOut, code := execute(t, args...)
		if code == 2 || out == "" {
			t.Errorf("%v: exit %d, no view:\n%s", args, code, errOut)
			continue
		}
		lines += strings.Count(out, "\n") + strings.Count(errOut, "\n")
		for name, text := range map[string]string{"stdout": out, "stderr": errOut} {
			for _, l := range strings.Split(text, "\n") {
				// A line holding one shell word alone (a JSON patch in a printed command) cannot
				// be broken without changing the command.
				word := strings.TrimSuffix(strings.TrimSpace(l), " \\")
				if n := utf8.RuneCountInString(l); n > 80 && strings.Contains(word, " ") {
					t.Errorf("%v: %s has a line of %d columns: %q", args, name, n, l)
					break
				}
			}
		}
	}
	t.Logf("%d views, %d lines, each at most 80 columns", len(runs), lines)
}
