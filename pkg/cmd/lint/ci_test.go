package lint

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
)

// corpusDir is the lint test corpus, relative to the repository's root.
const corpusDir = "test/lint/corpus"

// sarifLog is the part of SARIF 2.1.0 the tests read.
type sarifLog struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				Rules   []struct {
					ID   string `json:"id"`
					Help struct {
						Text string `json:"text"`
					} `json:"help"`
					DefaultConfiguration struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		OriginalURIBaseIDs map[string]struct {
			URI string `json:"uri"`
		} `json:"originalUriBaseIds"`
		Results []sarifResult `json:"results"`
	} `json:"runs"`
}

type sarifResult struct {
	RuleID    string `json:"ruleId"`
	RuleIndex int    `json:"ruleIndex"`
	Level     string `json:"level"`
	Message   struct {
		Text string `json:"text"`
	} `json:"message"`
	Locations []struct {
		PhysicalLocation *struct {
			ArtifactLocation struct {
				URI       string `json:"uri"`
				URIBaseID string `json:"uriBaseId"`
			} `json:"artifactLocation"`
			Region *struct {
				StartLine int `json:"startLine"`
			} `json:"region"`
		} `json:"physicalLocation"`
	} `json:"locations"`
}

func decodeSARIF(t *testing.T, s string) sarifLog {
	t.Helper()
	var l sarifLog
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		t.Fatalf("not SARIF JSON: %v\n%.2000s", err, s)
	}
	if l.Version != "2.1.0" || len(l.Runs) != 1 {
		t.Fatalf("version %q, %d runs: want 2.1.0 and one run", l.Version, len(l.Runs))
	}
	return l
}

// atRoot runs the test from the repository's root, as CI runs lint, so that the corpus'
// paths are relative to %SRCROOT%.
func atRoot(t *testing.T) {
	t.Helper()
	t.Chdir("../../..")
}

// One SARIF result per finding of the JSON report, in the same order, with the same rule,
// level, file (relative to %SRCROOT%) and line; every rule in tool.driver with its why and fix.
func TestSARIFOneResultPerFinding(t *testing.T) {
	atRoot(t)
	js := run(t, "", "-R", corpusDir, "-o", "json")
	report := decodeReport(t, js.Stdout)
	sr := run(t, "", "-R", corpusDir, "-o", "sarif")
	if sr.Code != js.Code || sr.Code != exitcode.Usage {
		t.Errorf("exit: sarif %d, json %d; want both %d (the corpus has unreadable documents)", sr.Code, js.Code, exitcode.Usage)
	}
	l := decodeSARIF(t, sr.Stdout)
	r := l.Runs[0]
	if len(report.Findings) < 300 || len(r.Results) != len(report.Findings) {
		t.Fatalf("%d results for %d findings", len(r.Results), len(report.Findings))
	}
	cwd, _ := os.Getwd()
	if got, want := r.OriginalURIBaseIDs[lint.SARIFRootBase].URI, "file://"+filepath.ToSlash(cwd)+"/"; got != want {
		t.Errorf("%%SRCROOT%% = %q, want %q", got, want)
	}
	rules := map[string]int{}
	for i, rule := range r.Tool.Driver.Rules {
		rules[rule.ID] = i
	}
	for _, want := range lint.Rules() {
		i, ok := rules[want.ID]
		if !ok {
			t.Errorf("rule %s missing from tool.driver.rules", want.ID)
			continue
		}
		got := r.Tool.Driver.Rules[i]
		if !strings.Contains(got.Help.Text, want.Why) || !strings.Contains(got.Help.Text, want.Fix) {
			t.Errorf("rule %s: help %q lacks its why or fix", want.ID, got.Help.Text)
		}
		if got.DefaultConfiguration.Level != lint.SARIFLevel(want.Severity) {
			t.Errorf("rule %s: level %q for severity %s", want.ID, got.DefaultConfiguration.Level, want.Severity)
		}
	}
	if r.Tool.Driver.Version == "" || r.Tool.Driver.Version[0] < '0' || r.Tool.Driver.Version[0] > '9' {
		t.Errorf("tool.driver.version %q does not start with a number", r.Tool.Driver.Version)
	}
	levels := map[string]int{}
	for i, f := range report.Findings {
		res := r.Results[i]
		levels[res.Level]++
		wantLevel := map[lint.Severity]string{lint.SeverityError: "error", lint.SeverityWarning: "warning", lint.SeverityInfo: "note"}[f.Severity]
		if res.RuleID != f.Rule || res.Level != wantLevel || r.Tool.Driver.Rules[res.RuleIndex].ID != f.Rule || !strings.Contains(res.Message.Text, f.Message) {
			t.Fatalf("result %d = %+v for finding %+v", i, res, f)
		}
		if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation == nil {
			t.Fatalf("result %d has no physical location: %+v", i, res)
		}
		pl := res.Locations[0].PhysicalLocation
		if pl.ArtifactLocation.URI != filepath.ToSlash(f.File) || pl.ArtifactLocation.URIBaseID != lint.SARIFRootBase {
			t.Errorf("result %d: uri %q (base %q), file %q", i, pl.ArtifactLocation.URI, pl.ArtifactLocation.URIBaseID, f.File)
		}
		if f.Line > 0 && (pl.Region == nil || pl.Region.StartLine != f.Line) || f.Line == 0 && pl.Region != nil {
			t.Errorf("result %d: region %+v, line %d", i, pl.Region, f.Line)
		}
	}
	if levels["error"] != report.Summary.Errors || levels["warning"] != report.Summary.Warnings || levels["note"] != report.Summary.Infos {
		t.Errorf("levels %v, summary %+v", levels, report.Summary)
	}
	t.Logf("%d findings, %d results: %v", len(report.Findings), len(r.Results), levels)
}

// A file outside the working directory gets an absolute file:// URI; a path that needs
// escaping is percent-encoded.
func TestSARIFURIs(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "a dir/prepare 100%.yaml", strings.Replace(goodJob, "backoffLimitPerIndex: 1\n  maxFailedIndexes: 1\n", "", 1))
	l := decodeSARIF(t, run(t, "", "-o", "sarif", p).Stdout)
	res := l.Runs[0].Results
	if len(res) == 0 {
		t.Fatal("no result")
	}
	got := res[0].Locations[0].PhysicalLocation.ArtifactLocation
	want := "file://" + filepath.ToSlash(dir) + "/a%20dir/prepare%20100%25.yaml"
	if got.URI != want || got.URIBaseID != "" {
		t.Errorf("uri %q base %q, want %q without a base", got.URI, got.URIBaseID, want)
	}
	t.Chdir(dir)
	got = decodeSARIF(t, run(t, "", "-o", "sarif", "a dir/prepare 100%.yaml").Stdout).Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation
	if got.URI != "a%20dir/prepare%20100%25.yaml" || got.URIBaseID != lint.SARIFRootBase {
		t.Errorf("relative: uri %q base %q", got.URI, got.URIBaseID)
	}
}

// TestSARIFMultitool runs the official SARIF validator (the SARIF Multitool's validate
// command) on lint's SARIF for the whole corpus: it must report no error-level result. make
// lint-sarif installs the Multitool into .tools/ and sets SARIF_MULTITOOL to it.
func TestSARIFMultitool(t *testing.T) {
	tool := os.Getenv("SARIF_MULTITOOL")
	if tool == "" {
		t.Skip("SARIF_MULTITOOL is not set: make lint-sarif installs the SARIF Multitool and runs this test")
	}
	atRoot(t)
	sr := run(t, "", "-R", corpusDir, "-o", "sarif")
	in := filepath.Join(t.TempDir(), "corpus.sarif")
	if err := os.WriteFile(in, []byte(sr.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	findings := len(decodeReport(t, run(t, "", "-R", corpusDir, "-o", "json").Stdout).Findings)
	if n := len(decodeSARIF(t, sr.Stdout).Runs[0].Results); n != findings {
		t.Fatalf("%d results for %d findings", n, findings)
	}
	out := filepath.Join(t.TempDir(), "validation.sarif")
	cmd := exec.Command(tool, "validate", in, "-o", out, "--level", "Error;Warning;Note")
	console, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s validate: %v\n%s", tool, err, console)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the Multitool wrote no log: %v\n%s", err, console)
	}
	var v struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	byLevel := map[string]int{}
	for _, run := range v.Runs {
		for _, r := range run.Results {
			level := r.Level
			if level == "" {
				level = "warning" // SARIF §3.27.10: a result without level is a warning
			}
			byLevel[level]++
			if level == "error" {
				t.Errorf("Multitool error %s: %s", r.RuleID, r.Message.Text)
			}
		}
	}
	if strings.Contains(string(console), ": error ") {
		t.Errorf("the Multitool printed errors:\n%s", console)
	}
	t.Logf("SARIF Multitool validate on %d results: %d error, %d warning, %d note", findings, byLevel["error"], byLevel["warning"], byLevel["note"])
}

type junitSuites struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Tests int    `xml:"tests,attr"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Skipped   *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			Failures []struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// One test case per object, a failure for each error or warning, in the JSON report's order.
func TestJUnitOneCasePerObject(t *testing.T) {
	atRoot(t)
	report := decodeReport(t, run(t, "", "-R", corpusDir, "-o", "json").Stdout)
	jr := run(t, "", "-R", corpusDir, "-o", "junit")
	if jr.Code != exitcode.Usage {
		t.Errorf("exit %d, want %d as -o json", jr.Code, exitcode.Usage)
	}
	var s junitSuites
	if err := xml.Unmarshal([]byte(jr.Stdout), &s); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	var failures []string
	for _, f := range report.Findings {
		if f.Severity != lint.SeverityInfo {
			failures = append(failures, f.Rule+" "+f.Message)
		}
	}
	var got []string
	cases, failed := 0, 0
	for _, suite := range s.Suites {
		if suite.Tests != len(suite.Cases) {
			t.Errorf("suite %s: tests=%d, %d cases", suite.Name, suite.Tests, len(suite.Cases))
		}
		for _, c := range suite.Cases {
			cases++
			if len(c.Failures) > 0 {
				failed++
			}
			if c.Classname != suite.Name {
				t.Errorf("case %s: classname %q in suite %q", c.Name, c.Classname, suite.Name)
			}
			for _, f := range c.Failures {
				got = append(got, f.Type+" "+f.Message)
			}
		}
	}
	if cases != report.Summary.Documents || s.Tests != cases || s.Failures != failed {
		t.Errorf("%d cases (tests=%d, failures=%d, %d failed) for %d documents", cases, s.Tests, s.Failures, failed, report.Summary.Documents)
	}
	if strings.Join(got, "\n") != strings.Join(failures, "\n") {
		t.Errorf("failures differ from the error and warning findings:\n got %d\nwant %d", len(got), len(failures))
	}
	t.Logf("%d documents, %d test cases in %d suites, %d failed, %d failures for %d errors + %d warnings",
		report.Summary.Documents, cases, len(s.Suites), failed, len(got), report.Summary.Errors, report.Summary.Warnings)
}

// junitparserScript reads a JUnit file with junitparser (the Python library the Debian
// package python3-junitparser ships) and prints: cases, failures, skipped, and per case its
// name and failure types.
const junitparserScript = `
import sys
from junitparser import JUnitXml, Failure, Skipped
xml = JUnitXml.fromfile(sys.argv[1])
cases = failures = skipped = 0
for suite in xml:
    for case in suite:
        cases += 1
        res = case.result
        failures += sum(1 for r in res if isinstance(r, Failure))
        skipped += sum(1 for r in res if isinstance(r, Skipped))
print(cases, failures, skipped)
`

// TestJUnitParser parses lint's JUnit XML for the whole corpus with junitparser, a real
// JUnit parser: its counts must be lint's. make lint-junit installs python3-junitparser and
// sets JUNITPARSER_PYTHON.
func TestJUnitParser(t *testing.T) {
	python := os.Getenv("JUNITPARSER_PYTHON")
	if python == "" {
		t.Skip("JUNITPARSER_PYTHON is not set: make lint-junit installs junitparser and runs this test")
	}
	atRoot(t)
	report := decodeReport(t, run(t, "", "-R", corpusDir, "-o", "json").Stdout)
	in := filepath.Join(t.TempDir(), "lint.xml")
	if err := os.WriteFile(in, []byte(run(t, "", "-R", corpusDir, "-o", "junit").Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, "-c", junitparserScript, in).CombinedOutput()
	if err != nil {
		t.Fatalf("junitparser: %v\n%s", err, out)
	}
	var cases, failures, skipped int
	if _, err := fmt.Sscan(string(out), &cases, &failures, &skipped); err != nil {
		t.Fatalf("junitparser printed %q: %v", out, err)
	}
	if cases != report.Summary.Documents || failures != report.Summary.Errors+report.Summary.Warnings || skipped != report.Summary.Skipped {
		t.Errorf("junitparser: %d cases, %d failures, %d skipped; lint: %d documents, %d errors + %d warnings, %d skipped",
			cases, failures, skipped, report.Summary.Documents, report.Summary.Errors, report.Summary.Warnings, report.Summary.Skipped)
	}
	t.Logf("junitparser read %d cases, %d failures, %d skipped", cases, failures, skipped)
}

var githubLine = regexp.MustCompile(`^::(error|warning|notice) (?:file=([^,:]+),line=([0-9]+),)?title=([^,:]+)::(.*)$`)

// One workflow command per finding, with the finding's file, line, rule and escaped message.
func TestGitHubOneCommandPerFinding(t *testing.T) {
	atRoot(t)
	report := decodeReport(t, run(t, "", "-R", corpusDir, "-o", "json").Stdout)
	gh := run(t, "", "-R", corpusDir, "-o", "github")
	lines := strings.Split(strings.TrimSuffix(gh.Stdout, "\n"), "\n")
	if len(lines) != len(report.Findings) {
		t.Fatalf("%d lines for %d findings", len(lines), len(report.Findings))
	}
	cmd := map[lint.Severity]string{lint.SeverityError: "error", lint.SeverityWarning: "warning", lint.SeverityInfo: "notice"}
	for i, f := range report.Findings {
		m := githubLine.FindStringSubmatch(lines[i])
		if m == nil {
			t.Fatalf("line %d is not a workflow command: %q", i, lines[i])
		}
		if m[1] != cmd[f.Severity] || m[2] != f.File || m[3] != strconv.Itoa(f.Line) || m[4] != githubTitle(f) {
			t.Errorf("line %q for finding %+v", lines[i], f)
		}
		if strings.ContainsAny(m[5], "\r\n") {
			t.Errorf("unescaped newline in %q", lines[i])
		}
	}
}

func githubTitle(f lint.Finding) string {
	if f.Object == "" {
		return f.Rule
	}
	return f.Rule + " (" + f.Object + ")"
}

func TestGitHubEscapes(t *testing.T) {
	// A file name with a comma and a colon, and a multi-line message (the fix on a second line).
	dir := t.TempDir()
	p := write(t, dir, "a,b:c.yaml", strings.Replace(goodJob, "backoffLimitPerIndex: 1\n  maxFailedIndexes: 1\n", "", 1))
	out := run(t, "", "-o", "github", p).Stdout
	want := "file=" + strings.NewReplacer(":", "%3A", ",", "%2C").Replace(p) + ","
	if !strings.Contains(out, want) || !strings.Contains(out, "%0AFix: ") || strings.Count(out, "\n") != strings.Count(out, "::")/2 {
		t.Errorf("escaping: want %q and %%0AFix in\n%s", want, out)
	}
}

// Each CI format is a CI gate: the exit codes are those of the text report.
func TestCIFormatsKeepExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "bad.yaml", strings.Replace(goodJob, "completions: 3", "completions: -1", 1))
	for _, format := range []string{"sarif", "junit", "github"} {
		for _, c := range []struct {
			args []string
			want int
		}{
			{[]string{"../../../examples/evaluation-job.yaml"}, 0},
			{[]string{"../../../examples/prepare-db.yaml"}, 0},
			{[]string{"--strict", "../../../examples/prepare-db.yaml"}, exitcode.Findings},
			{[]string{bad}, exitcode.Findings},
			{[]string{"../../../" + corpusDir + "/159-err-yaml-syntax.yaml"}, exitcode.Usage},
		} {
			r := run(t, "", append([]string{"-o", format}, c.args...)...)
			if r.Code != c.want {
				t.Errorf("-o %s %v: exit %d, want %d (%v)", format, c.args, r.Code, c.want, r.Err)
			}
			if r.Stdout == "" && format != "github" {
				t.Errorf("-o %s %v: nothing printed", format, c.args)
			}
		}
	}
}
