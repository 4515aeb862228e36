//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// lineageReport is the part of `status --lineage -o json` these tests read.
type lineageReport struct {
	Shards  int `json:"shards"`
	Summary struct {
		Succeeded int `json:"succeeded"`
		Failed    int `json:"failed"`
	} `json:"summary"`
	Complete      bool   `json:"complete"`
	Verdict       string `json:"verdict"`
	ShardStatuses []struct {
		Index        int    `json:"index"`
		ShardID      string `json:"shardID"`
		State        string `json:"state"`
		From         string `json:"from"`
		InvalidInput bool   `json:"invalidInput"`
		Runs         []struct {
			Job   string `json:"job"`
			Index int    `json:"index"`
			State string `json:"state"`
		} `json:"runs"`
	} `json:"shardStatuses"`
	Jobs []struct {
		Name    string `json:"name"`
		Attempt int    `json:"attempt"`
	} `json:"jobs"`
}

// indexesReport is the part of `status -o json` that maps a retry's indexes to the root's.
type indexesReport struct {
	Indexes []struct {
		Index         int    `json:"index"`
		ShardID       string `json:"shardID"`
		OriginalIndex *int   `json:"originalIndex"`
	} `json:"indexes"`
}

// saveJSON runs kubectl with args in ns and -o json, as a user saves objects for offline
// status, writes what it prints to name in dir and returns the file's path.
func saveJSON(t *testing.T, dir, ns, name string, args ...string) string {
	t.Helper()
	r := MustKubectl(t, append(args, "-n", ns, "-o", "json")...)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(r.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// createSeed makes the seed scenario with create, as Job seed in ns: 12 cases in 6 shards,
// parallelism 2, index 2 exiting 42 (invalid input, FailIndex) and index 4 exiting 1. It returns
// the manifest; the caller waits for the Job.
func createSeed(t *testing.T, ns string) *shards.Manifest {
	t.Helper()
	const sc = "scenario.indexed.kubectl.io/"
	manifest, template, m := createFiles(t, "seed-eval", 12, 6, map[string]string{sc + "exit-code.2": "42", sc + "exit-code.4": "1"})
	if r := KubectlIndexed(t, "create", "seed", "-n", ns, "--manifest", manifest, "--from-job", template, "--parallelism", "2"); r.ExitCode != 0 {
		t.Fatalf("create:\n%s", r)
	}
	return m
}

// seedRetryPodAnnotations re-key the seed's scenario annotations for its retry seed-r1, whose
// index 0 runs shard 2 and index 1 shard 4: index 0 exits 42 again (shard 2's input is still
// invalid), index 1 has no exit code (shard 4's flaky failure is gone).
var seedRetryPodAnnotations = []string{
	"--pod-annotation", "scenario.indexed.kubectl.io/exit-code.2-",
	"--pod-annotation", "scenario.indexed.kubectl.io/exit-code.4-",
	"--pod-annotation", "scenario.indexed.kubectl.io/exit-code.0=42",
}

func lineageJSON(t *testing.T, args ...string) lineageReport {
	t.Helper()
	r := KubectlIndexed(t, append([]string{"status", "--lineage", "-o", "json"}, args...)...)
	var lr lineageReport
	if r.ExitCode != 0 || json.Unmarshal([]byte(r.Stdout), &lr) != nil {
		t.Fatalf("status --lineage:\n%s", r)
	}
	return lr
}

// podFiles returns what the worker of pod p reads at $INDEXED_SHARD_FILE and
// $INDEXED_SHARD_ID_FILE, resolved the way the kubelet would: the env var's value with
// $(JOB_COMPLETION_INDEX) expanded from the pod's completion-index annotation (checking that
// the variable is that annotation), the volume mounted at that path's directory, and the key of
// its ConfigMap (through items, if any) read from the API server. kwok runs no container, so
// this is as close to "what the pod read" as this cluster gets.
func podFiles(t *testing.T, ns string, p corev1.Pod, container string) (cases, id string) {
	t.Helper()
	var w *corev1.Container
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == container {
			w = &p.Spec.Containers[i]
		}
	}
	if w == nil {
		t.Fatalf("pod %s has no container %q", p.Name, container)
	}
	index := p.Annotations[batchv1.JobCompletionIndexAnnotation]
	vars := map[string]string{}
	for _, e := range w.Env {
		switch e.Name {
		case scaffold.EnvCompletionIndex:
			if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "metadata.annotations['"+batchv1.JobCompletionIndexAnnotation+"']" {
				t.Fatalf("pod %s: %s is not the completion index: %+v", p.Name, e.Name, e)
			}
			vars[e.Name] = index
		default:
			vars[e.Name] = strings.ReplaceAll(e.Value, "$("+scaffold.EnvCompletionIndex+")", vars[scaffold.EnvCompletionIndex])
		}
	}
	read := func(path string) string {
		dir, file := filepath.Split(path)
		for _, vm := range w.VolumeMounts {
			if strings.TrimSuffix(vm.MountPath, "/") != strings.TrimSuffix(dir, "/") {
				continue
			}
			for _, v := range p.Spec.Volumes {
				if v.Name != vm.Name {
					continue
				}
				// A ConfigMap volume, or a projected volume of ConfigMaps (a split store): the
				// file is the key of that name in whichever source holds it (with items, the
				// key mapped to that path).
				type source struct {
					name  string
					items []corev1.KeyToPath
				}
				var srcs []source
				switch {
				case v.ConfigMap != nil:
					srcs = append(srcs, source{v.ConfigMap.Name, v.ConfigMap.Items})
				case v.Projected != nil:
					for _, s := range v.Projected.Sources {
						if s.ConfigMap != nil {
							srcs = append(srcs, source{s.ConfigMap.Name, s.ConfigMap.Items})
						}
					}
				}
				found, data := 0, ""
				for _, src := range srcs {
					key := file
					if len(src.items) > 0 {
						key = ""
						for _, it := range src.items {
							if it.Path == file {
								key = it.Key
							}
						}
					}
					cm, err := env.Client.CoreV1().ConfigMaps(ns).Get(context.Background(), src.name, metav1.GetOptions{})
					if err != nil {
						t.Fatalf("pod %s mounts configmap %s: %v", p.Name, src.name, err)
					}
					if d, ok := cm.Data[key]; ok && key != "" {
						found, data = found+1, d
					}
				}
				if found != 1 {
					t.Fatalf("pod %s: %s is in %d of the ConfigMaps its volume %s mounts, want exactly 1", p.Name, path, found, v.Name)
				}
				return data
			}
		}
		t.Fatalf("pod %s: nothing is mounted at %s", p.Name, dir)
		return ""
	}
	return read(vars[scaffold.EnvShardFile]), read(vars[scaffold.EnvShardIDFile])
}

// runWorker runs examples/worker.sh on the given shard files, as the pod would, and returns
// its output and exit code.
func runWorker(t *testing.T, cases, id, index string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	cf, idf := filepath.Join(dir, "cases"), filepath.Join(dir, "id")
	if err := os.WriteFile(cf, []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(idf, []byte(id), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", filepath.Join(env.RepoRoot, "examples", "worker.sh"))
	cmd.Env = append(os.Environ(), "INDEXED_SHARD_FILE="+cf, "INDEXED_SHARD_ID_FILE="+idf, "JOB_COMPLETION_INDEX="+index)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// TestRetrySeedScenario is issue 11's acceptance run: the seed scenario made by create (index 2
// exits 42, index 4 exits 1), then retry makes a Job of 2 indexes running shards 2 and 4; shard
// 2's invalid input fails again at once and shard 4 succeeds; status --lineage says 5 of 6
// shards succeeded and shard 2 failed as invalid input; a retry of the retry maps back to
// shard 2; the original Job and ConfigMap are never changed.
//
// kwok runs no container: the scenario annotations decide each pod's exit code by its
// completion index. The retry copies the pod template's annotations, so the test re-keys them
// on the retry with --pod-annotation (exit-code.0=42: retry index 0 runs shard 2, whose input
// is still invalid; no key for index 1: shard 4's flaky failure is gone), standing in for what
// a real worker would do with the same files.
func TestRetrySeedScenario(t *testing.T) {
	ns := NewNamespace(t)
	ctx := context.Background()
	m := createSeed(t, ns)
	WaitForFinished(t, ns, "seed", 3*time.Minute)
	checkSeed(t, TakeSnapshot(t, ns, "seed"))
	seedBefore := JobJSON(t, ns, "seed")
	origCM := scaffold.ConfigMapName(m)
	cmBefore, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, origCM, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// The API server accepts the retry's objects, and a server dry run stores nothing.
	r := KubectlIndexed(t, "retry", "seed", "-n", ns, "--indexes", "2,4", "--dry-run=server", "-o", "json")
	var list corev1.List
	if r.ExitCode != 0 || json.Unmarshal([]byte(r.Stdout), &list) != nil || len(list.Items) != 2 {
		t.Fatalf("retry --dry-run=server:\n%s", r)
	}
	if _, err := env.Client.BatchV1().Jobs(ns).Get(ctx, "seed-r1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a server dry run stored the Job: %v", err)
	}

	r = KubectlIndexed(t, append([]string{"retry", "seed", "-n", ns, "--indexes", "2,4"}, seedRetryPodAnnotations...)...)
	if r.ExitCode != 0 || !strings.HasSuffix(r.Stdout, "job.batch/seed-r1 created\n") || !strings.Contains(r.Stdout, "configmap/seed-eval-retry-") {
		t.Fatalf("retry:\n%s", r)
	}
	r1 := WaitForFinished(t, ns, "seed-r1", 3*time.Minute)
	if *r1.Spec.Completions != 2 || r1.Status.CompletedIndexes != "1" || r1.Status.FailedIndexes == nil || *r1.Status.FailedIndexes != "0" {
		t.Fatalf("seed-r1: completions %d completed %q failed %v", *r1.Spec.Completions, r1.Status.CompletedIndexes, strPtr(r1.Status.FailedIndexes))
	}
	if a := r1.Annotations; a[shards.AnnotationRootJob] != "seed" || a[shards.AnnotationRootJobUID] != string(GetJob(t, ns, "seed").UID) ||
		a[shards.AnnotationParentJob] != "seed" || a[shards.AnnotationRetryAttempt] != "1" || a[shards.AnnotationOriginalIndexes] != "2,4" ||
		r1.Labels[shards.LabelRootJob] != "seed" {
		t.Errorf("seed-r1 lineage: %v labels %v", a, r1.Labels)
	}
	// Each pod of the retry reads its original shard's files; the example worker, run on
	// exactly those files, names the shard and processes its cases.
	pods := PodsByIndex(GetPods(t, ns, "seed-r1"))
	for k, orig := range []int{2, 4} {
		if len(pods[k]) == 0 {
			t.Fatalf("seed-r1 index %d has no pod", k)
		}
		p := pods[k][0]
		cases, id := podFiles(t, ns, p, "worker")
		if id != m.Shards[orig].ID+"\n" || cases != shards.CasesText(m.Shards[orig].Cases) {
			t.Errorf("seed-r1 index %d reads shard %q cases %q, want shard %d (%s)", k, id, cases, orig, m.Shards[orig].ID)
		}
		out, code := runWorker(t, cases, id, strconv.Itoa(k))
		if code != 0 || !strings.Contains(out, "shard "+m.Shards[orig].ID+" (completion index "+strconv.Itoa(k)) ||
			!strings.Contains(out, "case "+m.Shards[orig].Cases[0]+": ok") {
			t.Errorf("worker on seed-r1 index %d: exit %d\n%s", k, code, out)
		}
		if len(pods[k]) != 1 {
			t.Errorf("seed-r1 index %d ran %d pods, want 1 (42 fails the index at once; 0 succeeds)", k, len(pods[k]))
		}
	}
	if c := ExitCode(pods[0][0], "worker"); c != 42 {
		t.Errorf("seed-r1 index 0 exit %d, want 42", c)
	}

	// The whole run, shard by shard.
	lr := lineageJSON(t, "seed", "-n", ns)
	if lr.Shards != 6 || lr.Summary.Succeeded != 5 || lr.Summary.Failed != 1 || lr.Complete || len(lr.ShardStatuses) != 6 {
		t.Fatalf("lineage: %+v", lr)
	}
	want := "5 of 6 shards succeeded; shard " + m.Shards[2].ID + " failed as invalid input (exit 42) in seed and seed-r1"
	if lr.Verdict != want {
		t.Errorf("verdict %q, want %q", lr.Verdict, want)
	}
	s2, s4 := lr.ShardStatuses[2], lr.ShardStatuses[4]
	if s2.ShardID != m.Shards[2].ID || s2.State != "Failed" || !s2.InvalidInput || s2.From != "seed-r1" || len(s2.Runs) != 2 || s2.Runs[1].Index != 0 {
		t.Errorf("shard 2: %+v", s2)
	}
	if s4.ShardID != m.Shards[4].ID || s4.State != "Succeeded" || s4.From != "seed-r1" || len(s4.Runs) != 2 || s4.Runs[1].Index != 1 {
		t.Errorf("shard 4: %+v", s4)
	}
	t.Logf("status seed --lineage:\n%s", KubectlIndexed(t, "status", "seed", "-n", ns, "--lineage").Stdout)
	// From the retry's side too, and in the plain report of the retry.
	if lr2 := lineageJSON(t, "seed-r1", "-n", ns); lr2.Verdict != lr.Verdict {
		t.Errorf("lineage from seed-r1: %q", lr2.Verdict)
	}
	r = KubectlIndexed(t, "status", "seed-r1", "-n", ns, "-o", "json")
	var st indexesReport
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || len(st.Indexes) != 2 {
		t.Fatalf("status seed-r1 -o json: %v\n%s", err, r)
	}
	for k, orig := range []int{2, 4} {
		if ix := st.Indexes[k]; ix.ShardID != m.Shards[orig].ID || ix.OriginalIndex == nil || *ix.OriginalIndex != orig {
			t.Errorf("status seed-r1 index %d: shard %q original %v, want %s and %d", k, ix.ShardID, ix.OriginalIndex, m.Shards[orig].ID, orig)
		}
	}
	r = KubectlIndexed(t, "status", "seed-r1", "-n", ns)
	// The text view wraps at 80 columns: look for the words with the line breaks folded.
	if !strings.Contains(strings.Join(strings.Fields(r.Stdout), " "), "root indexes 2,4 of seed (0→2, 1→4)") || !strings.Contains(r.Stdout, m.Shards[2].ID) {
		t.Errorf("status seed-r1 does not map its indexes to the root's:\n%s", r)
	}

	// A retry of the retry: index 0 of seed-r2 runs seed-r1's index 0, which is root shard 2.
	// Its index 0 failed by the FailIndex rule again: named, deliberately.
	r = KubectlIndexed(t, "retry", "seed-r1", "-n", ns, "--indexes", "0")
	if r.ExitCode != 0 || !strings.HasSuffix(r.Stdout, "job.batch/seed-r2 created\n") {
		t.Fatalf("retry of a retry:\n%s", r)
	}
	r2 := WaitForFinished(t, ns, "seed-r2", 3*time.Minute)
	if a := r2.Annotations; a[shards.AnnotationRootJob] != "seed" || a[shards.AnnotationParentJob] != "seed-r1" ||
		a[shards.AnnotationParentJobUID] != string(r1.UID) || a[shards.AnnotationRetryAttempt] != "2" || a[shards.AnnotationOriginalIndexes] != "2" {
		t.Errorf("seed-r2 lineage: %v", a)
	}
	pods = PodsByIndex(GetPods(t, ns, "seed-r2"))
	if len(pods[0]) == 0 {
		t.Fatal("seed-r2 index 0 has no pod")
	}
	if cases, id := podFiles(t, ns, pods[0][0], "worker"); id != m.Shards[2].ID+"\n" || cases != shards.CasesText(m.Shards[2].Cases) {
		t.Errorf("seed-r2 index 0 reads shard %q, want %s", id, m.Shards[2].ID)
	}
	lr = lineageJSON(t, "seed", "-n", ns)
	want = "5 of 6 shards succeeded; shard " + m.Shards[2].ID + " failed as invalid input (exit 42) in seed, seed-r1 and seed-r2"
	if lr.Verdict != want || len(lr.Jobs) != 3 || lr.Jobs[2].Name != "seed-r2" || lr.Jobs[2].Attempt != 2 {
		t.Errorf("lineage after seed-r2: %q (want %q), jobs %+v", lr.Verdict, want, lr.Jobs)
	}

	// Offline, from saved objects: the same shard-level report.
	dir := t.TempDir()
	jobsFile := saveJSON(t, dir, ns, "jobs.json", "get", "jobs", "seed", "seed-r1", "seed-r2")
	podsFile := saveJSON(t, dir, ns, "pods.json", "get", "pods")
	cmsFile := saveJSON(t, dir, ns, "cms.json", "get", "configmaps", "-l", shards.LabelManifestName+"=seed-eval")
	off := lineageJSON(t, "-f", jobsFile, "--pods-file", podsFile, "--shards-file", cmsFile)
	if off.Verdict != lr.Verdict || off.Summary != lr.Summary {
		t.Errorf("offline lineage %q %+v, live %q %+v", off.Verdict, off.Summary, lr.Verdict, lr.Summary)
	}

	// The original Job and its ConfigMap never changed.
	if after := JobJSON(t, ns, "seed"); string(after) != string(seedBefore) {
		t.Errorf("the original Job changed:\nbefore %s\nafter  %s", seedBefore, after)
	}
	cmAfter, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, origCM, metav1.GetOptions{})
	if err != nil || cmAfter.ResourceVersion != cmBefore.ResourceVersion {
		t.Errorf("the original ConfigMap changed or is gone: %v", err)
	}
}

// TestRetryRefusesAndNamesPermissions: a Job still running is refused, and a user who may read
// but not create is told which verb on which resource was denied; nothing is created.
func TestRetryRefusesAndNamesPermissions(t *testing.T) {
	ns := NewNamespace(t)
	ctx := context.Background()
	const sc = "scenario.indexed.kubectl.io/"
	manifest, template, _ := createFiles(t, "hold", 8, 4, map[string]string{sc + "run-time": "never", sc + "run-time.1": "1s", sc + "exit-code.1": "42"})
	if r := KubectlIndexed(t, "create", "hold", "-n", ns, "--manifest", manifest, "--from-job", template); r.ExitCode != 0 {
		t.Fatalf("create:\n%s", r)
	}
	WaitForJob(t, ns, "hold", 2*time.Minute, "index 1 failed", func(j *batchv1.Job, _ []corev1.Pod) bool {
		return j.Status.FailedIndexes != nil && *j.Status.FailedIndexes == "1"
	})
	r := KubectlIndexed(t, "retry", "hold", "-n", ns)
	if r.ExitCode != 2 || !strings.Contains(r.Stderr, `job "hold" is still running`) {
		t.Errorf("retry of a running Job:\n%s", r)
	}
	r = KubectlIndexed(t, "retry", "hold", "-n", ns, "--indexes", "1,2", "--allow-running")
	if r.ExitCode != 2 || !strings.Contains(r.Stderr, "index 2 has not failed for good") {
		t.Errorf("--allow-running with a running index:\n%s", r)
	}
	r = KubectlIndexed(t, "retry", "hold", "-n", ns, "--indexes", "1", "--allow-running", "--dry-run=server", "-o", "name")
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "job.batch/hold-r1") {
		t.Errorf("--allow-running with a failed index:\n%s", r)
	}

	if env.ViewerKubeconfig == "" {
		return
	}
	GrantViewer(t, ns, "read", []rbacv1.PolicyRule{
		{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}},
	})
	r = Run(t, Cmd{Args: []string{"indexed", "retry", "hold", "-n", ns, "--indexes", "1", "--allow-running"}, Kubeconfig: env.ViewerKubeconfig})
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, `permission denied: you may not create configmap "hold-retry-`) ||
		!strings.Contains(r.Stderr, `ask for "create" on "configmaps"`) || !strings.Contains(r.Stderr, "kubectl indexed retry needs") {
		t.Errorf("viewer retry:\n%s", r)
	}
	if _, err := env.Client.BatchV1().Jobs(ns).Get(ctx, "hold-r1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a refused retry made a Job: %v", err)
	}
}
