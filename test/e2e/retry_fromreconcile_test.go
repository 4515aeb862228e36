//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/reconcile"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// TestRetryFromReconcile is issue 21's acceptance run of --from-reconcile: a run made by create
// (3 shards of 2 cases) whose three pods succeed and leave the receipt summaries
// examples/worker.sh writes, with receipts on disk where shard 1's lacks one case (partial,
// although its pod exited 0, so status.failedIndexes cannot see it). `reconcile -o json` is
// saved to a file and `retry --from-reconcile FILE` re-runs exactly shard 1: read from the API,
// the retry Job's lineage annotations and its shard ConfigMap hold that shard and no other.
func TestRetryFromReconcile(t *testing.T) {
	t.Parallel()
	ns := NewNamespace(t)
	const name = "fr"
	_, _, m := createFiles(t, "fr-eval", 6, 3, nil)
	objs, err := scaffold.Build(scaffold.Options{Manifest: m, JobName: name, Namespace: ns, Image: "busybox:1.36"})
	if err != nil {
		t.Fatal(err)
	}
	results := t.TempDir()
	scenario := harness.NewScenario()
	for i := range 3 {
		scenario.IndexTerminationMessage(i, exampleWorker(t, objs, name, i, i, fmt.Sprintf("%s-%d-attempt0", name, i), results))
	}
	manifest, template, _ := createFiles(t, "fr-eval", 6, 3, scenario.Annotations())
	if r := KubectlIndexed(t, "create", name, "-n", ns, "--manifest", manifest, "--from-job", template); r.ExitCode != 0 {
		t.Fatalf("create:\n%s", r)
	}
	root := WaitForCondition(t, ns, name, batchv1.JobComplete, 3*time.Minute)
	if root.Status.Succeeded != 3 {
		t.Fatalf("root: succeeded %d, want 3", root.Status.Succeeded)
	}

	// Shard 1's receipt loses its last case: the pod succeeded, the shard is partial.
	file := filepath.Join(results, m.Shards[1].ID, name+"-1-attempt0.receipt.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dropped := m.Shards[1].Cases[len(m.Shards[1].Cases)-1]
	edited := strings.Replace(string(data), `,{"case":"`+dropped+`"}`, "", 1)
	if edited == string(data) {
		t.Fatalf("receipt does not list %s:\n%s", dropped, data)
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, r := reconcileJSON(t, name, "-n", ns, "--receipts", results)
	if r.ExitCode != 1 || len(rep.Shards) != 3 {
		t.Fatalf("reconcile: want exit 1 and 3 shards\n%s", r)
	}
	for i, want := range []reconcile.State{reconcile.StateComplete, reconcile.StatePartial, reconcile.StateComplete} {
		if s := rep.Shards[i]; s.State != want {
			t.Fatalf("reconcile: shard %d is %s, want %s: %+v", i, s.State, want, s)
		}
	}
	report := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(report, []byte(r.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}

	r = KubectlIndexed(t, "retry", name, "-n", ns, "--from-reconcile", report)
	if r.ExitCode != 0 {
		t.Fatalf("retry --from-reconcile:\n%s", r)
	}
	retry := GetJob(t, ns, name+"-r1")
	if got := retry.Annotations[shards.AnnotationOriginalIndexes]; got != "1" {
		t.Errorf("retry runs root indexes %q, want 1", got)
	}
	if retry.Spec.Completions == nil || *retry.Spec.Completions != 1 {
		t.Errorf("retry completions %v, want 1", retry.Spec.Completions)
	}
	// Its shard ConfigMap, named by the Job's shard volume, holds shard 1 alone as index 0.
	var cmName string
	for _, v := range retry.Spec.Template.Spec.Volumes {
		if v.ConfigMap != nil && strings.HasPrefix(v.ConfigMap.Name, m.Metadata.Name+"-retry-") {
			cmName = v.ConfigMap.Name
		}
	}
	if cmName == "" {
		t.Fatalf("retry has no retry shard ConfigMap volume: %+v", retry.Spec.Template.Spec.Volumes)
	}
	var cm corev1.ConfigMap
	if err := json.Unmarshal([]byte(MustKubectl(t, "get", "configmap", cmName, "-n", ns, "-o", "json").Stdout), &cm); err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := json.Unmarshal([]byte(cm.Data["shard-ids.json"]), &ids); err != nil || !slices.Equal(ids, []string{m.Shards[1].ID}) {
		t.Errorf("shard-ids.json %q, want [%s] (%v)", cm.Data["shard-ids.json"], m.Shards[1].ID, err)
	}
	if got := strings.TrimSpace(cm.Data[shards.IDKey(0)]); got != m.Shards[1].ID {
		t.Errorf("%s = %q, want %s", shards.IDKey(0), got, m.Shards[1].ID)
	}
	if got, want := cm.Data[shards.CasesKey(0)], objs.ConfigMap.Data[shards.CasesKey(1)]; got != want || want == "" {
		t.Errorf("%s holds %q, want shard 1's cases %q", shards.CasesKey(0), got, want)
	}
	for k := range cm.Data {
		if k == shards.IDKey(1) || k == shards.CasesKey(1) {
			t.Errorf("retry ConfigMap holds a second shard: key %s", k)
		}
	}
	if !strings.Contains(r.Stderr, "1 shard to re-run: 1 ("+m.Shards[1].ID+", partial)") || !strings.Contains(r.Stderr, `index 1 of job "fr" already succeeded; it runs again`) {
		t.Errorf("retry does not say which shard it re-runs and that its pod succeeded:\n%s", r)
	}
}
