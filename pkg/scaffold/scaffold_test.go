package scaffold

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

func manifest(t *testing.T, name string) *shards.Manifest {
	t.Helper()
	m, err := shards.Read(filepath.Join("testdata", "in", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func base(t *testing.T, name string) *batchv1.Job {
	t.Helper()
	j, err := ReadBase(filepath.Join("testdata", "in", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func toYAML(t *testing.T, objs *Objects) []byte {
	t.Helper()
	return yamlDocs(t, objs.ConfigMap, objs.Job)
}

// yamlDocs is objs as one YAML stream, in order, "---" between them.
func yamlDocs(t *testing.T, objs ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	for i, o := range objs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
	}
	return buf.Bytes()
}

func ptrTo[T any](v T) *T { return &v }

// TestBuildGolden pins the exact objects for the ways create is used.
func TestBuildGolden(t *testing.T) {
	six := manifest(t, "six.yaml")
	pct := Budget{Percent: true, Value: 34}
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"defaults", Options{Manifest: six, JobName: "eval", Namespace: "ml", Image: "registry.example/eval:1", Command: []string{"/bin/sh", "/work/worker.sh"}}},
		{"flags", Options{
			Manifest: six, JobName: "eval", Namespace: "ml", Image: "registry.example/eval:1",
			ContainerName: "runner", Parallelism: ptrTo[int32](2), BackoffLimitPerIndex: ptrTo[int32](3),
			MaxFailedIndexes: &pct, InvalidInputExitCode: ptrTo[int32](65), ActiveDeadlineSeconds: ptrTo[int64](7200),
			TTLSecondsAfterFinished: ptrTo[int32](86400), ServiceAccountName: "eval",
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")},
			Env:      []corev1.EnvVar{{Name: "MODEL", Value: "model-b"}},
		}},
		{"from-job", Options{Manifest: six, JobName: "eval", Namespace: "ml", Base: base(t, "user-job.yaml"), BaseSource: "user-job.yaml",
			Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")}, Env: []corev1.EnvVar{{Name: "MODEL", Value: "model-b"}}}},
		{"from-pod-template", Options{Manifest: six, JobName: "eval", Namespace: "ml", Base: base(t, "pod-template.yaml"), Command: []string{"run-shard"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Build(tc.o)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", tc.name+".yaml"), toYAML(t, objs))
		})
	}
}

func TestBuildContract(t *testing.T) {
	m := manifest(t, "six.yaml")
	objs, err := Build(Options{Manifest: m, JobName: "eval", Namespace: "ml", Image: "img"})
	if err != nil {
		t.Fatal(err)
	}
	cm, job := objs.ConfigMap, objs.Job
	// The contract status relies on.
	name, ok := shards.ConfigMapNameFromJob(job)
	if !ok || name != cm.Name {
		t.Fatalf("ConfigMapNameFromJob = %q %v, ConfigMap %q", name, ok, cm.Name)
	}
	ids, err := shards.IDsFromConfigMap(cm)
	if err != nil || !reflect.DeepEqual(ids, []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}) {
		t.Fatalf("ids %v %v", ids, err)
	}
	if cm.Name != "eval-demo-shards-"+m.ShortHash(10) || !*cm.Immutable || cm.Namespace != "ml" {
		t.Errorf("configmap %s/%s immutable %v", cm.Namespace, cm.Name, *cm.Immutable)
	}
	if cm.Data["index-2.cases"] != "c-1\nc-2\nc-3\n" || cm.Data["index-2.id"] != "charlie\n" {
		t.Errorf("index 2 files: %q %q", cm.Data["index-2.cases"], cm.Data["index-2.id"])
	}
	if back, err := shards.Parse("manifest.json", []byte(cm.Data["manifest.json"])); err != nil || back.Hash() != m.Hash() {
		t.Errorf("manifest.json does not hold the manifest: %v", err)
	}
	s := job.Spec
	if *s.Completions != 6 || *s.Parallelism != 6 || *s.BackoffLimitPerIndex != 1 || s.BackoffLimit != nil ||
		*s.MaxFailedIndexes != 3 || s.TTLSecondsAfterFinished != nil || s.ActiveDeadlineSeconds != nil ||
		*s.CompletionMode != batchv1.IndexedCompletion || s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("spec %+v", s)
	}
	if job.Annotations[shards.AnnotationManifestHash] != m.Hash() || job.Labels[shards.LabelManifestRevision] != "7" || job.Labels["candidate"] != "model-a" {
		t.Errorf("labels %v annotations %v", job.Labels, job.Annotations)
	}
}

// TestBuildFromOwnJob: starting from a Job create made (as the server returns it) with a new
// manifest gives the same Job as starting from nothing: nothing of the old one leaks.
func TestBuildFromOwnJob(t *testing.T) {
	m := manifest(t, "six.yaml")
	o := Options{Manifest: m, JobName: "eval", Namespace: "ml", Image: "img", Command: []string{"w"}}
	first, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	live := first.Job.DeepCopy()
	live.UID = "1234"
	live.ResourceVersion = "99"
	live.Spec.BackoffLimit = ptrTo[int32](2147483647)
	live.Spec.Selector = nil
	live.Labels["batch.kubernetes.io/job-name"] = "eval"
	live.Spec.Template.Labels = map[string]string{"batch.kubernetes.io/controller-uid": "1234", "job-name": "eval"}
	live.Status.Succeeded = 3
	m2 := *m
	m2.Revision = "8"
	o.Manifest, o.Base, o.Image, o.Command = &m2, live, "", nil
	second, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	o2 := Options{Manifest: &m2, JobName: "eval", Namespace: "ml", Image: "img", Command: []string{"w"}}
	want, err := Build(o2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(second.Job, want.Job) {
		t.Errorf("a Job rebuilt from its predecessor differs:\n%s\n---\n%s", toYAML(t, second), toYAML(t, want))
	}
}

func TestBuildErrors(t *testing.T) {
	m := manifest(t, "six.yaml")
	job := func(mut func(j *batchv1.Job)) *batchv1.Job {
		j := &batchv1.Job{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "worker", Image: "img"}}}}}}
		mut(j)
		return j
	}
	nonIndexed := batchv1.NonIndexedCompletion
	tof := batchv1.TerminatingOrFailed
	big := &shards.Manifest{APIVersion: shards.APIVersion, Kind: shards.Kind, Metadata: shards.Metadata{Name: "big"}, Revision: "1"}
	// One shard whose cases alone are more than a ConfigMap holds (a store splits between
	// shards, never inside one).
	var bigCases []string
	for k := 0; k < 40000; k++ {
		bigCases = append(bigCases, fmt.Sprintf("case-%05d-padding-padding", k))
	}
	big.Shards = append(big.Shards, shards.Shard{ID: "s0", Cases: bigCases})
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"no image", Options{Manifest: m, JobName: "j"}, `no image for the worker container "worker": give --image`},
		{"exit code 0", Options{Manifest: m, JobName: "j", Image: "i", InvalidInputExitCode: ptrTo[int32](0)}, "from 1 to 255, not 0"},
		{"exit code 256", Options{Manifest: m, JobName: "j", Image: "i", InvalidInputExitCode: ptrTo[int32](256)}, "from 1 to 255, not 256"},
		{"max failed above shards", Options{Manifest: m, JobName: "j", Image: "i", MaxFailedIndexes: &Budget{Value: 7}}, "--max-failed-indexes 7 is more than the 6 shards"},
		{"reserved env", Options{Manifest: m, JobName: "j", Image: "i", Env: []corev1.EnvVar{{Name: "INDEXED_SHARD_FILE", Value: "x"}}}, "--env INDEXED_SHARD_FILE: kubectl indexed sets INDEXED_SHARD_FILE itself"},
		{"too big", Options{Manifest: big, JobName: "j", Image: "i"}, `shard manifest "big" cannot be stored: the files of index 0 (shard "s0") take 1080026 bytes, more than one ConfigMap holds (921600 bytes)`},
		{"non-indexed", Options{Manifest: m, JobName: "j", BaseSource: "b.yaml", Base: job(func(j *batchv1.Job) { j.Spec.CompletionMode = &nonIndexed })}, `--from-job b.yaml cannot be used: completionMode is "NonIndexed"`},
		{"successPolicy", Options{Manifest: m, JobName: "j", Base: job(func(j *batchv1.Job) { j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{} })}, "successPolicy is set"},
		{"replacement", Options{Manifest: m, JobName: "j", Base: job(func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = &tof })}, `podReplacementPolicy is "TerminatingOrFailed"`},
		{"manual selector", Options{Manifest: m, JobName: "j", Base: job(func(j *batchv1.Job) { j.Spec.ManualSelector = ptrTo(true) })}, "manualSelector is true"},
		{"restart policy", Options{Manifest: m, JobName: "j", Base: job(func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure })}, `restartPolicy is "OnFailure"`},
		{"several problems", Options{Manifest: m, JobName: "j", Base: job(func(j *batchv1.Job) {
			j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{}
			j.Spec.ManualSelector = ptrTo(true)
		})}, "cannot be used:\n  successPolicy is set"},
		{"two containers", Options{Manifest: m, JobName: "j", Base: job(func(j *batchv1.Job) {
			j.Spec.Template.Spec.Containers = []corev1.Container{{Name: "a", Image: "i"}, {Name: "b", Image: "i"}}
		})}, `has 2 containers and none is named "worker": say which one is the worker with --container (one of "a", "b")`},
		{"no such container", Options{Manifest: m, JobName: "j", ContainerName: "x", Base: job(func(*batchv1.Job) {})}, `has no container named "x" (it has "worker")`},
		{"index env", Options{Manifest: m, JobName: "j", Base: job(func(j *batchv1.Job) {
			j.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "JOB_COMPLETION_INDEX", Value: "3"}}
		})}, "sets JOB_COMPLETION_INDEX in the worker container to something other than the completion index"},
		{"volume name", Options{Manifest: m, JobName: "j", Base: job(func(j *batchv1.Job) {
			j.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "indexed-shards", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		})}, `has a volume named "indexed-shards" that is not a ConfigMap`},
		{"mount path", Options{Manifest: m, JobName: "j", Base: job(func(j *batchv1.Job) {
			j.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cfg", MountPath: "/etc/indexed/"}}
		})}, `mounts volume "cfg" at /etc/indexed in container "worker"`},
		{"label conflict", Options{Manifest: m, JobName: "j", Base: job(func(j *batchv1.Job) { j.Labels = map[string]string{"candidate": "model-z"} })}, `sets label "candidate" to "model-z" but the shard manifest sets it to "model-a"`},
		{"too many rules", Options{Manifest: m, JobName: "j", Base: job(func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{}
			for i := 1; i <= 19; i++ {
				j.Spec.PodFailurePolicy.Rules = append(j.Spec.PodFailurePolicy.Rules, batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionCount,
					OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{int32(i)}}})
			}
		})}, "has 19 podFailurePolicy rules; with the 2 kubectl indexed adds that is more than the 20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestBudget(t *testing.T) {
	for in, want := range map[string]string{"none": "none", "": "none", "0": "0", "3": "3", "10%": "10%", "100%": "100%"} {
		b, err := ParseBudget(in)
		if err != nil || b.String() != want {
			t.Errorf("ParseBudget(%q) = %v, %v; want %s", in, b, err, want)
		}
	}
	for _, in := range []string{"-1", "101%", "x", "1.5", "%", "-5%"} {
		if _, err := ParseBudget(in); err == nil {
			t.Errorf("ParseBudget(%q) accepted", in)
		}
	}
	for _, tc := range []struct {
		b     Budget
		total int
		want  *int32
	}{
		{Budget{Unlimited: true}, 8, nil},
		{Budget{Value: 2}, 8, ptrTo[int32](2)},
		{Budget{Percent: true, Value: 10}, 8, ptrTo[int32](0)},
		{Budget{Percent: true, Value: 25}, 8, ptrTo[int32](2)},
		{Budget{Percent: true, Value: 100}, 8, ptrTo[int32](8)},
	} {
		got := tc.b.Resolve(tc.total)
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("%v.Resolve(%d) = %v", tc.b, tc.total, got)
		}
	}
}

func TestDifference(t *testing.T) {
	m := manifest(t, "six.yaml")
	want, err := BuildConfigMap(m, "ml")
	if err != nil {
		t.Fatal(err)
	}
	same := want.DeepCopy()
	same.Labels = nil // labels may differ (someone relabelled it): the content is what counts
	if d := Difference(same, want); d != "" {
		t.Errorf("same content reported as %q", d)
	}
	changed := want.DeepCopy()
	changed.Data["index-1.cases"] = "x\n"
	mutable := want.DeepCopy()
	mutable.Immutable = nil
	extra := want.DeepCopy()
	extra.Data["zzz"] = ""
	missing := want.DeepCopy()
	delete(missing.Data, "manifest.json")
	// Changed data and no immutable flag: the data is named, so NotImmutable means same data.
	changedMutable := changed.DeepCopy()
	changedMutable.Immutable = nil
	for cm, w := range map[*corev1.ConfigMap]string{
		changed:        `its key "index-1.cases" holds different content`,
		mutable:        "it is not immutable",
		extra:          `it has an extra key "zzz"`,
		missing:        `it has no key "manifest.json"`,
		changedMutable: `its key "index-1.cases" holds different content`,
	} {
		if d := Difference(cm, want); d != w {
			t.Errorf("Difference = %q, want %q", d, w)
		}
	}
}

func TestReadBase(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cron := write("cron.yaml", "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  schedule: '* * * * *'\n  jobTemplate:\n    metadata: {labels: {a: b}}\n    spec:\n      template:\n        spec:\n          containers: [{name: w, image: i}]\n")
	j, err := ReadBase(cron, nil)
	if err != nil || j.Labels["a"] != "b" || j.Spec.Template.Spec.Containers[0].Name != "w" {
		t.Errorf("cronjob: %v %v", j, err)
	}
	pod := write("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {x: z}}\nspec:\n  nodeName: n1\n  containers: [{name: w, image: i}]\n")
	j, err = ReadBase(pod, nil)
	if err != nil || j.Spec.Template.Labels["x"] != "z" || j.Spec.Template.Spec.NodeName != "" {
		t.Errorf("pod: %v %v", j, err)
	}
	// Issue 35 (LOW): the nodeName was dropped without a word; the note says so.
	if b, err := ReadBaseFile(pod, nil); err != nil || !strings.Contains(b.Note, `pod "p" ran on node "n1"; its nodeName is left out`) {
		t.Errorf("pod note: %v %+v", err, b)
	}
	for name, tc := range map[string]struct{ content, want string }{
		"svc.yaml":     {"apiVersion: v1\nkind: Service\nmetadata: {name: s}\n", `s is apiVersion "v1" kind "Service": give a Job`},
		"two.yaml":     {"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n", "holds 2 objects"},
		"unknown.yaml": {"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  paralelism: 2\n", `unknown field "spec.paralelism"`},
		"empty.yaml":   {"", "no object found"},
		"bad.yaml":     {"apiVersion: batch/v1\nkind: Job\nspec: [\n", "invalid YAML"},
	} {
		_, err := ReadBase(write(name, tc.content), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}

// TestBuildFromOwnJobKeepsItsChoices: a Job made with --container and --invalid-input-exit-code
// given back as --from-job keeps both without the flags, and carries no second FailIndex rule.
func TestBuildFromOwnJobKeepsItsChoices(t *testing.T) {
	m := manifest(t, "six.yaml")
	first, err := Build(Options{Manifest: m, JobName: "eval", Image: "img", ContainerName: "runner", InvalidInputExitCode: ptrTo[int32](65)})
	if err != nil {
		t.Fatal(err)
	}
	base := first.Job.DeepCopy()
	base.Spec.Template.Spec.Containers = append(base.Spec.Template.Spec.Containers, corev1.Container{Name: "sidecar", Image: "s"})
	again, err := Build(Options{Manifest: m, JobName: "eval", Base: base})
	if err != nil {
		t.Fatal(err)
	}
	rules := again.Job.Spec.PodFailurePolicy.Rules
	if len(rules) != 2 || rules[1].OnExitCodes.Values[0] != 65 || *rules[1].OnExitCodes.ContainerName != "runner" ||
		again.Job.Annotations[AnnotationInvalidInputExitCode] != "65" || again.Job.Annotations[AnnotationWorkerContainer] != "runner" {
		t.Errorf("rules %+v annotations %v", rules, again.Job.Annotations)
	}
	// A flag still wins.
	flagged, err := Build(Options{Manifest: m, JobName: "eval", Base: base, InvalidInputExitCode: ptrTo[int32](43)})
	if err != nil {
		t.Fatal(err)
	}
	if r := flagged.Job.Spec.PodFailurePolicy.Rules; r[1].OnExitCodes.Values[0] != 43 || len(r) != 3 {
		t.Errorf("with the flag: %+v", r)
	}
	bad := base.DeepCopy()
	bad.Annotations[AnnotationInvalidInputExitCode] = "x"
	if _, err := Build(Options{Manifest: m, JobName: "eval", Base: bad}); err == nil || !strings.Contains(err.Error(), `is "x", not an exit code`) {
		t.Errorf("err = %v", err)
	}
}

func TestDifferenceComparesBinaryData(t *testing.T) {
	yes := true
	want := &corev1.ConfigMap{Immutable: &yes, Data: map[string]string{"a": "1"}, BinaryData: map[string][]byte{"ids.gz": {1, 2}}}
	same := want.DeepCopy()
	if d := Difference(same, want); d != "" {
		t.Errorf("identical: %q", d)
	}
	other := want.DeepCopy()
	other.BinaryData["ids.gz"] = []byte{1, 3}
	if d := Difference(other, want); !strings.Contains(d, `binaryData key "ids.gz"`) {
		t.Errorf("different binaryData: %q", d)
	}
	extra := want.DeepCopy()
	extra.BinaryData["x"] = nil
	if d := Difference(extra, want); d != "it has extra binaryData" {
		t.Errorf("extra binaryData: %q", d)
	}
}

// TestBuildSplitStore: 200,000 case IDs of 20 bytes in 200 shards take more than one
// ConfigMap. The golden file holds the Job and, for each ConfigMap, its name, immutability,
// keys and size (the data itself is checked below, not copied into the golden file): the
// worker's env has no INDEXED_MANIFEST_FILE and the shard volume projects every ConfigMap.
func TestBuildSplitStore(t *testing.T) {
	m := &shards.Manifest{APIVersion: shards.APIVersion, Kind: shards.Kind, Metadata: shards.Metadata{Name: "wide"}, Revision: "1"}
	for i := range 200 {
		s := shards.Shard{ID: fmt.Sprintf("s-%03d", i)}
		for k := range 1000 {
			s.Cases = append(s.Cases, fmt.Sprintf("eval/case-%010d", k*200+i))
		}
		m.Shards = append(m.Shards, s)
	}
	objs, err := Build(Options{Manifest: m, JobName: "wide", Namespace: "ml", Image: "i"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	data := map[string]string{}
	for _, cm := range objs.ConfigMaps() {
		keys := slices.Sorted(maps.Keys(cm.Data))
		size := 0
		for k, v := range cm.Data {
			size += len(k) + len(v)
			data[k] = v
		}
		fmt.Fprintf(&buf, "# configmap %s immutable=%v keys=%d (%s .. %s) bytes=%d binaryData=%d\n",
			cm.Name, *cm.Immutable, len(keys), keys[0], keys[len(keys)-1], size, len(cm.BinaryData))
	}
	b, err := yaml.Marshal(objs.Job)
	if err != nil {
		t.Fatal(err)
	}
	buf.Write(b)
	testutil.Golden(t, filepath.Join("testdata", "golden", "split-store.yaml"), buf.Bytes())
	for i, s := range m.Shards {
		if data[shards.CasesKey(i)] != shards.CasesText(s.Cases) || data[shards.IDKey(i)] != s.ID+"\n" {
			t.Fatalf("index %d's files are not shard %s's", i, s.ID)
		}
	}
	if _, ok := data[shards.KeyManifest]; ok {
		t.Error("manifest.json stored although it does not fit")
	}
}

// TestBuildAdoptsAJob: a --from-job Job whose completions or global backoffLimit disagree with
// the manifest or the safe defaults is adopted (both replaced, and a note says so) instead of
// refused, as the seed fixture's Job applied with kubectl apply (completions 10 for a 6-shard
// manifest here, backoffLimit 6). Before, create refused it.
func TestBuildAdoptsAJob(t *testing.T) {
	m := manifest(t, "six.yaml")
	base := &batchv1.Job{Spec: batchv1.JobSpec{Completions: ptrTo[int32](10), BackoffLimit: ptrTo[int32](6),
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "worker", Image: "w:1"}}}}}}
	objs, err := Build(Options{Manifest: m, JobName: "j", Base: base, BaseSource: "job.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	s := objs.Job.Spec
	if int(*s.Completions) != len(m.Shards) || s.BackoffLimit != nil || *s.BackoffLimitPerIndex != DefaultBackoffLimitPerIndex {
		t.Errorf("spec: completions %d backoffLimit %v backoffLimitPerIndex %d", *s.Completions, s.BackoffLimit, *s.BackoffLimitPerIndex)
	}
	got := strings.Join(objs.Notes, "\n")
	for _, want := range []string{"--from-job job.yaml sets completions 10; the manifest has " + strconv.Itoa(len(m.Shards)) + " shards",
		"sets a global backoffLimit 6", "backoffLimitPerIndex 1 (create's default)"} {
		if !strings.Contains(got, want) {
			t.Errorf("notes %q lack %q", got, want)
		}
	}
	// A Job that already agrees gets no note.
	base.Spec.Completions, base.Spec.BackoffLimit = nil, nil
	if objs, err := Build(Options{Manifest: m, JobName: "j", Base: base}); err != nil || len(objs.Notes) != 0 {
		t.Errorf("notes %v %v", objs, err)
	}
}

// BuildConfigMap returns the immutable ConfigMap holding m in namespace, for a manifest whose
// store fits in one ConfigMap (an error otherwise: use BuildConfigMaps).
func BuildConfigMap(m *shards.Manifest, namespace string) (*corev1.ConfigMap, error) {
	cms, _, err := BuildConfigMaps(m, namespace)
	if err != nil {
		return nil, err
	}
	if len(cms) > 1 {
		return nil, fmt.Errorf("shard manifest %q takes %d ConfigMaps", m.Metadata.Name, len(cms))
	}
	return cms[0], nil
}
