package lint

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

// result is what a run printed and how it ended.
type result = cmdtest.Result

func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	io := cmdtest.NewIO(stdin)
	return io.Run(NewCmdLint(io.Streams()), args...)
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const goodJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: good
spec:
  completionMode: Indexed
  completions: 3
  parallelism: 3
  backoffLimitPerIndex: 1
  maxFailedIndexes: 1
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox@sha256:0000000000000000000000000000000000000000000000000000000000000000
`

func decodeReport(t *testing.T, s string) lint.Report {
	t.Helper()
	var r lint.Report
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("not a JSON LintReport: %v\n%s", err, s)
	}
	if r.APIVersion != "indexed.kubectl.io/v1alpha1" || r.Kind != "LintReport" {
		t.Fatalf("apiVersion/kind %q/%q", r.APIVersion, r.Kind)
	}
	return r
}

func TestExamples(t *testing.T) {
	ev := run(t, "", "../../../examples/evaluation-job.yaml")
	if ev.Code != 0 || strings.Contains(ev.Stdout, " error ") || strings.Contains(ev.Stdout, " warning ") {
		t.Errorf("the evaluation example must have no error and no warning (exit 0), got exit %d:\n%s%s", ev.Code, ev.Stdout, ev.Stderr)
	}
	pdb := run(t, "", "-o", "json", "../../../examples/prepare-db.yaml")
	if pdb.Code != 0 {
		t.Errorf("prepare-db has warnings only: want exit 0, got %d (%v)", pdb.Code, pdb.Err)
	}
	r := decodeReport(t, pdb.Stdout)
	found := false
	for _, f := range r.Findings {
		if f.Rule == lint.RulePrepareDB {
			found = true
			if f.Severity != lint.SeverityWarning || f.Line != 15 || f.Path != "spec.backoffLimit" || f.Object != "Job/prepare-db" ||
				!strings.Contains(f.Message, "3 pod failures") || !strings.Contains(f.Message, "kill the 7 other healthy shards") {
				t.Errorf("prepare-db finding: %+v", f)
			}
		}
	}
	if !found {
		t.Errorf("prepare-db example: no %s finding in %+v", lint.RulePrepareDB, r.Findings)
	}
	strict := run(t, "", "--strict", "../../../examples/prepare-db.yaml")
	if strict.Code != exitcode.Findings {
		t.Errorf("--strict with warnings: exit %d, want 1", strict.Code)
	}
}

// The text and JSON outputs of a manifest with an error, a warning and an info, kept in
// testdata/*.golden (go test -update rewrites them).
func TestGoldenOutputs(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
		code   int
	}{
		{"mixed.txt.golden", []string{"testdata/mixed.yaml"}, exitcode.Findings},
		{"mixed.json.golden", []string{"-o", "json", "testdata/mixed.yaml"}, exitcode.Findings},
		{"mixed.yaml.golden", []string{"-o", "yaml", "testdata/mixed.yaml"}, exitcode.Findings},
		{"mixed-brief-warnings.txt.golden", []string{"--brief", "--severity", "warning", "testdata/mixed.yaml"}, exitcode.Findings},
		{"list-rules.txt.golden", []string{"--list-rules"}, exitcode.OK},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			r := run(t, "", tc.args...)
			if r.Code != tc.code {
				t.Errorf("exit %d, want %d (%v)", r.Code, tc.code, r.Err)
			}
			path := filepath.Join("testdata", tc.golden)
			testutil.Golden(t, path, []byte(r.Stdout))
		})
	}
}

func TestInputs(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good.yaml", goodJob)
	write(t, dir, "sub/nested.yaml", strings.Replace(goodJob, "name: good", "name: nested", 1))
	empty := write(t, dir, "empty.yaml", "")
	comments := write(t, dir, "comments.yaml", "# nothing here\n---\n---\n")
	onlySub := filepath.Join(t.TempDir(), "only-sub")
	write(t, onlySub, "deeper/job.yaml", goodJob)

	for _, tc := range []struct {
		name   string
		stdin  string
		args   []string
		code   int
		out    []string // substrings of stdout
		errOut []string // substrings of stderr or the returned error
	}{
		{name: "file argument", args: []string{good}, code: 0, out: []string{"1 Job or CronJob checked: no findings"}},
		{name: "-f like kubectl", args: []string{"-f", good}, code: 0, out: []string{"1 Job or CronJob checked"}},
		{name: "stdin", stdin: goodJob, args: []string{"-"}, code: 0, out: []string{"1 Job or CronJob checked"}},
		{name: "stdin with -f -", stdin: goodJob, args: []string{"-f", "-"}, code: 0, out: []string{"1 Job or CronJob checked"}},
		{name: "directory without -R reads its files, notes subdirectories", args: []string{dir}, code: 0,
			out: []string{"1 Job or CronJob checked"}, errOut: []string{"note: subdirectory", "sub not read (use -R to lint it)"}},
		{name: "directory with -R", args: []string{"-R", dir}, code: 0, out: []string{"2 Jobs and CronJobs checked"}},
		{name: "directory holding only subdirectories", args: []string{onlySub}, code: exitcode.Usage,
			errOut: []string{"no objects found in " + onlySub, "use -R"}},
		{name: "no input", args: nil, code: exitcode.Usage, errOut: []string{"no input"}},
		{name: "missing file", args: []string{filepath.Join(dir, "missing.yaml")}, code: exitcode.Usage, errOut: []string{"missing.yaml: no such file or directory"}},
		{name: "empty file", args: []string{empty}, code: exitcode.Usage, errOut: []string{"no objects found in " + empty}},
		{name: "comments only", args: []string{comments}, code: exitcode.Usage, errOut: []string{"no objects found"}},
		{name: "empty stdin", stdin: "", args: []string{"-"}, code: exitcode.Usage, errOut: []string{"no objects found in -"}},
		{name: "stdin twice", stdin: goodJob, args: []string{"-", "-f", "-"}, code: exitcode.Usage, errOut: []string{"standard input given more than once"}},
		{name: "bad output format", args: []string{"-o", "wide", good}, code: exitcode.Usage, errOut: []string{`unable to match a printer suitable for the output format "wide"`}},
		{name: "bad kube version", args: []string{"--kube-version", "1.20", good}, code: exitcode.Usage, errOut: []string{"--kube-version", "1.21 to 1.37"}},
		{name: "garbled kube version", args: []string{"--kube-version", "latest", good}, code: exitcode.Usage, errOut: []string{"invalid Kubernetes version"}},
		{name: "unknown rule to disable", args: []string{"--disable", "nope", good}, code: exitcode.Usage, errOut: []string{`unknown rule "nope"`}},
		{name: "bad severity", args: []string{"--severity", "fatal", good}, code: exitcode.Usage, errOut: []string{"--severity"}},
		{name: "kube version with v", args: []string{"--kube-version", "v1.28.3", good}, code: 0, out: []string{"kube-version-feature", "alpha in Kubernetes 1.28"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.stdin, tc.args...)
			if r.Code != tc.code {
				t.Errorf("exit %d, want %d; err %v\nstdout:\n%s\nstderr:\n%s", r.Code, tc.code, r.Err, r.Stdout, r.Stderr)
			}
			for _, s := range tc.out {
				// The text report wraps at 80 columns: compare with line breaks folded.
				if !strings.Contains(strings.Join(strings.Fields(r.Stdout), " "), s) {
					t.Errorf("stdout lacks %q:\n%s", s, r.Stdout)
				}
			}
			errText := r.Stderr
			if r.Err != nil {
				errText += exitcode.Message(r.Err)
			}
			for _, s := range tc.errOut {
				if !strings.Contains(errText, s) {
					t.Errorf("stderr/error lacks %q:\n%s", s, errText)
				}
			}
		})
	}
}

// Bad input: a clear finding or error that names the file and line, exit 2 where nothing could
// be checked, never a panic.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		code          int
		rule          string
		msg           []string
		line          int
	}{
		{"unparsable YAML", "apiVersion: batch/v1\nkind: Job\nspec:\n  completions: [1\n", exitcode.Usage, lint.RuleUnreadable, []string{"invalid YAML"}, 4}, // the parser's line, not the document's first
		{"not an object", "- a\n- b\n", exitcode.Usage, lint.RuleUnreadable, []string{"line 1: the document is a list"}, 1},
		{"scalar document", "---\njust text\n", exitcode.Usage, lint.RuleUnreadable, []string{"line 2: the document is a string"}, 2},
		{"binary garbage", "\x7fELF\x02\x01\x01\x00garbage\xff", exitcode.Usage, lint.RuleUnreadable, []string{"binary or not UTF-8"}, 1},
		{"invalid UTF-8", "kind: Job\nname: \xff\xfe\n", exitcode.Usage, lint.RuleUnreadable, []string{"not UTF-8"}, 1},
		{"broken JSON", "{\"kind\": \"Job\",\n \"spec\": {", exitcode.Usage, lint.RuleUnreadable, []string{"invalid JSON"}, 1},
		{"unknown field", strings.Replace(goodJob, "  parallelism: 3\n", "  parallelism: 3\n  paralelism: 3\n", 1), exitcode.Findings, lint.RuleUnknownField, []string{`unknown field "spec.paralelism"`}, 9},
		{"wrong type", strings.Replace(goodJob, "completions: 3", "completions: three", 1), exitcode.Findings, lint.RuleInvalidObject, []string{"cannot unmarshal string", "spec.completions"}, 7},
		{"no kind", "apiVersion: batch/v1\nmetadata:\n  name: x\n", exitcode.Findings, lint.RuleInvalidObject, []string{"kind is not set"}, 1},
		{"second document broken", goodJob + "---\nkind: Job\n  bad: indentation\n", exitcode.Usage, lint.RuleUnreadable, []string{"line 24"}, 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml", tc.content)
			r := run(t, "", "-o", "json", path)
			if r.Code != tc.code {
				t.Errorf("exit %d, want %d (%v)\n%s", r.Code, tc.code, r.Err, r.Stdout)
			}
			rep := decodeReport(t, r.Stdout)
			var f *lint.Finding
			for i := range rep.Findings {
				if rep.Findings[i].Rule == tc.rule {
					f = &rep.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("no %s finding: %+v", tc.rule, rep.Findings)
			}
			if f.Severity != lint.SeverityError || f.File != path || f.Line != tc.line {
				t.Errorf("finding %+v: want an error in %s line %d", f, path, tc.line)
			}
			for _, m := range tc.msg {
				if !strings.Contains(f.Message, m) {
					t.Errorf("message %q lacks %q", f.Message, m)
				}
			}
			if tc.code == exitcode.Usage && !strings.Contains(exitcode.Message(r.Err), "could not be read") {
				t.Errorf("exit 2 without saying why: %v", r.Err)
			}
		})
	}
}

// A 50 MB stream: read and checked without trouble, every document found.
func TestFiftyMegabytes(t *testing.T) {
	if raceEnabled {
		t.Skip("50 MB under the race detector takes minutes: make lint-bigfile (part of make check) runs this test without it")
	}
	var b strings.Builder
	n := 0
	for b.Len() < 50<<20 {
		b.WriteString("---\n")
		b.WriteString(strings.Replace(goodJob, "name: good", "name: good-"+strconv.Itoa(n), 1))
		n++
	}
	path := write(t, t.TempDir(), "big.yaml", b.String())
	r := run(t, "", "--severity", "warning", path)
	if r.Code != 0 {
		t.Fatalf("exit %d (%v): %s", r.Code, r.Err, r.Stderr)
	}
	if want := strconv.Itoa(n) + " Jobs and CronJobs checked: no findings"; !strings.Contains(r.Stdout, want) {
		t.Errorf("want %d Jobs checked without findings, got:\n%s", n, tail(r.Stdout))
	}
	// A single 50 MB Job: the server would refuse it (annotations are limited to 256 KiB).
	big := strings.Replace(goodJob, "  name: good\n", "  name: good\n  annotations:\n    note: "+strings.Repeat("x", 50<<20)+"\n", 1)
	r = run(t, "", "-o", "json", write(t, t.TempDir(), "one-big-job.yaml", big))
	if r.Code != exitcode.Findings || !strings.Contains(r.Stdout, "metadata.annotations: Too long: may not be more than 262144 bytes") {
		t.Errorf("a 50 MB Job: exit %d, want 1 with the annotation size error:\n%s", r.Code, tail(r.Stdout))
	}
	// A single 50 MB document that is not YAML.
	garbage := write(t, t.TempDir(), "garbage.yaml", strings.Repeat("{[", 25<<20))
	r = run(t, "", garbage)
	if r.Code != exitcode.Usage || !strings.Contains(r.Stdout, "unreadable-document") {
		t.Errorf("50 MB of brackets: exit %d, want 2 with an unreadable-document finding:\n%s", r.Code, tail(r.Stdout))
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

func TestListRulesJSON(t *testing.T) {
	r := run(t, "", "--list-rules", "-o", "yaml")
	var out struct {
		Rules []lint.Rule `json:"rules"`
	}
	if err := yaml.Unmarshal([]byte(r.Stdout), &out); err != nil || len(out.Rules) != len(lint.Rules()) {
		t.Fatalf("--list-rules -o yaml: %v, %d rules", err, len(out.Rules))
	}
	// kubectl's templates apply to {"rules": [...]}; custom-columns prints a row per rule.
	rules := lint.Rules()
	if r := run(t, "", "--list-rules", "-o", "jsonpath={.rules[1].id}"); r.Code != 0 || r.Stdout != rules[1].ID {
		t.Errorf("--list-rules -o jsonpath: exit %d %q, want %q", r.Code, r.Stdout, rules[1].ID)
	}
	r = run(t, "", "--list-rules", "-o", "custom-columns=ID:.id,SEVERITY:.severity")
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if r.Code != 0 || len(lines) != len(rules)+1 || strings.Fields(lines[1])[0] != rules[0].ID || strings.Fields(lines[1])[1] != string(rules[0].Severity) {
		t.Errorf("--list-rules -o custom-columns: exit %d, %d lines for %d rules:\n%s", r.Code, len(lines), len(rules), r.Stdout)
	}
}

func TestDisableAndSeverity(t *testing.T) {
	all := decodeReport(t, run(t, "", "-o", "json", "../../../examples/prepare-db.yaml").Stdout)
	if all.Summary.Warnings == 0 || all.Summary.Infos == 0 {
		t.Fatalf("prepare-db: want warnings and infos, got %+v", all.Summary)
	}
	r := decodeReport(t, run(t, "", "-o", "json", "--disable", "prepare-db-mode,image-without-digest", "../../../examples/prepare-db.yaml").Stdout)
	for _, f := range r.Findings {
		if f.Rule == lint.RulePrepareDB || f.Rule == lint.RuleImageNoDigest {
			t.Errorf("disabled rule reported: %+v", f)
		}
	}
	r = decodeReport(t, run(t, "", "-o", "json", "--severity", "warning", "../../../examples/prepare-db.yaml").Stdout)
	if r.Summary.Infos != 0 || r.Summary.Warnings != all.Summary.Warnings {
		t.Errorf("--severity warning: %+v, want the warnings and no infos", r.Summary)
	}
}

// The rough edges a new user hit (issue 14, item 8), each checked through the command.
func TestNewUserInputs(t *testing.T) {
	job := func(spec string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\nspec:\n  completionMode: Indexed\n  completions: 3\n" + spec +
			"  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: w, image: x}]\n"
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, text string
		args       []string
		code       int
		want       []string
		not        []string
	}{
		{"kind in lower case", strings.Replace(job(""), "kind: Job", "kind: job", 1), nil, exitcode.Findings,
			[]string{`:2: error invalid-object job/a: kind: no matches for kind "job" in version "batch/v1"`, `did you mean "Job"?`}, []string{"skipped"}},
		{"plural CronJobs", "apiVersion: batch/v1\nkind: CronJobs\nmetadata: {name: b}\nspec: {}\n", nil, exitcode.Findings,
			[]string{`no matches for kind "CronJobs"`, `did you mean "CronJob"?`}, nil},
		{"misspelt field", job("  backoffLimitPerIndx: 1\n"), nil, exitcode.Findings,
			[]string{`:7: error unknown-field Job/a: unknown field "spec.backoffLimitPerIndx": did you mean "backoffLimitPerIndex"?`}, []string{"prepare-db-mode"}},
		{"misspelt container field", strings.Replace(job(""), "image: x", "imag: x", 1), nil, exitcode.Findings,
			[]string{`unknown field "spec.template.spec.containers[0].imag": did you mean "image"?`}, nil},
		{"tab indentation", "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\nspec:\n  completions: 3\n\tparallelism: 2\n", nil, exitcode.Usage,
			[]string{":7: error unreadable-document"}, nil},
		{"duplicate field", job("  completions: 4\n  backoffLimitPerIndex: 1\n"), []string{"--brief"}, exitcode.OK,
			[]string{`:7: warning duplicate-field Job/a: field "completions" is given twice in one mapping, at lines 6 and 7: kubectl keeps the last value (line 7)` + "\n"}, []string{"invalid YAML", "why:"}},
		// Both lines are named, also in a flow mapping on one line and in a later document
		// (the lines are the file's); before, only the second was.
		{"duplicate field in flow style", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: b}\nspec: {completions: 3, completions: 4}\n---\n" + job("") + "  completions: 4\n",
			nil, exitcode.Findings,
			[]string{`:4: warning duplicate-field Job/b: field "completions" is given twice in one mapping, both on line 4: kubectl keeps the last value` + "\n",
				`:16: warning duplicate-field Job/a: field "completions" is given twice in one mapping, at lines 11 and 16: kubectl keeps the last value (line 16)` + "\n"}, nil},
		{"field the target version lacks", job("  backoffLimitPerIndex: 1\n  maxFailedIndexes: 1\n"), []string{"--kube-version", "1.27", "--brief"}, exitcode.Findings,
			[]string{"error kube-version-feature Job/a: spec.backoffLimitPerIndex: backoffLimitPerIndex does not exist in Kubernetes 1.27 (it arrived in 1.28): the API server of that version rejects"}, nil},
		{"newer kube version", job("  backoffLimitPerIndex: 1\n  maxFailedIndexes: 1\n"), []string{"--kube-version", "1.38"}, exitcode.OK,
			[]string{"note: --kube-version 1.38 is newer than the rules lint mirrors (Kubernetes 1.37): checked as 1.37"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(strings.ReplaceAll(tc.name, " ", "-")+".yaml", tc.text)
			r := run(t, "", append(append([]string{"--brief"}, tc.args...), path)...)
			all := r.Stdout + r.Stderr
			if r.Code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", r.Code, tc.code, all)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(all, w) {
					t.Errorf("output has %q:\n%s", w, all)
				}
			}
		})
	}
}

// The text report fits 80 columns: messages, why and fix wrapped under their finding (the
// seed and prepare-db fixtures, read from standard input so the file name is short).
func TestTextFitsEightyColumns(t *testing.T) {
	for _, name := range []string{"seed", "prepare-db-failed"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "test", "fixtures", name, "job.json"))
		if err != nil {
			t.Fatal(err)
		}
		r := run(t, string(data), "-")
		if !strings.Contains(r.Stdout, "    why: ") {
			t.Fatalf("%s: no why line:\n%s", name, r.Stdout)
		}
		for _, line := range strings.Split(r.Stdout, "\n") {
			if n := utf8.RuneCountInString(line); n > TextWidth {
				t.Errorf("%s: %d columns: %q", name, n, line)
			}
		}
		// --brief: one line per finding, unwrapped.
		brief := run(t, string(data), "--brief", "-")
		if strings.Contains(brief.Stdout, "\n    ") {
			t.Errorf("%s --brief wraps:\n%s", name, brief.Stdout)
		}
	}
}

func TestTemplateOutputs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "test", "fixtures", "seed", "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, string(data), "-o", "jsonpath={.summary.errors} {.findings[0].rule}", "-")
	// The captured Job is live (uid, status, the server's selector): no error (issue 22, item 6).
	if r.Code != 0 || r.Stdout != "0 no-disruption-ignore" {
		t.Errorf("jsonpath: %+v", r)
	}
	r = run(t, string(data), "-o", "custom-columns=LINE:.line,RULE:.rule", "-")
	if !strings.HasPrefix(r.Stdout, "LINE   RULE\n27     no-disruption-ignore\n") || strings.Contains(r.Stdout, "selector") {
		t.Errorf("custom-columns:\n%s", r.Stdout)
	}
	if r := run(t, "", "-o", "jsonpath={", "-"); r.Code != exitcode.Usage {
		t.Errorf("bad jsonpath: %+v", r)
	}
}

// Colour only on a terminal, and never with --no-color or NO_COLOR.
func TestColorOnlyOnATerminal(t *testing.T) {
	var out bytes.Buffer
	tty := func(io.Writer) bool { return true }
	for _, tc := range []struct {
		terminal bool
		noColor  bool
		env      string
		want     bool
	}{
		{true, false, "", true},
		{false, false, "", false},
		{true, true, "", false},
		{true, false, "1", false},
	} {
		t.Setenv("NO_COLOR", tc.env)
		out.Reset()
		o := NewOptions(genericiooptions.IOStreams{Out: &out, ErrOut: io.Discard})
		o.NoColor = tc.noColor
		if tc.terminal {
			o.IsTerminal = tty
		}
		if err := o.Complete([]string{filepath.Join("testdata", "mixed.yaml")}); err != nil {
			t.Fatal(err)
		}
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		_ = o.Run() // the file has errors: exit 1
		if got := strings.Contains(out.String(), "\x1b["); got != tc.want || !strings.Contains(out.String(), "checked") {
			t.Errorf("%+v: color %v\n%s", tc, got, out.String())
		}
	}
	// A buffer is not a terminal: the command's own output has no escape codes.
	r := run(t, "", filepath.Join("testdata", "mixed.yaml"))
	if strings.Contains(r.Stdout, "\x1b[") {
		t.Errorf("colour off a terminal:\n%s", r.Stdout)
	}
	f := lint.Finding{Rule: "x", Severity: lint.SeverityError, Message: "m"}
	if got := lint.FormatFinding(&f, lint.TextOptions{Color: true}); !strings.HasPrefix(got, "\x1b[31merror\x1b[0m x: m") {
		t.Errorf("coloured finding %q", got)
	}
}
