//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/joblist"
	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// TestList runs `kubectl indexed list` through kubectl on the local control plane: a Job made
// by create whose indexes 2 and 4 fail (as the seed scenario), its retry, a running Indexed
// Job and a Job that is not Indexed.
func TestList(t *testing.T) {
	RequirePlugin(t)
	ns := NewNamespace(t)
	createSeed(t, ns)
	CreateJob(t, ns, logsJob)
	MustKubectl(t, "create", "job", "plain", "-n", ns, "--image", "busybox")
	seed := WaitForFinished(t, ns, "seed", 3*time.Minute)
	// From status alone, the commands to the failing index's log and the retry (docs/status.md's
	// walkthrough of the seed scenario).
	st := KubectlIndexed(t, "status", "seed", "-n", ns)
	for _, w := range []string{
		"\n      kubectl indexed logs seed -n " + ns + " --failed\n",
		"Re-run the failed shards that used up their retries (4) as a new Job:\n      kubectl indexed retry seed -n " + ns + "\n",
		"Pods of the first index of each group (oldest attempt first):\n  2: seed-2-",
	} {
		if !strings.Contains(st.Stdout, w) {
			t.Errorf("status lacks %q:\n%s", w, st)
		}
	}
	lg := KubectlIndexed(t, "logs", "seed", "-n", ns, "--failed", "--request-timeout", "20s")
	// kwok serves every container's log as harness.ContainerLogLine (test/harness/kwok.go).
	if want := "[index 2 attempt 1] " + harness.ContainerLogLine + "\n[index 4 attempt 2] " + harness.ContainerLogLine + "\n"; lg.ExitCode != 0 || lg.Stdout != want {
		t.Errorf("logs --failed on seed:\n%s", lg)
	}
	if r := KubectlIndexed(t, "retry", "seed", "-n", ns, "--indexes", "2,4", "--pod-annotation", "scenario.indexed.kubectl.io/run-time=never"); r.ExitCode != 0 {
		t.Fatalf("retry:\n%s", r)
	}
	WaitForJob(t, ns, "seed-r1", time.Minute, "both retry pods running", func(j *batchv1.Job, _ []corev1.Pod) bool { return j.Status.Active == 2 })
	WaitForJob(t, ns, "logs", 2*time.Minute, "index 1 failed", func(j *batchv1.Job, _ []corev1.Pod) bool {
		return j.Status.FailedIndexes != nil && *j.Status.FailedIndexes == "1" && j.Status.Active == 1
	})

	r := KubectlIndexed(t, "list", "-n", ns)
	t.Logf("%s", r)
	lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	if r.ExitCode != 0 || len(lines) != 4 {
		t.Fatalf("want a header and 3 Indexed Jobs (not the plain one):\n%s", r)
	}
	fields := func(line string) string { return strings.Join(strings.Fields(line), " ") }
	// seed: indexes 0,1,3,5 succeeded, 2 and 4 failed; its retry under it runs both; logs runs
	// index 2 with index 1 failed and index 0 done.
	if !strings.HasPrefix(fields(lines[0]), "NAME PHASE SUCC/FAIL/RUN/TOTAL COMPLETE AGE") ||
		!strings.HasPrefix(fields(lines[1]), "logs Running 1/1/1/3 no ") ||
		!strings.HasPrefix(fields(lines[2]), "seed Failed 4/2/0/6 no ") ||
		!strings.HasPrefix(fields(lines[3]), "└─ seed-r1 Running 0/0/2/2 no ") {
		t.Errorf("table:\n%s", r.Stdout)
	}
	if *seed.Status.FailedIndexes != "2,4" || seed.Status.CompletedIndexes != "0,1,3,5" {
		t.Errorf("seed ended with completed %q failed %q, not the seed scenario's", seed.Status.CompletedIndexes, *seed.Status.FailedIndexes)
	}

	// The alias, -A, a label selector (the retry's root-job label) and -o name.
	r = KubectlIndexed(t, "get", "-A", "-l", "indexed.kubectl.io/root-job=seed", "-o", "name")
	if r.ExitCode != 0 || r.Stdout != "job.batch/seed-r1\n" {
		t.Errorf("get -A -l -o name:\n%s", r)
	}
	// What -o name prints is what kubectl takes.
	if k := MustKubectl(t, "get", "-n", ns, strings.TrimSpace(r.Stdout), "-o", "jsonpath={.metadata.name}"); k.Stdout != "seed-r1" {
		t.Errorf("kubectl get of the listed name: %s", k)
	}

	// --with-pods: attempts and pods from the one pod LIST, equal to the pods the controller made.
	r = KubectlIndexed(t, "list", "-n", ns, "--with-pods", "-o", "json")
	var l joblist.List
	if r.ExitCode != 0 || json.Unmarshal([]byte(r.Stdout), &l) != nil || !l.WithPods || len(l.Items) != 3 {
		t.Fatalf("--with-pods -o json:\n%s", r)
	}
	for _, row := range l.Items {
		pods := GetPods(t, ns, row.Name)
		if row.Pods == nil || *row.Pods != len(pods) || row.Attempts == nil {
			t.Errorf("%s: pods %v attempts %v, want %d pods", row.Name, row.Pods, row.Attempts, len(pods))
		}
		if row.Name == "logs" && *row.Attempts != 4 {
			// index 0 once, index 1 twice, index 2 once.
			t.Errorf("logs: %d attempts, want 4", *row.Attempts)
		}
		if row.Name == "seed-r1" && (row.Parent != "seed" || row.Depth != 1 || row.RetryAttempt != 1) {
			t.Errorf("seed-r1 lineage: %+v", row)
		}
	}

	// Nothing found is not an error.
	r = KubectlIndexed(t, "list", "-n", ns, "-l", "app=none")
	if r.ExitCode != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, "No Indexed Jobs found") {
		t.Errorf("empty:\n%s", r)
	}
}
