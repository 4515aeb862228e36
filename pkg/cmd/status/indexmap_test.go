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

	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// seedLineageMapInConfigMap is seedLineage with seed-r1's index map kept in a ConfigMap, as
// retry --index-map=configmap (or a map over 128 KiB) writes it.
func seedLineageMapInConfigMap(t *testing.T) (objs []runtime.Object, mapCM *corev1.ConfigMap) {
	t.Helper()
	root, r1, pods := seedLineage()
	l, _, err := lineage.Read(r1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lineage.NewIndexMap("seed", l.Original)
	if err != nil {
		t.Fatal(err)
	}
	l.OriginalFrom = &m.Ref
	r1.Annotations = l.Annotations()
	r1.Annotations[shards.Prefix+"invalid-input-exit-code"] = "42"
	mapCM = &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: m.Ref.ConfigMap, Namespace: r1.Namespace, Labels: l.Labels()}, Data: m.Data}
	objs = []runtime.Object{root, r1}
	for _, p := range pods {
		objs = append(objs, p)
	}
	return objs, mapCM
}

func writeList(t *testing.T, objs ...runtime.Object) string {
	t.Helper()
	l := corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for _, o := range objs {
		l.Items = append(l.Items, runtime.RawExtension{Object: o})
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "objects.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStatusIndexMapInConfigMap(t *testing.T) {
	objs, mapCM := seedLineageMapInConfigMap(t)
	root, r1 := objs[0], objs[1]
	const want = "5 of 6 shards succeeded; shard 2 failed as invalid input (exit 42) in seed and seed-r1"

	// Live, with the ConfigMap: the retry's indexes map to the root's.
	c := clientFor(root.(*batchv1.Job), nil, append(objs[1:], mapCM)...)
	r := run(t, c, "", "seed-r1", "-o", "json")
	if r.code != 0 || !strings.Contains(r.out, `"originalIndex": 4`) || !strings.Contains(r.out, `the map is kept in ConfigMap \"`+mapCM.Name+`\"`) {
		t.Errorf("live status seed-r1: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	for _, name := range []string{"seed", "seed-r1"} {
		r := run(t, c, "", name, "--lineage", "-o", "json")
		var rep lineage.Report
		if r.code != 0 || json.Unmarshal([]byte(r.out), &rep) != nil || rep.Verdict != want || len(rep.Jobs) != 2 || rep.Jobs[1].OriginalIndexes.String() != "2,4" {
			t.Errorf("live --lineage %s: exit %d %q\n%s", name, r.code, rep.Verdict, r.errOut)
		}
	}

	// Live, the ConfigMap gone: said, and no original index is made up.
	c = clientFor(root.(*batchv1.Job), nil, objs[1:]...)
	r = run(t, c, "", "seed-r1", "-o", "json")
	if strings.Contains(r.out, `"originalIndex"`) || !strings.Contains(r.out, `ConfigMap \"`+mapCM.Name+`\": it does not exist`) {
		t.Errorf("live status, map gone: exit %d\n%s", r.code, r.out)
	}
	r = run(t, c, "", "seed", "--lineage", "-o", "json")
	if !strings.Contains(r.out, `Job \"seed-r1\" is left out`) || !strings.Contains(r.out, mapCM.Name) {
		t.Errorf("live --lineage, map gone:\n%s", r.out)
	}

	// Offline, the List holding the ConfigMap.
	with := writeList(t, append([]runtime.Object{r1, mapCM}, podsOf(objs, "seed-r1")...)...)
	r = run(t, nil, "", "-f", with, "-o", "json")
	if r.code != 0 || !strings.Contains(r.out, `"originalIndex": 4`) {
		t.Errorf("offline status with the map: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	all := writeList(t, append(objs, mapCM)...)
	r = run(t, nil, "", "--lineage", "-f", all, "-o", "json")
	var rep lineage.Report
	if r.code != 0 || json.Unmarshal([]byte(r.out), &rep) != nil || rep.Verdict != want {
		t.Errorf("offline --lineage with the map: exit %d %q\n%s", r.code, rep.Verdict, r.errOut)
	}

	// Offline, the List without it: said which ConfigMap the file lacks.
	without := writeList(t, append([]runtime.Object{r1}, podsOf(objs, "seed-r1")...)...)
	r = run(t, nil, "", "-f", without, "-o", "json")
	if strings.Contains(r.out, `"originalIndex"`) || !strings.Contains(r.out, `keeps its index map in ConfigMap \"`+mapCM.Name+`\"`) || !strings.Contains(r.out, without+" does not hold it") {
		t.Errorf("offline status without the map: exit %d\n%s", r.code, r.out)
	}
	r = run(t, nil, "", "--lineage", "-f", writeList(t, objs...), "-o", "json")
	if !strings.Contains(r.out, `Job \"seed-r1\" is left out`) || !strings.Contains(r.out, "does not hold it") {
		t.Errorf("offline --lineage without the map:\n%s", r.out)
	}
}

// podsOf are the pods of objs whose job-name label is job.
func podsOf(objs []runtime.Object, job string) []runtime.Object {
	var out []runtime.Object
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok && p.Labels["batch.kubernetes.io/job-name"] == job {
			out = append(out, p)
		}
	}
	return out
}
