//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestStatusWaitExitCodes uses `kubectl indexed status JOB --wait` as a pipeline step would:
// started right after the Job is created, it blocks until the real controller finishes the Job,
// then exits 0 for a complete Job, 1 for a failed one and 1 for one completed through its success
// policy with indexes missing (which `kubectl wait --for=condition=complete` takes for success).
func TestStatusWaitExitCodes(t *testing.T) {
	RequirePlugin(t)
	for _, c := range []struct {
		name     string
		manifest string
		want     int
		cond     batchv1.JobConditionType
		phrase   string
	}{
		{"complete", indexedJob("wait-complete", `  completions: 3
  parallelism: 3
`, map[string]string{"run-time": "3s"}), 0, batchv1.JobComplete, "complete: all 3 indexes succeeded"},
		{"failed", indexedJob("wait-failed", `  completions: 3
  parallelism: 3
  backoffLimitPerIndex: 0
`, map[string]string{"run-time": "3s", "exit-code.1": "1"}), 1, batchv1.JobFailed, "Phase:        Failed"},
		{"incomplete", indexedJob("wait-incomplete", `  completions: 3
  parallelism: 3
  successPolicy:
    rules:
    - succeededIndexes: "0"
`, map[string]string{"run-time": "never", "run-time.0": "3s"}), 1, batchv1.JobComplete, "NOT complete"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ns := NewNamespace(t)
			job := CreateJob(t, ns, c.manifest)
			began := time.Now()
			r := Run(t, Cmd{Args: []string{"indexed", "status", job.Name, "-n", ns, "--wait"}, Timeout: 3 * time.Minute})
			took := time.Since(began)
			if r.ExitCode != c.want {
				t.Fatalf("exit %d, want %d\n%s", r.ExitCode, c.want, r)
			}
			// It returned because the Job finished, not before.
			j := GetJob(t, ns, job.Name)
			if cond := Condition(j, c.cond); cond == nil || cond.Status != corev1.ConditionTrue {
				t.Fatalf("status --wait returned with the Job not %s:\n%s", c.cond, DescribeState(j, GetPods(t, ns, job.Name)))
			}
			if took < 3*time.Second {
				t.Errorf("status --wait returned after %s, before any pod could finish (3s)", took)
			}
			if strings.Count(r.Stdout, "Phase:") != 1 || !strings.Contains(r.Stdout, c.phrase) {
				t.Errorf("want one report saying %q:\n%s", c.phrase, r)
			}
			t.Logf("%s: status --wait exit %d after %s", c.name, r.ExitCode, took.Round(100*time.Millisecond))
		})
	}
}
