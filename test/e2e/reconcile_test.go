//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/reconcile"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// exampleWorker runs examples/worker.sh on this machine as the Job's container would run it for
// completion index index of job, with the files of root index shard (the shard ConfigMap laid
// out as its volume is), and returns the summary it wrote to its termination message. The full
// receipt goes under results.
func exampleWorker(t *testing.T, objs *scaffold.Objects, jobName string, index, shard int, attempt, results string) string {
	t.Helper()
	dir := t.TempDir()
	for k, v := range objs.ConfigMap.Data {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "INDEXED_TERMINATION_LOG=" + filepath.Join(dir, "termination-log"),
		"INDEXED_RESULTS_DIR=" + results, "INDEXED_ATTEMPT_ID=" + attempt, "INDEXED_JOB_NAME=" + jobName}
	for _, e := range objs.Job.Spec.Template.Spec.Containers[0].Env {
		v := e.Value
		switch e.Name {
		case scaffold.EnvCompletionIndex:
			v = strconv.Itoa(index)
		default:
			// The files of the shard this index runs, as a retry's volume items map them.
			v = strings.ReplaceAll(v, "$("+scaffold.EnvCompletionIndex+")", strconv.Itoa(shard))
		}
		env = append(env, e.Name+"="+strings.Replace(v, scaffold.MountPath, dir, 1))
	}
	cmd := exec.Command("sh", filepath.Join(env2root(), "examples", "worker.sh"))
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("worker.sh for index %d: %v\n%s", index, err, out)
	}
	msg, err := os.ReadFile(filepath.Join(dir, "termination-log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(msg)
}

func env2root() string { return env.RepoRoot }

// invalidInput is what a worker that found its shard's input unusable leaves: every case
// failed for infrastructure.
func invalidInput(m *shards.Manifest, i int, jobName, attempt string) *receipt.Receipt {
	fin := time.Now().UTC().Truncate(time.Second)
	r := &receipt.Receipt{APIVersion: receipt.APIVersion, Kind: receipt.Kind, Attempt: receipt.Attempt{
		Manifest: contract.ManifestRef{Name: m.Metadata.Name, Revision: string(m.Revision), Hash: m.Hash()},
		ShardID:  m.Shards[i].ID, CompletionIndex: i, Job: contract.JobRef{Name: jobName}, AttemptID: attempt,
		Assigned: receipt.Assigned{Count: len(m.Shards[i].Cases), Digest: receipt.CasesDigest(m.Shards[i].Cases)}},
		Completed: []receipt.Result{}, FinishedAt: &fin}
	for _, c := range m.Shards[i].Cases {
		r.Failed = append(r.Failed, receipt.Failure{Case: c, Class: receipt.ClassInfrastructure, Reason: "invalid input: unreadable record"})
	}
	return r
}

// reconcileJSON runs reconcile with -o json and decodes the report.
func reconcileJSON(t *testing.T, args ...string) (*reconcile.Report, Result) {
	t.Helper()
	r := KubectlIndexed(t, append([]string{"reconcile", "-o", "json"}, args...)...)
	var rep reconcile.Report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("reconcile -o json: %v\n%s", err, r)
	}
	return &rep, r
}

// TestReconcileSeedWithRetry is the acceptance run of reconcile on the real controller: the seed
// scenario made by create (index 2 exits 42, index 4 exits 1 on every attempt), where finished
// pods leave the receipt summaries examples/worker.sh writes (index 2: every case failed for
// invalid input), then `kubectl indexed retry seed --indexes 4`, whose index 0 runs shard 4 and
// succeeds. The retry copies the root's pod annotations, so the test re-keys the scenario
// annotations on it with --pod-annotation, as TestRetrySeedScenario does.
func TestReconcileSeedWithRetry(t *testing.T) {
	ns := NewNamespace(t)
	_, _, m := createFiles(t, "seed-eval", 12, 6, nil)
	objs, err := scaffold.Build(scaffold.Options{Manifest: m, JobName: "seed", Namespace: ns, Image: "busybox:1.36"})
	if err != nil {
		t.Fatal(err)
	}
	results := t.TempDir()
	scenario := harness.NewScenario().IndexExitCode(2, 42).IndexExitCode(4, 1)
	for _, i := range []int{0, 1, 3, 5} {
		scenario.IndexTerminationMessage(i, exampleWorker(t, objs, "seed", i, i, fmt.Sprintf("seed-%d-attempt0", i), results))
	}
	bad := invalidInput(m, 2, "seed", "seed-2-attempt0")
	badMsg, err := receipt.Encode(receipt.Summarize(bad))
	if err != nil {
		t.Fatal(err)
	}
	scenario.IndexTerminationMessage(2, string(badMsg))
	manifest, template, _ := createFiles(t, "seed-eval", 12, 6, scenario.Annotations())

	r := KubectlIndexed(t, "create", "seed", "-n", ns, "--manifest", manifest, "--from-job", template, "--parallelism", "2")
	if r.ExitCode != 0 {
		t.Fatalf("create:\n%s", r)
	}
	WaitForFinished(t, ns, "seed", 3*time.Minute)
	checkSeed(t, TakeSnapshot(t, ns, "seed"))

	// The retry: index 0 runs root index 4 (shard 4) and leaves the summary examples/worker.sh
	// writes for that shard.
	const retryName = "seed-r1"
	args := []string{"retry", "seed", "-n", ns, "--indexes", "4"}
	for k := range scenario.Annotations() {
		args = append(args, "--pod-annotation", k+"-")
	}
	retryMsg := harness.NewScenario().IndexTerminationMessage(0, exampleWorker(t, objs, retryName, 0, 4, retryName+"-0-attempt0", results)).Annotations()
	for k, v := range retryMsg {
		args = append(args, "--pod-annotation", k+"="+v)
	}
	// Long enough for reconcile --wait to find the retry running.
	args = append(args, "--pod-annotation", harness.AnnotationRunTime+"=8s")
	if r := KubectlIndexed(t, args...); r.ExitCode != 0 {
		t.Fatalf("retry:\n%s", r)
	}
	retry := GetJob(t, ns, retryName)
	if retry.Annotations[shards.AnnotationOriginalIndexes] != "4" {
		t.Fatalf("the retry runs root indexes %q, want 4", retry.Annotations[shards.AnnotationOriginalIndexes])
	}
	// Issue 36: reconcile --wait is the pipeline's gate. It returns only once the retry has
	// finished, saying on stderr that it waits for it, and exits by coverage (shard 2's
	// cases were not evaluated: 1, whatever the retry did).
	began := time.Now()
	gate := Run(t, Cmd{Args: []string{"indexed", "reconcile", "seed", "-n", ns, "--wait", "--timeout", "2m"}, Timeout: 3 * time.Minute})
	if gate.ExitCode != 1 || !strings.Contains(gate.Stderr, `waiting for the lineage of job "seed": still running: `+retryName) ||
		!strings.Contains(gate.Stderr, "every Job finished") || !strings.Contains(gate.Stdout, "Verdict:") {
		t.Errorf("reconcile --wait: exit %d after %s, want 1, the wait for %s on stderr and a report:\n%s", gate.ExitCode, time.Since(began), retryName, gate)
	}
	if j := GetJob(t, ns, retryName); !Finished(j) {
		t.Errorf("reconcile --wait returned with %s not finished", retryName)
	}
	t.Logf("reconcile --wait: exit %d after %s; stderr:\n%s", gate.ExitCode, time.Since(began).Round(100*time.Millisecond), gate.Stderr)
	WaitForCondition(t, ns, retry.Name, batchv1.JobComplete, 2*time.Minute)
	// The stage sets messages once pods have finished: wait for the five summaries.
	waitForMessages(t, ns, "seed", 5)
	waitForMessages(t, ns, retry.Name, 1)

	// status shows each index's case counts from the same summaries.
	st := KubectlIndexed(t, "status", "seed", "-n", ns, "-o", "json")
	var sr struct {
		Indexes []struct {
			Index int `json:"index"`
			Cases *struct {
				Text string `json:"text"`
			} `json:"cases"`
		} `json:"indexes"`
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(st.Stdout), &sr); err != nil || len(sr.Indexes) != 6 {
		t.Fatalf("status -o json: %v\n%s", err, st)
	}
	for i, want := range []string{"2/2 cases", "2/2 cases", "0/2 cases, 2 infrastructure", "2/2 cases", "", "2/2 cases"} {
		got := ""
		if c := sr.Indexes[i].Cases; c != nil {
			got = c.Text
		}
		if got != want {
			t.Errorf("status index %d cases %q, want %q", i, got, want)
		}
	}
	if !strings.Contains(strings.Join(sr.Notes, "\n"), "1 index left a receipt summary with cases not evaluated: 2 (0/2 cases, 2 infrastructure)") {
		t.Errorf("status notes: %q", sr.Notes)
	}

	rep, r := reconcileJSON(t, "seed", "-n", ns)
	if r.ExitCode != 1 || rep.Coverage.ShardsEvaluated != 5 || rep.Coverage.Shards != 6 || rep.Complete {
		t.Fatalf("want exit 1 and 5/6 shards: exit %d, coverage %+v\n%s", r.ExitCode, rep.Coverage, r)
	}
	if s := rep.Shards[2]; s.State != reconcile.StateNotEvaluated || len(s.Reasons) == 0 || !strings.Contains(s.Reasons[0].Reason, "invalid input") {
		t.Errorf("shard 2: %+v", s)
	}
	if s := rep.Shards[4]; s.State != reconcile.StateComplete || len(s.Attempts) != 1 || !strings.HasPrefix(s.Attempts[0].Source, "pod/"+retry.Name+"-0-") {
		t.Errorf("shard 4 should be complete from the retry's pod: %+v", s)
	}
	for _, i := range []int{0, 1, 3, 5} {
		if s := rep.Shards[i]; s.State != reconcile.StateComplete || s.Source != "summary" {
			t.Errorf("shard %d: %+v", i, s)
		}
	}
	if len(rep.Jobs) != 2 || rep.Jobs[1].Name != retry.Name || rep.Jobs[1].OriginalIndexes.String() != "4" {
		t.Errorf("jobs: %+v", rep.Jobs)
	}
	if c := rep.Coverage; c.Results != 12 || c.Evaluated != 10 || c.Infrastructure != 2 || c.Missing != 0 {
		t.Errorf("coverage %+v", c)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "2 finished pods left no receipt summary") {
		t.Errorf("the two failed attempts of index 4 are not noted: %q", rep.Notes)
	}
	text := KubectlIndexed(t, "reconcile", "seed", "-n", ns)
	if text.ExitCode != 1 || !strings.Contains(text.Stdout, "5/6 evaluated") || !strings.Contains(text.Stdout, m.Shards[2].ID) {
		t.Errorf("text:\n%s", text)
	}
	if r := KubectlIndexed(t, "reconcile", "seed", "-n", ns, "--allow-partial"); r.ExitCode != 0 || !strings.Contains(r.Stdout, "10/12 (83.3%)") {
		t.Errorf("--allow-partial:\n%s", r)
	}

	// Receipts on disk for every shard (shard 2's: every case failed for invalid input), with
	// one case taken out of shard 5's: the report names that case, live and offline.
	data, err := json.Marshal(bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(results, m.Shards[2].ID), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(results, m.Shards[2].ID, "seed-2-attempt0.receipt.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(results, m.Shards[5].ID, "seed-5-attempt0.receipt.json")
	data, err = os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dropped := m.Shards[5].Cases[len(m.Shards[5].Cases)-1]
	edited := strings.Replace(string(data), `,{"case":"`+dropped+`"}`, "", 1)
	if edited == string(data) {
		t.Fatalf("receipt does not list %s:\n%s", dropped, data)
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"seed", "-n", ns, "--receipts", results}, {"--manifest", manifest, "--receipts", results}} {
		rep, r := reconcileJSON(t, args...)
		s := rep.Shards[5]
		if r.ExitCode != 1 || s.State != reconcile.StatePartial || len(s.MissingCases) != 1 || s.MissingCases[0].Case != dropped {
			t.Errorf("%v: exit %d, shard 5 %+v", args, r.ExitCode, s)
		}
		if s := rep.Shards[4]; s.State != reconcile.StateComplete || s.Source != "receipts" {
			t.Errorf("%v: shard 4 %+v", args, s)
		}
		if s := rep.Shards[2]; s.State != reconcile.StateNotEvaluated || len(s.NotEvaluatedCases) != 2 {
			t.Errorf("%v: shard 2 %+v", args, s)
		}
	}
	text = KubectlIndexed(t, "reconcile", "--manifest", manifest, "--receipts", results)
	if !strings.Contains(text.Stdout, "1 missing: "+dropped) {
		t.Errorf("text does not name %s:\n%s", dropped, text)
	}

	// The root deleted (as by its TTL): reconcile of the retry reads the manifest from the
	// copy in the retry's shard ConfigMap and still counts its 6 shards; the 5 that only the
	// root ran are missing (issue 26, item 4: it failed, job "seed" not found).
	MustKubectl(t, "delete", "job", "seed", "-n", ns, "--wait=true")
	rep, r = reconcileJSON(t, retry.Name, "-n", ns)
	if r.ExitCode != 1 || rep.Complete || rep.Coverage.Shards != 6 || rep.Coverage.ShardsEvaluated != 1 || rep.Coverage.Results != 12 {
		t.Fatalf("root gone: want exit 1 and 1/6 shards: exit %d, coverage %+v\n%s", r.ExitCode, rep.Coverage, r)
	}
	for i, s := range rep.Shards {
		want := reconcile.StateMissing
		if i == 4 {
			want = reconcile.StateComplete
		}
		if s.State != want || s.ShardID != m.Shards[i].ID {
			t.Errorf("root gone: shard %d %s %s, want %s %s", i, s.ShardID, s.State, m.Shards[i].ID, want)
		}
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), `The root Job "seed" is gone`) {
		t.Errorf("root gone: notes %q", rep.Notes)
	}
	// With the receipts on disk, the root's shards are read from them.
	rep, r = reconcileJSON(t, retry.Name, "-n", ns, "--receipts", results)
	if r.ExitCode != 1 || rep.Coverage.Shards != 6 || rep.Shards[5].State != reconcile.StatePartial || rep.Shards[2].State != reconcile.StateNotEvaluated {
		t.Errorf("root gone, with receipts: exit %d, coverage %+v", r.ExitCode, rep.Coverage)
	}
	for _, i := range []int{0, 1, 3, 4} {
		if s := rep.Shards[i]; s.State != reconcile.StateComplete {
			t.Errorf("root gone, with receipts: shard %d %+v", i, s)
		}
	}
}

// waitForMessages waits until n finished pods of the Job carry a termination message.
func waitForMessages(t *testing.T, ns, job string, n int) {
	t.Helper()
	WaitForJob(t, ns, job, time.Minute, fmt.Sprintf("%d termination messages", n), func(_ *batchv1.Job, pods []corev1.Pod) bool {
		got := 0
		for _, p := range pods {
			for _, cs := range p.Status.ContainerStatuses {
				if cs.State.Terminated != nil && cs.State.Terminated.Message != "" {
					got++
				}
			}
		}
		return got >= n
	})
}

// TestReconcileCutTerminationMessage: a worker whose summary was longer than 4 KiB leaves, as a
// kubelet keeps it, only the last 4,096 bytes; through the real API server, reconcile names it
// as truncated and counts nothing from it. The Job is a plain one (not made by create), so the
// manifest is given with --manifest.
func TestReconcileCutTerminationMessage(t *testing.T) {
	ns := NewNamespace(t)
	m := &shards.Manifest{APIVersion: shards.APIVersion, Kind: shards.Kind, Metadata: shards.Metadata{Name: "cut"}, Revision: "1",
		Shards: []shards.Shard{{ID: "shard-0", Cases: []string{"a", "b"}}}}
	manifest := filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(manifest, m.Canonical(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := invalidInput(m, 0, "cut", "cut-0")
	s := receipt.Summarize(r)
	s.Failed.Infrastructure, s.Completed = 0, 2
	s.Outputs = []string{"s3://bucket/" + strings.Repeat("a-long-prefix/", 400)}
	long, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	kept := string(long[len(long)-receipt.MaxTerminationMessage:])
	ann := harness.NewScenario().IndexTerminationMessage(0, kept).Annotations()
	var b strings.Builder
	for k, v := range ann {
		fmt.Fprintf(&b, "        %s: %q\n", k, v)
	}
	CreateJob(t, ns, `apiVersion: batch/v1
kind: Job
metadata: {name: cut}
spec:
  completionMode: Indexed
  completions: 1
  backoffLimitPerIndex: 0
  template:
    metadata:
      annotations:
`+b.String()+`    spec:
      restartPolicy: Never
      containers: [{name: worker, image: busybox:1.36}]
`)
	WaitForCondition(t, ns, "cut", batchv1.JobComplete, 2*time.Minute)
	waitForMessages(t, ns, "cut", 1)
	pods := GetPods(t, ns, "cut")
	if got := pods[0].Status.ContainerStatuses[0].State.Terminated.Message; got != kept {
		t.Fatalf("the API server kept %d bytes of the %d-byte message", len(got), len(kept))
	}
	rep, res := reconcileJSON(t, "cut", "-n", ns, "--manifest", manifest)
	if res.ExitCode != 1 || len(rep.Rejected) != 1 || rep.Rejected[0].Reason != reconcile.RejectTruncated || rep.Shards[0].State != reconcile.StateRejected || rep.Coverage.Evaluated != 0 {
		t.Fatalf("exit %d, rejected %+v, shard %+v\n%s", res.ExitCode, rep.Rejected, rep.Shards[0], res)
	}
}
