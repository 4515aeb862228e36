//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// TestRetryIndexMapInConfigMap runs the real code path of a retry whose index map is too large
// for an annotation on the seed scenario: --index-map=configmap forces it (the same path "auto"
// takes over 128 KiB, measured by TestRetryIndexMapScale). The retry runs; status, status
// --lineage (live and offline) and a retry of the retry read the map from its ConfigMap.
func TestRetryIndexMapInConfigMap(t *testing.T) {
	ns := NewNamespace(t)
	ctx := context.Background()
	m := createSeed(t, ns)
	WaitForFinished(t, ns, "seed", 3*time.Minute)
	mapName := "seed-index-map-" + lineage.MapHash("2,4")

	// A server dry run prints the map's ConfigMap with the others and stores nothing.
	r := KubectlIndexed(t, "retry", "seed", "-n", ns, "--indexes", "2,4", "--index-map", "configmap", "--dry-run=server", "-o", "name")
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "configmap/"+mapName+"\n") || !strings.Contains(r.Stdout, "job.batch/seed-r1") {
		t.Fatalf("retry --dry-run=server:\n%s", r)
	}
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, mapName, metav1.GetOptions{}); err == nil {
		t.Fatal("a server dry run stored the index map")
	}

	r = KubectlIndexed(t, append([]string{"retry", "seed", "-n", ns, "--indexes", "2,4", "--index-map", "configmap"}, seedRetryPodAnnotations...)...)
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "configmap/"+mapName+" created\n") || !strings.HasSuffix(r.Stdout, "job.batch/seed-r1 created\n") {
		t.Fatalf("retry:\n%s", r)
	}
	r1 := WaitForFinished(t, ns, "seed-r1", 3*time.Minute)
	if a := r1.Annotations; a[shards.AnnotationOriginalIndexesFrom] != mapName+"/"+shards.KeyOriginalIndexes || a[shards.AnnotationOriginalIndexes] != "" {
		t.Errorf("seed-r1 annotations: %v", a)
	}
	cm, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, mapName, metav1.GetOptions{})
	if err != nil || cm.Data[shards.KeyOriginalIndexes] != "2,4" || cm.Immutable == nil || !*cm.Immutable || cm.Labels[shards.LabelRootJob] != "seed" {
		t.Fatalf("index map ConfigMap: %v %+v", err, cm)
	}
	// The pods run the original shards 2 and 4 (the map changes nothing for the worker).
	pods := PodsByIndex(GetPods(t, ns, "seed-r1"))
	for k, orig := range []int{2, 4} {
		if len(pods[k]) == 0 {
			t.Fatalf("seed-r1 index %d has no pod", k)
		}
		if _, id := podFiles(t, ns, pods[k][0], "worker"); id != m.Shards[orig].ID+"\n" {
			t.Errorf("seed-r1 index %d reads shard %q, want %s", k, id, m.Shards[orig].ID)
		}
	}

	// status of the retry, live: original indexes from the ConfigMap.
	checkOrig := func(what string, r Result) {
		t.Helper()
		var st indexesReport
		if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || len(st.Indexes) != 2 {
			t.Fatalf("%s: %v\n%s", what, err, r)
		}
		for k, orig := range []int{2, 4} {
			if ix := st.Indexes[k]; ix.OriginalIndex == nil || *ix.OriginalIndex != orig {
				t.Errorf("%s: index %d original %v, want %d", what, k, ix.OriginalIndex, orig)
			}
		}
	}
	checkOrig("status seed-r1 -o json", KubectlIndexed(t, "status", "seed-r1", "-n", ns, "-o", "json"))
	r = KubectlIndexed(t, "status", "seed-r1", "-n", ns)
	if flat := strings.Join(strings.Fields(r.Stdout), " "); !strings.Contains(flat, "root indexes 2,4 of seed (0→2, 1→4) (the map is kept in ConfigMap \""+mapName+"\")") {
		t.Errorf("status seed-r1:\n%s", r)
	}
	t.Logf("status seed-r1:\n%s", r.Stdout)
	lr := lineageJSON(t, "seed", "-n", ns)
	want := "5 of 6 shards succeeded; shard " + m.Shards[2].ID + " failed as invalid input (exit 42) in seed and seed-r1"
	if lr.Verdict != want || lr.ShardStatuses[4].From != "seed-r1" || lr.ShardStatuses[2].Runs[1].Job != "seed-r1" {
		t.Errorf("lineage: %q, want %q", lr.Verdict, want)
	}
	t.Logf("status seed --lineage:\n%s", KubectlIndexed(t, "status", "seed", "--lineage", "-n", ns).Stdout)

	// Offline: the saved List with the ConfigMap, and without it.
	dir := t.TempDir()
	with := saveJSON(t, dir, ns, "with.json", "get", "job/seed-r1", "configmap/"+mapName)
	checkOrig("status -f with the map", KubectlIndexed(t, "status", "-f", with, "-o", "json"))
	without := saveJSON(t, dir, ns, "without.json", "get", "job/seed-r1")
	r = KubectlIndexed(t, "status", "-f", without)
	if flat := strings.Join(strings.Fields(r.Stdout), " "); !strings.Contains(flat, "keeps its index map in ConfigMap \""+mapName+"\": "+without+" does not hold it") {
		t.Errorf("status -f without the map:\n%s", r)
	}
	// The map's ConfigMap carries the root-job label, so the List of a run's objects holds it.
	allFile := saveJSON(t, dir, ns, "all.json", "get", "jobs,configmaps")
	podsFile := saveJSON(t, dir, ns, "pods.json", "get", "pods")
	off := lineageJSON(t, "-f", allFile, "--pods-file", podsFile)
	if off.Verdict != lr.Verdict {
		t.Errorf("offline lineage %q, live %q", off.Verdict, lr.Verdict)
	}

	// A retry of the retry maps back through the ConfigMap: seed-r2's index 0 is root shard 2.
	// Its index 0 (shard 2) failed by the FailIndex rule again: named, deliberately.
	r = KubectlIndexed(t, "retry", "seed-r1", "-n", ns, "--indexes", "0")
	if r.ExitCode != 0 || !strings.HasSuffix(r.Stdout, "job.batch/seed-r2 created\n") {
		t.Fatalf("retry of a retry:\n%s", r)
	}
	r2 := WaitForFinished(t, ns, "seed-r2", 3*time.Minute)
	if a := r2.Annotations; a[shards.AnnotationOriginalIndexes] != "2" || a[shards.AnnotationOriginalIndexesFrom] != "" || a[shards.AnnotationParentJob] != "seed-r1" {
		t.Errorf("seed-r2 lineage: %v", a)
	}
	pods = PodsByIndex(GetPods(t, ns, "seed-r2"))
	if len(pods[0]) == 0 {
		t.Fatal("seed-r2 index 0 has no pod")
	}
	if _, id := podFiles(t, ns, pods[0][0], "worker"); id != m.Shards[2].ID+"\n" {
		t.Errorf("seed-r2 index 0 reads shard %q, want %s", id, m.Shards[2].ID)
	}
}
