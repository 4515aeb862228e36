package list

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/joblist"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func job(ns, name string, completions int32, created time.Duration) *batchv1.Job {
	j := testutil.StartedJob(ns, name, completions, t0.Add(created))
	j.CreationTimestamp = metav1.Time{Time: t0.Add(created)}
	return j
}

func pod(j *batchv1.Job, index, failures int, phase corev1.PodPhase) *corev1.Pod {
	p := testutil.IndexPod(j, index, failures)
	p.Status.Phase = phase
	return p
}

// objects: in ns "ml", seed failed (indexes 2 and 4, as in the seed fixture), its retry
// seed-r1 running the two failed shards, a retry of that retry, a Job that is not Indexed, and
// a complete Job; in ns "other" one running Job.
func objects() []runtime.Object {
	seed := job("ml", "seed", 6, 0)
	seed.Status.CompletedIndexes, seed.Status.FailedIndexes = "0,1,3,5", ptr.To("2,4")
	seed.Status.Succeeded, seed.Status.Failed = 4, 3
	for _, c := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		seed.Status.Conditions = append(seed.Status.Conditions, batchv1.JobCondition{Type: c, Status: corev1.ConditionTrue, Reason: "FailedIndexes"})
	}
	r1 := job("ml", "seed-r1", 2, 10*time.Minute)
	l := lineage.Lineage{RootJob: "seed", RootJobUID: "uid-seed", ParentJob: "seed", ParentJobUID: "uid-seed", Attempt: 1, Original: indexes.FromIntervals(indexes.Interval{First: 2, Last: 2}, indexes.Interval{First: 4, Last: 4})}
	r1.Annotations, r1.Labels = l.Annotations(), l.Labels()
	r1.Status.CompletedIndexes, r1.Status.Succeeded, r1.Status.FailedIndexes, r1.Status.Failed = "0", 1, ptr.To("1"), 2
	for _, c := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		r1.Status.Conditions = append(r1.Status.Conditions, batchv1.JobCondition{Type: c, Status: corev1.ConditionTrue, Reason: "FailedIndexes"})
	}
	r2 := job("ml", "seed-r2", 1, 20*time.Minute)
	l2 := lineage.Lineage{RootJob: "seed", RootJobUID: "uid-seed", ParentJob: "seed-r1", ParentJobUID: "uid-seed-r1", Attempt: 2, Original: indexes.FromIntervals(indexes.Interval{First: 4, Last: 4})}
	r2.Annotations, r2.Labels = l2.Annotations(), l2.Labels()
	r2.Status.Active = 1
	plain := job("ml", "aaa-nonindexed", 1, 0)
	plain.Spec.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	done := job("ml", "done", 3, 0)
	done.Status.CompletedIndexes, done.Status.Succeeded = "0-2", 3
	done.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached"},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached"},
	}
	other := job("other", "train", 4, 50*time.Minute)
	other.Status.Active, other.Status.CompletedIndexes, other.Status.Succeeded = 2, "0", 1
	objs := []runtime.Object{seed, r1, r2, plain, done, other}
	// Pods: seed index 4 ran twice; seed-r2's index 0 runs.
	for _, p := range []*corev1.Pod{pod(seed, 4, 0, corev1.PodFailed), pod(seed, 4, 1, corev1.PodFailed), pod(seed, 0, 0, corev1.PodSucceeded), pod(r2, 0, 0, corev1.PodRunning)} {
		objs = append(objs, p)
	}
	return objs
}

type result struct {
	out, errOut string
	code        int
	client      *fake.Clientset
}

func run(t *testing.T, args ...string) result {
	t.Helper()
	client := fake.NewClientset(objects()...)
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.Client = client
	o.Clock = testingclock.NewFakeClock(t0.Add(time.Hour))
	f := cmdtesting.NewTestFactory().WithNamespace("ml")
	t.Cleanup(f.Cleanup) // its temporary kubeconfig
	r := io.Run(NewCmdListWithOptions(f, o), args...)
	return result{out: r.Stdout, errOut: r.Stderr, code: r.Code, client: client}
}

// listedResources is what the command LISTed.
func listedResources(c *fake.Clientset) []string {
	var out []string
	for _, a := range c.Actions() {
		out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
	}
	return out
}

func TestTableWithLineage(t *testing.T) {
	r := run(t)
	want := strings.Join([]string{
		"NAME           PHASE      SUCC/FAIL/RUN/TOTAL   COMPLETE   AGE",
		"done           Complete   3/0/0/3               yes        60m",
		"seed           Failed     4/2/0/6               no         60m",
		"└─ seed-r1     Failed     1/1/0/2               no         50m",
		"  └─ seed-r2   Running    0/0/1/1               no         40m",
		"",
	}, "\n")
	if r.code != 0 || r.out != want {
		t.Fatalf("code %d\ngot:\n%s\nwant:\n%s\nstderr:\n%s", r.code, r.out, want, r.errOut)
	}
	// One LIST of Jobs, no pod LIST.
	if got := listedResources(r.client); strings.Join(got, ",") != "list jobs" {
		t.Errorf("requests = %v, want one list of jobs", got)
	}
}

func TestAllNamespacesNoHeadersAndName(t *testing.T) {
	r := run(t, "-A", "--no-headers")
	lines := strings.Split(strings.TrimSuffix(r.out, "\n"), "\n")
	if r.code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "ml ") || !strings.HasPrefix(lines[4], "other ") || !strings.Contains(lines[4], "train") || !strings.Contains(lines[4], "1/0/2/4") {
		t.Fatalf("code %d\n%s", r.code, r.out)
	}
	r = run(t, "get", "-o", "name")
	if r.code == 0 {
		t.Fatalf("list takes no arguments: %+v", r)
	}
	r = run(t, "-o", "name", "-l", "indexed.kubectl.io/root-job=seed")
	if r.code != 0 || r.out != "job.batch/seed-r1\njob.batch/seed-r2\n" {
		t.Fatalf("code %d\n%s%s", r.code, r.out, r.errOut)
	}
}

func TestWithPodsCountsAttemptsAndWide(t *testing.T) {
	r := run(t, "--with-pods", "-o", "wide")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if got := listedResources(r.client); strings.Join(got, ",") != "list jobs,list pods" {
		t.Errorf("requests = %v, want a list of jobs and one of pods", got)
	}
	// seed: index 4 ran twice, index 0 once (its pod present); seed-r2 runs one pod.
	for _, w := range []string{
		"NAME           PHASE      SUCC/FAIL/RUN/TOTAL   COMPLETE   ATTEMPTS   PODS   AGE   PARALLELISM   PER-INDEX-LIMIT   MISSING   REASON",
		"seed           Failed     4/2/0/6               no         3          3      60m   2             1                 2,4       FailedIndexes",
		"  └─ seed-r2   Running    0/0/1/1               no         1          1      40m",
	} {
		if !strings.Contains(r.out, w) {
			t.Errorf("output lacks %q:\n%s", w, r.out)
		}
	}
}

func TestJSON(t *testing.T) {
	r := run(t, "-o", "json")
	var l joblist.List
	if err := json.Unmarshal([]byte(r.out), &l); err != nil || r.code != 0 {
		t.Fatalf("%v\n%s", err, r.out)
	}
	if l.Kind != "IndexedJobList" || len(l.Items) != 4 || l.Items[2].Name != "seed-r1" || l.Items[2].Parent != "seed" || l.Items[2].Depth != 1 || l.Items[3].RetryAttempt != 2 {
		t.Errorf("%+v", l)
	}
}

func TestEmptyAndBadInput(t *testing.T) {
	r := run(t, "-l", "app=none")
	if r.code != 0 || r.out != "" || !strings.Contains(r.errOut, `No Indexed Jobs found in namespace "ml" matching "app=none".`) {
		t.Errorf("%+v", r)
	}
	r = run(t, "-o", "custom")
	if r.code != exitcode.Usage {
		t.Errorf("-o custom: %+v", r)
	}
	r = run(t, "-l", "a b")
	if r.code != exitcode.Usage || !strings.Contains(r.errOut, "not a label selector") {
		t.Errorf("-l 'a b': %+v", r)
	}
}

func TestTemplateOutputs(t *testing.T) {
	r := run(t, "-o", `jsonpath={range .items[*]}{.name}={.phase} {end}`)
	if r.code != 0 || r.out != "done=Complete seed=Failed seed-r1=Failed seed-r2=Running " {
		t.Errorf("jsonpath: %+v", r)
	}
	r = run(t, "-o", "custom-columns=NAME:.name,PHASE:.phase,PARENT:.parent")
	if r.code != 0 || r.out != "NAME      PHASE      PARENT\ndone      Complete   <none>\nseed      Failed     <none>\nseed-r1   Failed     seed\nseed-r2   Running    seed-r1\n" {
		t.Errorf("custom-columns: %+v", r)
	}
	// --no-headers applies to custom-columns too, as with kubectl get.
	r = run(t, "-o", "custom-columns=NAME:.name,PHASE:.phase", "--no-headers")
	if r.code != 0 || r.out != "done      Complete\nseed      Failed\nseed-r1   Failed\nseed-r2   Running\n" {
		t.Errorf("custom-columns --no-headers: %+v", r)
	}
	if r := run(t, "-o", "go-template={{.nope"); r.code != exitcode.Usage {
		t.Errorf("bad template: %+v", r)
	}
}

// A retry of a Job that create did not make is a Job per index: the default table folds one
// retry's Jobs into one row, so 1,000 of them stay one line (issue 22); -o wide and -o json
// list every Job.
func TestPlainRetryJobsFoldIntoOneRow(t *testing.T) {
	root := job("ml", "big", 2000, 0)
	root.Status.CompletedIndexes, root.Status.FailedIndexes = "1000-1999", ptr.To("0-999")
	root.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "FailedIndexes"}}
	objs := []runtime.Object{root}
	for i := range 1000 {
		r := job("ml", fmt.Sprintf("big-r1-%d", i), 1, 10*time.Minute)
		l := lineage.Lineage{RootJob: "big", RootJobUID: "uid-big", ParentJob: "big", ParentJobUID: "uid-big", Attempt: 1, Original: indexes.Of(i)}
		r.Annotations, r.Labels = l.Annotations(), l.Labels()
		r.Annotations[lineage.AnnotationRetrySet] = "abc"
		if i < 990 {
			r.Status.CompletedIndexes, r.Status.Succeeded = "0", 1
			r.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached"}}
		} else {
			r.Status.Active = 1
		}
		objs = append(objs, r)
	}
	list := lister(t, objs...)
	out := list()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], "└─ big-r1-* (1000 Jobs)") || !strings.Contains(lines[2], "Running") || !strings.Contains(lines[2], "990/0/10/1000") {
		t.Errorf("default view:\n%s", out)
	}
	if n := strings.Count(list("-o", "wide"), "\n"); n != 1002 {
		t.Errorf("-o wide: %d lines, want 1002 (a header, the root and 1000 retries)", n)
	}
}

// -o wide's MISSING cell is cut at 40 bytes with the count left out (issue 36's re-run: a row
// of about 330 columns); -o json keeps every missing shard.
func TestWideMissingIsCut(t *testing.T) {
	j := job("ml", "scatter", 2000, 0)
	var odd []string
	for i := 1; i < 2000; i += 2 {
		odd = append(odd, fmt.Sprint(i))
	}
	j.Status.FailedIndexes = ptr.To(strings.Join(odd, ","))
	var even []string
	for i := 0; i < 2000; i += 2 {
		even = append(even, fmt.Sprint(i))
	}
	j.Status.CompletedIndexes, j.Status.Succeeded, j.Status.Failed = strings.Join(even, ","), 1000, 1000
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "FailedIndexes"}}
	list := lister(t, j)
	out := list("-o", "wide")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if len(l) > 200 {
			t.Errorf("a line of %d columns:\n%s", len(l), l)
		}
	}
	if !strings.Contains(out, "(and ") || !strings.Contains(out, "1,3,5,") {
		t.Errorf("MISSING is not cut with its count:\n%s", out)
	}
	var l joblist.List
	if err := json.Unmarshal([]byte(list("-o", "json")), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].Missing.String() != *j.Status.FailedIndexes {
		t.Errorf("-o json lost missing shards: %+v", l.Items)
	}
}

// lister runs list in namespace ml over objs, failing the test on a non-zero exit.
func lister(t *testing.T, objs ...runtime.Object) func(args ...string) string {
	client := fake.NewClientset(objs...)
	return func(args ...string) string {
		t.Helper()
		io := cmdtest.NewIO("")
		o := NewOptions(io.Streams())
		o.Client = client
		o.Clock = testingclock.NewFakeClock(t0.Add(time.Hour))
		f := cmdtesting.NewTestFactory().WithNamespace("ml")
		t.Cleanup(f.Cleanup)
		r := io.Run(NewCmdListWithOptions(f, o), args...)
		if r.Code != 0 {
			t.Fatalf("list %v: exit %d\n%s", args, r.Code, r.Stderr)
		}
		return r.Stdout
	}
}

// A Job with a manual selector: its pods carry the Job's own labels, not the controller-uid
// label the list of the other Jobs' pods selects on. They are read by the Job's selector, and
// of those only the ones the Job controls count (a pod of the same labels owned by another Job
// does not).
func TestWithPodsReadsAManualSelectorJobsPods(t *testing.T) {
	manual := job("ml", "manual", 3, 0)
	manual.Spec.ManualSelector = ptr.To(true)
	manual.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "manual"}}
	manual.Status.CompletedIndexes, manual.Status.Succeeded, manual.Status.Active = "0", 1, 2
	var objs []runtime.Object
	objs = append(objs, manual)
	for _, p := range []*corev1.Pod{pod(manual, 0, 0, corev1.PodSucceeded), pod(manual, 1, 0, corev1.PodFailed), pod(manual, 1, 1, corev1.PodRunning), pod(manual, 2, 0, corev1.PodRunning)} {
		p.Labels = map[string]string{"app": "manual"}
		objs = append(objs, p)
	}
	stray := pod(manual, 2, 1, corev1.PodRunning)
	stray.Labels = map[string]string{"app": "manual"}
	stray.OwnerReferences[0].UID = "uid-another-job"
	objs = append(objs, stray)

	client := fake.NewClientset(objs...)
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.Client = client
	o.Clock = testingclock.NewFakeClock(t0.Add(time.Hour))
	f := cmdtesting.NewTestFactory().WithNamespace("ml")
	t.Cleanup(f.Cleanup)
	r := io.Run(NewCmdListWithOptions(f, o), "--with-pods", "-o", "json")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	var l joblist.List
	if err := json.Unmarshal([]byte(r.Stdout), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].Pods == nil || *l.Items[0].Pods != 4 || *l.Items[0].Attempts != 4 {
		t.Fatalf("want one row with 4 pods and 4 attempts (the stray pod left out):\n%s", r.Stdout)
	}
	var selectors []string
	for _, a := range client.Actions() {
		if la, ok := a.(clienttesting.ListAction); ok && a.GetResource().Resource == "pods" {
			selectors = append(selectors, la.GetListRestrictions().Labels.String())
		}
	}
	if len(selectors) != 1 || selectors[0] != "app=manual" {
		t.Errorf("pod LISTs by %q, want one by the Job's own selector app=manual", selectors)
	}
}
