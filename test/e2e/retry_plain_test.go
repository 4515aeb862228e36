//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/joblist"
)

// seedDefinition is the seed scenario's Job manifest (test/fixtures/seed/scenario.yaml).
func seedDefinition(t *testing.T) string {
	t.Helper()
	for _, d := range definitions() {
		if d.Name == "seed" {
			return d.Manifest
		}
	}
	t.Fatal("no seed definition")
	return ""
}

// TestRetryPlainSeed: the seed fixture applied with kubectl apply (not create), index 2 exiting
// 42 and index 4 exiting 1. retry --indexes failed makes one Job per failed index whose pod,
// read from the API server, gives the worker JOB_COMPLETION_INDEX 2 or 4; the scenario keys on
// that index, so dropping exit-code.4 lets shard 4 succeed. status --lineage folds the run and
// the original Job is unchanged; list and reconcile read the lineage as they
// read a create'd one.
func TestRetryPlainSeed(t *testing.T) {
	t.Parallel()
	ns := NewNamespace(t)
	r := Run(t, Cmd{Args: []string{"apply", "-n", ns, "-f", "-"}, Stdin: seedDefinition(t)})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl apply:\n%s", r)
	}
	before := WaitForFinished(t, ns, "seed", 3*time.Minute)
	if before.Status.FailedIndexes == nil || *before.Status.FailedIndexes != "2,4" {
		t.Fatalf("seed: failed indexes %s", strPtr(before.Status.FailedIndexes))
	}

	// Both named: index 2 was failed by the Job's FailIndex rule, which failed alone leaves out.
	r = KubectlIndexed(t, "retry", "seed", "-n", ns, "--indexes", "2,4",
		"--pod-annotation", "scenario.indexed.kubectl.io/exit-code.4-")
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "job.batch/seed-r1-2 created") || !strings.Contains(r.Stdout, "job.batch/seed-r1-4 created") {
		t.Fatalf("retry:\n%s", r)
	}
	for idx, want := range map[string]batchv1.JobConditionType{"2": batchv1.JobFailed, "4": batchv1.JobComplete} {
		name := "seed-r1-" + idx
		j := WaitForFinished(t, ns, name, 3*time.Minute)
		if Condition(j, want) == nil {
			t.Errorf("%s: %s", name, DescribeState(j, GetPods(t, ns, name)))
		}
		pods := GetPods(t, ns, name)
		if len(pods) == 0 {
			t.Fatalf("%s has no pod", name)
		}
		for _, p := range pods {
			var seen []string
			for _, e := range p.Spec.Containers[0].Env {
				if e.Name == "JOB_COMPLETION_INDEX" {
					seen = append(seen, e.Value)
				}
			}
			if len(seen) != 1 || seen[0] != idx {
				t.Errorf("pod %s: the worker sees JOB_COMPLETION_INDEX %v, want exactly [%s]", p.Name, seen, idx)
			}
		}
		if idx == "2" {
			if c := ExitCode(pods[0], "worker"); c != 42 {
				t.Errorf("%s exit %d, want 42 (exit-code.2 applies to the index the worker sees)", name, c)
			}
		}
	}

	lr := lineageJSON(t, "seed", "-n", ns)
	want := "5 of 6 shards succeeded; shard 2 failed as invalid input (exit 42) in seed and seed-r1-2"
	if lr.Verdict != want {
		t.Errorf("verdict %q, want %q", lr.Verdict, want)
	}

	// list shows the plain retries as it shows create'd ones: each under its root, attempt 1.
	r = KubectlIndexed(t, "list", "-n", ns, "-o", "json")
	var l joblist.List
	if r.ExitCode != 0 || json.Unmarshal([]byte(r.Stdout), &l) != nil || len(l.Items) != 3 {
		t.Fatalf("list -o json:\n%s", r)
	}
	for _, row := range l.Items {
		if row.Name != "seed" && (row.Root != "seed" || row.Parent != "seed" || row.RetryAttempt != 1 || row.Depth != 1) {
			t.Errorf("list: %s lineage: %+v", row.Name, row)
		}
	}

	// reconcile, from a retry, reads the whole lineage as it does for create'd Jobs: the plain
	// root's shards come from --manifest (its shard is its index), each retry maps back to its
	// original index, and the seed worker's pods, which write no receipt summary, are named.
	cases := make([]string, 12)
	for i := range cases {
		cases[i] = fmt.Sprintf("case-%02d", i)
	}
	man := KubectlIndexed(t, "shards", "split", "--cases", dfWriteTemp(t, "cases.txt", strings.Join(cases, "\n")), "--shards", "6", "--name", "seed", "--revision", "1")
	if man.ExitCode != 0 {
		t.Fatalf("shards split:\n%s", man)
	}
	rep, rr := reconcileJSON(t, "seed-r1-4", "-n", ns, "--manifest", dfWriteTemp(t, "manifest.yaml", man.Stdout))
	if rr.ExitCode != 1 {
		t.Errorf("reconcile exit %d, want 1 (no receipts: coverage incomplete)\n%s", rr.ExitCode, rr)
	}
	var jobs []string
	for _, j := range rep.Jobs {
		jobs = append(jobs, fmt.Sprintf("%s/%d/%s", j.Name, j.RetryAttempt, j.OriginalIndexes))
	}
	if want := []string{"seed/0/", "seed-r1-2/1/2", "seed-r1-4/1/4"}; !reflect.DeepEqual(jobs, want) {
		t.Errorf("reconcile lineage %v, want %v\n%s", jobs, want, rr)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "seed-r1-4") || !strings.Contains(notes, "no receipt summary") {
		t.Errorf("reconcile notes do not name the retry's pods without receipts:\n%s", notes)
	}

	after := GetJob(t, ns, "seed")
	if after.ResourceVersion != before.ResourceVersion || !reflect.DeepEqual(after.Spec, before.Spec) {
		b1, _ := json.Marshal(before.Spec)
		b2, _ := json.Marshal(after.Spec)
		t.Errorf("the original Job changed: resourceVersion %s -> %s\n%s\n%s", before.ResourceVersion, after.ResourceVersion, b1, b2)
	}
}
