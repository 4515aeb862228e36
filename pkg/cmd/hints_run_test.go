package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Every hint lint prints runs as printed and fixes what prompted it (issue 36, item 4): the
// simulate command succeeds (it failed "job is invalid" on a Job with an error), the fix
// (kubectl patch --local, applied here as kubectl applies a merge patch) writes a Job that lint
// finds neither the prompting rule nor any error or warning the original did not have (the
// per-index fix of an OnFailure Job was flagged per-index-with-on-failure), and a Job with an
// error or a file holding more than the Job (whose patch kubectl prints as one broken YAML
// document) gets no hint.
func TestEveryLintHintRuns(t *testing.T) {
	dir := t.TempDir()
	job := func(name, spec, restart, extra string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name + "\nspec:\n  completionMode: Indexed\n" + spec +
			"  template:\n    spec:\n      restartPolicy: " + restart + "\n      containers:\n      - name: w\n        image: w:1\n" + extra
	}
	cron := func(name, restart string) string {
		return "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: " + name + "\nspec:\n  schedule: \"0 1 * * *\"\n  jobTemplate:\n    spec:\n" +
			"      completionMode: Indexed\n      completions: 6\n      parallelism: 6\n      backoffLimit: 3\n" +
			"      template:\n        spec:\n          restartPolicy: " + restart + "\n          containers:\n          - name: w\n            image: w:1\n"
	}
	cases := []struct {
		name, content string
		hint          bool
	}{
		{"never.yaml", job("never", "  completions: 10\n  parallelism: 10\n  backoffLimit: 2\n", "Never", ""), true},
		{"on-failure.yaml", job("on-failure", "  completions: 10\n  parallelism: 10\n  backoffLimit: 2\n", "OnFailure", ""), true},
		{"default-backoff.yaml", job("default-backoff", "  completions: 50\n  parallelism: 5\n", "OnFailure", ""), true},
		{"two-shards.yaml", job("two-shards", "  completions: 2\n  parallelism: 2\n  backoffLimit: 0\n", "Never", ""), true},
		{"cron-on-failure.yaml", cron("nightly", "OnFailure"), true},
		{"cron-never.yaml", cron("nightly2", "Never"), true},
		{"replacement.yaml", job("replacement", "  completions: 8\n  parallelism: 8\n  backoffLimit: 4\n  podReplacementPolicy: TerminatingOrFailed\n", "OnFailure", ""), true},
		{"own-policy.yaml", job("own-policy", "  completions: 8\n  parallelism: 8\n  backoffLimit: 4\n  podFailurePolicy:\n    rules:\n    - action: Ignore\n      onExitCodes:\n        operator: In\n        values: [3]\n", "Never", ""), true},
		// An error (a container without an image): simulate would refuse the Job.
		{"invalid.yaml", strings.Replace(job("invalid", "  completions: 10\n  parallelism: 10\n  backoffLimit: 2\n", "Never", ""), "        image: w:1\n", "", 1), false},
		{"negative-parallelism.yaml", job("negative", "  completions: 10\n  parallelism: -1\n  backoffLimit: 2\n", "OnFailure", ""), false},
		{"with-configmap.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n---\n" + job("with-cm", "  completions: 4\n  parallelism: 4\n", "Never", ""), false},
	}
	var files []string
	want := map[string]bool{}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
		want[p] = c.hint
	}
	// What the project ships too: the examples and the Jobs captured from the real controller.
	shipped, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fixtures, err := filepath.Glob(filepath.Join("..", "..", "test", "fixtures", "*", "job.json"))
	if err != nil || len(shipped) < 3 || len(fixtures) < 20 {
		t.Fatalf("examples %d, fixtures %d: %v", len(shipped), len(fixtures), err)
	}
	files = append(append(files, shipped...), fixtures...)
	ran := 0
	for _, file := range files {
		before := lintFindings(t, file)
		if _, ok := want[file]; ok && len(before.prepareDB) == 0 {
			t.Fatalf("%s: no prepare-db-mode finding to hint about: %v", file, before.rules)
		}
		out, errOut, _ := execute(t, "lint", file, "-o", "json")
		var report lint.Report
		if err := json.Unmarshal([]byte(out), &report); err != nil {
			t.Fatalf("%s: %v\n%s", file, err, errOut)
		}
		if w, ok := want[file]; ok && w != (len(report.Hints) > 0) {
			t.Errorf("%s: %d hints, want a hint: %v (findings %v)", file, len(report.Hints), w, before.rules)
		}
		for _, h := range report.Hints {
			if len(h.Commands) != 2 {
				t.Fatalf("%s: hint commands %q", file, h.Commands)
			}
			fixed := runPatch(t, h.Commands[0], filepath.Join(t.TempDir(), "fixed.yaml"))
			after := lintFindings(t, fixed)
			if len(after.prepareDB) > 0 {
				t.Errorf("%s: the fix still has %s: %s", file, h.Rule, after.prepareDB)
			}
			for rule, sev := range after.rules {
				if (sev == lint.SeverityError || sev == lint.SeverityWarning) && before.rules[rule] == "" {
					t.Errorf("%s: the fix brings a new %s %s (fix %s)", file, sev, rule, h.Commands[0])
				}
			}
			// The simulate command, with the fixed file where the fix wrote it.
			words := shWords(t, strings.ReplaceAll(h.Commands[1], patchTarget(t, h.Commands[0]), fixed))
			if len(words) < 3 || words[0] != "kubectl" || words[1] != "indexed" || words[2] != "simulate" {
				t.Fatalf("%s: not a simulate command: %q", file, h.Commands[1])
			}
			if sout, serr, code := execute(t, words[2:]...); code >= 2 || sout == "" {
				t.Errorf("%s: %s: exit %d\n%s%s", file, h.Commands[1], code, sout, serr)
			}
			ran++
		}
	}
	if ran < 9 {
		t.Errorf("%d hints ran, want every hinted case's", ran)
	}
}

type findings struct {
	rules     map[string]lint.Severity
	prepareDB []string
}

// lintFindings is the rules lint finds in file, with their severity.
func lintFindings(t *testing.T, file string) findings {
	t.Helper()
	out, errOut, code := execute(t, "lint", file, "-o", "json", "--show-hints=false")
	if code >= 2 {
		t.Fatalf("lint %s: exit %d\n%s", file, code, errOut)
	}
	var report lint.Report
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatal(err)
	}
	f := findings{rules: map[string]lint.Severity{}}
	for _, x := range report.Findings {
		f.rules[x.Rule] = x.Severity
		if x.Rule == lint.RulePrepareDB {
			f.prepareDB = append(f.prepareDB, x.Message)
		}
	}
	return f
}

// patchTarget is the file a fix command writes (after its "> ").
func patchTarget(t *testing.T, fix string) string {
	t.Helper()
	words := textwrap.ShellWords(fix)
	if len(words) < 2 || words[len(words)-2] != ">" {
		t.Fatalf("the fix does not write a file: %q", fix)
	}
	return shWords(t, words[len(words)-1])[0]
}

// runPatch runs fix, a `kubectl patch --local -f FILE --type merge -o yaml -p PATCH > OUT`, as
// kubectl does (a JSON merge patch of the file's one object), writing to out instead of OUT.
func runPatch(t *testing.T, fix, out string) string {
	t.Helper()
	words := textwrap.ShellWords(fix)
	args := shWords(t, strings.Join(words[:len(words)-2], " "))
	if len(args) != 11 || strings.Join(args[:4], " ") != "kubectl patch --local -f" || strings.Join(args[5:10], " ") != "--type merge -o yaml -p" {
		t.Fatalf("not the kubectl patch the test runs: %q", args)
	}
	in, err := os.ReadFile(args[4])
	if err != nil {
		t.Fatal(err)
	}
	doc, err := yaml.YAMLToJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := jsonpatch.MergePatch(doc, []byte(args[10]))
	if err != nil {
		t.Fatalf("%s: %v", fix, err)
	}
	y, err := yaml.JSONToYAML(patched)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, y, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// shWords asks sh how it splits line.
func shWords(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", "set -- "+line+`; printf '%s\0' "$@"`).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}
