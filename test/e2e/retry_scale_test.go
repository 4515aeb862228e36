//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// timed runs kubectl-indexed (the binary under test, not through kubectl) under
// /usr/bin/time -v and logs its wall time and peak memory: a measurement for docs/benchmarks.md, not an
// assertion.
func timed(t *testing.T, what string, args ...string) Result {
	t.Helper()
	bin := filepath.Join(env.PluginDir, "kubectl-indexed")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/time", append([]string{"-v", bin}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Args: args, Stdout: stdout.String(), Stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.ExitCode = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	wall := regexp.MustCompile(`Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)`).FindStringSubmatch(r.Stderr)
	rss := regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`).FindStringSubmatch(r.Stderr)
	if len(wall) == 2 && len(rss) == 2 {
		t.Logf("MEASURED %s: wall %s, peak RSS %s KiB (exit %d)", what, wall[1], rss[1], r.ExitCode)
	}
	return r
}

// handBuiltJob is a Job template for create whose Job is managed by another controller: the
// Job controller leaves it and its retries alone, so a test writes their status by hand.
const handBuiltJob = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: w\nspec:\n  managedBy: example.com/hand-built\n  template:\n    spec:\n      containers:\n      - name: worker\n        image: busybox:1.36\n"

// splitOneCaseShards writes n case IDs (c0000000, c0000001, ...) to dir and splits them with
// shards split into n shards of one case, manifest name name, revision 1. It returns the path
// of the manifest written to dir and the manifest.
func splitOneCaseShards(t *testing.T, dir, name string, n int) (string, *shards.Manifest) {
	t.Helper()
	var cb strings.Builder
	for i := range n {
		fmt.Fprintf(&cb, "c%07d\n", i)
	}
	casesFile := filepath.Join(dir, name+"-cases.txt")
	if err := os.WriteFile(casesFile, []byte(cb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := KubectlIndexed(t, "shards", "split", "--cases", casesFile, "--shards", fmt.Sprint(n), "--name", name, "--revision", "1")
	if r.ExitCode != 0 {
		t.Fatalf("split: %s", r.Stderr)
	}
	t.Logf("split of %d shards: %s", n, strings.TrimSpace(r.Stderr))
	manifest := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(manifest, []byte(r.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := shards.Parse(manifest, []byte(r.Stdout))
	if err != nil {
		t.Fatal(err)
	}
	return manifest, m
}

// failByHand writes the status of the hand-built Job name in ns as the Job controller writes a
// Job that failed by its failed indexes: started now, completed and failed indexes (as
// interval strings) with their pod counts, and the FailureTarget and Failed conditions.
func failByHand(t *testing.T, ns, name, completed, failed string, succeeded, failedPods int32) {
	t.Helper()
	ctx := context.Background()
	job, err := env.Client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	job.Status.StartTime = &now
	job.Status.CompletedIndexes, job.Status.Succeeded = completed, succeeded
	job.Status.FailedIndexes, job.Status.Failed = &failed, failedPods
	job.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "FailedIndexes", Message: "hand-built", LastTransitionTime: now, LastProbeTime: now},
		{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "FailedIndexes", Message: "hand-built", LastTransitionTime: now, LastProbeTime: now},
	}
	if _, err := env.Client.BatchV1().Jobs(ns).UpdateStatus(ctx, job, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("hand-built status: %v", err)
	}
}

// TestRetryScale (E2E_SCALE=1) measures the shard store and retry at issue 11's sizes on the
// real API server: a manifest of 1,000,000 case IDs of 20 bytes in 1,000 shards through create
// --dry-run=server and then for real (the worker of index 0..2 reads its cases, from the pods'
// projected volume), and a Job of 100,000 indexes with 10,000 failed (status written by hand:
// the Job is managed by another controller, so the Job controller leaves it alone) through
// retry --dry-run=server.
func TestRetryScale(t *testing.T) {
	if os.Getenv("E2E_SCALE") == "" {
		t.Skip("set E2E_SCALE=1 to measure (writes about 50 MB to the API server)")
	}
	ns := NewNamespace(t)
	dir := t.TempDir()
	var b strings.Builder
	for i := range 1000000 {
		fmt.Fprintf(&b, "eval/case-%010d\n", i) // 20 bytes
	}
	casesFile := filepath.Join(dir, "cases.txt")
	if err := os.WriteFile(casesFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := timed(t, "shards split 10^6 cases into 1000 shards", "shards", "split", "--cases", casesFile, "--shards", "1000", "--name", "eval-1m", "--revision", "1")
	if r.ExitCode != 0 || !strings.Contains(r.Stderr, "stored in 25 ConfigMaps") {
		t.Fatalf("split: exit %d\n%s", r.ExitCode, r.Stderr)
	}
	manifest := filepath.Join(dir, "m.yaml")
	if err := os.WriteFile(manifest, []byte(r.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := shards.Parse(manifest, []byte(r.Stdout))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(tmpl, []byte("apiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: w\ntemplate:\n  metadata:\n    annotations:\n      scenario.indexed.kubectl.io/run-time: never\n  spec:\n    containers:\n    - name: worker\n      image: busybox:1.36\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"create", "eval-1m", "-n", ns, "--manifest", manifest, "--from-job", tmpl, "--parallelism", "3", "--kubeconfig", env.Kubeconfig}
	r = timed(t, "create --dry-run=server of 10^6 cases (25 ConfigMaps and the Job)", append(args, "--dry-run=server", "-o", "name")...)
	if r.ExitCode != 0 || strings.Count(r.Stdout, "configmap/") != 25 || !strings.Contains(r.Stdout, "job.batch/eval-1m") {
		t.Fatalf("create --dry-run=server: exit %d\n%s\n%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	r = timed(t, "create of 10^6 cases (25 ConfigMaps and the Job)", args...)
	if r.ExitCode != 0 {
		t.Fatalf("create: %s", r)
	}
	_, pods := WaitForJob(t, ns, "eval-1m", 2*time.Minute, "3 pods running", func(_ *batchv1.Job, pods []corev1.Pod) bool {
		return len(pods) >= 3
	})
	for _, p := range pods {
		i := PodIndex(p)
		cases, id := podFiles(t, ns, p, "worker")
		if id != m.Shards[i].ID+"\n" || cases != shards.CasesText(m.Shards[i].Cases) {
			t.Errorf("index %d reads shard %q (%d bytes of cases), want %s", i, id, len(cases), m.Shards[i].ID)
		}
		out, code := runWorker(t, cases, id, fmt.Sprint(i))
		if code != 0 || !strings.Contains(out, fmt.Sprintf("shard %s: 1000 cases done", m.Shards[i].ID)) {
			t.Errorf("worker on index %d: exit %d, %s", i, code, out[max(0, len(out)-200):])
		}
	}

	// 100,000 indexes, every 10th failed.
	manifest, _ = splitOneCaseShards(t, dir, "huge", 100000)
	if err := os.WriteFile(tmpl, []byte(handBuiltJob), 0o644); err != nil {
		t.Fatal(err)
	}
	r = timed(t, "create of 100,000 shards", "create", "huge", "-n", ns, "--manifest", manifest, "--from-job", tmpl, "--parallelism", "100", "--kubeconfig", env.Kubeconfig)
	if r.ExitCode != 0 {
		t.Fatalf("create huge: %s", r)
	}
	var failed, completed strings.Builder
	for i := 0; i < 100000; i += 10 {
		if i > 0 {
			failed.WriteByte(',')
			completed.WriteByte(',')
		}
		fmt.Fprintf(&failed, "%d", i)
		fmt.Fprintf(&completed, "%d-%d", i+1, i+9)
	}
	failByHand(t, ns, "huge", completed.String(), failed.String(), 90000, 10000)
	r = timed(t, "retry --dry-run=server of 10,000 failed of 100,000 indexes", "retry", "huge", "-n", ns, "--dry-run=server", "-o", "name", "--kubeconfig", env.Kubeconfig)
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "job.batch/huge-r1") {
		t.Fatalf("retry huge: exit %d\n%s\n%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	t.Logf("retry huge --dry-run=server printed:\n%s", r.Stdout)
	r = KubectlIndexed(t, "retry", "huge", "-n", ns, "--dry-run=server", "-o", "yaml")
	if !strings.Contains(r.Stdout, "indexed.kubectl.io/original-indexes: 0,10,20,30") || !strings.Contains(r.Stdout, "completions: 10000") {
		t.Errorf("the server-defaulted retry lacks its map or size")
	}
}

// TestRetryIndexMapScale (E2E_SCALE=1): a Job of 100,000 indexes of which every other one
// failed (50,000 scattered indexes: 294,444 bytes of intervals, over twice the 128 KiB an
// annotation of the map may take). retry --dry-run=server sends the Job, its shard ConfigMaps
// and the index map's ConfigMap, and the real API server accepts them; then the retry is made
// for real and status of it maps its indexes to the root's through the ConfigMap. The Job is
// managed by another controller (status written by hand), so the Job controller leaves it and
// its retry alone.
func TestRetryIndexMapScale(t *testing.T) {
	if os.Getenv("E2E_SCALE") == "" {
		t.Skip("set E2E_SCALE=1 to measure (writes about 30 MB to the API server)")
	}
	ns := NewNamespace(t)
	ctx := context.Background()
	dir := t.TempDir()
	const n = 100000
	manifest, m := splitOneCaseShards(t, dir, "half", n)
	tmpl := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(tmpl, []byte(handBuiltJob), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := KubectlIndexed(t, "create", "half", "-n", ns, "--manifest", manifest, "--from-job", tmpl, "--parallelism", "100"); r.ExitCode != 0 {
		t.Fatalf("create: %s", r)
	}
	var failed, completed strings.Builder
	for i := 0; i < n; i += 2 {
		if i > 0 {
			failed.WriteByte(',')
			completed.WriteByte(',')
		}
		fmt.Fprintf(&failed, "%d", i)
		fmt.Fprintf(&completed, "%d", i+1)
	}
	if failed.Len() <= 128<<10 {
		t.Fatalf("the map takes %d bytes: not over an annotation's 128 KiB", failed.Len())
	}
	t.Logf("the index map takes %d bytes as intervals", failed.Len())
	failByHand(t, ns, "half", completed.String(), failed.String(), n/2, n/2)
	mapName := "half-index-map-" + lineage.MapHash(failed.String())
	r := timed(t, "retry --dry-run=server of 50,000 scattered failed of 100,000 indexes (index map in a ConfigMap)",
		"retry", "half", "-n", ns, "--dry-run=server", "-o", "name", "--kubeconfig", env.Kubeconfig)
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "configmap/"+mapName+"\n") || !strings.Contains(r.Stdout, "job.batch/half-r1") {
		t.Fatalf("retry --dry-run=server: exit %d\n%s\n%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	t.Logf("retry half --dry-run=server printed:\n%s", r.Stdout)
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, mapName, metav1.GetOptions{}); err == nil {
		t.Fatal("a server dry run stored the index map")
	}

	r = timed(t, "retry of 50,000 scattered failed of 100,000 indexes (index map in a ConfigMap)",
		"retry", "half", "-n", ns, "--kubeconfig", env.Kubeconfig)
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "configmap/"+mapName+" created") {
		t.Fatalf("retry: exit %d\n%s\n%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	r1, err := env.Client.BatchV1().Jobs(ns).Get(ctx, "half-r1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Annotations[shards.AnnotationOriginalIndexesFrom] != mapName+"/"+shards.KeyOriginalIndexes || *r1.Spec.Completions != n/2 {
		t.Fatalf("half-r1: %d completions, annotations %v", *r1.Spec.Completions, r1.Annotations)
	}
	cm, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, mapName, metav1.GetOptions{})
	if err != nil || cm.Data[shards.KeyOriginalIndexes] != failed.String() {
		t.Fatalf("index map ConfigMap: %v", err)
	}
	r = timed(t, "status half-r1 -o json (50,000 indexes, map from its ConfigMap)", "status", "half-r1", "-n", ns, "-o", "json", "--kubeconfig", env.Kubeconfig)
	var st indexesReport
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || len(st.Indexes) != n/2 {
		t.Fatalf("status half-r1: %v (%d indexes)\n%.2000s", err, len(st.Indexes), r.Stderr)
	}
	for _, k := range []int{0, 1, 12345, n/2 - 1} {
		ix := st.Indexes[k]
		if ix.Index != k || ix.OriginalIndex == nil || *ix.OriginalIndex != 2*k || ix.ShardID != m.Shards[2*k].ID {
			t.Errorf("half-r1 index %d: original %v shard %q, want %d and %s", k, ix.OriginalIndex, ix.ShardID, 2*k, m.Shards[2*k].ID)
		}
	}
}
