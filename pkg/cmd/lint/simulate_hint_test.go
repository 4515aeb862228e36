package lint

import (
	"strings"
	"testing"
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
	for _, want := range []string{"kubectl patch --local -f " + file, `"backoffLimitPerIndex":1`,
		"kubectl indexed simulate " + file + " --compare /tmp/prepare-db-per-index.yaml", "--outcome 0=1,0"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
	fixed := write(t, dir, "fixed.yaml", strings.Replace(job, "backoffLimit: 2", "backoffLimitPerIndex: 1", 1))
	if r := run(t, "", fixed); strings.Contains(r.Stderr, "simulate") {
		t.Errorf("hint for a per-index Job:\n%s", r.Stderr)
	}
	if r := run(t, "", file, "-o", "json"); strings.Contains(r.Stderr, "simulate") {
		t.Errorf("hint with -o json:\n%s", r.Stderr)
	}
}
