package lint

import (
	"strings"
	"testing"
)

func TestBriefIsOneLinePerFinding(t *testing.T) {
	var b strings.Builder
	fs := []Finding{{Rule: RuleUnreadable, Severity: SeverityError, Message: "invalid YAML: yaml: unmarshal errors:\n  line 7: something", File: "f.yaml", Line: 7}}
	if err := PrintFindings(&b, fs, TextOptions{Brief: true}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "unmarshal errors: line 7: something") {
		t.Errorf("brief:\n%s", got)
	}
}

func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct{ kind, path, want string }{
		{"Job", "spec.backoffLimitPerIndx", "backoffLimitPerIndex"},
		{"Job", "spec.Completions", "completions"},
		{"Job", "spec.template.spec.containers[0].imag", "image"},
		{"CronJob", "spec.jobTemplate.spec.paralelism", "parallelism"},
		{"Job", "spec.somethingElse", ""},
		{"Job", "spec.nosuch.field", ""},
	} {
		if got := didYouMean(tc.kind, tc.path); got != tc.want {
			t.Errorf("didYouMean(%s, %s) = %q, want %q", tc.kind, tc.path, got, tc.want)
		}
	}
}
