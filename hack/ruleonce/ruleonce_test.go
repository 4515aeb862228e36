package ruleonce

import (
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/architecture.md's table of rules from this test's")

// rule is a rule of Kubernetes or of the plugin that is written once: home is the file (or the
// directory, ending in "/") that states it, and grep finds a statement of it in Go code
// (comments blanked, so a comment may name the rule anywhere). A statement outside home fails
// TestEachRuleStatedOnce, and so does a grep that no longer finds home.
type rule struct {
	name, home, grep string
}

// inModule says whether home is a file or directory of the module; for a home outside it (a
// library's function) the grep must find nothing at all.
func inModule(home string) bool {
	for _, d := range []string{"cmd/", "hack/", "pkg/", "test/"} {
		if strings.HasPrefix(home, d) {
			return true
		}
	}
	return false
}

var rules = []rule{
	{"the defaults of a Job's spec the controller reads (SetDefaults_Job: parallelism, completions, backoffLimit, podReplacementPolicy); jobspec and simulate call them",
		"pkg/jobpolicy/rules.go",
		`if [\w.]*\b(Parallelism|PodReplacementPolicy|BackoffLimit) == nil \{\s*(return (1|batchv1|Default|Unlimited)|[\w.]*\b(Parallelism|PodReplacementPolicy|BackoffLimit) =[^=])|\.PodFailurePolicy != nil \{\s*return batchv1\.Failed|return batchv1\.TerminatingOrFailed`},
	{"backoffLimit's default (6) and the unlimited sentinel (math.MaxInt32) as values",
		"pkg/jobpolicy/",
		`2147483647|[Bb]ackoff\w*[^\n]*(\b1 ?<< ?31 ?- ?1\b|math\.MaxInt32)|[Bb]ackoff\w* +(int32 +)?= +6\b|[Bb]ackoff[^\n]*, 6\)|\(6\+1 when`},
	{"the status index sets (completedIndexes, failedIndexes, a rule's succeededIndexes) read with one policy, as the controller reads them (ReadIndexes, StatusIndexes)",
		"pkg/jobpolicy/rules.go",
		`indexes\.ParseLenient\(|indexes\.Parse\([^\n]*(Completed|Failed|Succeeded)Indexes`},
	{"attempt numbering and the order of an index's pods (AttemptNumber, ListOrder, Later)",
		"pkg/jobpolicy/facts.go",
		`\.Attempt\(\)\) \+ 1|\.Attempt\(\) [<>!=]=? [\w.\[\]]+\.Attempt\(\)|\.Attempt\(\), [\w.\[\]]+\.Attempt\(\)\)`},
	{"a finished Job (Complete or Failed True) and the True condition that decides a Job's phase, in syncJob's order (JobFinished, FinishingCondition)",
		"pkg/jobpolicy/rules.go",
		`ConditionTrue\([^)]*Job(Complete|Failed)\)[^;{]{0,30}ConditionTrue\([^)]*Job(Complete|Failed)\)|JobConditionType\{batchv1\.JobComplete, batchv1\.JobFailed\b`},
	{"the success-policy match (MatchSuccessPolicy)",
		"pkg/jobpolicy/facts.go",
		`>= int\(\*\w+\.SucceededCount\)`},
	{"pod ownership (controller owner reference, then labels) and the Job's pod selector (Owns, OwnerUID, OwnerJob, PodSelector)",
		"pkg/indexstatus/selector.go",
		`GetControllerOf(NoCopy)?\(|\bLabels\[(batchv1\.)?(ControllerUidLabel|JobNameLabel)\]( ==|[^ =]|$)|\bLabels\[label(Legacy)?(ControllerUID|JobName)\]|LabelSelectorAsSelector\(job\.Spec\.Selector\)`},
	{"manifest trust: only the Job's manifest-hash annotation vouches for its ConfigMaps' copy (RecordedHash)",
		"pkg/shards/contract.go",
		`Annotations(\(\))?\[(shards\.)?AnnotationManifestHash\]`},
	{`the hash format, "sha256:" and lowercase hex (FormatHash, ValidHash)`,
		"pkg/shards/manifest.go",
		`"sha256:"`},
	{"CronJob to Job: the Job a CronJob's jobTemplate makes (JobOf)",
		"pkg/jobspec/",
		`JobTemplate\.(ObjectMeta|Spec)\b`},
	{"the YAML parser's error messages (ErrorLine, SyntaxErrorLine, DuplicateKeyMessage)",
		"pkg/source/lines.go",
		`line \(\\d\+\)`},
	{"index strings stay indexes.Set from reading to printing: no unbounded parse of a string the plugin wrote",
		"pkg/indexes/",
		`indexes\.Parse\([^\n]*(indexes\.Unbounded|math\.MaxInt32)\)|Parse\(string\(b\), -1\)`},
	{"plural words (Count, Plural)", "pkg/textwrap/textwrap.go", `func \w*[Pp]lural\w*\(`},
	{"cutting a quoted value (Truncate)", "pkg/textwrap/textwrap.go", `func \w*[Tt]runcate\w*\(`},
	{"the table writer of the text views (NewTable)", "pkg/textwrap/textwrap.go", `tabwriter\.NewWriter\(`},
	{"a pointer to a value (ptr.To, no copy in the module)", "k8s.io/utils/ptr", `func \w+(\[[^\]]*\])?\(\w+ [\w.]+\) \*[\w.]+ \{ return &\w+ \}`},
	{`an empty text cell written as "-" (cmp.Or(s, "-"), no copy in the module)`, "cmp.Or (the standard library)", `func \w*[dD]ash\(\w+ string\) string \{|== "" \{\s*return "-"|func cmpOr\(`},
}

// skip holds the Go files the test does not read: test support that cannot import the rules'
// packages (test/testutil is imported by their own in-package tests).
var skip = []string{"test/testutil/", "test/cmdtest/"}

func TestEachRuleStatedOnce(t *testing.T) {
	files := goFiles(t)
	for _, r := range rules {
		re := regexp.MustCompile("(?m)" + r.grep)
		home := 0
		for _, f := range files {
			for _, line := range matchLines(re, f.text) {
				switch {
				case inHome(f.path, r.home):
					home++
				default:
					t.Errorf("%s:%d states %q, which lives in %s only (grep %s)", f.path, line, r.name, r.home, r.grep)
				}
			}
		}
		switch {
		case !inModule(r.home) && home != 0:
			t.Errorf("rule %q: its home is outside the module", r.name)
		case inModule(r.home) && home == 0:
			t.Errorf("rule %q: the grep finds nothing in its home %s any more: update the table", r.name, r.home)
		}
	}
}

// TestRulesTableInDocs keeps docs/architecture.md's table of rules the test's (go test
// ./hack/ruleonce -update writes it).
func TestRulesTableInDocs(t *testing.T) {
	const path = "../../docs/architecture.md"
	const begin, end = "<!-- rules: begin (go test ./hack/ruleonce -update) -->\n", "<!-- rules: end -->\n"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no table of rules between %q and %q", path, begin, end)
	}
	want := doc[:i+len(begin)] + Markdown() + doc[j:]
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Errorf("%s: the table of rules is not this test's: run go test ./hack/ruleonce -update", path)
	}
}

// Markdown is the table of rules: rule, the one place, the grep.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| Rule | The one place | The grep |\n|---|---|---|\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| %s | `%s` | `%s` |\n", r.name, r.home, strings.ReplaceAll(r.grep, "|", `\|`))
	}
	return b.String()
}

type goFile struct{ path, text string }

// goFiles reads the module's non-test Go files with their comments blanked (line numbers
// kept), leaving out testdata and the directories of other modules.
func goFiles(t *testing.T) []goFile {
	t.Helper()
	const root = "../.."
	var out []goFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || exists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		for _, s := range skip {
			if strings.HasPrefix(rel, s) {
				return nil
			}
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, goFile{rel, blankComments(src)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	if len(out) < 100 {
		t.Fatalf("read %d Go files: not the module's root?", len(out))
	}
	return out
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// blankComments replaces every comment of src by spaces, keeping its newlines.
func blankComments(src []byte) string {
	out := []byte(string(src))
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", fset.Base(), len(src)), src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT {
			off := fset.Position(pos).Offset
			for k := off; k < off+len(lit); k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
		}
	}
	return string(out)
}

// matchLines is the line of each match of re in text.
func matchLines(re *regexp.Regexp, text string) []int {
	var lines []int
	for _, m := range re.FindAllStringIndex(text, -1) {
		lines = append(lines, 1+strings.Count(text[:m[0]], "\n"))
	}
	return lines
}

func inHome(path, home string) bool {
	if strings.HasSuffix(home, "/") {
		return strings.HasPrefix(path, home)
	}
	return path == home
}
