package status

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// seedLineage is the seed run and its retry seed-r1 of indexes 2 and 4: index 0 (shard 2)
// exits 42 again, index 1 (shard 4) succeeds.
func seedLineage() (root, r1 *batchv1.Job, pods []*corev1.Pod) {
	root, pods = seed()
	root.Annotations = map[string]string{shards.Prefix + "invalid-input-exit-code": "42"}
	r1 = job("seed-r1", 2)
	l := &lineage.Lineage{RootJob: "seed", RootJobUID: string(root.UID), ParentJob: "seed", ParentJobUID: string(root.UID), Attempt: 1, Original: indexes.Of(2, 4)}
	r1.Annotations = l.Annotations()
	r1.Annotations[shards.Prefix+"invalid-input-exit-code"] = "42"
	r1.Labels = l.Labels()
	r1.Status.CompletedIndexes, r1.Status.FailedIndexes = "1", ptr.To("0")
	r1.Status.Conditions = root.Status.Conditions
	pods = append(pods, pod(r1, 0, 0, ptr.To[int32](42)), pod(r1, 1, 0, ptr.To[int32](0)))
	return root, r1, pods
}

func TestLineageLiveAndOffline(t *testing.T) {
	root, r1, pods := seedLineage()
	objs := []runtime.Object{root, r1}
	for _, p := range pods {
		objs = append(objs, p)
	}
	const want = "5 of 6 shards succeeded; shard 2 failed as invalid input (exit 42) in seed and seed-r1"
	for _, name := range []string{"seed", "seed-r1"} {
		c := clientFor(root, nil, objs[1:]...)
		r := run(t, c, "", name, "--lineage", "-o", "json")
		var rep lineage.Report
		if r.code != 0 || json.Unmarshal([]byte(r.out), &rep) != nil {
			t.Fatalf("%s: exit %d\n%s%s", name, r.code, r.out, r.errOut)
		}
		if rep.Verdict != want || len(rep.Jobs) != 2 || rep.ShardStatuses[4].From != "seed-r1" {
			t.Errorf("%s: %q jobs %+v", name, rep.Verdict, rep.Jobs)
		}
		if r := run(t, c, "", name, "--lineage", "--exit-code"); r.code != exitcode.Findings || !strings.Contains(strings.Join(strings.Fields(r.out), " "), want+".") {
			t.Errorf("%s text: exit %d\n%s", name, r.code, r.out)
		}
	}

	dir := t.TempDir()
	jobs := corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for _, o := range objs {
		jobs.Items = append(jobs.Items, runtime.RawExtension{Object: o})
	}
	b, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "all.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, nil, "", "--lineage", "-f", path, "-o", "json")
	var rep lineage.Report
	if r.code != 0 || json.Unmarshal([]byte(r.out), &rep) != nil || rep.Verdict != want {
		t.Errorf("offline: exit %d %q\n%s", r.code, rep.Verdict, r.errOut)
	}

	// Templates over the LineageReport (they printed the text report before).
	if r := run(t, nil, "", "--lineage", "-f", path, "-o", "jsonpath={.verdict}"); r.code != 0 || r.out != want {
		t.Errorf("offline jsonpath: exit %d %q, want %q\n%s", r.code, r.out, want, r.errOut)
	}

	// -o name: every Job of the lineage, the root first, as kubectl get -o name prints them.
	if r := run(t, nil, "", "--lineage", "-f", path, "-o", "name"); r.code != 0 || r.out != "job.batch/"+root.Name+"\njob.batch/"+r1.Name+"\n" {
		t.Errorf("offline -o name: exit %d %q\n%s", r.code, r.out, r.errOut)
	}

	// A retry's own report maps its indexes to the root's.
	c := clientFor(root, nil, objs[1:]...)
	r = run(t, c, "", "seed-r1", "-o", "json")
	if !strings.Contains(r.out, `"originalIndex": 4`) || !strings.Contains(r.out, "Retry 1 of job \\\"seed\\\"") {
		t.Errorf("status seed-r1:\n%s", r.out)
	}
}

// The root is gone (its TTL, or deleted by hand) and its retry succeeded the two shards it ran:
// status --lineage --exit-code counts the manifest's six shards, read from the copy in the
// retry's shard ConfigMap, and exits 1 (issue 26, item 4: it said complete, exit 0).
func TestLineageWithoutRootCountsTheManifest(t *testing.T) {
	_, r1, _ := seedLineage()
	r1.Status.CompletedIndexes, r1.Status.FailedIndexes = "0-1", ptr.To("")
	r1.Status.Succeeded, r1.Status.Failed = 2, 0
	r1.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue},
	}
	man, err := shards.Parse("m", []byte("apiVersion: indexed.kubectl.io/v1alpha1\nkind: ShardManifest\nmetadata: {name: m}\nrevision: 1\nshards:\n"+
		"- {id: s-0, cases: [a]}\n- {id: s-1, cases: [b]}\n- {id: s-2, cases: [c]}\n- {id: s-3, cases: [d]}\n- {id: s-4, cases: [e]}\n- {id: s-5, cases: [f]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "m-retry-1", Namespace: "ns"},
		Data: map[string]string{shards.KeyManifest: string(man.Canonical()), shards.KeyShardIDs: `["s-2","s-4"]`}}
	r1.Annotations[shards.AnnotationShardsConfigMap] = cm.Name
	r1.Annotations[shards.AnnotationManifestHash] = man.Hash()
	c := clientFor(r1, nil, cm)
	r := run(t, c, "", "seed-r1", "--lineage", "--exit-code")
	want := "2 of 6 shards succeeded; 4 shards without a result (s-0, s-1, s-3, s-5): the root Job that ran them is gone"
	if r.code != exitcode.Findings || !strings.Contains(strings.Join(strings.Fields(r.out), " "), want) {
		t.Errorf("exit %d, want 1 and %q\n%s%s", r.code, want, r.out, r.errOut)
	}
	// Offline, with the same objects.
	dir := t.TempDir()
	l := corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	cm.APIVersion, cm.Kind = "v1", "ConfigMap"
	for _, o := range []runtime.Object{r1, cm} {
		l.Items = append(l.Items, runtime.RawExtension{Object: o})
	}
	b, _ := json.Marshal(l)
	path := filepath.Join(dir, "all.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, nil, "", "--lineage", "-f", path, "--exit-code"); r.code != exitcode.Findings || !strings.Contains(strings.Join(strings.Fields(r.out), " "), want) {
		t.Errorf("offline: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	// The copy changed (its hash is not the Job's): not trusted, and the run is not complete.
	cm.Data[shards.KeyManifest] = strings.Replace(cm.Data[shards.KeyManifest], "s-5", "s-9", 1)
	if r := run(t, clientFor(r1, nil, cm), "", "seed-r1", "--lineage", "--exit-code"); r.code != exitcode.Findings || !strings.Contains(r.out, "is not used") {
		t.Errorf("changed copy: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
}

// Issue 35 item 1: the root deleted and a Job of its name made again, which succeeded all six
// shards. status seed-r1 --lineage --exit-code reports the retry's run, 2 of 6 shards with a
// result, exit 1, not complete; before, it took the new Job for the root ("6 of 6 shards
// succeeded", exit 0) and left seed-r1 out with a note.
func TestLineageReplacedRootIsAnotherRun(t *testing.T) {
	_, r1, _ := seedLineage()
	r1.Status.CompletedIndexes, r1.Status.FailedIndexes = "0-1", ptr.To("")
	r1.Status.Succeeded, r1.Status.Failed = 2, 0
	r1.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	man, err := shards.Parse("m", []byte("apiVersion: indexed.kubectl.io/v1alpha1\nkind: ShardManifest\nmetadata: {name: m}\nrevision: 1\nshards:\n"+
		"- {id: s-0, cases: [a]}\n- {id: s-1, cases: [b]}\n- {id: s-2, cases: [c]}\n- {id: s-3, cases: [d]}\n- {id: s-4, cases: [e]}\n- {id: s-5, cases: [f]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "m-retry-1", Namespace: "ns"},
		Data: map[string]string{shards.KeyManifest: string(man.Canonical()), shards.KeyShardIDs: `["s-2","s-4"]`}}
	r1.Annotations[shards.AnnotationShardsConfigMap] = cm.Name
	r1.Annotations[shards.AnnotationManifestHash] = man.Hash()
	again := job("seed", 6)
	again.UID = "uid-of-the-new-seed"
	again.Status.CompletedIndexes, again.Status.Succeeded = "0-5", 6
	again.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	c := clientFor(again, nil, r1, cm)
	r := run(t, c, "", "seed-r1", "--lineage", "--exit-code", "-o", "json")
	var rep lineage.Report
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", r.code, err, r.out, r.errOut)
	}
	want := "2 of 6 shards succeeded; 4 shards without a result (s-0, s-1, s-3, s-5): the root Job that ran them is gone"
	if r.code != exitcode.Findings || rep.Complete || rep.Verdict != want || len(rep.Jobs) != 1 || rep.Jobs[0].Name != "seed-r1" {
		t.Errorf("exit %d complete=%v jobs %+v\n%q", r.code, rep.Complete, rep.Jobs, rep.Verdict)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "is not the root of this run") {
		t.Errorf("notes: %s", notes)
	}
	// The new Job's own run leaves seed-r1 out.
	if r := run(t, c, "", "seed", "--lineage", "--exit-code"); r.code != 0 || !strings.Contains(r.out, "6 of 6 shards succeeded") {
		t.Errorf("the new seed: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
}

// TestLineageOfflineNotesAsLive: status --lineage reads the same objects through one path live
// and offline (pkg/cmd/gather), so it says the same about them. Before, offline --lineage had a
// shard-trust path of its own: it worded its notes differently from live, and said nothing
// when a Job's shard ConfigMap was not among the files (no shard IDs, without a word).
func TestLineageOfflineNotesAsLive(t *testing.T) {
	root, r1, pods := seedLineage()
	// The root's pods mount another ConfigMap than its annotation names (the annotation edited
	// after create); the retry's shard ConfigMap holds IDs that do not read.
	root.Annotations[shards.AnnotationShardsConfigMap] = "seed-shards"
	root.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: scaffold.VolumeName, VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "other-shards"}}}}}
	r1.Annotations[shards.AnnotationShardsConfigMap] = "seed-r1-shards"
	bad := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "seed-r1-shards", Namespace: "ns"}, Data: map[string]string{shards.KeyShardIDs: "not a list"}}
	objs := []runtime.Object{root, r1, bad}
	for _, p := range pods {
		objs = append(objs, p)
	}
	notes := func(name string, r result) []string {
		t.Helper()
		var rep lineage.Report
		if r.code != 0 || json.Unmarshal([]byte(r.out), &rep) != nil {
			t.Fatalf("%s: exit %d\n%s%s", name, r.code, r.out, r.errOut)
		}
		return rep.Notes
	}
	live := notes("live", run(t, clientFor(root, nil, objs[1:]...), "", "seed", "--lineage", "-o", "json"))
	offline := notes("offline", run(t, nil, "", "--lineage", "-f", writeList(t, objs...), "-o", "json"))
	joined := strings.Join(live, "\n")
	if !strings.Contains(joined, `but its pods mount ConfigMap "other-shards"`) || !strings.Contains(joined, "Shard IDs are not shown: ") {
		t.Errorf("live notes lack the shard notes:\n%s", joined)
	}
	if strings.Join(offline, "\n") != joined {
		t.Errorf("offline notes differ from live:\n%s\n--- live:\n%s", strings.Join(offline, "\n"), joined)
	}

	// The retry's ConfigMap not saved: live says it does not exist, offline to give it, neither
	// is silent.
	live = notes("live, no ConfigMap", run(t, clientFor(root, nil, objs[1:2]...), "", "seed", "--lineage", "-o", "json"))
	offline = notes("offline, no ConfigMap", run(t, nil, "", "--lineage", "-f", writeList(t, objs[:2]...), "-o", "json"))
	if want := `The Job names shard ConfigMap "seed-r1-shards" but it does not exist`; !strings.Contains(strings.Join(live, "\n"), want) {
		t.Errorf("live: no %q in\n%s", want, strings.Join(live, "\n"))
	}
	if want := `The Job's shards are in ConfigMap "seed-r1-shards"; give it with --shards-file`; !strings.Contains(strings.Join(offline, "\n"), want) {
		t.Errorf("offline: no %q in\n%s", want, strings.Join(offline, "\n"))
	}
}
