package lint

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
)

// A Job in the prepare-db mode gets, on standard error, the commands that simulate it next to
// the per-index fix; a Job with backoffLimitPerIndex does not.
func TestSimulateHint(t *testing.T) {
	dir := t.TempDir()
	job := `apiVersion: batch/v1
kind: Job
metadata:
  name: prepare-db
spec:
  completionMode: Indexed
  completions: 10
  parallelism: 10
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: w:1
`
	file := write(t, dir, "prepare-db.yaml", job)
	r := run(t, "", file)
	// The commands are broken between shell words with backslash continuations: joined as the
	// shell joins them, they are the commands; every line fits 80 columns but the one holding
	// the JSON patch alone, a word that cannot be broken.
	joined := strings.Join(strings.Fields(strings.ReplaceAll(r.Stderr, " \\\n", " ")), " ")
	for _, want := range []string{"kubectl patch --local -f " + file, `"backoffLimitPerIndex":1`,
		"kubectl indexed simulate " + file + " --compare /tmp/prepare-db-per-index.yaml", "--outcome 0=1,0"} {
		if !strings.Contains(joined, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
	for _, l := range strings.Split(r.Stderr, "\n") {
		if word := strings.TrimSuffix(strings.TrimSpace(l), " \\"); len(l) > 80 && strings.Contains(word, " ") {
			t.Errorf("a line of %d columns that could be broken: %q", len(l), l)
		}
	}
	fixed := write(t, dir, "fixed.yaml", strings.Replace(job, "backoffLimit: 2", "backoffLimitPerIndex: 1", 1))
	if r := run(t, "", fixed); strings.Contains(r.Stderr, "simulate") {
		t.Errorf("hint for a per-index Job:\n%s", r.Stderr)
	}
	// -o json and yaml carry the hint as a field of the report, and say nothing on stderr.
	for _, format := range []string{"json", "yaml"} {
		r := run(t, "", file, "-o", format)
		if strings.Contains(r.Stderr, "simulate") {
			t.Errorf("hint on stderr with -o %s:\n%s", format, r.Stderr)
		}
		var report lint.Report
		if err := yaml.Unmarshal([]byte(r.Stdout), &report); err != nil {
			t.Fatal(err)
		}
		if len(report.Hints) != 1 || report.Hints[0].Rule != lint.RulePrepareDB || report.Hints[0].File != file ||
			len(report.Hints[0].Commands) != 2 || !strings.Contains(r.Stderr+report.Hints[0].Commands[1], "kubectl indexed simulate "+file+" --compare") {
			t.Errorf("-o %s: hints %+v", format, report.Hints)
		}
	}
	// Every other format says it on stderr, the CI formats too (their report is on stdout).
	for _, format := range []string{"text", "sarif", "junit", "github", "jsonpath={.summary.warnings}"} {
		if r := run(t, "", file, "-o", format); !strings.Contains(r.Stderr, "hint: see what the prepare-db mode") {
			t.Errorf("-o %s: no hint on stderr:\n%s", format, r.Stderr)
		}
	}
	// --show-hints=false leaves them out under every -o.
	for _, format := range []string{"text", "json", "yaml", "sarif", "junit", "github", "jsonpath={.hints}"} {
		r := run(t, "", file, "-o", format, "--show-hints=false")
		if r.Code != 0 || strings.Contains(r.Stderr, "hint") || strings.Contains(r.Stdout, "hints") || strings.Contains(r.Stdout, "kubectl indexed simulate") {
			t.Errorf("-o %s --show-hints=false: %d\n%s\n%s", format, r.Code, r.Stdout, r.Stderr)
		}
	}
	// A report without a hint has no hints field.
	if r := run(t, "", fixed, "-o", "json"); strings.Contains(r.Stdout, "hints") {
		t.Errorf("hints field without a hint:\n%s", r.Stdout)
	}
}

// The hint is for a file of one Job or CronJob alone, and lint tells from its own count without
// reading the file again: kubectl patch --local, the fix, patches every object of a file and
// prints them as one broken YAML document, so a file with a ConfigMap next to the Job (a List
// from kubectl create --dry-run) gets no hint (it got one whose fix wrote a file simulate
// rejected), nor a file of two Jobs.
func TestSimulateHintOneJobPerFile(t *testing.T) {
	dir := t.TempDir()
	job := func(name string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name + "\nspec:\n  completionMode: Indexed\n  completions: 4\n  parallelism: 4\n" +
			"  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: w\n        image: w:1\n"
	}
	configMap := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
	cron := "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly\nspec:\n  schedule: \"0 1 * * *\"\n  jobTemplate:\n    spec:\n      completionMode: Indexed\n      completions: 4\n      parallelism: 4\n" +
		"      template:\n        spec:\n          restartPolicy: Never\n          containers:\n          - name: w\n            image: w:1\n"
	list, err := yaml.YAMLToJSON([]byte(job("listed")))
	if err != nil {
		t.Fatal(err)
	}
	cm, err := yaml.YAMLToJSON([]byte(configMap))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, content string
		hint          bool
	}{
		{"one-job.yaml", job("a"), true},
		{"job-and-configmap.yaml", configMap + "---\n" + job("a"), false},
		{"cronjob.yaml", cron, true},
		{"list.json", `{"apiVersion":"v1","kind":"List","items":[` + string(cm) + `,` + string(list) + `]}`, false},
		{"list-of-one.json", `{"apiVersion":"v1","kind":"List","items":[` + string(list) + `]}`, true},
		{"two-jobs.yaml", job("a") + "---\n" + job("b"), false},
		{"job-and-cronjob.yaml", job("a") + "---\n" + cron, false},
	} {
		file := write(t, dir, c.name, c.content)
		r := run(t, "", file, "--no-color")
		if !strings.Contains(r.Stdout, "prepare-db-mode") {
			t.Fatalf("%s: no prepare-db finding:\n%s", c.name, r.Stdout)
		}
		if got := strings.Contains(r.Stderr, "kubectl indexed simulate"); got != c.hint {
			t.Errorf("%s: hint %v, want %v:\n%s", c.name, got, c.hint, r.Stderr)
		}
	}
}
