package lint

import (
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// TestLiveCapturedJobs: every Job captured from the real control plane (test/fixtures/*/job.json,
// as kubectl get job -o json printed it, and the same as -o yaml) lints with no error: the
// selector, the controller-uid and job-name labels, uid, resourceVersion and status are what
// the server set, not what the user wrote (issue 22, item 6). Before DesiredSpec, each gave
// selector errors.
func TestLiveCapturedJobs(t *testing.T) {
	files, err := filepath.Glob("../../test/fixtures/*/job.json")
	if err != nil || len(files) < 10 {
		t.Fatalf("fixtures: %v %d", err, len(files))
	}
	dir := t.TempDir()
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		y, err := yaml.JSONToYAML(raw)
		if err != nil {
			t.Fatal(err)
		}
		yf := filepath.Join(dir, filepath.Base(filepath.Dir(f))+".yaml")
		if err := os.WriteFile(yf, y, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{f, yf} {
			docs, err := source.Read([]string{path}, source.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rep := Lint(docs, Options{})
			for _, fd := range rep.Findings {
				if fd.Severity == SeverityError {
					t.Errorf("%s: %s %s: %s", path, fd.Rule, fd.Path, fd.Message)
				}
			}
		}
	}
}

// TestLiveKeepsUserSelector: only the selector the server generates for this Job's UID is
// taken out; a live Job with a selector the user chose is still checked.
func TestLiveKeepsUserSelector(t *testing.T) {
	raw, err := os.ReadFile("../../test/fixtures/retrying/job.json")
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.Unmarshal(raw, &job); err != nil {
		t.Fatal(err)
	}
	if !jobspec.IsLive(&job) || HasErrors(CheckJob(&job, Options{})) {
		t.Fatalf("captured Job: live %v, findings %v", jobspec.IsLive(&job), CheckJob(&job, Options{}))
	}
	// The server's defaults are not read as choices the user made.
	for _, f := range CheckJob(&job, Options{}) {
		if strings.Contains(f.Message, "set explicitly") {
			t.Errorf("a server default read as set explicitly: %s", f.Message)
		}
	}
	job.Spec.Selector.MatchLabels = map[string]string{"app": "other"}
	if !HasErrors(CheckJob(&job, Options{})) {
		t.Error("a selector that matches no template label gave no error")
	}
	if d := jobspec.DesiredSpec(&job); d.Spec.Selector == nil {
		t.Error("a user's selector was dropped")
	}
	// The manifest itself (no uid) is not changed.
	job.UID, job.ResourceVersion, job.Status = "", "", batchv1.JobStatus{}
	if d := jobspec.DesiredSpec(&job); d != &job {
		t.Error("a manifest was rewritten")
	}
}
