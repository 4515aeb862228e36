//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	lintcorpus "github.com/kubectl-indexed/kubectl-indexed/test/lint"
)

// TestLintCorpusAgainstAPIServer re-checks every lint corpus manifest against the live v1.37.2
// API server: the server's verdict must still be the recorded one (test/lint/corpus/
// verdicts.json, which the offline unit test of pkg/lint relies on), and `kubectl indexed lint`
// must report an error exactly for the manifests the server rejects. So lint and the server
// cannot drift apart silently.
func TestLintCorpusAgainstAPIServer(t *testing.T) {
	RequirePlugin(t)
	dir := filepath.Join(env.RepoRoot, "test", "lint", "corpus")
	recorded, err := lintcorpus.LoadVerdicts(filepath.Join(dir, lintcorpus.VerdictsFile))
	if err != nil {
		t.Fatal(err)
	}
	files, err := lintcorpus.Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(recorded.Verdicts) {
		t.Errorf("%d corpus manifests, %d recorded verdicts: run make lint-verdicts", len(files), len(recorded.Verdicts))
	}
	ns := NewNamespace(t)
	rejected, accepted := 0, 0
	for _, f := range files {
		path := filepath.Join(dir, f)
		r := Kubectl(t, lintcorpus.CreateArgs(path, ns)...)
		live := lintcorpus.ParseKubectl(r.Stderr, r.ExitCode)
		want, ok := recorded.Verdicts[f]
		switch {
		case !ok:
			t.Errorf("%s: no recorded verdict; the server says %s (run make lint-verdicts)", f, live.Verdict)
		case live.Verdict != want.Verdict || live.By != want.By:
			t.Errorf("%s: the server now says %s (by %s), recorded %s (by %s):\n%s", f, live.Verdict, live.By, want.Verdict, want.By, r)
		case !sameNormalized(live.Causes, want.Causes):
			t.Errorf("%s: the server's field errors changed:\n  now      %q\n  recorded %q", f, live.Causes, want.Causes)
		case !slices.Equal(sorted(live.Warnings), sorted(want.Warnings)):
			t.Errorf("%s: the server's warnings changed:\n  now      %q\n  recorded %q", f, live.Warnings, want.Warnings)
		}

		exp, err := lintcorpus.ReadExpectation(path)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"lint", "-o", "json", path}
		for _, fl := range exp.Flags {
			if q, ok := strings.CutPrefix(fl, "--queues="); ok {
				fl = "--queues=" + filepath.Join(filepath.Dir(path), q) // relative to the corpus
			}
			args = append(args, fl)
		}
		lr := KubectlIndexed(t, args...)
		var report struct {
			Kind     string `json:"kind"`
			Findings []struct {
				Rule     string `json:"rule"`
				Severity string `json:"severity"`
				Message  string `json:"message"`
			} `json:"findings"`
		}
		if err := json.Unmarshal([]byte(lr.Stdout), &report); err != nil || report.Kind != "LintReport" {
			t.Errorf("%s: kubectl indexed lint -o json did not print a LintReport (%v):\n%s", f, err, lr)
			continue
		}
		var lintErrors []string
		for _, fd := range report.Findings {
			// kube-version-feature errors are about the API server of the file's
			// --kube-version, not this v1.37 one.
			if fd.Severity == "error" && fd.Rule != "kube-version-feature" {
				lintErrors = append(lintErrors, fd.Rule+": "+fd.Message)
			}
		}
		switch {
		case live.Rejected() && len(lintErrors) == 0:
			t.Errorf("%s: the API server rejects it, lint reports no error:\n%s", f, r)
		case !live.Rejected() && len(lintErrors) > 0:
			t.Errorf("%s: the API server accepts it, lint reports errors:\n  %s", f, strings.Join(lintErrors, "\n  "))
		case live.Rejected():
			rejected++
			if lr.ExitCode != 1 && lr.ExitCode != 2 {
				t.Errorf("%s: lint found errors but exited %d, want 1 (or 2 for unreadable input)", f, lr.ExitCode)
			}
		default:
			accepted++
		}
	}
	t.Logf("%d manifests: %d rejected by the API server, each with a lint error; %d accepted, none with a lint error", len(files), rejected, accepted)
}

func sameNormalized(a, b []string) bool {
	norm := func(in []string) []string {
		out := make([]string, len(in))
		for i, s := range in {
			out[i] = lintcorpus.NormalizeMessage(s)
		}
		sort.Strings(out)
		return out
	}
	return slices.Equal(norm(a), norm(b))
}

func sorted(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}
