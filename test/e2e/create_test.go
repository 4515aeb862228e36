//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// createFiles writes, in a temporary directory, a case list of n cases, the manifest split
// from it into k shards, and a PodTemplate carrying scenario annotations (for --from-job).
// It returns the manifest's and the template's paths and the parsed manifest.
func createFiles(t *testing.T, name string, n, k int, annotations map[string]string) (manifest, template string, m *shards.Manifest) {
	t.Helper()
	dir := t.TempDir()
	var cases strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&cases, "case-%04d\n", i)
	}
	casesFile := filepath.Join(dir, "cases.txt")
	if err := os.WriteFile(casesFile, []byte(cases.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := KubectlIndexed(t, "shards", "split", "--cases", casesFile, "--shards", fmt.Sprint(k), "--name", name, "--revision", "1")
	if r.ExitCode != 0 {
		t.Fatalf("split failed:\n%s", r)
	}
	manifest = filepath.Join(dir, "manifest.yaml")
	if err := os.WriteFile(manifest, []byte(r.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := shards.Parse(manifest, []byte(r.Stdout))
	if err != nil {
		t.Fatal(err)
	}
	var ann strings.Builder
	for _, key := range sortedKeys(annotations) {
		fmt.Fprintf(&ann, "      %s: %q\n", key, annotations[key])
	}
	if ann.Len() == 0 {
		ann.WriteString("      {}\n")
	}
	tmpl := "apiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: worker\ntemplate:\n  metadata:\n    annotations:\n" + ann.String() +
		"  spec:\n    containers:\n    - name: worker\n      image: busybox:1.36\n"
	template = filepath.Join(dir, "template.yaml")
	if err := os.WriteFile(template, []byte(tmpl), 0o644); err != nil {
		t.Fatal(err)
	}
	return manifest, template, m
}

// statusReport is the part of `kubectl indexed status -o json` these tests read (its JSON field
// names are a public contract).
type statusReport struct {
	Phase   string `json:"phase"`
	Reason  string `json:"reason"`
	Indexes []struct {
		Index        int    `json:"index"`
		ShardID      string `json:"shardID"`
		State        string `json:"state"`
		LastExitCode *int32 `json:"lastExitCode"`
		Detail       string `json:"detail"`
		Rule         *struct {
			Action string `json:"action"`
		} `json:"podFailurePolicyRule"`
	} `json:"indexes"`
	Shards *struct {
		ConfigMap string `json:"configMap"`
		Count     int    `json:"count"`
	} `json:"shards"`
}

// TestCreateSeedScenario is the acceptance run: create from a 6-shard manifest, index 2 exits 42
// (invalid input) and index 4 exits 1 on every attempt; status names the shards of 2 and 4 as
// Failed with their reasons and the other four as Succeeded.
func TestCreateSeedScenario(t *testing.T) {
	ns := NewNamespace(t)
	manifest, template, m := createFiles(t, "seed-eval", 12, 6, map[string]string{
		"scenario.indexed.kubectl.io/exit-code.2": "42",
		"scenario.indexed.kubectl.io/exit-code.4": "1",
	})
	args := []string{"create", "seed", "-n", ns, "--manifest", manifest, "--from-job", template, "--parallelism", "2"}

	// The generated objects are accepted by the real API server, and nothing is persisted.
	r := KubectlIndexed(t, append(args, "--dry-run=server", "-o", "json")...)
	if r.ExitCode != 0 {
		t.Fatalf("server dry run failed:\n%s", r)
	}
	var list corev1.List
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list.Items) != 2 {
		t.Fatalf("server dry run output is not a List of 2: %v\n%s", err, r.Stdout)
	}
	var defaulted batchv1.Job
	if err := json.Unmarshal(list.Items[1].Raw, &defaulted); err != nil {
		t.Fatal(err)
	}
	// What the server made of it: per-index limits, no finite global limit.
	if defaulted.Spec.BackoffLimit == nil || *defaulted.Spec.BackoffLimit != 2147483647 || *defaulted.Spec.BackoffLimitPerIndex != 1 ||
		*defaulted.Spec.MaxFailedIndexes != 3 || *defaulted.Spec.PodReplacementPolicy != batchv1.Failed {
		t.Errorf("server-defaulted spec: backoffLimit %v perIndex %v maxFailed %v replacement %v", defaulted.Spec.BackoffLimit,
			defaulted.Spec.BackoffLimitPerIndex, defaulted.Spec.MaxFailedIndexes, defaulted.Spec.PodReplacementPolicy)
	}
	ctx := context.Background()
	if _, err := env.Client.BatchV1().Jobs(ns).Get(ctx, "seed", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("server dry run persisted the Job: %v", err)
	}
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, scaffold.ConfigMapName(m), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("server dry run persisted the ConfigMap: %v", err)
	}

	r = KubectlIndexed(t, args...)
	want := fmt.Sprintf("configmap/%s created\njob.batch/seed created\n", scaffold.ConfigMapName(m))
	if r.ExitCode != 0 || r.Stdout != want {
		t.Fatalf("create: want exit 0 and %q\n%s", want, r)
	}
	WaitForFinished(t, ns, "seed", 3*time.Minute)
	s := TakeSnapshot(t, ns, "seed")
	checkSeed(t, s)

	r = KubectlIndexed(t, "status", "seed", "-n", ns, "-o", "json")
	var st statusReport
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("status -o json: %v\n%s", err, r)
	}
	if st.Phase != "Failed" || st.Reason != "FailedIndexes" || st.Shards == nil || st.Shards.ConfigMap != scaffold.ConfigMapName(m) || len(st.Indexes) != 6 {
		t.Fatalf("status: phase %q reason %q shards %+v, %d indexes\n%s", st.Phase, st.Reason, st.Shards, len(st.Indexes), r.Stdout)
	}
	for i, ix := range st.Indexes {
		wantState, wantCode := "Succeeded", int32(0)
		switch i {
		case 2:
			wantState, wantCode = "Failed", 42
		case 4:
			wantState, wantCode = "Failed", 1
		}
		if ix.Index != i || ix.ShardID != m.Shards[i].ID || ix.State != wantState {
			t.Errorf("index %d: shard %q state %q, want shard %q %s", ix.Index, ix.ShardID, ix.State, m.Shards[i].ID, wantState)
		}
		if wantState == "Failed" && (ix.LastExitCode == nil || *ix.LastExitCode != wantCode || ix.Detail == "") {
			t.Errorf("index %d: exit code %v detail %q, want exit %d and a reason", i, ix.LastExitCode, ix.Detail, wantCode)
		}
	}
	if ix := st.Indexes[2]; ix.Rule == nil || ix.Rule.Action != "FailIndex" {
		t.Errorf("index 2 was not failed by the FailIndex rule: %+v", ix.Rule)
	}
	// The table a user reads names both failed shards.
	r = KubectlIndexed(t, "status", "seed", "-n", ns)
	for _, id := range []string{m.Shards[2].ID, m.Shards[4].ID} {
		if !strings.Contains(r.Stdout, id) {
			t.Errorf("status does not name shard %s:\n%s", id, r.Stdout)
		}
	}
}

// TestCreateServerAcceptsEveryShape sends the Jobs of several flag combinations to the real API
// server with --dry-run=server: what create makes, the server takes.
func TestCreateServerAcceptsEveryShape(t *testing.T) {
	ns := NewNamespace(t)
	manifest, template, _ := createFiles(t, "shapes", 50, 7, nil)
	userJob := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(userJob, []byte(`apiVersion: batch/v1
kind: Job
metadata:
  name: old
  labels: {team: ml}
spec:
  backoffLimitPerIndex: 2
  ttlSecondsAfterFinished: 86400
  podFailurePolicy:
    rules:
    - action: Count
      onExitCodes: {containerName: eval, operator: In, values: [3]}
  template:
    metadata:
      labels: {app: eval}
    spec:
      nodeSelector: {type: kwok}
      tolerations: [{key: spot, operator: Exists}]
      initContainers: [{name: fetch, image: busybox:1.36, command: ["true"]}]
      containers:
      - name: eval
        image: busybox:1.36
        env: [{name: OUT, value: "/out/$(INDEXED_SHARD_ID_FILE)"}]
        volumeMounts: [{name: out, mountPath: /out}]
      - name: sidecar
        image: busybox:1.36
      volumes: [{name: out, emptyDir: {}}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, extra := range map[string][]string{
		"defaults":  {"--image", "busybox:1.36"},
		"template":  {"--from-job", template, "--", "sh", "-c", "cat \"$INDEXED_SHARD_FILE\""},
		"all-flags": {"--image", "busybox:1.36", "--parallelism", "3", "--backoff-limit-per-index", "0", "--max-failed-indexes", "2", "--invalid-input-exit-code", "65", "--active-deadline-seconds", "3600", "--ttl-seconds-after-finished", "86400", "--requests", "cpu=100m,memory=64Mi", "--limits", "memory=128Mi", "--env", "MODE=fast", "--container", "runner", "--service-account", "default"},
		"from-job":  {"--from-job", userJob, "--container", "eval", "--max-failed-indexes", "none"},
	} {
		t.Run(name, func(t *testing.T) {
			r := KubectlIndexed(t, append([]string{"create", "shape-" + name, "-n", ns, "--manifest", manifest, "--dry-run=server"}, extra...)...)
			if r.ExitCode != 0 || !strings.Contains(r.Stdout, "job.batch/shape-"+name+" created (server dry run)") {
				t.Errorf("the API server refused the generated objects:\n%s", r)
			}
		})
	}
}

// TestCreateNeverOverwrites: an identical ConfigMap is reused; an existing Job and a ConfigMap
// of the same name with other content are errors (exit 4) that leave everything as it was.
func TestCreateNeverOverwrites(t *testing.T) {
	ns := NewNamespace(t)
	manifest, _, m := createFiles(t, "keep", 20, 4, nil)
	cm := scaffold.ConfigMapName(m)
	base := []string{"-n", ns, "--manifest", manifest, "--image", "busybox:1.36"}

	r := KubectlIndexed(t, append([]string{"create", "first"}, base...)...)
	if r.ExitCode != 0 {
		t.Fatalf("%s", r)
	}
	WaitForCondition(t, ns, "first", batchv1.JobComplete, 2*time.Minute)

	// A second Job from the same manifest shares the ConfigMap.
	r = KubectlIndexed(t, append([]string{"create", "second"}, base...)...)
	if r.ExitCode != 0 || r.Stdout != "configmap/"+cm+" unchanged\njob.batch/second created\n" {
		t.Errorf("second Job from the same manifest:\n%s", r)
	}

	// The first Job again: refused, pointing at status and diff.
	before := JobJSON(t, ns, "first")
	r = KubectlIndexed(t, append([]string{"create", "first"}, base...)...)
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, `job "first" already exists in namespace "`+ns+`"`) ||
		!strings.Contains(r.Stderr, "kubectl indexed status first -n "+ns) || !strings.Contains(r.Stderr, "kubectl indexed diff first -n "+ns) {
		t.Errorf("existing Job:\n%s", r)
	}
	if after := JobJSON(t, ns, "first"); string(after) != string(before) {
		t.Errorf("the existing Job changed")
	}

	// A ConfigMap with the name of another manifest's but other content: refused, nothing created.
	other, _, om := createFiles(t, "clash", 10, 2, nil)
	MustKubectl(t, "create", "configmap", scaffold.ConfigMapName(om), "-n", ns, "--from-literal=shard-ids.json=[\"x\"]")
	r = KubectlIndexed(t, "create", "third", "-n", ns, "--manifest", other, "--image", "busybox:1.36")
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, `configmap "`+scaffold.ConfigMapName(om)+`" already exists in namespace "`+ns+`" with different content`) {
		t.Errorf("different ConfigMap:\n%s", r)
	}
	if _, err := env.Client.BatchV1().Jobs(ns).Get(context.Background(), "third", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("job third was created anyway: %v", err)
	}
}

// TestCreatePermissions: the limited user is told which verb on which resource was denied;
// a user who may create ConfigMaps but not Jobs is told what was left behind.
func TestCreatePermissions(t *testing.T) {
	RequireViewer(t)
	manifest, _, m := createFiles(t, "perm", 10, 2, nil)
	cm := scaffold.ConfigMapName(m)
	viewer := func(ns string) Result {
		return Run(t, Cmd{Args: []string{"indexed", "create", "perm", "-n", ns, "--manifest", manifest, "--image", "busybox:1.36"}, Kubeconfig: env.ViewerKubeconfig})
	}
	r := viewer("indexed-viewer")
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, `permission denied: you may not get configmap "`+cm+`" in namespace "indexed-viewer"; ask for "get" on "configmaps"`) {
		t.Errorf("viewer:\n%s", r)
	}

	// In a namespace where the viewer may read Jobs and read and create ConfigMaps, but not
	// create Jobs: the ConfigMap is made, the Job is refused, and the error says so.
	ns := NewNamespace(t)
	ctx := context.Background()
	GrantViewer(t, ns, "half", []rbacv1.PolicyRule{
		{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "create"}},
	})
	r = viewer(ns)
	for _, want := range []string{
		`permission denied: you may not create job "perm" in namespace "` + ns + `"; ask for "create" on "jobs"`,
		`configmap "` + cm + `" was created in namespace "` + ns + `" but job "perm" was not: the ConfigMap is left behind`,
		"kubectl delete configmap " + cm + " -n " + ns,
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("missing %q:\n%s", want, r)
		}
	}
	if r.ExitCode != 4 {
		t.Errorf("exit %d, want 4", r.ExitCode)
	}
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, cm, metav1.GetOptions{}); err != nil {
		t.Errorf("the ConfigMap said to be left behind is not there: %v", err)
	}
}

// TestCreateSaveThenApply: the objects written by --save are what kubectl apply -f creates, and
// the Job runs to completion.
func TestCreateSaveThenApply(t *testing.T) {
	ns := NewNamespace(t)
	manifest, _, m := createFiles(t, "saved", 30, 3, nil)
	save := filepath.Join(t.TempDir(), "eval.yaml")
	r := KubectlIndexed(t, "create", "saved", "-n", ns, "--manifest", manifest, "--image", "busybox:1.36", "--dry-run=client", "--save", save)
	if r.ExitCode != 0 {
		t.Fatalf("%s", r)
	}
	if _, err := env.Client.BatchV1().Jobs(ns).Get(context.Background(), "saved", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("--dry-run=client created the Job: %v", err)
	}
	r = MustKubectl(t, "apply", "-f", save)
	want := fmt.Sprintf("configmap/%s created\njob.batch/saved created\n", scaffold.ConfigMapName(m))
	if r.Stdout != want {
		t.Errorf("kubectl apply -f: %q, want %q", r.Stdout, want)
	}
	j := WaitForCondition(t, ns, "saved", batchv1.JobComplete, 2*time.Minute)
	if j.Annotations[shards.AnnotationManifestHash] != m.Hash() || j.Status.CompletedIndexes != "0-2" {
		t.Errorf("applied Job: hash %q completed %q", j.Annotations[shards.AnnotationManifestHash], j.Status.CompletedIndexes)
	}
	// Applying it again changes nothing.
	r = MustKubectl(t, "apply", "-f", save)
	if !strings.Contains(r.Stdout, "job.batch/saved unchanged") {
		t.Errorf("second apply: %s", r.Stdout)
	}
}
