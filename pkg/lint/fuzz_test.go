package lint

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// FuzzLint runs the whole of lint (reading, decoding, validating, the run-time rules, the text
// and JSON outputs) on arbitrary bytes: it must never panic, and the report must be well formed.
func FuzzLint(f *testing.F) {
	seeds, _ := filepath.Glob("../../test/lint/corpus/*")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil && len(data) < 100<<10 {
			f.Add(data)
		}
	}
	f.Add([]byte("{\"apiVersion\":\"batch/v1\",\"kind\":\"List\",\"items\":[{\"kind\":\"Job\",\"apiVersion\":\"batch/v1\"},3]}"))
	f.Add([]byte("apiVersion: batch/v1\nkind: CronJob\nspec:\n  jobTemplate:\n    spec:\n      completionMode: Indexed\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Lint(source.Parse("fuzz.yaml", data), Options{KubeVersion: Version{1, 29}})
		checkReport(t, r)
		if err := PrintText(io.Discard, r, TextOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

func checkReport(t *testing.T, r *Report) {
	t.Helper()
	if r.APIVersion != ReportAPIVersion || r.Kind != ReportKind || r.Findings == nil {
		t.Fatalf("malformed report header: %+v", r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("report does not marshal: %v", err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil || len(back.Findings) != len(r.Findings) {
		t.Fatalf("report does not round-trip: %v", err)
	}
	var e, w, i int
	for _, f := range r.Findings {
		rule, ok := LookupRule(f.Rule)
		switch {
		case !ok:
			t.Fatalf("finding with an unregistered rule: %+v", f)
		case f.Message == "":
			t.Fatalf("finding without message: %+v", f)
		case f.Severity != rule.Severity && f.Rule != RuleKubeVersion:
			t.Fatalf("finding severity %s, rule %s is %s", f.Severity, f.Rule, rule.Severity)
		case f.Line < 0 || f.Document < 1 || f.File == "":
			t.Fatalf("finding without location: %+v", f)
		}
		switch f.Severity {
		case SeverityError:
			e++
		case SeverityWarning:
			w++
		case SeverityInfo:
			i++
		}
	}
	s := r.Summary
	if s.Errors != e || s.Warnings != w || s.Infos != i || s.Checked+s.Skipped+s.Unreadable > s.Documents {
		t.Fatalf("summary %+v does not match the findings (%d/%d/%d)", s, e, w, i)
	}
}
