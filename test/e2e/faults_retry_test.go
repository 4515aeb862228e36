//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// crJob is a plain Indexed Job (applied, not made by create) whose indexes 1 and 3 fail on
// their only attempt.
const crJob = `apiVersion: batch/v1
kind: Job
metadata: {name: cr}
spec:
  completionMode: Indexed
  completions: 4
  parallelism: 4
  backoffLimitPerIndex: 0
  template:
    metadata:
      annotations:
        scenario.indexed.kubectl.io/exit-code.1: "1"
        scenario.indexed.kubectl.io/exit-code.3: "1"
    spec:
      restartPolicy: Never
      containers: [{name: worker, image: busybox:1.36}]
`

// TestFaultsConcurrentRetries is the fault suite's concurrency family (issue 26, items 3 and
// 8): four identical retries of one failed Job started at once make one retry and no more
// (each either makes or completes it, exit 0, or is refused, exit 2: one retry at a time per
// shard); a later one is refused while it runs; status of the root names the retries and
// offers only what none settled; and its printed retry command, run as printed, works.
func TestFaultsConcurrentRetries(t *testing.T) {
	t.Parallel()
	ns := NewNamespace(t)
	r := Run(t, Cmd{Args: []string{"apply", "-n", ns, "-f", "-"}, Stdin: crJob})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl apply:\n%s", r)
	}
	if j := WaitForFinished(t, ns, "cr", 3*time.Minute); j.Status.FailedIndexes == nil || *j.Status.FailedIndexes != "1,3" {
		t.Fatalf("cr: %s", DescribeState(j, GetPods(t, ns, "cr")))
	}
	kc := "--kubeconfig=" + env.Kubeconfig
	// Index 1 succeeds in its retry, index 3 fails again; both run 20 s, long enough for the
	// later retry and the status below to find them running.
	retry := []string{"retry", "cr", "-n", ns, kc, "--indexes", "failed",
		"--pod-annotation", "scenario.indexed.kubectl.io/exit-code.1-",
		"--pod-annotation", "scenario.indexed.kubectl.io/run-time=20s"}
	results := make([]Result, 4)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { results[i] = indexed(t, retry...) })
	}
	wg.Wait()
	made := 0
	for _, r := range results {
		switch r.ExitCode {
		case 0:
			made++
		case 2:
			if !strings.Contains(r.Stderr, "one retry at a time per shard") {
				t.Errorf("refused retry's message:\n%s", r)
			}
		default:
			t.Errorf("retry exit %d:\n%s", r.ExitCode, r)
		}
	}
	if made == 0 {
		t.Errorf("no retry was made:\n%v", results)
	}
	t.Logf("4 concurrent retries: %d made or completed the retry (exit 0), %d refused (exit 2)", made, len(results)-made)
	if got := jobNames(t, ns); !slices.Equal(got, []string{"cr", "cr-r1-1", "cr-r1-3"}) {
		t.Fatalf("Jobs after 4 concurrent retries: %v, want cr, cr-r1-1, cr-r1-3", got)
	}

	// While they run: the same retry once more makes nothing (issue 35 item 6: it says the
	// Jobs exist, exit 0); another retry of some of the same shards is refused, and what it
	// prints to wait with works.
	r = indexed(t, retry...)
	expect(t, r, 0, "already exist", "job.batch/cr-r1-1 unchanged")
	r = indexed(t, append(slices.Clone(retry[:5]), "--indexes", "0,1,3")...)
	expect(t, r, 2, "one retry at a time per shard")
	if rr := runShell(t, commandAfter(t, r.Stderr, "wait for it:  ")); rr.ExitCode != 0 && rr.ExitCode != 1 {
		t.Errorf("printed wait command:\n%s", rr)
	}
	st := statusJSON(t, "cr", "-n", ns, kc)
	if e := nextEntry(st, indexstatus.EntryRetried); e == nil || e.Indexes.String() != "1,3" {
		t.Errorf("status while the retries run: Retried = %+v\n%v", e, st.Next)
	}
	if e := nextEntry(st, indexstatus.EntryRetryShards); e != nil {
		t.Errorf("status offers a retry of indexes a retry still runs: %+v", e)
	}

	WaitForCondition(t, ns, "cr-r1-1", batchv1.JobComplete, 2*time.Minute)
	WaitForCondition(t, ns, "cr-r1-3", batchv1.JobFailed, 2*time.Minute)
	st = statusJSON(t, "cr", "-n", ns, kc)
	e := nextEntry(st, indexstatus.EntryRetried)
	if e == nil || !strings.Contains(e.Text, "cr-r1-1 (attempt 1: 1 succeeded)") || !strings.Contains(e.Text, "cr-r1-3 (attempt 1: 3 failed)") {
		t.Errorf("status after the retries: Retried = %+v", e)
	}
	rs := nextEntry(st, indexstatus.EntryRetryShards)
	if rs == nil || rs.Indexes.String() != "3" {
		t.Fatalf("status after the retries: RetryShards = %+v\n%v", rs, st.Next)
	}
	// The printed command, as printed (it carries --kubeconfig): retries index 3 alone.
	if rr := runShell(t, rs.Command); rr.ExitCode != 0 || !strings.Contains(rr.Stdout, "job.batch/cr-r2-3 created") {
		t.Errorf("printed retry command %q:\n%s", rs.Command, rr)
	}
}

// TestFaultsPrintedCommandsActAsUser follows every command status prints for a failed Job as
// a restricted user (issue 26, item 1): the user "viewer" may read Jobs, pods and their logs
// in one namespace and nothing more. Each printed command runs with no KUBECONFIG, so it
// reaches the cluster only through the flags it carries: the reads work, in that namespace,
// and the retry is refused for that user (the admin of the default kubeconfig would be
// allowed), with nothing created.
func TestFaultsPrintedCommandsActAsUser(t *testing.T) {
	t.Parallel()
	RequireViewer(t)
	ns := NewNamespace(t)
	r := Run(t, Cmd{Args: []string{"apply", "-n", ns, "-f", "-"}, Stdin: crJob})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl apply:\n%s", r)
	}
	WaitForFinished(t, ns, "cr", 3*time.Minute)
	GrantViewer(t, ns, "read", []rbacv1.PolicyRule{
		{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods", "pods/log", "configmaps"}, Verbs: []string{"get", "list", "watch"}},
	})
	vcfg, err := clientcmd.LoadFromFile(env.ViewerKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(t.TempDir(), "viewer's config")
	if err := clientcmd.WriteToFile(*vcfg, kc); err != nil {
		t.Fatal(err)
	}
	before := takeFaultState(t, ns)
	st := statusJSON(t, "cr", "-n", ns, "--kubeconfig", kc, "--context", vcfg.CurrentContext)
	kinds := map[indexstatus.EntryKind]bool{}
	for _, e := range st.NextEntries {
		if e.Command == "" {
			continue
		}
		kinds[e.Kind] = true
		for _, want := range []string{"--kubeconfig=", "--context=" + vcfg.CurrentContext, "-n " + ns} {
			if !strings.Contains(e.Command, want) {
				t.Errorf("%s command lacks %s: %s", e.Kind, want, e.Command)
			}
		}
		rr := runShell(t, e.Command)
		switch e.Kind {
		case indexstatus.EntryShowLogs:
			if rr.ExitCode != 0 {
				t.Errorf("printed logs command as viewer:\n%s", rr)
			}
		case indexstatus.EntryRetryShards:
			// Refused for viewer, in this namespace: the Job was found and read (a command
			// in another namespace would say it is not found) and the create denied.
			if rr.ExitCode != 4 || !strings.Contains(rr.Stderr, "permission denied") || !strings.Contains(rr.Stderr, `"cr-r1-`) {
				t.Errorf("printed retry command as viewer, want a denied create:\n%s", rr)
			}
		default:
			if rr.ExitCode != 0 && rr.ExitCode != 1 {
				t.Errorf("printed %s command as viewer:\n%s", e.Kind, rr)
			}
		}
	}
	if !kinds[indexstatus.EntryShowLogs] || !kinds[indexstatus.EntryRetryShards] {
		t.Errorf("status printed commands of kinds %v, want ShowLogs and RetryShards", kinds)
	}
	assertUnchanged(t, ns, before)
}

// statusJSON runs status -o json and decodes the report.
func statusJSON(t *testing.T, args ...string) *indexstatus.IndexedJobStatus {
	t.Helper()
	r := indexed(t, append([]string{"status", "-o", "json"}, args...)...)
	var st indexstatus.IndexedJobStatus
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("status -o json: %v\n%s", err, r)
	}
	return &st
}

func nextEntry(st *indexstatus.IndexedJobStatus, kind indexstatus.EntryKind) *indexstatus.Entry {
	for i := range st.NextEntries {
		if st.NextEntries[i].Kind == kind {
			return &st.NextEntries[i]
		}
	}
	return nil
}

// jobNames lists the namespace's Jobs, sorted.
func jobNames(t *testing.T, ns string) []string {
	t.Helper()
	list, err := env.Client.BatchV1().Jobs(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, j := range list.Items {
		out = append(out, j.Name)
	}
	slices.Sort(out)
	return out
}
