package retry

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// decodeItems splits a printed or saved List into its ConfigMaps and its Job.
func decodeItems(t *testing.T, out string) ([]*corev1.ConfigMap, *batchv1.Job) {
	t.Helper()
	var l struct {
		Items []runtime.RawExtension `json:"items"`
	}
	if err := yaml.Unmarshal([]byte(out), &l); err != nil || len(l.Items) < 2 {
		t.Fatalf("not a List: %v\n%.2000s", err, out)
	}
	var cms []*corev1.ConfigMap
	for _, it := range l.Items[:len(l.Items)-1] {
		cm := &corev1.ConfigMap{}
		if err := yaml.Unmarshal(it.Raw, cm); err != nil || cm.Kind != "ConfigMap" {
			t.Fatalf("%v: %s", err, cm.Kind)
		}
		cms = append(cms, cm)
	}
	job := &batchv1.Job{}
	if err := yaml.Unmarshal(l.Items[len(l.Items)-1].Raw, job); err != nil || job.Kind != "Job" {
		t.Fatalf("%v: %s", err, job.Kind)
	}
	return cms, job
}

// TestRetryIndexMapConfigMap: --index-map=configmap on the seed run prints, saves and creates
// the index map's ConfigMap with the shard ConfigMap and the Job, and a retry of that retry
// maps back through it to the original shards.
func TestRetryIndexMapConfigMap(t *testing.T) {
	job, cm, m := seed(t)
	c := fake.NewClientset(job, cm)
	path := filepath.Join(t.TempDir(), "r1.yaml")
	r := run(t, c, "seed", "--index-map", "configmap", "--dry-run=client", "-o", "yaml", "--save", path)
	if r.code != 0 {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stderr)
	}
	testutil.Golden(t, filepath.Join("testdata", "seed-r1-index-map.yaml"), []byte(r.stdout))
	cms, rjob := decodeItems(t, r.stdout)
	if len(cms) != 2 {
		t.Fatalf("%d ConfigMaps printed", len(cms))
	}
	mapCM := cms[1]
	wantName := "seed-index-map-" + lineage.MapHash("2,4")
	if mapCM.Name != wantName || mapCM.Data[shards.KeyOriginalIndexes] != "2,4" || mapCM.Immutable == nil || !*mapCM.Immutable {
		t.Errorf("index map ConfigMap %s: %v", mapCM.Name, mapCM.Data)
	}
	if got := rjob.Annotations[shards.AnnotationOriginalIndexesFrom]; got != wantName+"/"+shards.KeyOriginalIndexes {
		t.Errorf("original-indexes-from = %q", got)
	}
	if _, ok := rjob.Annotations[shards.AnnotationOriginalIndexes]; ok {
		t.Error("original-indexes is set too")
	}
	if !strings.Contains(r.stderr, "saved the 2 ConfigMaps and the Job") || !strings.Contains(r.stderr, "is kept in immutable ConfigMap \""+wantName+"\"") {
		t.Errorf("stderr: %s", r.stderr)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if scms, _ := decodeItems(t, string(saved)); len(scms) != 2 || scms[1].Name != wantName {
		t.Errorf("saved %d ConfigMaps", len(scms))
	}
	// -o name lists every object.
	r = run(t, c, "seed", "--index-map", "configmap", "--dry-run=client", "-o", "name")
	if r.code != 0 || !strings.Contains(r.stdout, "configmap/"+wantName+"\n") || !strings.Contains(r.stdout, "job.batch/seed-r1") {
		t.Errorf("-o name: %q", r.stdout)
	}

	// Created for real (fake API server): all three objects.
	r = run(t, c, "seed", "--index-map", "configmap")
	if r.code != 0 || !strings.Contains(r.stdout, "configmap/"+wantName+" created") {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stdout)
	}
	ctx := context.Background()
	if _, err := c.CoreV1().ConfigMaps("ml").Get(ctx, wantName, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	r1, err := c.BatchV1().Jobs("ml").Get(ctx, "seed-r1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r1.UID = "uid-r1"
	finish(r1, "1", "0", batchv1.JobFailed) // shard 2 failed again
	if _, err := c.BatchV1().Jobs("ml").Update(ctx, r1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r = run(t, c, "seed-r1", "--dry-run=client", "-o", "yaml")
	if r.code != 0 {
		t.Fatalf("retry of a retry: exit %d %v", r.code, r.err)
	}
	cms, r2 := decodeItems(t, r.stdout)
	l, _, err := lineage.Read(r2)
	if err != nil || l.Original.String() != "2" || l.ParentJob != "seed-r1" || l.Attempt != 2 || len(cms) != 1 {
		t.Errorf("r2: %+v %v, %d ConfigMaps", l, err, len(cms))
	}
	if cms[0].Data[shards.IDKey(0)] != m.Shards[2].ID+"\n" {
		t.Errorf("r2 runs %q", cms[0].Data[shards.IDKey(0)])
	}

	// The parent's map gone: refused, nothing created.
	if err := c.CoreV1().ConfigMaps("ml").Delete(ctx, wantName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.ClearActions()
	r = run(t, c, "seed-r1")
	if r.code != 4 || r.err == nil || !strings.Contains(r.err.Error(), "keeps its index map") || !strings.Contains(r.err.Error(), "nothing was created") {
		t.Errorf("map gone: exit %d %v", r.code, r.err)
	}
	for _, a := range c.Actions() {
		if a.GetVerb() == "create" {
			t.Errorf("created %s", a.GetResource().Resource)
		}
	}
}

// TestRetryIndexMapFailures: RBAC denials name the verb and the index map's ConfigMap; a Job
// create refused after the ConfigMaps says which were left behind; an existing index map of
// other content is never replaced; a bad --index-map is a usage error.
func TestRetryIndexMapFailures(t *testing.T) {
	mapName := "seed-index-map-" + lineage.MapHash("2,4")
	t.Run("get denied on the parent's map", func(t *testing.T) {
		job, cm, _ := seed(t)
		c := fake.NewClientset(job, cm)
		if r := run(t, c, "seed", "--index-map", "configmap"); r.code != 0 {
			t.Fatal(r.err)
		}
		r1, _ := c.BatchV1().Jobs("ml").Get(context.Background(), "seed-r1", metav1.GetOptions{})
		r1.UID = "uid-r1"
		finish(r1, "1", "0", batchv1.JobFailed)
		_, _ = c.BatchV1().Jobs("ml").Update(context.Background(), r1, metav1.UpdateOptions{})
		c.PrependReactor("get", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if a.(k8stesting.GetAction).GetName() != mapName {
				return false, nil, nil
			}
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, mapName, fmt.Errorf("RBAC"))
		})
		r := run(t, c, "seed-r1")
		if r.code != 4 || !strings.Contains(r.err.Error(), `you may not get configmap "`+mapName+`"`) || !strings.Contains(r.err.Error(), Permissions) {
			t.Errorf("exit %d: %v", r.code, r.err)
		}
	})
	t.Run("create denied on the map", func(t *testing.T) {
		job, cm, _ := seed(t)
		c := fake.NewClientset(job, cm)
		c.PrependReactor("create", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if a.(k8stesting.CreateAction).GetObject().(*corev1.ConfigMap).Name != mapName {
				return false, nil, nil
			}
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, mapName, fmt.Errorf("RBAC"))
		})
		r := run(t, c, "seed", "--index-map", "configmap")
		if r.code != 4 || !strings.Contains(r.err.Error(), `you may not create configmap "`+mapName+`"`) || !strings.Contains(r.err.Error(), "left behind") {
			t.Errorf("exit %d: %v", r.code, r.err)
		}
		if _, err := c.BatchV1().Jobs("ml").Get(context.Background(), "seed-r1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Error("the Job was created without its map")
		}
	})
	t.Run("job create fails after the map", func(t *testing.T) {
		job, cm, _ := seed(t)
		c := fake.NewClientset(job, cm)
		c.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "batch", Resource: "jobs"}, "seed-r1", fmt.Errorf("RBAC"))
		})
		r := run(t, c, "seed", "--index-map", "configmap")
		if r.code != 4 || !strings.Contains(r.err.Error(), `you may not create job "seed-r1"`) || !strings.Contains(r.err.Error(), mapName) || !strings.Contains(r.err.Error(), "kubectl delete configmap") {
			t.Errorf("exit %d: %v", r.code, r.err)
		}
	})
	t.Run("existing map of other content", func(t *testing.T) {
		job, cm, _ := seed(t)
		other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: mapName, Namespace: "ml"}, Data: map[string]string{shards.KeyOriginalIndexes: "0-1"}, Immutable: ptr(true)}
		c := fake.NewClientset(job, cm, other)
		r := run(t, c, "seed", "--index-map", "configmap")
		// Its name comes from the root and the content's hash: renaming the manifest changes
		// nothing, so the advice must not say to.
		if r.code != 4 || !strings.Contains(r.err.Error(), "different content") || strings.Contains(r.err.Error(), "another metadata.name") ||
			!strings.Contains(r.err.Error(), `its name comes from root job "seed"`) {
			t.Errorf("exit %d: %v", r.code, r.err)
		}
		got, _ := c.CoreV1().ConfigMaps("ml").Get(context.Background(), mapName, metav1.GetOptions{})
		if got.Data[shards.KeyOriginalIndexes] != "0-1" {
			t.Error("the existing ConfigMap was changed")
		}
	})
	t.Run("bad flag", func(t *testing.T) {
		job, cm, _ := seed(t)
		r := run(t, fake.NewClientset(job, cm), "seed", "--index-map", "etcd")
		if r.code != 2 || !strings.Contains(r.err.Error(), "auto, annotation, configmap") {
			t.Errorf("exit %d: %v", r.code, r.err)
		}
	})
}

// TestRetryIndexMapAtScale: 100,000 indexes of which every other one failed (50,000 scattered
// indexes, 294,444 bytes of intervals, over twice what an annotation may hold): "auto" keeps
// the map in a ConfigMap within the limits, and a retry of that retry (every other index of
// it) composes through the map to the right original shards.
func TestRetryIndexMapAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 100,000 shards")
	}
	const n = 100000
	objs, m := hugeParent(t, n)
	job := objs.Job
	var failed, completed indexes.Builder
	for i := range n {
		if i%2 == 0 {
			failed.Add(i)
		} else {
			completed.Add(i)
		}
	}
	finish(job, completed.Set().String(), failed.Set().String(), batchv1.JobFailed)
	rt := []runtime.Object{job}
	for _, cm := range objs.ConfigMaps() {
		rt = append(rt, cm)
	}
	c := fake.NewClientset(rt...)
	r := run(t, c, "huge")
	if r.code != 0 {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	ctx := context.Background()
	r1, err := c.BatchV1().Jobs("ml").Get(ctx, "huge-r1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := failed.Set().String()
	if len(text) <= lineage.MaxOriginalIndexesBytes {
		t.Fatalf("the map takes %d bytes: not over the annotation's limit", len(text))
	}
	ref, err := lineage.ParseMapRef(r1.Annotations[shards.AnnotationOriginalIndexesFrom])
	if err != nil {
		t.Fatal(err)
	}
	mapCM, err := c.CoreV1().ConfigMaps("ml").Get(ctx, ref.ConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mapCM.Data[shards.KeyOriginalIndexes] != text {
		t.Fatal("the ConfigMap does not hold the map")
	}
	// Every object sent stays under the API server's limits with margin.
	for _, obj := range []any{r1, mapCM} {
		b, _ := json.Marshal(obj)
		if len(b) > 1<<20 {
			t.Errorf("%T is %d bytes", obj, len(b))
		}
	}
	annBytes := 0
	for k, v := range r1.Annotations {
		annBytes += len(k) + len(v)
	}
	if annBytes > 16<<10 {
		t.Errorf("the Job's annotations take %d bytes", annBytes)
	}

	// r1 ran root indexes 0, 2, 4, ...; its every other index (0, 2, 4, ... of r1) failed.
	r1.UID = "uid-r1"
	var f1, c1 indexes.Builder
	for k := range n / 2 {
		if k%2 == 0 {
			f1.Add(k)
		} else {
			c1.Add(k)
		}
	}
	finish(r1, c1.Set().String(), f1.Set().String(), batchv1.JobFailed)
	if _, err := c.BatchV1().Jobs("ml").Update(ctx, r1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r = run(t, c, "huge-r1", "--dry-run=client", "-o", "json")
	if r.code != 0 {
		t.Fatalf("retry of a retry: exit %d %v", r.code, r.err)
	}
	cms, r2 := decodeItems(t, r.stdout)
	mapOf2 := cms[len(cms)-1]
	l, _, err := lineage.Read(r2)
	if err != nil || l.OriginalFrom == nil || mapOf2.Name != l.OriginalFrom.ConfigMap {
		t.Fatalf("r2 lineage %+v %v", l, err)
	}
	if err := l.Resolve(r2, mapOf2); err != nil {
		t.Fatal(err)
	}
	// r2's index k runs root index 4k: r1's index 2k, which ran root 2*(2k).
	data := map[string]string{}
	for _, cm := range cms[:len(cms)-1] {
		for k, v := range cm.Data {
			data[k] = v
		}
	}
	if l.Original.Len() != n/4 {
		t.Fatalf("r2 has %d indexes", l.Original.Len())
	}
	for k := 0; k < n/4; k += 997 {
		if r, _ := l.RootIndex(k); r != 4*k {
			t.Fatalf("r2 index %d runs root %d, want %d", k, r, 4*k)
		}
		if got, want := data[shards.IDKey(k)], m.Shards[4*k].ID+"\n"; got != want {
			t.Fatalf("r2 index %d reads shard %q, want %q", k, got, want)
		}
	}
}
