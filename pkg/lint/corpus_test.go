package lint

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	lintcorpus "github.com/kubectl-indexed/kubectl-indexed/test/lint"
)

const corpusDir = "../../test/lint/corpus"

type corpusResult struct {
	file     string
	exp      lintcorpus.Expectation
	findings []Finding
}

// lintCorpus lints every corpus manifest as `kubectl indexed lint FILE [flags]` would.
func lintCorpus(t *testing.T) []corpusResult {
	t.Helper()
	files, err := lintcorpus.Files(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 80 {
		t.Fatalf("the corpus has %d manifests; the acceptance needs at least 80", len(files))
	}
	var out []corpusResult
	for _, f := range files {
		path := filepath.Join(corpusDir, f)
		exp, err := lintcorpus.ReadExpectation(path)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{}
		for _, fl := range exp.Flags {
			if q, ok := strings.CutPrefix(fl, "--queues="); ok {
				qs, err := ReadQueues(filepath.Join(corpusDir, q), nil)
				if err != nil {
					t.Fatal(err)
				}
				opts.Queues = qs
				continue
			}
			v, ok := strings.CutPrefix(fl, "--kube-version=")
			if !ok {
				t.Fatalf("%s: unknown flag %q in the header", f, fl)
			}
			if opts.KubeVersion, err = ParseVersion(v); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		docs, err := source.Read([]string{path}, source.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, corpusResult{file: f, exp: exp, findings: Lint(docs, opts).Findings})
	}
	return out
}

func reportedRules(fs []Finding) []string {
	var ids []string
	for _, f := range fs {
		if f.Severity.Rank() >= SeverityWarning.Rank() && !slices.Contains(ids, f.Rule) {
			ids = append(ids, f.Rule)
		}
	}
	sort.Strings(ids)
	return ids
}

// Every corpus manifest declares exactly which error and warning rules lint reports for it.
func TestCorpusExpectations(t *testing.T) {
	for _, r := range lintCorpus(t) {
		if got := reportedRules(r.findings); !slices.Equal(got, r.exp.Rules) {
			t.Errorf("%s (%s):\n  lint reports %v\n  expected     %v", r.file, r.exp.Description, got, r.exp.Rules)
			for _, f := range r.findings {
				t.Logf("    %s %s %s", f.Severity, f.Rule, f.Message)
			}
		}
	}
}

// Every error and warning rule has a corpus manifest that triggers it and one that passes it.
func TestCorpusCoversEveryRule(t *testing.T) {
	results := lintCorpus(t)
	for _, rule := range Rules() {
		if rule.Severity == SeverityInfo {
			continue
		}
		fails, passes := 0, 0
		for _, r := range results {
			if slices.Contains(r.exp.Rules, rule.ID) {
				fails++
			} else {
				passes++
			}
		}
		if fails == 0 || passes == 0 {
			t.Errorf("rule %s: %d corpus manifests trigger it, %d pass it; want at least one of each", rule.ID, fails, passes)
		}
	}
}

// The API server's recorded verdicts: a rejected manifest has at least one lint error, an
// accepted one has none.
func TestCorpusAgreesWithAPIServer(t *testing.T) {
	verdicts, err := lintcorpus.LoadVerdicts(filepath.Join(corpusDir, lintcorpus.VerdictsFile))
	if err != nil {
		t.Fatal(err)
	}
	results := lintCorpus(t)
	if len(verdicts.Verdicts) != len(results) {
		t.Errorf("verdicts.json has %d verdicts for %d manifests: re-record with make lint-verdicts", len(verdicts.Verdicts), len(results))
	}
	rejected, accepted := 0, 0
	for _, r := range results {
		v, ok := verdicts.Verdicts[r.file]
		if !ok {
			t.Errorf("%s: no recorded verdict (make lint-verdicts)", r.file)
			continue
		}
		// The verdicts are a v1.37 API server's. A feature the corpus file's --kube-version
		// lacks is an error for that older server, which was not asked.
		var at137 []Finding
		for _, f := range r.findings {
			if f.Rule != RuleKubeVersion {
				at137 = append(at137, f)
			}
		}
		errs := CountAtLeast(at137, SeverityError)
		switch {
		case v.Rejected() && errs == 0:
			t.Errorf("%s: the API server rejected it (%s), lint reports no error", r.file, strings.Join(append(v.Causes, v.Errors...), "; "))
		case !v.Rejected() && errs > 0:
			t.Errorf("%s: the API server accepted it, lint reports %d errors: %v", r.file, errs, r.findings)
		case v.Rejected():
			rejected++
		default:
			accepted++
		}
	}
	t.Logf("%d rejected by the API server, each with at least one lint error; %d accepted, none with a lint error", rejected, accepted)
}

// Where the API server answers with field errors, lint's error messages are the same, word for
// word (server-generated UIDs aside).
func TestCorpusMessagesMatchAPIServer(t *testing.T) {
	verdicts, err := lintcorpus.LoadVerdicts(filepath.Join(corpusDir, lintcorpus.VerdictsFile))
	if err != nil {
		t.Fatal(err)
	}
	matched, total := 0, 0
	for _, r := range lintCorpus(t) {
		v := verdicts.Verdicts[r.file]
		if len(v.Causes) == 0 {
			continue
		}
		var lintMsgs []string
		for _, f := range r.findings {
			if f.Severity == SeverityError {
				lintMsgs = append(lintMsgs, lintcorpus.NormalizeMessage(f.Message))
			}
		}
		for _, c := range v.Causes {
			total++
			if slices.Contains(lintMsgs, lintcorpus.NormalizeMessage(c)) {
				matched++
				continue
			}
			t.Errorf("%s: the server says\n    %s\n  lint's errors are\n    %s", r.file, c, strings.Join(lintMsgs, "\n    "))
		}
	}
	t.Logf("%d of %d server field errors matched word for word", matched, total)
}

// Where the API server refuses to decode the object (unknown fields, wrong types), lint's error
// says the same thing.
func TestCorpusDecodingErrorsMatchAPIServer(t *testing.T) {
	verdicts, err := lintcorpus.LoadVerdicts(filepath.Join(corpusDir, lintcorpus.VerdictsFile))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range lintCorpus(t) {
		for _, line := range verdicts.Verdicts[r.file].Errors {
			_, detail, ok := strings.Cut(line, " cannot be handled as a Job: ")
			if !ok {
				continue
			}
			detail = strings.TrimPrefix(strings.TrimPrefix(detail, "strict decoding error: "), "json: ")
			for _, part := range strings.Split(detail, ", unknown field") {
				if !strings.HasPrefix(part, "unknown field") && strings.HasPrefix(part, " ") {
					part = "unknown field" + part
				}
				checked++
				found := false
				for _, f := range r.findings {
					if f.Severity == SeverityError && strings.Contains(f.Message, part) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: the server says %q; no lint error says so: %v", r.file, part, r.findings)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no decoding error in the corpus verdicts")
	}
}

// The warnings the API server returns are the ones lint reports under the server's rules,
// word for word, and lint reports no server warning the server did not give.
func TestCorpusServerWarningsMatch(t *testing.T) {
	verdicts, err := lintcorpus.LoadVerdicts(filepath.Join(corpusDir, lintcorpus.VerdictsFile))
	if err != nil {
		t.Fatal(err)
	}
	serverRules := []string{"name-not-dns-label", "large-indexed-job"}
	seen := 0
	for _, r := range lintCorpus(t) {
		v := verdicts.Verdicts[r.file]
		var mirrored []string
		for _, f := range r.findings {
			if slices.Contains(serverRules, f.Rule) {
				mirrored = append(mirrored, f.Message)
			}
		}
		sort.Strings(mirrored)
		got := append([]string(nil), v.Warnings...)
		sort.Strings(got)
		if !slices.Equal(mirrored, got) {
			t.Errorf("%s: the server warned %q, lint mirrors %q", r.file, got, mirrored)
		}
		seen += len(got)
	}
	if seen == 0 {
		t.Error("no server warning in the corpus verdicts")
	}
}

// docs/lint.md's rule table documents every rule, with its severity.
func TestDocsDocumentEveryRule(t *testing.T) {
	const page = "../../docs/lint.md"
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, r := range Rules() {
		row := "| `" + r.ID + "` | " + string(r.Severity) + " | "
		if !strings.Contains(doc, row) {
			t.Errorf("%s has no rule table row starting %q", page, row)
		}
	}
}

// Lint checks every document: Jobs and CronJobs fully, other kinds are skipped with an info
// note, unreadable documents become unreadable-document errors. Findings point at file,
// document and line.
func Lint(docs []source.Document, opts Options) *Report {
	l := NewLinter(opts)
	for i := range docs {
		l.Add(&docs[i])
	}
	r, _ := l.Report() // nothing is written without StreamText
	return r
}

// Add lints one document and keeps it: Keep(Check(d)).
func (l *Linter) Add(d *source.Document) {
	l.Keep(l.Check(d))
}
