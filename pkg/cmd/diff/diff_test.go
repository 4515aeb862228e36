package diff

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobdiff"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// manifestJob is the desired Job as a user writes it.
func manifestJob() *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "eval", Namespace: "ns"},
		Spec: batchv1.JobSpec{
			CompletionMode: ptr.To(batchv1.IndexedCompletion),
			Completions:    ptr.To[int32](6), Parallelism: ptr.To[int32](2),
			BackoffLimitPerIndex: ptr.To[int32](1), MaxFailedIndexes: ptr.To[int32](2),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "worker", Image: "busybox:1.36"}},
			}},
		},
	}
}

// stored is the Job as the server returns it: defaulted, with generated labels and a status.
func stored(m *batchv1.Job) *batchv1.Job {
	j := m.DeepCopy()
	jobspec.SetDefaultsJob(j)
	j.UID = types.UID("uid-eval")
	j.ResourceVersion = "7"
	if j.Spec.Template.Labels == nil {
		j.Spec.Template.Labels = map[string]string{}
	}
	if len(j.Labels) == 0 {
		j.Labels = j.Spec.Template.Labels
	}
	for k, v := range map[string]string{
		"batch.kubernetes.io/controller-uid": "uid-eval", "controller-uid": "uid-eval",
		"batch.kubernetes.io/job-name": j.Name, "job-name": j.Name,
	} {
		j.Spec.Template.Labels[k] = v
	}
	j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "uid-eval"}}
	j.Status = batchv1.JobStatus{StartTime: &metav1.Time{Time: t0.Add(-time.Minute)}, Active: 2, Ready: ptr.To[int32](2), Terminating: ptr.To[int32](0), FailedIndexes: ptr.To("")}
	return j
}

type result struct {
	stdout, stderr string
	code           int
}

// run executes diff in-process with the namespace "ns" given explicitly (as with -n ns).
func run(t *testing.T, client *fake.Clientset, stdin string, args ...string) result {
	t.Helper()
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	return runWith(t, f, client, stdin, args...)
}

func runWith(t *testing.T, f *cmdtesting.TestFactory, client *fake.Clientset, stdin string, args ...string) result {
	t.Helper()
	io := cmdtest.NewIO(stdin)
	o := testOptions(io, client)
	r := io.Run(NewCmdDiffWithOptions(f, o), args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

// testOptions are the options every test runs diff with: io's streams, client when one is
// given (else the factory's), and the clock fixed at t0.
func testOptions(io *cmdtest.IO, client *fake.Clientset) *Options {
	o := NewOptions(io.Streams())
	if client != nil {
		o.Client = client
	}
	o.Clock = testingclock.NewFakePassiveClock(t0)
	return o
}

func writeYAML(t *testing.T, name string, objs ...any) string {
	t.Helper()
	var docs []string
	for _, o := range objs {
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNoDifferences(t *testing.T) {
	client := fake.NewClientset(stored(manifestJob()))
	desired := writeYAML(t, "job.yaml", manifestJob())
	r := run(t, client, "", "eval", "-f", desired)
	if r.code != 0 || !strings.Contains(r.stdout, "No differences") || r.stderr != "" {
		t.Errorf("code %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// diff only reads, and with no new Job in the plan looks up no name for one: one GET.
	if acts := client.Actions(); len(acts) != 1 || acts[0].GetVerb() != "get" {
		t.Errorf("actions %v", acts)
	}
	// The Job name comes from the manifest.
	if r := run(t, client, "", "-f", desired); r.code != 0 {
		t.Errorf("name from the manifest: code %d: %s", r.code, r.stderr)
	}
}

func TestDifferencesExitOne(t *testing.T) {
	client := fake.NewClientset(stored(manifestJob()))
	m := manifestJob()
	m.Spec.Parallelism = ptr.To[int32](4)
	m.Spec.BackoffLimitPerIndex = ptr.To[int32](3)
	r := run(t, client, "", "eval", "-f", writeYAML(t, "job.yaml", m))
	if r.code != exitcode.Findings {
		t.Fatalf("code %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"~ spec.parallelism", "patchable live", "~ spec.backoffLimitPerIndex", "needs a new Job",
		`kubectl patch job eval -n ns --type=merge -p '{"spec":{"parallelism":4}}'`, "Plan:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	// diff only reads: GETs of the Job and of the names it suggests for a new Job.
	for _, a := range client.Actions() {
		if a.GetVerb() != "get" {
			t.Errorf("actions %v", client.Actions())
		}
	}
}

// TestNewNameSkipsTakenNames: the plan's new Job gets a name no Job has (eval-2 is taken here),
// so following the plan does not hit AlreadyExists; the command renames the desired manifest.
func TestNewNameSkipsTakenNames(t *testing.T) {
	taken := stored(manifestJob())
	taken.Name = "eval-2"
	client := fake.NewClientset(stored(manifestJob()), taken)
	m := manifestJob()
	m.Spec.Template.Spec.Containers[0].Image = "busybox:1.37"
	desired := writeYAML(t, "job.yaml", m)
	r := run(t, client, "", "eval", "-f", desired)
	want := `kubectl patch --local -f ` + desired + ` --type=merge -p '{"metadata":{"name":"eval-3"}}' -o yaml | kubectl create -f - -n ns`
	if r.code != exitcode.Findings || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "kubectl create -f "+desired) {
		t.Errorf("code %d, want the create command\n%s\nstdout:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}

func TestJSONReport(t *testing.T) {
	client := fake.NewClientset(stored(manifestJob()))
	m := manifestJob()
	m.Spec.Parallelism = ptr.To[int32](4)
	for _, format := range []string{"json", "yaml"} {
		r := run(t, client, "", "eval", "-f", writeYAML(t, "job.yaml", m), "-o", format)
		if r.code != 1 {
			t.Fatalf("%s: code %d: %s", format, r.code, r.stderr)
		}
		var rep map[string]any
		if err := yaml.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", format, err, r.stdout)
		}
		if rep["apiVersion"] != "indexed.kubectl.io/v1alpha1" || rep["kind"] != "JobDiff" {
			t.Errorf("%s: apiVersion %v kind %v", format, rep["apiVersion"], rep["kind"])
		}
		diffs, _ := rep["differences"].([]any)
		if len(diffs) != 1 {
			t.Fatalf("%s: differences %v", format, rep["differences"])
		}
		d := diffs[0].(map[string]any)
		if d["path"] != "spec.parallelism" || d["class"] != "Live" || d["holdsNow"] != true ||
			fmt.Sprint(d["live"]) != "2" || fmt.Sprint(d["desired"]) != "4" || d["change"] != "change" {
			t.Errorf("%s: difference %v", format, d)
		}
	}
}

// TestDesiredFromCreateList: the List create --dry-run=client -o yaml prints (ConfigMap and
// Job), from stdin.
func TestDesiredFromCreateList(t *testing.T) {
	client := fake.NewClientset(stored(manifestJob()))
	m := manifestJob()
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "shards"}}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{cm, m}}
	b, _ := yaml.Marshal(list)
	r := run(t, client, string(b), "eval", "-f", "-")
	if r.code != 0 {
		t.Errorf("code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Without a Job name from stdin: a usage error.
	if r := run(t, client, string(b), "-f", "-"); r.code != exitcode.Usage {
		t.Errorf("no name with stdin: code %d", r.code)
	}
	// A List that needs a new Job: no command that would rename (or re-create) the ConfigMap
	// too. This List's ConfigMap holds no copy of the manifest, so create --from-job alone
	// cannot make the Job: the plan says to give the manifest too (TestDiffPlanRunsAsPrinted in
	// pkg/cmd runs the command printed for a List create made).
	m.Spec.Template.Spec.Containers[0].Image = "busybox:1.37"
	b, _ = yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{cm, m}})
	p := filepath.Join(t.TempDir(), "list.yaml")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, client, "", "eval", "-f", p)
	flat := strings.Join(strings.Fields(r.stdout), " ")
	if r.code != 1 || strings.Contains(r.stdout, "kubectl create") || strings.Contains(r.stdout, "patch --local") ||
		!strings.Contains(flat, "kubectl indexed create eval-2 --from-job "+p+" --manifest with the manifest create was given") {
		t.Errorf("List needing a new Job: code %d\n%s", r.code, r.stdout)
	}
	// The same List from standard input: the plan cannot name a file.
	r = run(t, client, string(b), "eval", "-f", "-")
	flat = strings.Join(strings.Fields(r.stdout), " ")
	if r.code != 1 || strings.Contains(flat, "printed -") ||
		!strings.Contains(flat, "save what the create command printed to a file and give it to kubectl indexed create eval-2 --from-job FILE") {
		t.Errorf("List from stdin needing a new Job: code %d\n%s", r.code, r.stdout)
	}
}

func TestOffline(t *testing.T) {
	liveFile := writeYAML(t, "live.yaml", stored(manifestJob()))
	m := manifestJob()
	m.Spec.Template.Spec.Containers[0].Image = "busybox:1.37"
	desired := writeYAML(t, "job.yaml", m)
	r := run(t, nil, "", "--live-file", liveFile, "-f", desired)
	if r.code != 1 || !strings.Contains(r.stdout, "spec.template.spec.containers[name=worker].image") {
		t.Errorf("code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The desired Job from stdin.
	b, _ := yaml.Marshal(m)
	if r := run(t, nil, string(b), "--live-file", liveFile, "-f", "-"); r.code != 1 {
		t.Errorf("stdin: code %d: %s", r.code, r.stderr)
	}
	// The live Job from stdin.
	lb, _ := os.ReadFile(liveFile)
	if r := run(t, nil, string(lb), "--live-file", "-", "-f", desired); r.code != 1 {
		t.Errorf("live from stdin: code %d: %s", r.code, r.stderr)
	}
	// A Job name that is not the live file's.
	if r := run(t, nil, "", "other", "--live-file", liveFile, "-f", desired); r.code != exitcode.Usage {
		t.Errorf("wrong name: code %d: %s", r.code, r.stderr)
	}
}

func TestErrors(t *testing.T) {
	client := fake.NewClientset(stored(manifestJob()))
	desired := writeYAML(t, "job.yaml", manifestJob())
	other := manifestJob()
	other.Namespace = "elsewhere"
	otherNS := writeYAML(t, "other.yaml", other)
	cm := writeYAML(t, "cm.yaml", &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "x"}})
	broken := filepath.Join(t.TempDir(), "broken.yaml")
	_ = os.WriteFile(broken, []byte("kind: Job\nspec: [\n"), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no desired Job", []string{"eval"}, exitcode.Usage, "give the desired Job"},
		{"both -f and create flags", []string{"eval", "-f", desired, "--manifest", "m.yaml"}, exitcode.Usage, "not both"},
		{"--server-dry-run offline", []string{"--live-file", desired, "-f", desired, "--server-dry-run"}, exitcode.Usage, "--server-dry-run needs"},
		{"two stdins", []string{"--live-file", "-", "-f", "-"}, exitcode.Usage, "standard input"},
		{"bad output", []string{"eval", "-f", desired, "-o", "table"}, exitcode.Usage, "unable to match a printer suitable for the output format \"table\""},
		{"bad template", []string{"eval", "-f", desired, "-o", "jsonpath={.differences["}, exitcode.Usage, "-o jsonpath="},
		{"two names", []string{"a", "b", "-f", desired}, exitcode.Usage, "at most one Job name"},
		{"not found", []string{"missing", "-f", desired}, exitcode.Cluster, `job "missing" not found in namespace "ns"`},
		{"missing file", []string{"eval", "-f", "/nonexistent/job.yaml"}, exitcode.Usage, "no such file"},
		{"unparsable file", []string{"eval", "-f", broken}, exitcode.Usage, "invalid YAML"},
		{"no Job in the file", []string{"eval", "-f", cm}, exitcode.Usage, "holds no batch/v1 Job"},
		{"namespace mismatch with -n", []string{"eval", "-f", otherNS}, exitcode.Usage, `namespace "elsewhere", but the namespace given is "ns"`},
		{"create flags without a name", []string{"--manifest", "m.yaml", "--image", "x"}, exitcode.Usage, "give the Job name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, client, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("code %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
			}
			if strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "panic") {
				t.Errorf("stack trace: %s", r.stderr)
			}
		})
	}
}

func TestNamespaceFromTheManifest(t *testing.T) {
	live := stored(manifestJob())
	live.Namespace = "elsewhere"
	client := fake.NewClientset(live)
	m := manifestJob()
	m.Namespace = "elsewhere"
	f := cmdtesting.NewTestFactory() // no namespace given: the manifest's is used
	defer f.Cleanup()
	r := runWith(t, f, client, "", "-f", writeYAML(t, "job.yaml", m))
	if r.code != 0 {
		t.Errorf("code %d: %s", r.code, r.stderr)
	}
}

func TestUnknownFieldsWarn(t *testing.T) {
	client := fake.NewClientset(stored(manifestJob()))
	p := filepath.Join(t.TempDir(), "job.yaml")
	b, _ := yaml.Marshal(manifestJob())
	_ = os.WriteFile(p, append(b, []byte("extra: 1\n")...), 0o644)
	r := run(t, client, "", "eval", "-f", p)
	if r.code != 0 || !strings.Contains(r.stderr, `unknown field "extra"`) {
		t.Errorf("code %d stderr %q", r.code, r.stderr)
	}
}

// serverLike answers dry-run updates the way the API server's Job validation does for the
// few fields the test uses: backoffLimitPerIndex and completionMode are immutable.
func serverLike(client *fake.Clientset, live *batchv1.Job, accepts func(old, new *batchv1.Job) bool) {
	client.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		u := a.(k8stesting.UpdateActionImpl)
		if !slicesEqual(u.UpdateOptions.DryRun, []string{metav1.DryRunAll}) {
			return true, nil, fmt.Errorf("not a dry run: %v", u.UpdateOptions.DryRun)
		}
		j := u.GetObject().(*batchv1.Job)
		if j.ResourceVersion != "" {
			return true, nil, fmt.Errorf("conditional update")
		}
		if !accepts(live, j) {
			return true, nil, apierrors.NewInvalid(schema.GroupKind{Group: "batch", Kind: "Job"}, j.Name,
				field.ErrorList{field.Invalid(field.NewPath("spec", "backoffLimitPerIndex"), j.Spec.BackoffLimitPerIndex, "field is immutable")})
		}
		return true, j, nil
	})
}

func slicesEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

func TestServerConfirms(t *testing.T) {
	live := stored(manifestJob())
	m := manifestJob()
	m.Spec.Parallelism = ptr.To[int32](4)
	m.Spec.BackoffLimitPerIndex = ptr.To[int32](3)
	desired := writeYAML(t, "job.yaml", m)

	client := fake.NewClientset(live)
	serverLike(client, live, func(old, new *batchv1.Job) bool {
		return *old.Spec.BackoffLimitPerIndex == *new.Spec.BackoffLimitPerIndex
	})
	r := run(t, client, "", "eval", "-f", desired, "--server-dry-run", "-o", "json")
	if r.code != 1 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	var rep jobdiff.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Server == nil || len(rep.Server.Probes) != 2 || rep.Server.Disagreements != 0 {
		t.Fatalf("server check %+v", rep.Server)
	}
	if strings.Contains(r.stderr, "bug") {
		t.Errorf("stderr %q", r.stderr)
	}
	updates := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "update" {
			updates++
		}
	}
	if updates != 2 {
		t.Errorf("%d updates, want 2 dry runs", updates)
	}

	// A server that accepts everything disagrees with the NewJob classification.
	client = fake.NewClientset(live)
	serverLike(client, live, func(_, _ *batchv1.Job) bool { return true })
	r = run(t, client, "", "eval", "-f", desired, "--server-dry-run")
	if r.code != 1 || !strings.Contains(r.stderr, "bug in kubectl indexed") || !strings.Contains(r.stdout, "DISAGREES") {
		t.Errorf("code %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	// A server that forbids the update: exit 4, saying which permission is missing.
	client = fake.NewClientset(live)
	client.PrependReactor("update", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "batch", Resource: "jobs"}, "eval", fmt.Errorf("no"))
	})
	r = run(t, client, "", "eval", "-f", desired, "--server-dry-run")
	if r.code != exitcode.Cluster || !strings.Contains(r.stderr, `you may not update job "eval"`) {
		t.Errorf("forbidden: code %d stderr %q", r.code, r.stderr)
	}
}

// TestCreateFlags: the desired Job is the one create would make from the same flags.
func TestCreateFlags(t *testing.T) {
	man, _, err := shards.Split([]string{"a", "b", "c", "d", "e", "f"}, shards.SplitOptions{Name: "eval", Revision: "1", Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(t.TempDir(), "manifest.yaml")
	if err := os.WriteFile(mp, man.YAML(), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := scaffold.Options{JobName: "eval", Namespace: "ns", Manifest: man, Image: "img:1", Command: []string{"/bin/worker"},
		BackoffLimitPerIndex: ptr.To(scaffold.DefaultBackoffLimitPerIndex), InvalidInputExitCode: ptr.To(scaffold.DefaultInvalidInputExitCode)}
	b := scaffold.DefaultMaxFailedIndexes
	opts.MaxFailedIndexes = &b
	objs, err := scaffold.Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(stored(objs.Job))

	r := run(t, client, "", "eval", "--manifest", mp, "--image", "img:1", "--", "/bin/worker")
	if r.code != 0 {
		t.Errorf("same flags: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, client, "", "eval", "--manifest", mp, "--image", "img:2", "--parallelism", "2", "--env", "A=b c", "--", "/bin/worker")
	if r.code != 1 {
		t.Fatalf("other flags: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"~ spec.parallelism", "containers[name=worker].image",
		`kubectl indexed create eval-2 -n ns --env='A=b c' --image=img:2 --manifest=` + mp + ` --parallelism=2 -- /bin/worker`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestOutputFormats: kubectl's output flags on the JobDiff report: templates see the report as
// -o json prints it, custom-columns prints a row per difference, name the live Job, and wide
// the text without wrapping.
func TestOutputFormats(t *testing.T) {
	client := fake.NewClientset(stored(manifestJob()))
	m := manifestJob()
	m.Spec.Parallelism = ptr.To[int32](4)
	m.Spec.BackoffLimitPerIndex = ptr.To[int32](3)
	desired := writeYAML(t, "job.yaml", m)
	for _, tc := range []struct {
		format, want string
	}{
		{`jsonpath={.differences[?(@.class=="NewJob")].path}`, "spec.backoffLimitPerIndex"},
		{`go-template={{range .plan}}{{.kind}} {{end}}`, "patch new-job "},
		{"custom-columns=PATH:.path,CLASS:.class", "PATH                        CLASS\nspec.backoffLimitPerIndex   NewJob\nspec.parallelism            Live\n"},
		{"name", "job.batch/eval\n"},
	} {
		r := run(t, client, "", "eval", "-f", desired, "-o", tc.format)
		if r.code != exitcode.Findings || r.stdout != tc.want {
			t.Errorf("-o %s: code %d, stdout %q, want %q; stderr %s", tc.format, r.code, r.stdout, tc.want, r.stderr)
		}
	}
	// wide: the same text, not wrapped.
	text, wide := run(t, client, "", "eval", "-f", desired), run(t, client, "", "eval", "-f", desired, "-o", "wide")
	longest := 0
	for _, l := range strings.Split(wide.stdout, "\n") {
		longest = max(longest, len(l))
	}
	if strings.Join(strings.Fields(text.stdout), " ") != strings.Join(strings.Fields(wide.stdout), " ") || longest <= 80 {
		t.Errorf("-o wide: longest line %d\n%s", longest, wide.stdout)
	}
}

// TestJobNameAsKubectlPrintsIt: JOB may be job/NAME or jobs.batch/NAME (kubectl get -o name
// prints job.batch/NAME), as for status, logs and retry (pkg/cmd/jobref); a name that is not
// a Job's is a usage error (exit 2) and nothing is sent. diff used to send "job/eval" as the
// name and report the API server's refusal as exit 4, and offline to say the live file
// "holds Job "eval", not "job/eval"".
func TestJobNameAsKubectlPrintsIt(t *testing.T) {
	desired := writeYAML(t, "job.yaml", manifestJob())
	liveFile := writeYAML(t, "live.yaml", stored(manifestJob()))
	for _, name := range []string{"job/eval", "jobs.batch/eval", "job.batch/eval"} {
		client := fake.NewClientset(stored(manifestJob()))
		if r := run(t, client, "", name, "-f", desired); r.code != 0 || !strings.Contains(r.stdout, "No differences") {
			t.Errorf("%s: code %d\n%s%s", name, r.code, r.stdout, r.stderr)
		}
		if r := run(t, nil, "", name, "--live-file", liveFile, "-f", desired); r.code != 0 {
			t.Errorf("%s --live-file: code %d\n%s%s", name, r.code, r.stdout, r.stderr)
		}
	}
	for name, msg := range map[string]string{
		"Eval":     `"Eval" is not a valid Job name`,
		"pod/eval": `"pod/eval" is not a Job`,
		"job/":     `"job/" names no Job`,
	} {
		client := fake.NewClientset(stored(manifestJob()))
		r := run(t, client, "", name, "-f", desired)
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, msg) {
			t.Errorf("%s: code %d (want 2), stderr %q (want %q)", name, r.code, r.stderr, msg)
		}
		if acts := client.Actions(); len(acts) != 0 {
			t.Errorf("%s: sent %v", name, acts)
		}
	}
}
