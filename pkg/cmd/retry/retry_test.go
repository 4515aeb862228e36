package retry

import (
	"bytes"
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

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

type result struct {
	stdout, stderr string
	code           int
	err            error
}

func run(t *testing.T, client *fake.Clientset, args ...string) result {
	t.Helper()
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.Namespace = "ml"
	o.Client = client
	r := io.Run(NewCmdRetryWithOptions(nil, o), args...)
	return result{r.Stdout, r.Stderr, r.Code, r.Err}
}

// seed builds what create makes for a 6-shard manifest of 12 cases, as the API server returns
// it after the run of the seed scenario: indexes 2 and 4 failed, the others succeeded.
func seed(t *testing.T) (*batchv1.Job, *corev1.ConfigMap, *shards.Manifest) {
	t.Helper()
	var cases []string
	for i := 1; i <= 12; i++ {
		cases = append(cases, fmt.Sprintf("case-%04d", i))
	}
	m, _, err := shards.Split(cases, shards.SplitOptions{Name: "seed-eval", Revision: "1", Shards: 6})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := scaffold.Build(scaffold.Options{Manifest: m, JobName: "seed", Namespace: "ml", Image: "busybox:1.36",
		Command: []string{"sh", "-c", "worker"}, Parallelism: ptr(int32(2))})
	if err != nil {
		t.Fatal(err)
	}
	job := objs.Job
	job.UID = "uid-seed"
	job.ResourceVersion = "100"
	job.Spec.BackoffLimit = ptr(int32(2147483647))
	job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: "uid-seed"}}
	job.Spec.Template.Labels = map[string]string{batchv1.ControllerUidLabel: "uid-seed", batchv1.JobNameLabel: "seed"}
	finish(job, "0,1,3,5", "2,4", batchv1.JobFailed)
	return job, objs.ConfigMap, m
}

func finish(job *batchv1.Job, completed, failed string, cond batchv1.JobConditionType) {
	job.Status.CompletedIndexes = completed
	job.Status.FailedIndexes = ptr(failed)
	if cond != "" {
		job.Status.Conditions = []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue}}
	}
}

// hugeParent is what create makes, as Job huge in namespace ml, of n one-case shards (cases
// c0000000, c0000001, ...), with the UID the API server gives it; and the manifest.
func hugeParent(t *testing.T, n int) (*scaffold.Objects, *shards.Manifest) {
	t.Helper()
	cases := make([]string, n)
	for i := range cases {
		cases[i] = fmt.Sprintf("c%07d", i)
	}
	m, _, err := shards.Split(cases, shards.SplitOptions{Name: "huge", Revision: "1", Shards: n})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := scaffold.Build(scaffold.Options{Manifest: m, JobName: "huge", Namespace: "ml", Image: "busybox:1.36"})
	if err != nil {
		t.Fatal(err)
	}
	objs.Job.UID = "uid-huge"
	return objs, m
}

// decodeList is decodeItems of a List that must hold exactly one ConfigMap and the Job.
func decodeList(t *testing.T, out string) (*corev1.ConfigMap, *batchv1.Job) {
	t.Helper()
	cms, job := decodeItems(t, out)
	if len(cms) != 1 {
		t.Fatalf("not a List of 2: %d ConfigMaps\n%s", len(cms), out)
	}
	return cms[0], job
}

func TestRetryFailedShards(t *testing.T) {
	job, cm, m := seed(t)
	before := job.DeepCopy()
	c := fake.NewClientset(job, cm)
	r := run(t, c, "seed", "--dry-run=client", "-o", "yaml")
	if r.code != 0 {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stderr)
	}
	testutil.Golden(t, filepath.Join("testdata", "seed-r1.yaml"), []byte(r.stdout))
	rcm, rjob := decodeList(t, r.stdout)

	// Index k of the retry gets the files of parent index 2 then 4 (the facts, independent of
	// the golden file).
	for k, orig := range []int{2, 4} {
		if got, want := rcm.Data[shards.CasesKey(k)], shards.CasesText(m.Shards[orig].Cases); got != want {
			t.Errorf("index-%d.cases = %q, want shard %d's %q", k, got, orig, want)
		}
		if got, want := rcm.Data[shards.IDKey(k)], m.Shards[orig].ID+"\n"; got != want {
			t.Errorf("index-%d.id = %q, want %q", k, got, want)
		}
	}
	if ids, err := shards.IDsFromConfigMap(rcm); err != nil || strings.Join(ids, ",") != m.Shards[2].ID+","+m.Shards[4].ID {
		t.Errorf("shard-ids.json: %v %v", ids, err)
	}
	if rcm.Data[shards.KeyManifest] != cm.Data[shards.KeyManifest] {
		t.Error("manifest.json is not the original's")
	}
	if len(rcm.Data) != 6 || rcm.Immutable == nil || !*rcm.Immutable {
		t.Errorf("configmap: %d keys, immutable %v", len(rcm.Data), rcm.Immutable)
	}
	if rjob.Name != "seed-r1" || *rjob.Spec.Completions != 2 || *rjob.Spec.Parallelism != 2 || *rjob.Spec.MaxFailedIndexes != 1 ||
		*rjob.Spec.BackoffLimitPerIndex != 1 || rjob.Spec.BackoffLimit != nil || rjob.Spec.Selector != nil {
		t.Errorf("job spec: %+v", rjob.Spec)
	}
	want := map[string]string{
		shards.AnnotationRootJob: "seed", shards.AnnotationRootJobUID: "uid-seed",
		shards.AnnotationParentJob: "seed", shards.AnnotationParentJobUID: "uid-seed",
		shards.AnnotationRetryAttempt: "1", shards.AnnotationOriginalIndexes: "2,4",
		shards.AnnotationShardsConfigMap: rcm.Name,
	}
	for k, v := range want {
		if rjob.Annotations[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, rjob.Annotations[k], v)
		}
	}
	if rjob.Labels[shards.LabelRootJob] != "seed" || rjob.Spec.Template.Labels[batchv1.ControllerUidLabel] != "" {
		t.Errorf("labels: %v template %v", rjob.Labels, rjob.Spec.Template.Labels)
	}
	vol := rjob.Spec.Template.Spec.Volumes[0]
	if vol.Name != scaffold.VolumeName || vol.ConfigMap.Name != rcm.Name {
		t.Errorf("volume %+v", vol)
	}
	// Nothing was sent, and the original is untouched.
	got, _ := c.BatchV1().Jobs("ml").Get(context.Background(), "seed", metav1.GetOptions{})
	if got.ResourceVersion != before.ResourceVersion || got.Spec.Completions == nil || *got.Spec.Completions != 6 {
		t.Errorf("the original changed")
	}
	for _, a := range c.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" {
			t.Errorf("client dry run made a %s", a.GetVerb())
		}
	}
}

func TestRetryCreatesAndRetryOfRetryComposes(t *testing.T) {
	job, cm, m := seed(t)
	c := fake.NewClientset(job, cm)
	r := run(t, c, "seed")
	if r.code != 0 {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	r1, err := c.BatchV1().Jobs("ml").Get(context.Background(), "seed-r1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if !strings.Contains(r.stdout, "job.batch/seed-r1 created") {
		t.Errorf("stdout %q", r.stdout)
	}
	// seed-r1 ran shards 2 and 4; its index 0 (shard 2) failed again.
	r1.UID = "uid-r1"
	finish(r1, "1", "0", batchv1.JobFailed)
	if _, err := c.BatchV1().Jobs("ml").Update(context.Background(), r1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A second retry of seed (with r1 existing and finished: one retry at a time per shard) takes
	// attempt 2; of the same shards, only with --force (issue 35 item 6).
	r = run(t, c, "seed", "--dry-run=client", "-o", "name", "--force")
	if r.code != 0 || !strings.Contains(r.stdout, "job.batch/seed-r2") {
		t.Errorf("second retry of seed: exit %d %q %v", r.code, r.stdout, r.err)
	}

	// kubectl's templates, and custom-columns (a row per object), over the same List.
	r = run(t, c, "seed", "--dry-run=client", "-o", "custom-columns=KIND:.kind,NAME:.metadata.name", "--force")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); r.code != 0 || len(lines) < 3 || !strings.HasPrefix(lines[0], "KIND") ||
		!strings.HasPrefix(lines[len(lines)-1], "Job") || !strings.HasSuffix(lines[len(lines)-1], "seed-r2") {
		t.Errorf("custom-columns: exit %d %q %v", r.code, r.stdout, r.err)
	}
	r = run(t, c, "seed", "--dry-run=client", "-o", `jsonpath={.items[?(@.kind=="Job")].spec.completions}`, "--force")
	if r.code != 0 || r.stdout == "" || strings.ContainsAny(r.stdout, "{} ") {
		t.Errorf("jsonpath: exit %d %q %v", r.code, r.stdout, r.err)
	}

	r = run(t, c, "seed-r1", "--dry-run=client", "-o", "yaml")
	if r.code != 0 {
		t.Fatalf("retry of a retry: exit %d %v", r.code, r.err)
	}
	rcm, rjob := decodeList(t, r.stdout)
	l, ok, err := lineage.Read(rjob)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if l.RootJob != "seed" || l.ParentJob != "seed-r1" || l.ParentJobUID != "uid-r1" || l.Attempt != 2 || l.Original.String() != "2" {
		t.Errorf("lineage %+v (original %s)", l, l.Original)
	}
	if rjob.Name != "seed-r2" || rcm.Data[shards.IDKey(0)] != m.Shards[2].ID+"\n" || rcm.Data[shards.CasesKey(0)] != shards.CasesText(m.Shards[2].Cases) {
		t.Errorf("retry of retry: %s runs %q", rjob.Name, rcm.Data[shards.IDKey(0)])
	}
}

func TestRetryRefusals(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		setup func(job *batchv1.Job, cm *corev1.ConfigMap) []runtime.Object
		args  []string
		code  int
		want  string
	}{
		{"nothing to retry", func(j *batchv1.Job, cm *corev1.ConfigMap) []runtime.Object {
			finish(j, "0-5", "", batchv1.JobComplete)
			return []runtime.Object{j, cm}
		}, nil, 2, "nothing to retry"},
		{"still running", func(j *batchv1.Job, cm *corev1.ConfigMap) []runtime.Object {
			j.Status.Conditions = nil
			return []runtime.Object{j, cm}
		}, nil, 2, "still running"},
		{"allow-running needs explicit", func(j *batchv1.Job, cm *corev1.ConfigMap) []runtime.Object {
			return []runtime.Object{j, cm}
		}, []string{"--allow-running"}, 2, "explicit --indexes"},
		{"allow-running only failed", func(j *batchv1.Job, cm *corev1.ConfigMap) []runtime.Object {
			finish(j, "0,1", "2", "")
			j.Status.Conditions = nil
			return []runtime.Object{j, cm}
		}, []string{"--indexes", "2,4", "--allow-running"}, 2, "index 4 has not failed for good"},
		{"configmap gone", func(j *batchv1.Job, cm *corev1.ConfigMap) []runtime.Object {
			return []runtime.Object{j}
		}, nil, 4, "it is gone"},
		{"no such job", func(j *batchv1.Job, cm *corev1.ConfigMap) []runtime.Object { return nil }, nil, 4, `job "seed" not found`},
		{"index out of range", func(j *batchv1.Job, cm *corev1.ConfigMap) []runtime.Object {
			return []runtime.Object{j, cm}
		}, []string{"--indexes", "6"}, 2, "--indexes"},
		{"job exists", func(j *batchv1.Job, cm *corev1.ConfigMap) []runtime.Object {
			return []runtime.Object{j, cm, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "seed-r1", Namespace: "ml"}}}
		}, nil, 4, "never replaces a Job"},
		{"lint stops it", func(j *batchv1.Job, cm *corev1.ConfigMap) []runtime.Object {
			return []runtime.Object{j, cm}
		}, []string{"--name", strings.Repeat("x", 62)}, 2, "would be rejected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, cm, _ := seed(t)
			c := fake.NewClientset(tc.setup(job, cm)...)
			r := run(t, c, append([]string{"seed"}, tc.args...)...)
			if r.code != tc.code || r.err == nil || !strings.Contains(r.err.Error(), tc.want) {
				t.Fatalf("exit %d, want %d; error %v, want %q", r.code, tc.code, r.err, tc.want)
			}
			for _, a := range c.Actions() {
				if a.GetVerb() == "create" {
					t.Errorf("a refused retry created %s", a.GetResource().Resource)
				}
			}
			if _, err := c.BatchV1().Jobs("ml").Get(ctx, "seed-r2", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Error("a Job was created")
			}
		})
	}
}

func TestRetryPermissionDenied(t *testing.T) {
	for _, tc := range []struct{ verb, resource, want string }{
		{"get", "jobs", `you may not get job "seed"`},
		{"get", "configmaps", `you may not get configmap`},
		{"list", "jobs", "you may not list jobs"},
		{"create", "configmaps", "you may not create configmap"},
		{"create", "jobs", `you may not create job "seed-r1"`},
	} {
		t.Run(tc.verb+" "+tc.resource, func(t *testing.T) {
			job, cm, _ := seed(t)
			c := fake.NewClientset(job, cm)
			c.PrependReactor(tc.verb, tc.resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
				gr := schema.GroupResource{Resource: tc.resource}
				return true, nil, apierrors.NewForbidden(gr, "x", fmt.Errorf("RBAC"))
			})
			r := run(t, c, "seed")
			if r.code != 4 || r.err == nil || !strings.Contains(r.err.Error(), tc.want) || !strings.Contains(r.err.Error(), Permissions) {
				t.Fatalf("exit %d: %v", r.code, r.err)
			}
		})
	}
}

func TestRetryOverridesAndPodAnnotations(t *testing.T) {
	job, cm, _ := seed(t)
	job.Spec.Template.Annotations = map[string]string{"scenario.indexed.kubectl.io/exit-code.2": "42", "keep": "me"}
	c := fake.NewClientset(job, cm)
	r := run(t, c, "seed", "--indexes", "missing", "--name", "again", "--parallelism", "1", "--backoff-limit-per-index", "3",
		"--max-failed-indexes", "none", "--pod-annotation", "scenario.indexed.kubectl.io/exit-code.2-",
		"--pod-annotation", "scenario.indexed.kubectl.io/exit-code.0=42", "--dry-run=client", "-o", "yaml")
	if r.code != 0 {
		t.Fatalf("exit %d %v", r.code, r.err)
	}
	_, rjob := decodeList(t, r.stdout)
	s := rjob.Spec
	if rjob.Name != "again" || *s.Parallelism != 1 || *s.BackoffLimitPerIndex != 3 || s.MaxFailedIndexes != nil || *s.Completions != 2 {
		t.Errorf("spec %+v", s)
	}
	want := map[string]string{"scenario.indexed.kubectl.io/exit-code.0": "42", "keep": "me"}
	if fmt.Sprint(s.Template.Annotations) != fmt.Sprint(want) {
		t.Errorf("pod annotations %v", s.Template.Annotations)
	}
	r = run(t, c, "seed", "--pod-annotation", "novalue")
	if r.code != 2 {
		t.Errorf("bad --pod-annotation: exit %d", r.code)
	}
	// Issue 35 (LOW): create refused --ttl-seconds-after-finished 0 and retry took it; both
	// follow jobflags.CheckTTL now.
	r = run(t, c, "seed", "--ttl-seconds-after-finished", "0", "--dry-run=client", "-o", "yaml")
	if r.code != 2 || r.err == nil || !strings.Contains(r.err.Error(), "--ttl-seconds-after-finished must be at least 1, not 0") {
		t.Errorf("--ttl-seconds-after-finished 0: exit %d %v", r.code, r.err)
	}
}

// --indexes takes the shared grammar (indexes.ParseFlag): any order, overlaps allowed, spaces
// around the commas. Before, "4,2" was refused (not increasing).
func TestRetryIndexesSharedGrammar(t *testing.T) {
	for _, list := range []string{"2,4", "4,2", "4,2,2", "2, 4", "4,2-2,4"} {
		job, cm, _ := seed(t)
		c := fake.NewClientset(job, cm)
		r := run(t, c, "seed", "--indexes", list, "--dry-run=client", "-o", "name")
		if r.code != 0 || !strings.Contains(r.stderr, `retrying 2 indexes of job "seed" (2,4)`) {
			t.Errorf("--indexes %q: exit %d %v\n%s", list, r.code, r.err, r.stderr)
		}
	}
	// Issue 35 (LOW): one root index is "root index 4", not "root indexes 4".
	job, cm, _ := seed(t)
	r := run(t, fake.NewClientset(job, cm), "seed", "--indexes", "4", "--dry-run=client", "-o", "name")
	if r.code != 0 || !strings.Contains(r.stderr, `retrying 1 index of job "seed" (4) as job "seed-r1": root index 4 of job "seed"`) {
		t.Errorf("--indexes 4: exit %d %v\n%s", r.code, r.err, r.stderr)
	}
}

func TestRetryWarnsOnSucceededIndexes(t *testing.T) {
	job, cm, _ := seed(t)
	c := fake.NewClientset(job, cm)
	r := run(t, c, "seed", "--indexes", "0,2", "--dry-run=client", "-o", "name")
	if r.code != 0 || !strings.Contains(r.stderr, "index 0 of job \"seed\" already succeeded; it runs again") {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
}

func TestRetryPrepareDBParent(t *testing.T) {
	job, cm, _ := seed(t)
	job.Spec.BackoffLimitPerIndex = nil
	job.Spec.MaxFailedIndexes = nil
	job.Spec.BackoffLimit = ptr(int32(6))
	job.Status.FailedIndexes = nil
	c := fake.NewClientset(job, cm)
	if r := run(t, c, "seed"); r.code != 2 || !strings.Contains(r.err.Error(), "--indexes missing") {
		t.Fatalf("failed without failedIndexes: exit %d %v", r.code, r.err)
	}
	r := run(t, c, "seed", "--indexes", "missing", "--dry-run=client", "-o", "yaml")
	if r.code != 0 || !strings.Contains(r.stderr, "create's defaults") {
		t.Fatalf("exit %d %v %s", r.code, r.err, r.stderr)
	}
	_, rjob := decodeList(t, r.stdout)
	if rjob.Spec.BackoffLimit != nil || *rjob.Spec.BackoffLimitPerIndex != 1 || *rjob.Spec.MaxFailedIndexes != 1 {
		t.Errorf("spec %+v", rjob.Spec)
	}
}

func ptr[T any](v T) *T { return &v }

// TestRetryOfASplitStore: a Job of 100,000 shards (its store split into a head with the
// shard IDs compressed and parts, mounted as one projected volume) with every 10th index
// failed; the retry of those 10,000 indexes gets the right shard at every index.
func TestRetryOfASplitStore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 100,000 shards")
	}
	const n = 100000
	objs, m := hugeParent(t, n)
	vol := objs.Job.Spec.Template.Spec.Volumes[0]
	if len(objs.Parts) == 0 || vol.Projected == nil || len(vol.Projected.Sources) != 1+len(objs.Parts) || vol.Projected.Sources[0].ConfigMap.Name != objs.ConfigMap.Name {
		t.Fatalf("the parent's store is not split and projected: %d parts, %+v", len(objs.Parts), vol)
	}
	for _, e := range objs.Job.Spec.Template.Spec.Containers[0].Env {
		if e.Name == scaffold.EnvManifestFile {
			t.Errorf("INDEXED_MANIFEST_FILE set but manifest.json is not mounted")
		}
	}
	job := objs.Job
	var failed, completed strings.Builder
	for i := 0; i < n; i += 10 {
		if i > 0 {
			failed.WriteByte(',')
			completed.WriteByte(',')
		}
		fmt.Fprintf(&failed, "%d", i)
		fmt.Fprintf(&completed, "%d-%d", i+1, i+9)
	}
	finish(job, completed.String(), failed.String(), batchv1.JobFailed)
	rt := []runtime.Object{job}
	for _, cm := range objs.ConfigMaps() {
		rt = append(rt, cm)
	}
	c := fake.NewClientset(rt...)
	r := run(t, c, "huge", "--dry-run=client", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	var l struct {
		Items []runtime.RawExtension `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
		t.Fatal(err)
	}
	var rjob batchv1.Job
	if err := json.Unmarshal(l.Items[len(l.Items)-1].Raw, &rjob); err != nil {
		t.Fatal(err)
	}
	data := map[string]string{}
	for _, it := range l.Items[:len(l.Items)-1] {
		var cm corev1.ConfigMap
		if err := json.Unmarshal(it.Raw, &cm); err != nil {
			t.Fatal(err)
		}
		for k, v := range cm.Data {
			data[k] = v
		}
	}
	if *rjob.Spec.Completions != n/10 || rjob.Annotations[shards.AnnotationOriginalIndexes] != failed.String() {
		t.Fatalf("retry: %d completions", *rjob.Spec.Completions)
	}
	for k := 0; k < n/10; k++ {
		if got, want := data[shards.IDKey(k)], m.Shards[10*k].ID+"\n"; got != want {
			t.Fatalf("retry index %d reads shard %q, want %q", k, got, want)
		}
		if got, want := data[shards.CasesKey(k)], shards.CasesText(m.Shards[10*k].Cases); got != want {
			t.Fatalf("retry index %d reads cases %q, want %q", k, got, want)
		}
	}
}

func TestRetrySaveNeverOverwrites(t *testing.T) {
	job, cm, _ := seed(t)
	c := fake.NewClientset(job, cm)
	path := filepath.Join(t.TempDir(), "retry.yaml")
	r := run(t, c, "seed", "--dry-run=client", "--save", path)
	if r.code != 0 || !strings.Contains(r.stderr, "saved the ConfigMap and the Job to "+path) {
		t.Fatalf("exit %d %v %s", r.code, r.err, r.stderr)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rcm, rjob := decodeList(t, string(saved))
	if rjob.Name != "seed-r1" || rjob.Annotations[shards.AnnotationShardsConfigMap] != rcm.Name {
		t.Errorf("saved %s / %s", rjob.Name, rcm.Name)
	}
	r = run(t, c, "seed", "--dry-run=client", "--save", path)
	if r.code != 2 || !strings.Contains(r.err.Error(), "never overwritten") {
		t.Errorf("second save: exit %d %v", r.code, r.err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, saved) {
		t.Error("the saved file changed")
	}
}

// TestRetryBadIndexesBeforeTheNetwork: a malformed --indexes is a usage error (exit 2) before
// any request; before, the Job was read first, so with no API server it exited 4 ("cannot
// reach the API server").
// The error text is that of every flag that takes indexes (indexes.ParseFlag), with retry's
// keywords after it; before, retry had its own grammar and text.
func TestRetryBadIndexesBeforeTheNetwork(t *testing.T) {
	for _, bad := range []string{"banana", "faild", "-1", "2-", "1,,2", "4-2", "1-2-3"} {
		t.Run(bad, func(t *testing.T) {
			c := fake.NewClientset()
			c.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, fmt.Errorf("dial tcp 127.0.0.1:1: connect: connection refused")
			})
			r := run(t, c, "seed", "--indexes", bad)
			_, perr := indexes.ParseFlag("--indexes", bad)
			if r.code != 2 || r.err == nil || perr == nil || r.err.Error() != perr.Error()+", or one of failed, unfinished, missing" {
				t.Fatalf("exit %d, want 2; error %v, want %v, or one of failed, unfinished, missing", r.code, r.err, perr)
			}
			if n := len(c.Actions()); n != 0 {
				t.Errorf("%d requests before the usage error: %v", n, c.Actions())
			}
		})
	}
}

// TestRetryRefusesAChangedShardConfigMap: the shard ConfigMap deleted and made again with other
// cases (same name, same labels) is refused, as reconcile refuses it, instead of copied into
// the retry. Before, retry copied the changed cases.
func TestRetryRefusesAChangedShardConfigMap(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(cm *corev1.ConfigMap)
	}{
		{"cases", func(cm *corev1.ConfigMap) { cm.Data[shards.CasesKey(2)] = "case-9999\n" }},
		{"manifest", func(cm *corev1.ConfigMap) {
			cm.Data[shards.KeyManifest] = strings.Replace(cm.Data[shards.KeyManifest], "case-0005", "case-9999", 1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, cm, _ := seed(t)
			tc.change(cm)
			c := fake.NewClientset(job, cm)
			r := run(t, c, "seed")
			if r.code != 2 || r.err == nil || !strings.Contains(r.err.Error(), "were changed since the Job was made") {
				t.Fatalf("exit %d %v", r.code, r.err)
			}
			for _, a := range c.Actions() {
				if a.GetVerb() == "create" {
					t.Errorf("created %s", a.GetResource().Resource)
				}
			}
		})
	}
}
