package create

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

// result is what a run printed and how it ended.
type result = cmdtest.Result

// run executes create in-process against client (nil: no cluster, as with --dry-run=client).
func run(t *testing.T, client *fake.Clientset, args ...string) result {
	t.Helper()
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.Namespace = "ml"
	if client != nil {
		o.Client = client
	}
	return io.Run(newCmd(nil, o), args...)
}

func manifestFile(t *testing.T) (string, *shards.Manifest) {
	p := testutil.WriteFile(t, "m.yaml", testutil.SixShards)
	m, err := shards.Read(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, m
}

// configMapOf is the one shard ConfigMap create makes for man in namespace ml.
func configMapOf(t *testing.T, man *shards.Manifest) *corev1.ConfigMap {
	t.Helper()
	cms, _, err := scaffold.BuildConfigMaps(man, "ml")
	if err != nil || len(cms) != 1 {
		t.Fatalf("%d ConfigMaps (want 1): %v", len(cms), err)
	}
	return cms[0]
}

func verbs(c *fake.Clientset) []string {
	var v []string
	for _, a := range c.Actions() {
		v = append(v, a.GetVerb()+" "+a.GetResource().Resource)
	}
	return v
}

func TestDryRunClient(t *testing.T) {
	m, man := manifestFile(t)
	cm := scaffold.ConfigMapName(man)
	r := run(t, nil, "eval", "--manifest", m, "--image", "img", "--dry-run=client", "--", "/bin/worker", "--fast")
	if r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Stderr)
	}
	want := "configmap/" + cm + " created (dry run)\njob.batch/eval created (dry run)\n"
	if r.Stdout != want {
		t.Errorf("stdout %q, want %q", r.Stdout, want)
	}
	if r.Stderr != "" {
		t.Errorf("the defaults gave lint output: %s", r.Stderr)
	}

	r = run(t, nil, "eval", "--manifest", m, "--image", "img", "--dry-run=client", "-o", "yaml", "--", "/bin/worker", "--fast")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	testutil.Golden(t, filepath.Join("testdata", "dry-run-client.yaml"), []byte(r.Stdout))
	// What is printed is a List that reads back as the two objects.
	docs := source.Parse("out", []byte(r.Stdout))
	if len(docs) != 2 || docs[0].Kind() != "ConfigMap" || docs[1].Kind() != "Job" || docs[1].Name() != "eval" || docs[0].Namespace() != "ml" {
		t.Fatalf("printed %d objects: %s", len(docs), r.Stdout)
	}
	var job batchv1.Job
	if strict, err := docs[1].DecodeStrict(&job); err != nil || len(strict) > 0 {
		t.Fatalf("%v %v", err, strict)
	}
	if got := job.Spec.Template.Spec.Containers[0].Command; strings.Join(got, " ") != "/bin/worker --fast" {
		t.Errorf("command %q", got)
	}

	r = run(t, nil, "eval", "--manifest", m, "--image", "img", "--dry-run=client", "-o", "name")
	if r.Stdout != "configmap/"+cm+"\njob.batch/eval\n" {
		t.Errorf("-o name: %q", r.Stdout)
	}
	r = run(t, nil, "eval", "--manifest", m, "--image", "img", "--dry-run=client", "-o", "json")
	if !strings.HasPrefix(r.Stdout, "{\n    \"kind\": \"List\",\n    \"apiVersion\": \"v1\",") {
		t.Errorf("-o json: %.200s", r.Stdout)
	}
}

func TestCreateSendsBoth(t *testing.T) {
	m, man := manifestFile(t)
	cm := scaffold.ConfigMapName(man)
	c := fake.NewClientset()
	r := run(t, c, "eval", "--manifest", m, "--image", "img", "--field-manager", "me")
	if r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Stderr)
	}
	if r.Stdout != "configmap/"+cm+" created\njob.batch/eval created\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	if got := strings.Join(verbs(c), ", "); got != "get jobs, get configmaps, create configmaps, create jobs" {
		t.Errorf("actions: %s", got)
	}
	for _, a := range c.Actions() {
		if ca, ok := a.(k8stesting.CreateActionImpl); ok {
			if ca.CreateOptions.FieldManager != "me" || ca.CreateOptions.DryRun != nil || ca.CreateOptions.FieldValidation != "Strict" {
				t.Errorf("create options %+v", ca.CreateOptions)
			}
		}
	}
	job, err := c.BatchV1().Jobs("ml").Get(context.Background(), "eval", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if name, _ := shards.ConfigMapNameFromJob(job); name != cm {
		t.Errorf("job points at %q", name)
	}
	if _, err := c.CoreV1().ConfigMaps("ml").Get(context.Background(), cm, metav1.GetOptions{}); err != nil {
		t.Error(err)
	}

	// A second Job from the same manifest reuses the ConfigMap.
	c.ClearActions()
	r = run(t, c, "eval-2", "--manifest", m, "--image", "img")
	if r.Err != nil || r.Stdout != "configmap/"+cm+" unchanged\njob.batch/eval-2 created\n" {
		t.Errorf("second create: %v %q", r.Err, r.Stdout)
	}
	if got := strings.Join(verbs(c), ", "); got != "get jobs, get configmaps, create jobs" {
		t.Errorf("actions: %s", got)
	}

	// The same Job again is refused, pointing at status and diff; nothing is written.
	c.ClearActions()
	r = run(t, c, "eval", "--manifest", m, "--image", "img")
	if r.Code != exitcode.Cluster || !strings.Contains(r.Err.Error(), `job "eval" already exists in namespace "ml"`) ||
		!strings.Contains(r.Err.Error(), "kubectl indexed status eval -n ml") || !strings.Contains(r.Err.Error(), "kubectl indexed diff eval -n ml") {
		t.Errorf("existing job: %d %v", r.Code, r.Err)
	}
	if got := strings.Join(verbs(c), ", "); got != "get jobs" {
		t.Errorf("actions: %s", got)
	}
}

func TestCreateOutputYAML(t *testing.T) {
	m, _ := manifestFile(t)
	c := fake.NewClientset()
	r := run(t, c, "eval", "--manifest", m, "--image", "img", "-o", "yaml")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	docs := source.Parse("out", []byte(r.Stdout))
	if len(docs) != 2 || docs[0].Kind() != "ConfigMap" || docs[1].Kind() != "Job" {
		t.Fatalf("%s", r.Stdout)
	}
}

func TestConfigMapWithOtherContent(t *testing.T) {
	m, man := manifestFile(t)
	want := configMapOf(t, man)
	other := want.DeepCopy()
	other.Data["index-3.cases"] = "tampered\n"
	c := fake.NewClientset(other)
	r := run(t, c, "eval", "--manifest", m, "--image", "img")
	if r.Code != exitcode.Cluster || !strings.Contains(r.Err.Error(), `configmap "`+want.Name+`" already exists in namespace "ml" with different content (its key "index-3.cases" holds different content)`) {
		t.Fatalf("%d %v", r.Code, r.Err)
	}
	if got := strings.Join(verbs(c), ", "); got != "get jobs, get configmaps" {
		t.Errorf("actions: %s", got)
	}
}

// TestConfigMapSameDataNotImmutable: a ConfigMap with the manifest's very data but without the
// immutable flag is not reused, and the error says the data is the same (it said "different
// content (it is not immutable)", which sent the user looking for a change that is not there).
func TestConfigMapSameDataNotImmutable(t *testing.T) {
	m, man := manifestFile(t)
	want := configMapOf(t, man)
	mutable := want.DeepCopy()
	mutable.Immutable = nil
	r := run(t, fake.NewClientset(mutable), "eval", "--manifest", m, "--image", "img")
	if r.Code != exitcode.Cluster || r.Err == nil {
		t.Fatalf("%d %v", r.Code, r.Err)
	}
	msg := r.Err.Error()
	if strings.Contains(msg, "different content") || !strings.Contains(msg, `configmap "`+want.Name+`" already exists in namespace "ml" with the same data, but it is not immutable`) ||
		!strings.Contains(msg, "another metadata.name") {
		t.Errorf("%s", msg)
	}
}

func TestJobCreateFailsAfterConfigMap(t *testing.T) {
	m, man := manifestFile(t)
	cm := scaffold.ConfigMapName(man)
	c := fake.NewClientset()
	c.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "batch", Resource: "jobs"}, "eval", nil)
	})
	r := run(t, c, "eval", "--manifest", m, "--image", "img")
	msg := r.Err.Error()
	for _, want := range []string{
		`permission denied: you may not create job "eval" in namespace "ml"; ask for "create" on "jobs"`,
		`configmap "` + cm + `" was created in namespace "ml" but job "eval" was not: the ConfigMap is left behind`,
		"kubectl delete configmap " + cm + " -n ml",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if r.Code != exitcode.Cluster {
		t.Errorf("code %d", r.Code)
	}

	// When the ConfigMap was reused, nothing is left behind by this create: no such note.
	r = run(t, c, "eval", "--manifest", m, "--image", "img")
	if strings.Contains(r.Err.Error(), "left behind") || !strings.Contains(r.Err.Error(), "permission denied") {
		t.Errorf("reused: %v", r.Err)
	}
}

func TestForbiddenConfigMapGet(t *testing.T) {
	m, man := manifestFile(t)
	c := fake.NewClientset()
	c.PrependReactor("get", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, scaffold.ConfigMapName(man), nil)
	})
	r := run(t, c, "eval", "--manifest", m, "--image", "img")
	if r.Code != exitcode.Cluster || !strings.Contains(r.Err.Error(), `you may not get configmap "`) ||
		!strings.Contains(r.Err.Error(), "needs get and create on configmaps and on jobs") {
		t.Errorf("%d %v", r.Code, r.Err)
	}
}

func TestDryRunServer(t *testing.T) {
	m, man := manifestFile(t)
	c := fake.NewClientset()
	r := run(t, c, "eval", "--manifest", m, "--image", "img", "--dry-run=server")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if r.Stdout != "configmap/"+scaffold.ConfigMapName(man)+" created (server dry run)\njob.batch/eval created (server dry run)\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	n := 0
	for _, a := range c.Actions() {
		if ca, ok := a.(k8stesting.CreateActionImpl); ok {
			n++
			if d := ca.CreateOptions.DryRun; len(d) != 1 || d[0] != metav1.DryRunAll {
				t.Errorf("%s sent without dryRun=All: %v", a.GetResource().Resource, d)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d creates", n)
	}
}

func TestLintBeforeSending(t *testing.T) {
	m, _ := manifestFile(t)
	c := fake.NewClientset()
	long := strings.Repeat("a", 62)
	r := run(t, c, long, "--manifest", m, "--image", "img")
	if r.Code != exitcode.Usage || !strings.Contains(r.Err.Error(), "would be rejected by the API server, nothing was sent") {
		t.Fatalf("%d %v", r.Code, r.Err)
	}
	if len(c.Actions()) != 0 {
		t.Errorf("sent: %v", verbs(c))
	}
	r = run(t, c, "eval", "--manifest", m, "--image", "img", "--max-failed-indexes", "none", "--dry-run=client")
	if r.Err != nil || !strings.Contains(r.Stderr, "warning max-failed-indexes-unset Job/eval: spec.backoffLimitPerIndex:\n    maxFailedIndexes is not set") {
		t.Errorf("warning not shown: %v\n%s", r.Err, r.Stderr)
	}
}

// TestLintFindingsAsLintPrintsThem: create prints the Job's findings exactly as lint's text
// report does (lint.FormatFinding at 80 columns, why and fix), one line each with --brief, as
// lint --brief; colour only on a terminal and never with --no-color or NO_COLOR.
func TestLintFindingsAsLintPrintsThem(t *testing.T) {
	m, _ := manifestFile(t)
	args := []string{"eval", "--manifest", m, "--image", "img", "--max-failed-indexes", "none", "--dry-run=client"}
	job := func(extra ...string) (string, error) {
		var out, errOut bytes.Buffer
		o := NewOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		o.Namespace = "ml"
		o.LintText.IsTerminal = func(io.Writer) bool { return true }
		cmd := newCmd(nil, o)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		cmd.SetArgs(append(append([]string{}, args...), extra...))
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		err := cmd.ExecuteContext(context.Background())
		return errOut.String(), err
	}
	// What lint itself finds in the Job create prints.
	r := run(t, nil, append(append([]string{}, args...), "-o", "json")...)
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list.Items) == 0 {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	built := &batchv1.Job{}
	if err := json.Unmarshal(list.Items[len(list.Items)-1], built); err != nil || built.Kind != "Job" {
		t.Fatalf("last item is not the Job: %v %s", err, list.Items[len(list.Items)-1])
	}
	var want lint.Finding
	for _, f := range lint.CheckJob(built, lint.Options{MinSeverity: lint.SeverityWarning}) {
		if f.Rule == "max-failed-indexes-unset" {
			want = f
		}
	}
	if want.Rule == "" || want.Why == "" || want.Fix == "" {
		t.Fatalf("lint has no max-failed-indexes-unset finding with why and fix: %+v", want)
	}
	want.Object = "Job/eval"
	t.Setenv("NO_COLOR", "")
	for _, tc := range []struct {
		name  string
		extra []string
		opts  lint.TextOptions
	}{
		{"default on a terminal", nil, lint.TextOptions{Width: 80, Color: true}},
		{"--no-color", []string{"--no-color"}, lint.TextOptions{Width: 80}},
		{"--brief", []string{"--brief"}, lint.TextOptions{Brief: true, Color: true}},
	} {
		got, err := job(tc.extra...)
		if w := lint.FormatFinding(&want, tc.opts); err != nil || !strings.Contains(got, w) {
			t.Errorf("%s: %v\ngot:\n%s\nwant it to hold:\n%s", tc.name, err, got, w)
		}
		if brief := slices.Contains(tc.extra, "--brief"); brief == strings.Contains(got, "why:") {
			t.Errorf("%s: why/fix shown %v:\n%s", tc.name, !brief, got)
		}
	}
	t.Setenv("NO_COLOR", "1")
	if got, _ := job(); strings.Contains(got, "\x1b[") {
		t.Errorf("NO_COLOR: coloured:\n%q", got)
	}
}

func TestSave(t *testing.T) {
	m, _ := manifestFile(t)
	save := filepath.Join(t.TempDir(), "eval.yaml")
	r := run(t, nil, "eval", "--manifest", m, "--image", "img", "--dry-run=client", "--save", save, "-o", "yaml")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	saved, err := os.ReadFile(save)
	if err != nil {
		t.Fatal(err)
	}
	if string(saved) != r.Stdout {
		t.Errorf("saved file differs from what -o yaml printed:\n%s\n---\n%s", saved, r.Stdout)
	}
	if !strings.Contains(r.Stderr, "saved the ConfigMap and the Job to "+save) {
		t.Errorf("stderr %q", r.Stderr)
	}
	r = run(t, nil, "eval", "--manifest", m, "--image", "img", "--dry-run=client", "--save", save)
	if r.Code != exitcode.Usage || !strings.Contains(r.Err.Error(), "the file exists; it is never overwritten") {
		t.Errorf("%d %v", r.Code, r.Err)
	}
	// --save-config records the object for kubectl apply.
	r = run(t, nil, "eval", "--manifest", m, "--image", "img", "--dry-run=client", "--save-config", "-o", "yaml")
	if strings.Count(r.Stdout, "kubectl.kubernetes.io/last-applied-configuration") != 2 {
		t.Errorf("--save-config: %s", r.Stdout)
	}
}

func TestUsageErrors(t *testing.T) {
	m, _ := manifestFile(t)
	other := testutil.WriteFile(t, "job.yaml", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x, namespace: elsewhere}\nspec:\n  template:\n    spec:\n      containers: [{name: worker, image: i}]\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--manifest", m, "--image", "i"}, "a Job name is required"},
		{[]string{"a", "b", "--manifest", m, "--image", "i"}, "exactly one Job name is required, got 2 (a b); put the worker's command after --"},
		{[]string{"a", "--image", "i"}, "--manifest is required"},
		{[]string{"a", "--manifest", m}, `no image for the worker container "worker": give --image`},
		{[]string{"a", "--manifest", m, "--image", "i", "--dry-run=maybe"}, "Invalid dry-run value"},
		{[]string{"a", "--manifest", m, "--image", "i", "-o", "table"}, "unable to match a printer"},
		{[]string{"a", "--manifest", m, "--image", "i", "--field-manager", ""}, "--field-manager must not be empty"},
	} {
		r := run(t, fake.NewClientset(), tc.args...)
		if r.Code != exitcode.Usage || r.Err == nil || !strings.Contains(r.Err.Error(), tc.want) {
			t.Errorf("%v: %d %v, want %q", tc.args, r.Code, r.Err, tc.want)
		}
	}
	// A --from-job namespace is used unless -n says otherwise.
	r := run(t, nil, "a", "--manifest", m, "--from-job", other, "--dry-run=client", "-o", "name")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.Namespace, o.EnforceNamespace = "ml", true
	rr := io.Run(newCmd(nil, o), "a", "--manifest", m, "--from-job", other, "--dry-run=client")
	if rr.Code != exitcode.Usage || !strings.Contains(rr.Stderr, `error: --from-job `+other+` is in namespace "elsewhere", but the namespace given is "ml"`) {
		t.Errorf("%d %q", rr.Code, rr.Stderr)
	}
}

var _ = corev1.ConfigMap{}

// TestTemplateOutputs: create's -o takes kubectl's templates over the List it prints, and
// custom-columns (a row per object), which cli-runtime's PrintFlags lacks.
func TestTemplateOutputs(t *testing.T) {
	m, _ := manifestFile(t)
	args := []string{"eval", "--manifest", m, "--image", "img", "--dry-run=client", "-o"}
	r := run(t, nil, append(args, "jsonpath={.items[*].kind}")...)
	if r.Err != nil || r.Stdout != "ConfigMap Job" {
		t.Errorf("jsonpath: %q %v", r.Stdout, r.Err)
	}
	r = run(t, nil, append(args, "custom-columns=KIND:.kind,NAME:.metadata.name")...)
	if lines := strings.Split(strings.TrimSpace(r.Stdout), "\n"); r.Err != nil || len(lines) != 3 ||
		!strings.HasPrefix(lines[0], "KIND") || !strings.HasPrefix(lines[1], "ConfigMap") || !strings.HasPrefix(lines[2], "Job         eval") {
		t.Errorf("custom-columns: %q %v", r.Stdout, r.Err)
	}
	c := fake.NewClientset()
	if r := run(t, c, "eval", "--manifest", m, "--image", "img", "-o", "custom-columns=KIND"); r.Code != exitcode.Usage || len(c.Actions()) != 0 {
		t.Errorf("bad custom-columns: exit %d, %v, sent %v", r.Code, r.Err, verbs(c))
	}
}
