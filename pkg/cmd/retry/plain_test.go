package retry

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/reconcile"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// plainSeed is the seed fixture's Job as captured from a real control plane (applied with
// kubectl apply, not made by create: its worker reads JOB_COMPLETION_INDEX), in namespace ml,
// plus, in its template, a downward-API env var and volume item reading the completion index.
func plainSeed(t *testing.T) *batchv1.Job {
	t.Helper()
	job, _ := testutil.Fixture(t, "seed")
	job.Namespace = "ml"
	label := "metadata.labels['" + batchv1.JobCompletionIndexAnnotation + "']"
	ann := "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']"
	c := &job.Spec.Template.Spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: "SHARD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: label}}})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "idx", MountPath: "/idx"})
	job.Spec.Template.Spec.Volumes = append(job.Spec.Template.Spec.Volumes, corev1.Volume{Name: "idx", VolumeSource: corev1.VolumeSource{
		DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
			{Path: "index", FieldRef: &corev1.ObjectFieldSelector{FieldPath: ann}},
			{Path: "name", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}},
		}}}})
	return job
}

// decodeJobs reads a v1 List of Jobs printed with -o json.
func decodeJobs(t *testing.T, out string) []*batchv1.Job {
	t.Helper()
	return listJobs(t, out, false)
}

// listJobs reads the Jobs of a v1 List printed with -o json; another kind of item fails the
// test unless others is true (a create-made retry prints its ConfigMap too).
func listJobs(t *testing.T, out string, others bool) []*batchv1.Job {
	t.Helper()
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("not a List: %v\n%.2000s", err, out)
	}
	var jobs []*batchv1.Job
	for _, raw := range l.Items {
		j := &batchv1.Job{}
		if err := json.Unmarshal(raw, j); err != nil || j.Kind != "Job" {
			if err == nil && others {
				continue
			}
			t.Fatalf("not a Job: %v %s", err, raw)
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// seen is the completion index each Job's worker sees: JOB_COMPLETION_INDEX of its container
// (the controller adds it only when the container does not define it), checked to agree with
// every other place the worker can read it from.
func seen(t *testing.T, j *batchv1.Job) string {
	t.Helper()
	tmpl := j.Spec.Template
	var v string
	for _, e := range tmpl.Spec.Containers[0].Env {
		switch e.Name {
		case "JOB_COMPLETION_INDEX":
			if e.ValueFrom != nil {
				t.Fatalf("job %s: JOB_COMPLETION_INDEX is not pinned: %+v", j.Name, e)
			}
			v = e.Value
		case "SHARD":
			if e.ValueFrom != nil || e.Value == "" {
				t.Fatalf("job %s: SHARD still reads the retry's own index: %+v", j.Name, e)
			}
		}
	}
	for _, e := range tmpl.Spec.Containers[0].Env {
		if e.Name == "SHARD" && e.Value != v {
			t.Errorf("job %s: SHARD %q, JOB_COMPLETION_INDEX %q", j.Name, e.Value, v)
		}
	}
	for _, vol := range tmpl.Spec.Volumes {
		if vol.DownwardAPI == nil {
			continue
		}
		for _, it := range vol.DownwardAPI.Items {
			switch it.Path {
			case "index":
				if it.FieldRef.FieldPath != "metadata.annotations['"+scaffold.AnnotationPinnedIndex+"']" || tmpl.Annotations[scaffold.AnnotationPinnedIndex] != v {
					t.Errorf("job %s: the downward-API item reads %s (%q)", j.Name, it.FieldRef.FieldPath, tmpl.Annotations[scaffold.AnnotationPinnedIndex])
				}
			case "name":
				if it.FieldRef.FieldPath != "metadata.name" {
					t.Errorf("job %s: an unrelated item changed: %s", j.Name, it.FieldRef.FieldPath)
				}
			}
		}
	}
	return v
}

// TestRetryPlainJob: the seed fixture (a Job kubectl applied, not made by create) is retried:
// one Job per failed index, whose worker sees exactly its original index, with the image and
// command unchanged and the lineage keys of any retry. Before, retry refused every such Job.
func TestRetryPlainJob(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--indexes", "failed"}, []string{"2", "4"}},
		{nil, []string{"2", "4"}},
		{[]string{"--indexes", "4"}, []string{"4"}},
	} {
		parent := plainSeed(t)
		c := fake.NewClientset(parent)
		r := run(t, c, append([]string{"seed", "--dry-run=client", "-o", "json"}, tc.args...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d %v\n%s", tc.args, r.code, r.err, r.stderr)
		}
		jobs := decodeJobs(t, r.stdout)
		var got []string
		for _, j := range jobs {
			idx := seen(t, j)
			got = append(got, idx)
			if j.Name != "seed-r1-"+idx || *j.Spec.Completions != 1 || *j.Spec.Parallelism != 1 ||
				*j.Spec.CompletionMode != batchv1.IndexedCompletion || j.Spec.Selector != nil {
				t.Errorf("job %s: %+v", j.Name, j.Spec)
			}
			c0 := j.Spec.Template.Spec.Containers[0]
			if c0.Image != "shard-worker:1.0" || strings.Join(c0.Command, " ") != "/bin/process-shard" || len(c0.Args) != 0 {
				t.Errorf("job %s: the worker changed: %s %v %v", j.Name, c0.Image, c0.Command, c0.Args)
			}
			l, ok, err := lineage.Read(j)
			if !ok || err != nil || l.RootJob != "seed" || l.RootJobUID != string(parent.UID) || l.Attempt != 1 || l.Original.String() != idx {
				t.Errorf("job %s: lineage %+v %v %v", j.Name, l, ok, err)
			}
			if j.Labels[shards.LabelRootJob] != "seed" || j.Annotations[lineage.AnnotationRetrySet] == "" {
				t.Errorf("job %s: labels %v", j.Name, j.Labels)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%v: workers see %v, want %v", tc.args, got, tc.want)
		}
		for _, a := range c.Actions() {
			if a.GetVerb() != "get" && a.GetVerb() != "list" {
				t.Errorf("a client dry run sent %s %s", a.GetVerb(), a.GetResource().Resource)
			}
		}
	}
}

// TestRetryPlainFaultHalfway: the API server refuses the second Job; the first exists. The
// same command run again keeps it and creates the rest: one Job per index, never two.
func TestRetryPlainFaultHalfway(t *testing.T) {
	ctx := context.Background()
	parent := plainSeed(t)
	c := fake.NewClientset(parent)
	fail := true
	c.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if j := a.(k8stesting.CreateAction).GetObject().(*batchv1.Job); j.Name == "seed-r1-4" && fail {
			fail = false
			return true, nil, errors.New("etcdserver: request timed out")
		}
		return false, nil, nil
	})
	r := run(t, c, "seed")
	if r.code != 4 || !strings.Contains(r.err.Error(), "run the same command again") || !strings.Contains(r.err.Error(), "seed-r1-4") {
		t.Fatalf("exit %d %v", r.code, r.err)
	}
	r = run(t, c, "seed")
	if r.code != 0 || !strings.Contains(r.stdout, "job.batch/seed-r1-2 unchanged") || !strings.Contains(r.stdout, "job.batch/seed-r1-4 created") {
		t.Fatalf("second run: exit %d %v\n%s%s", r.code, r.err, r.stdout, r.stderr)
	}
	list, _ := c.BatchV1().Jobs("ml").List(ctx, metav1.ListOptions{})
	var names []string
	for _, j := range list.Items {
		names = append(names, j.Name)
	}
	if strings.Join(names, ",") != "seed,seed-r1-2,seed-r1-4" {
		t.Errorf("jobs %v", names)
	}
	// Done: a third run finds the same retry made, creates nothing and says so (issue 35 item 6:
	// it is not another retry of the same shards).
	if r := run(t, c, "seed"); r.code != 0 || !strings.Contains(r.stdout, "job.batch/seed-r1-2 unchanged") || !strings.Contains(r.stderr, "already exist") {
		t.Errorf("third run: exit %d %v\n%s%s", r.code, r.err, r.stdout, r.stderr)
	}
}

// TestRetryPlainLimit: more indexes than MaxPlainRetryJobs are refused before any request
// that creates, with the way out.
func TestRetryPlainLimit(t *testing.T) {
	parent := plainSeed(t)
	parent.Spec.Completions = ptr(int32(5000))
	parent.Status.CompletedIndexes = ""
	parent.Status.FailedIndexes = ptr("0-4999")
	c := fake.NewClientset(parent)
	r := run(t, c, "seed")
	if r.code != 2 || !strings.Contains(r.err.Error(), "over the limit of 1000") || !strings.Contains(r.err.Error(), "--indexes 0-999") {
		t.Fatalf("exit %d %v", r.code, r.err)
	}
	for _, a := range c.Actions() {
		if a.GetVerb() == "create" {
			t.Error("created something")
		}
	}
}

// TestRetryOneAtATime: while a retry of the lineage still runs some of the same root indexes,
// another retry of them is refused (exit 2) unless --force; four retries at once make one Job.
// Before, a second retry made seed-r2 without a word, running shards 2 and 4 twice at once.
func TestRetryOneAtATime(t *testing.T) {
	ctx := context.Background()
	job, cm, _ := seed(t)
	c := fake.NewClientset(job, cm)
	if r := run(t, c, "seed"); r.code != 0 {
		t.Fatalf("first retry: exit %d %v", r.code, r.err)
	}
	// Another retry of some of the same shards (the same retry run again is not another one).
	r := run(t, c, "seed", "--indexes", "2,4,5")
	if r.code != 2 || !strings.Contains(r.err.Error(), `one retry at a time per shard: job "seed-r1" (attempt 1) still runs root indexes 2,4`) ||
		!strings.Contains(r.err.Error(), "--force") {
		t.Fatalf("second retry: exit %d %v", r.code, r.err)
	}
	if r := run(t, c, "seed", "--indexes", "0"); r.code != 0 {
		t.Errorf("a retry of other shards: exit %d %v", r.code, r.err)
	}
	if r := run(t, c, "seed", "--force"); r.code != 0 || !strings.Contains(r.stdout, "seed-r3") {
		t.Errorf("--force: exit %d %v %s", r.code, r.err, r.stdout)
	}

	// Concurrent: four identical retries of a fresh run.
	job, cm, _ = seed(t)
	c = fake.NewClientset(job, cm)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { run(t, c, "seed") })
	}
	wg.Wait()
	list, _ := c.BatchV1().Jobs("ml").List(ctx, metav1.ListOptions{})
	if len(list.Items) != 2 {
		var names []string
		for _, j := range list.Items {
			names = append(names, j.Name)
		}
		t.Errorf("four concurrent retries made %v", names)
	}
}

// TestRetryOffline: from the saved seed Job and its pods (test/fixtures/seed, captured from a
// real control plane), with no cluster: --indexes failed runs exactly {4}, as index 2 was
// failed by the Job's own FailIndex rule (exit 42) and a plain re-run is not offered for it
// (issue 35 item 9; before, {2, 4}); naming them, --indexes 2,4, runs both, each once.
func TestRetryOffline(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "test", "fixtures", "seed")
	for _, tc := range []struct {
		indexes string
		want    string
	}{{"failed", "4"}, {"2,4", "2,4"}, {"4", "4"}} {
		c := fake.NewClientset()
		c.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
			t.Errorf("offline retry sent %s %s", a.GetVerb(), a.GetResource().Resource)
			return true, nil, errors.New("no cluster")
		})
		io := cmdtest.NewIO("")
		o := NewOptions(io.Streams())
		o.Client = c
		r := io.Run(NewCmdRetryWithOptions(nil, o), "-f", filepath.Join(dir, "job.json"), "--pods-file", filepath.Join(dir, "pods.json"),
			"--indexes", tc.indexes, "--dry-run=client", "-o", "json")
		if r.Code != 0 {
			t.Fatalf("exit %d %v\n%s", r.Code, r.Err, r.Stderr)
		}
		var got []string
		for _, j := range decodeJobs(t, r.Stdout) {
			got = append(got, seen(t, j))
			if j.Namespace != "seed" {
				t.Errorf("namespace %q", j.Namespace)
			}
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("--indexes %s: workers see %v, want %s", tc.indexes, got, tc.want)
		}
		left := strings.Contains(r.Stderr, `index 2 of job "seed" was failed by its own podFailurePolicy, rule 0 (FailIndex: exit code 42 in container worker)`) &&
			strings.Contains(r.Stderr, "--indexes 2,4")
		if left != (tc.indexes == "failed") {
			t.Errorf("--indexes %s: the warning on index 2 is %v:\n%s", tc.indexes, left, r.Stderr)
		}
	}
	// Pods of another Job: a usage error naming them, as status -f gives (gather.ForeignPods).
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.Client = fake.NewClientset()
	r := io.Run(NewCmdRetryWithOptions(nil, o), "-f", filepath.Join(dir, "job.json"), "--pods-file", filepath.Join(dir, "..", "running", "pods.json"), "--dry-run=client", "-o", "json")
	if r.Code != 2 || !strings.Contains(r.Stderr, `of the pods given belong to another Job, not to Job "seed"`) {
		t.Errorf("pods of another Job: exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
	// Without --dry-run=client, and with a Job name as well: usage errors.
	for _, args := range [][]string{
		{"-f", filepath.Join(dir, "job.json")},
		{"seed", "-f", filepath.Join(dir, "job.json"), "--dry-run=client"},
		{"seed", "--pods-file", filepath.Join(dir, "pods.json")},
		{"-f", filepath.Join(dir, "nope.json"), "--dry-run=client"},
	} {
		io := cmdtest.NewIO("")
		o := NewOptions(io.Streams())
		o.Client = fake.NewClientset()
		if r := io.Run(NewCmdRetryWithOptions(nil, o), args...); r.Code != 2 {
			t.Errorf("%v: exit %d %v", args, r.Code, r.Err)
		}
	}
}

// TestRetryFromReconcile: the shards a reconcile report calls missing, partial, rejected or
// not evaluated are re-run, those whose pods succeeded included; a report of another manifest
// or Job is refused, and an unreadable one is a usage error before any request.
func TestRetryFromReconcile(t *testing.T) {
	job, cm, m := seed(t)
	dir := t.TempDir()
	write := func(name string, rep reconcile.Report) string {
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rep := reconcile.Report{APIVersion: reconcile.APIVersion, Kind: reconcile.Kind,
		Manifest: contract.ManifestRef{Name: "seed-eval", Revision: string(m.Revision), Hash: m.Hash()},
		Jobs:     []reconcile.LineageJob{{JobRef: contract.JobRef{Name: "seed", UID: "uid-seed"}}}}
	for i, st := range []reconcile.State{reconcile.StateComplete, reconcile.StatePartial, reconcile.StateFailed,
		reconcile.StateRejected, reconcile.StateNotEvaluated, reconcile.StateComplete} {
		rep.Shards = append(rep.Shards, reconcile.ShardReport{Index: i, ShardID: m.Shards[i].ID, State: st})
	}
	good := write("good.json", rep)
	c := fake.NewClientset(job, cm)
	r := run(t, c, "seed", "--from-reconcile", good, "--dry-run=client", "-o", "yaml")
	if r.code != 0 {
		t.Fatalf("exit %d %v\n%s", r.code, r.err, r.stderr)
	}
	_, rjob := decodeList(t, r.stdout)
	if got := rjob.Annotations[shards.AnnotationOriginalIndexes]; got != "1,3,4" {
		t.Errorf("re-runs root indexes %q, want 1,3,4 (partial, rejected, not evaluated)", got)
	}
	if !strings.Contains(r.stderr, "already succeeded; they run again as asked") {
		t.Errorf("no word on re-running shards whose pods succeeded: %s", r.stderr)
	}

	other := rep
	other.Manifest.Hash = "sha256:0000"
	otherJob := rep
	otherJob.Jobs = []reconcile.LineageJob{{JobRef: contract.JobRef{Name: "seed", UID: "uid-other"}}}
	// Issue 35 (LOW): an index or a state reconcile never writes was read around silently.
	withShard := func(sh reconcile.ShardReport) reconcile.Report {
		r := rep
		r.Shards = append(slices.Clone(rep.Shards), sh)
		return r
	}
	negative := withShard(reconcile.ShardReport{Index: -1, ShardID: "x", State: reconcile.StateMissing})
	beyond := withShard(reconcile.ShardReport{Index: 6, ShardID: "y", State: reconcile.StateMissing})
	unknown := withShard(reconcile.ShardReport{Index: 5, ShardID: m.Shards[5].ID, State: "lost"})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"seed", "--from-reconcile", write("other.json", other)}, "manifest hash"},
		{[]string{"seed", "--from-reconcile", write("otherjob.json", otherJob)}, "UID uid-other"},
		{[]string{"seed", "--from-reconcile", good, "--indexes", "2"}, "not both"},
		{[]string{"seed", "--from-reconcile", filepath.Join(dir, "nope.json")}, "--from-reconcile"},
		{[]string{"seed", "--from-reconcile", write("status.json", reconcile.Report{Kind: "IndexedJobStatus"})}, "ReconcileReport"},
		{[]string{"seed", "--from-reconcile", write("negative.json", negative)}, `shard "x" has index -1, but job "seed" has indexes 0 to 5`},
		{[]string{"seed", "--from-reconcile", write("beyond.json", beyond)}, `shard "y" has index 6`},
		{[]string{"seed", "--from-reconcile", write("unknown.json", unknown)}, `has state "lost", not one of reconcile's (complete, failed,`},
	} {
		c := fake.NewClientset(job, cm)
		r := run(t, c, tc.args...)
		if r.code != 2 || r.err == nil || !strings.Contains(r.err.Error(), tc.want) {
			t.Errorf("%v: exit %d %v, want %q", tc.args[2:], r.code, r.err, tc.want)
		}
		for _, a := range c.Actions() {
			if a.GetVerb() == "create" {
				t.Errorf("%v: created %s", tc.args[2:], a.GetResource().Resource)
			}
		}
	}
}

// A plain retry of one index saves "the 1 Job", not "the 1 Jobs"; of two, "the 2 Jobs".
func TestRetryPlainSaveWords(t *testing.T) {
	for indexes, want := range map[string]string{"4": "saved the 1 Job to ", "2,4": "saved the 2 Jobs to "} {
		c := fake.NewClientset(plainSeed(t))
		path := filepath.Join(t.TempDir(), "jobs.yaml")
		r := run(t, c, "seed", "--indexes", indexes, "--dry-run=client", "--save", path)
		if r.code != 0 || !strings.Contains(r.stderr, want+path) {
			t.Errorf("--indexes %s: exit %d %v\n%s", indexes, r.code, r.err, r.stderr)
		}
	}
}

// Issue 35 item 9, live: the seed Job as kubectl applied it (examples/seed-worker.yaml, captured
// in test/fixtures/seed) with its pods. retry seed re-runs index 4 only, which used up its
// backoffLimitPerIndex, and says why not 2, which its FailIndex rule failed (exit 42);
// --indexes 2,4 re-runs both, deliberately. Before, retry seed re-ran both.
func TestRetryRespectsThePodFailurePolicy(t *testing.T) {
	pods, err := source.ReadPods(filepath.Join("..", "..", "..", "test", "fixtures", "seed", "pods.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	objs := []runtime.Object{plainSeed(t)}
	for i := range pods {
		pods[i].Namespace = "ml"
		objs = append(objs, &pods[i])
	}
	for _, tc := range []struct {
		args []string
		want string
	}{{nil, "seed-r1-4"}, {[]string{"--indexes", "2,4"}, "seed-r1-2,seed-r1-4"}} {
		c := fake.NewClientset(objs...)
		r := run(t, c, append([]string{"seed"}, tc.args...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d %v\n%s", tc.args, r.code, r.err, r.stderr)
		}
		var made []string
		for _, a := range c.Actions() {
			if a.GetVerb() == "create" {
				made = append(made, a.(k8stesting.CreateAction).GetObject().(*batchv1.Job).Name)
			}
		}
		if strings.Join(made, ",") != tc.want {
			t.Errorf("%v: created %v, want %s", tc.args, made, tc.want)
		}
		why := strings.Contains(r.stderr, `index 2 of job "seed" was failed by its own podFailurePolicy, rule 0 (FailIndex: exit code 42 in container worker)`)
		if why != (tc.args == nil) {
			t.Errorf("%v: the warning on index 2 is %v:\n%s", tc.args, why, r.stderr)
		}
	}
}

// TestRetryPlainReadsBackALostCreate: the POST of seed-r1-2 reached the API server, which
// created the Job, and its answer was lost. retry GETs it before saying what exists (as create
// does, issue 35, item 3: it said "seed-r1-2, seed-r1-4 were not created"), and goes on.
func TestRetryPlainReadsBackALostCreate(t *testing.T) {
	c := fake.NewClientset(plainSeed(t))
	lostOnce(c, "seed-r1-2", true, &url.Error{Op: "Post", URL: "https://127.0.0.1:6443/apis/batch/v1/namespaces/ml/jobs", Err: io.EOF})
	r := run(t, c, "seed")
	if r.code != 0 || !strings.Contains(r.stderr, `creating job "seed-r1-2" was lost`) || !strings.Contains(r.stderr, "a GET shows the Job exists") ||
		!strings.Contains(r.stdout, "job.batch/seed-r1-2 created") || !strings.Contains(r.stdout, "job.batch/seed-r1-4 created") {
		t.Errorf("carried out: exit %d %v\n%s%s", r.code, r.err, r.stdout, r.stderr)
	}

	// Not carried out: a GET finds none, and the message says so, with what to do.
	c = fake.NewClientset(plainSeed(t))
	lostOnce(c, "seed-r1-4", false, context.DeadlineExceeded)
	r = run(t, c, "seed")
	if msg := errText(r.err); r.code != 4 || !strings.Contains(msg, `job "seed-r1-4" was not created: a GET at`) || !strings.Contains(msg, "1 Job of this retry exists (seed-r1-2 ...) but seed-r1-4 was not created") {
		t.Errorf("not carried out: exit %d\n%s", r.code, msg)
	}
}

// TestRetryPlainSaveAfterInterrupt: SIGINT while the last Job's POST is in flight, carried
// out: every Job exists, so --save holds them, and the exit code is 130 (issue 35, item 4).
// Interrupted earlier, the message says that --save was not written.
func TestRetryPlainSaveAfterInterrupt(t *testing.T) {
	for _, tc := range []struct {
		job      string
		wantSave bool
	}{{"seed-r1-4", true}, {"seed-r1-2", false}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		c := fake.NewClientset(plainSeed(t))
		c.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
			j := a.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
			if j.Name != tc.job {
				return false, nil, nil
			}
			if err := c.Tracker().Create(a.GetResource(), j, a.GetNamespace()); err != nil {
				return true, nil, err
			}
			cancel(&exitcode.Interrupt{Signal: os.Interrupt})
			return true, nil, context.Canceled
		})
		save := filepath.Join(t.TempDir(), "jobs.yaml")
		cio := cmdtest.NewIO("")
		o := NewOptions(cio.Streams())
		o.Namespace, o.Client = "ml", c
		r := cio.RunContext(ctx, NewCmdRetryWithOptions(nil, o), "seed", "--save", save)
		_, err := os.Stat(save)
		if r.Code != 130 || (err == nil) != tc.wantSave {
			t.Errorf("%s: exit %d, saved %v\n%s", tc.job, r.Code, err == nil, r.Stderr)
		}
		if tc.wantSave && !strings.Contains(r.Stderr, "saved the 2 Jobs to "+save) {
			t.Errorf("%s: %s", tc.job, r.Stderr)
		}
		if !tc.wantSave && !strings.Contains(r.Stderr, "--save "+save+" was not written") {
			t.Errorf("%s: says nothing of --save:\n%s", tc.job, r.Stderr)
		}
	}
}

// lostOnce makes the first create of Job name fail with err; carry: the server stored it.
func lostOnce(c *fake.Clientset, name string, carry bool, err error) {
	done := false
	c.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		j := a.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
		if j.Name != name || done {
			return false, nil, nil
		}
		done = true
		if carry {
			if e := c.Tracker().Create(a.GetResource(), j, a.GetNamespace()); e != nil {
				return true, nil, e
			}
		}
		return true, nil, err
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
