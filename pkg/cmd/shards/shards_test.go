package shards

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

// result is what a run printed and how it ended.
type result = cmdtest.Result

func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	io := cmdtest.NewIO(stdin)
	return io.Run(NewCmdShards(io.Streams()), args...)
}

func caseList(n int) string {
	var b strings.Builder
	for i := n - 1; i >= 0; i-- { // reverse order on purpose
		fmt.Fprintf(&b, "case-%04d\n", i)
	}
	return b.String()
}

func TestSplitFromFileAndStdinIsIdentical(t *testing.T) {
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases.txt")
	if err := os.WriteFile(cases, []byte(caseList(1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	a := run(t, "", "split", "--cases", cases, "--shards", "8", "--name", "eval", "--revision", "1")
	if a.Err != nil {
		t.Fatal(a.Err)
	}
	// Same set of cases, another order, with duplicates and blank lines, from stdin.
	shuffled := "\n" + strings.Join(strings.Split(strings.TrimSpace(caseList(1000)), "\n")[500:], "\n") + "\n" +
		strings.Join(strings.Split(strings.TrimSpace(caseList(1000)), "\n")[:500], "\n") + "\ncase-0007\n  case-0008  \n"
	b := run(t, shuffled, "split", "--cases", "-", "--shards", "8", "--name", "eval", "--revision", "1")
	if b.Err != nil {
		t.Fatal(b.Err)
	}
	if a.Stdout != b.Stdout {
		t.Error("the same cases in another order gave different output")
	}
	m, err := shards.Parse("out", []byte(a.Stdout))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Shards) != 8 || m.NumCases() != 1000 || m.Shards[0].Cases[1] != "case-0008" {
		t.Errorf("%d shards, %d cases, %v", len(m.Shards), m.NumCases(), m.Shards[0].Cases[:2])
	}
	if !strings.Contains(a.Stderr, "split 1000 cases into 8 shards of 125 cases") || a.Stderr == b.Stderr {
		t.Errorf("stderr %q / %q", a.Stderr, b.Stderr)
	}
	if !strings.Contains(b.Stderr, "warning: 2 duplicate case IDs were dropped (case-0007, case-0008)") {
		t.Errorf("stderr %q", b.Stderr)
	}
}

// TestSplitOneCaseCountWords: one case in one shard reads "1 case" and "1 shard", not "1 cases".
func TestSplitOneCaseCountWords(t *testing.T) {
	r := run(t, "case-1\n", "split", "--cases", "-", "--shards", "1", "--name", "eval", "--revision", "1")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if !strings.Contains(r.Stderr, "split 1 case into 1 shard of 1 case (") {
		t.Errorf("stderr %q", r.Stderr)
	}
}

func TestSplitGoldenJSON(t *testing.T) {
	r := run(t, "b\na\nc\nd\ne\n", "split", "--cases", "-", "--shards", "2", "--name", "demo", "--revision", "2024-06-01", "--label", "candidate=model-a", "--id-prefix", "part", "-o", "json")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	path := filepath.Join("testdata", "split.json.golden")
	testutil.Golden(t, path, []byte(r.Stdout))
}

func TestSplitErrors(t *testing.T) {
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"split"}, "--cases, --shards, --name, --revision are required"},
		{"", []string{"split", "--cases", "-", "--shards", "2", "--name", "x"}, "--revision is required"},
		{"a\n", []string{"split", "--cases", "-", "--shards", "-1", "--name", "x", "--revision", "1"}, "--shards must be at least 1, not -1"},
		{"a\nb\n", []string{"split", "--cases", "-", "--shards", "3", "--name", "x", "--revision", "1"}, "3 shards for 2 distinct cases would leave shards empty"},
		{"", []string{"split", "--cases", "-", "--shards", "1", "--name", "x", "--revision", "1"}, "no case IDs given"},
		{"a\n", []string{"split", "--cases", "-", "--shards", "1", "--name", "X", "--revision", "1"}, `--name "X": a lowercase RFC 1123 label`},
		{"a\n", []string{"split", "--cases", "-", "--shards", "0", "--name", "x", "--revision", "1"}, "--shards must be at least 1, not 0"},
		{"a\n", []string{"split", "--cases", "-", "--shards", "1", "--name", "x", "--revision", "x y"}, `--revision "x y": a valid label`},
		{"a\n", []string{"split", "--cases", "-", "--shards", "1", "--name", "x", "--revision", "1", "--label", "novalue"}, `--label "novalue": give KEY=VALUE`},
		{"a\n", []string{"split", "--cases", "-", "--shards", "1", "--name", "x", "--revision", "1", "-o", "xml"}, `unable to match a printer suitable for the output format "xml"`},
		{"a\n", []string{"split", "--cases", "/nonexistent/cases", "--shards", "1", "--name", "x", "--revision", "1"}, "no such file"},
		{"a\n", []string{"split", "extra", "--cases", "-"}, "takes no arguments"},
		{"a\n\x01b\n", []string{"split", "--cases", "-", "--shards", "1", "--name", "x", "--revision", "1"}, "line 2: invalid case ID"},
	} {
		r := run(t, tc.stdin, tc.args...)
		if r.Code != exitcode.Usage || r.Err == nil || !strings.Contains(r.Err.Error(), tc.want) {
			t.Errorf("%v: %d %v, want %q", tc.args, r.Code, r.Err, tc.want)
		}
	}
}

func writeManifest(t *testing.T, content string) string {
	p := filepath.Join(t.TempDir(), "m.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const three = `apiVersion: indexed.kubectl.io/v1alpha1
kind: ShardManifest
metadata: {name: demo}
revision: "3"
shards:
- {id: s-a, cases: [x1, x2]}
- {id: s-b, cases: [y1]}
- {id: s-c, cases: [z1, z2, z3]}
`

// shardManifest is a manifest of n shards of size cases each, with case IDs of about 30 bytes.
func shardManifest(n, size int) string {
	var b strings.Builder
	b.WriteString("apiVersion: indexed.kubectl.io/v1alpha1\nkind: ShardManifest\nmetadata: {name: a-rather-long-evaluation-name}\nrevision: \"2026-12-02\"\nshards:\n")
	for i := range n {
		fmt.Fprintf(&b, "- id: s-%06d\n  cases:\n", i)
		for c := range size {
			fmt.Fprintf(&b, "  - eval/suite/case-%06d-%09d\n", i, c)
		}
	}
	return b.String()
}

// The text view of validate fits 80 columns (it printed one line of 199 columns for the
// example manifest, more with a store note), wrapping rather than cutting: every word of the
// old line is still there.
func TestValidateFits80Columns(t *testing.T) {
	example, err := filepath.Abs("../../../examples/manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string]string{
		"example": example,
		// More than one ConfigMap: the "stored in" note.
		"stored in parts": writeManifest(t, shardManifest(40, 1000)),
		// One shard too big for a ConfigMap: the "create would refuse it" note.
		"refused": writeManifest(t, shardManifest(1, 40000)),
		"one":     writeManifest(t, shardManifest(1, 1)),
	} {
		r := run(t, "", "validate", file)
		if r.Err != nil {
			t.Fatalf("%s: %v", name, r.Err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n") {
			if n := utf8.RuneCountInString(l); n > 80 && !strings.HasPrefix(strings.TrimSpace(l), "sha256:") || n > 80+len(file) {
				t.Errorf("%s: %d columns: %q", name, n, l)
			}
		}
		j := run(t, "", "validate", file, "-o", "json")
		var s shards.Summary
		if err := json.Unmarshal([]byte(j.Stdout), &s); err != nil {
			t.Fatal(err)
		}
		flat := strings.Join(strings.Fields(r.Stdout), " ")
		for _, w := range []string{s.Hash, "ConfigMap " + s.ConfigMap, s.StoreError} {
			if w := strings.Fields(w); len(w) > 0 && !strings.Contains(flat, strings.Join(w, " ")) {
				t.Errorf("%s: %q not in the text view:\n%s", name, w, r.Stdout)
			}
		}
		switch name {
		case "stored in parts":
			if s.Store == nil || s.Store.ConfigMaps < 2 || !strings.Contains(r.Stdout, "stored in") {
				t.Errorf("%s: %+v\n%s", name, s.Store, r.Stdout)
			}
		case "refused":
			if s.StoreError == "" || !strings.Contains(r.Stdout, "create would refuse it:") {
				t.Errorf("%s: %q\n%s", name, s.StoreError, r.Stdout)
			}
		case "one":
			if !strings.Contains(flat, "1 shard of 1 case (1 case)") {
				t.Errorf("%s: not singular:\n%s", name, r.Stdout)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	good := writeManifest(t, three)
	bad := writeManifest(t, strings.Replace(three, "y1", "x1", 1))
	r := run(t, "", "validate", good)
	m, _ := shards.Parse("m", []byte(three))
	if want := good + ": valid\n  manifest \"demo\" revision \"3\": 3 shards of 1-3 cases (6 cases)\n  " + m.Hash() + "\n  ConfigMap demo-shards-" + m.ShortHash(10) + "\n"; r.Err != nil || r.Stdout != want {
		t.Errorf("%v %q, want %q", r.Err, r.Stdout, want)
	}
	r = run(t, "", "validate", good, "-o", "json")
	var s shards.Summary
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil || s.Kind != "ShardManifestSummary" || s.Shards != 3 || s.Cases != 6 || s.Smallest != 1 || s.Largest != 3 {
		t.Errorf("%v %+v", err, s)
	}
	r = run(t, "", "validate", good, bad)
	if r.Code != exitcode.Usage || !strings.Contains(r.Stderr, `case "x1" is in two shards: shards[1] (id "s-b") and shards[0] (id "s-a")`) || !strings.Contains(r.Stdout, ": valid\n") {
		t.Errorf("%d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	r = run(t, three, "validate", "-")
	if r.Err != nil || !strings.HasPrefix(r.Stdout, "-: valid") {
		t.Errorf("stdin: %v %q", r.Err, r.Stdout)
	}
	if r := run(t, "", "validate"); r.Code != exitcode.Usage {
		t.Errorf("no args: %d", r.Code)
	}
}

func TestShow(t *testing.T) {
	p := writeManifest(t, three)
	r := run(t, "", "show", p)
	want := "INDEX  SHARD  CASES  FIRST CASE\n0      s-a    2      x1\n1      s-b    1      y1\n2      s-c    3      z1\n"
	if r.Err != nil || r.Stdout != want {
		t.Errorf("%v\n%q\nwant\n%q", r.Err, r.Stdout, want)
	}
	if r := run(t, "", "show", p, "--index", "2"); r.Stdout != "z1\nz2\nz3\n" {
		t.Errorf("--index 2: %q", r.Stdout)
	}
	if r := run(t, "", "show", p, "--shard", "s-a"); r.Stdout != "x1\nx2\n" {
		t.Errorf("--shard: %q", r.Stdout)
	}
	// The index grammar of every flag of indexes, in any order.
	if r := run(t, "", "show", p, "--index", "2,0"); r.Err != nil || r.Stdout != "x1\nx2\nz1\nz2\nz3\n" {
		t.Errorf("--index 2,0: %v %q", r.Err, r.Stdout)
	}
	// -o as on every report verb: json, a template, --no-headers on the table.
	if r := run(t, "", "show", p, "--index", "1-2", "-o", "jsonpath={.items[*].shard} {.items[1].caseIDs}"); r.Err != nil || r.Stdout != `s-b s-c ["z1","z2","z3"]` {
		t.Errorf("-o jsonpath: %v %q", r.Err, r.Stdout)
	}
	if r := run(t, "", "show", p, "-o", "json"); r.Err != nil || !strings.Contains(r.Stdout, `"kind": "ShardTable"`) || strings.Contains(r.Stdout, "caseIDs") {
		t.Errorf("-o json: %v %q", r.Err, r.Stdout)
	}
	if r := run(t, "", "show", p, "--no-headers"); r.Err != nil || strings.Contains(r.Stdout, "INDEX") {
		t.Errorf("--no-headers: %v %q", r.Err, r.Stdout)
	}
	for args, want := range map[string]string{
		"--index 3":             "has 3 shards (indexes 0 to 2): there is no index 3",
		"--shard nope":          `has no shard "nope"`,
		"--index -2":            `--index "-2": "-2" is not an index`,
		"--index 1 --shard s-a": "none of the others can be",
		"--index 3-1":           `--index "3-1": "3-1" ends before it starts: give completion indexes, a list such as 2,5,11-14`,
		"-o table":              `unable to match a printer suitable for the output format "table"`,
		// Issue 35 (LOW): an empty --index printed the whole table; other verbs refuse it.
		"--index=": `--index "": give completion indexes`,
		"--shard=": `--shard "": give a shard ID`,
	} {
		r := run(t, "", append([]string{"show", p}, strings.Fields(args)...)...)
		if r.Err == nil || !strings.Contains(r.Err.Error(), want) || r.Code != exitcode.Usage {
			t.Errorf("%s: %d %v", args, r.Code, r.Err)
		}
	}
}

// A bad --id-prefix is named once, as the flag, not once per shard as a manifest field.
func TestSplitBadIDPrefixOnce(t *testing.T) {
	r := run(t, caseList(30), "split", "--cases", "-", "--shards", "12", "--name", "x", "--revision", "1", "--id-prefix", "a b/")
	if r.Code != exitcode.Usage || r.Err == nil {
		t.Fatalf("%+v", r)
	}
	msg := r.Err.Error()
	if !strings.HasPrefix(msg, `--id-prefix "a b/" makes invalid shard IDs (such as "a b/-0"): a valid label`) || strings.Count(msg, "a valid label") != 1 || strings.Contains(msg, "shards[") {
		t.Errorf("error: %s", msg)
	}
}

// A bad --label is named as the flag, not blamed on the case list, before the list is read.
func TestSplitBadLabelNamesTheFlag(t *testing.T) {
	for label, want := range map[string]string{
		"a=b=c":                  `--label: invalid label value "b=c"`,
		"indexed.kubectl.io/x=y": `--label: label keys under "indexed.kubectl.io/" are reserved`,
	} {
		r := run(t, caseList(30), "split", "--cases", "-", "--shards", "3", "--name", "x", "--revision", "1", "--label", label)
		if r.Code != exitcode.Usage || r.Err == nil || !strings.HasPrefix(r.Err.Error(), want) {
			t.Errorf("--label %s: exit %d %v, want %q", label, r.Code, r.Err, want)
		}
	}
}

// Standard input can be read once: validate - - is a usage error, not "the file is empty".
func TestValidateStdinOnce(t *testing.T) {
	data, err := os.ReadFile("../../../examples/manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, string(data), "validate", "-", "-")
	if r.Code != exitcode.Usage || r.Err == nil || !strings.Contains(r.Err.Error(), "given more than once") {
		t.Errorf("validate - -: exit %d %v\n%s", r.Code, r.Err, r.Stderr)
	}
}

// The help's shard ID pattern survives the help formatter (angle brackets did not).
func TestSplitHelpNamesTheIDPattern(t *testing.T) {
	r := run(t, "", "split", "--help")
	if !strings.Contains(strings.Join(strings.Fields(r.Stdout), " "), "Shard IDs are the --id-prefix, a hyphen and k, zero-padded to the width of the last (shard-00 to shard-11 for 12 shards).") {
		t.Errorf("help:\n%s", r.Stdout)
	}
}

// TestOutputTemplates: kubectl's template formats over split's manifest (a row per shard),
// validate's summaries (a row per manifest), and show's table without headers.
func TestOutputTemplates(t *testing.T) {
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases.txt")
	if err := os.WriteFile(cases, []byte(caseList(10)), 0o644); err != nil {
		t.Fatal(err)
	}
	split := []string{"split", "--cases", cases, "--shards", "3", "--name", "eval", "--revision", "1"}
	r := run(t, "", append(split, "-o", "custom-columns=ID:.id,FIRST:.cases[0]")...)
	if r.Code != 0 || r.Stdout != "ID        FIRST\nshard-0   case-0000\nshard-1   case-0001\nshard-2   case-0002\n" {
		t.Errorf("split custom-columns: exit %d\n%q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run(t, "", append(split, "-o", "jsonpath={.metadata.name}")...); r.Code != 0 || r.Stdout != "eval" {
		t.Errorf("split jsonpath: exit %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run(t, "", append(split, "-o", "go-template={{.bad")...); r.Code != exitcode.Usage || !strings.Contains(r.Stderr+r.Err.Error(), "go-template") {
		t.Errorf("split bad template: exit %d %q %v", r.Code, r.Stderr, r.Err)
	}
	manifest := filepath.Join(dir, "m.yaml")
	if err := os.WriteFile(manifest, []byte(run(t, "", split...).Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "", "validate", manifest, manifest, "-o", "custom-columns=NAME:.name,SHARDS:.shards,CASES:.cases"); r.Code != 0 ||
		r.Stdout != "NAME   SHARDS   CASES\neval   3        10\neval   3        10\n" {
		t.Errorf("validate custom-columns: exit %d\n%q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run(t, "", "validate", manifest, "-o", "jsonpath={.hash}"); r.Code != 0 || !strings.HasPrefix(r.Stdout, "sha256:") {
		t.Errorf("validate jsonpath: exit %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	with, without := run(t, "", "show", manifest), run(t, "", "show", manifest, "--no-headers")
	rows := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
		return out
	}
	w, wo := rows(with.Stdout), rows(without.Stdout)
	if len(w) != 4 || w[0] != "INDEX SHARD CASES FIRST CASE" || strings.Join(w[1:], "\n") != strings.Join(wo, "\n") {
		t.Errorf("show --no-headers:\n%s\nwithout:\n%s", with.Stdout, without.Stdout)
	}
}
