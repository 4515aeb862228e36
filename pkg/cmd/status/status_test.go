package status

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// job is a small Indexed Job with per-index retries, FailIndex on 42, as the server returns it.
func job(name string, completions int32) *batchv1.Job {
	j := testutil.StartedJob("ns", name, completions, t0)
	j.APIVersion, j.Kind = "batch/v1", "Job"
	j.ResourceVersion = "10"
	j.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
	j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionFailIndex,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptr.To("worker"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
	}}}
	j.Spec.Template.Spec.Containers[0].Image = "w"
	j.Status.Ready, j.Status.Terminating = ptr.To[int32](0), ptr.To[int32](0)
	return j
}

func pod(j *batchv1.Job, index, attempt int, exit *int32) *corev1.Pod {
	p := testutil.IndexPod(j, index, attempt)
	p.APIVersion, p.Kind = "v1", "Pod"
	p.UID = types.UID(fmt.Sprintf("p-%d-%d", index, attempt))
	p.Labels[batchv1.JobNameLabel] = j.Name
	p.Labels[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(index)
	p.CreationTimestamp = metav1.Time{Time: t0}
	p.Status.StartTime = &metav1.Time{Time: t0}
	if exit != nil {
		testutil.Terminate(p, *exit, t0.Add(5*time.Second))
	}
	return p
}

// seed is the seed scenario's final state (test/fixtures/seed, captured from the real controller).
func seed() (*batchv1.Job, []*corev1.Pod) {
	j := job("seed", 6)
	j.Status.CompletedIndexes, j.Status.FailedIndexes = "0,1,3,5", ptr.To("2,4")
	j.Status.Succeeded, j.Status.Failed = 4, 3
	for _, t := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		j.Status.Conditions = append(j.Status.Conditions, batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: "FailedIndexes", Message: "Job has failed indexes"})
	}
	var pods []*corev1.Pod
	for _, i := range []int{0, 1, 3, 5} {
		pods = append(pods, pod(j, i, 0, ptr.To[int32](0)))
	}
	pods = append(pods, pod(j, 2, 0, ptr.To[int32](42)), pod(j, 4, 0, ptr.To[int32](1)), pod(j, 4, 1, ptr.To[int32](1)))
	return j, pods
}

// running is a Job with index 0 done, 1 retrying, 2 running.
func running() (*batchv1.Job, []*corev1.Pod) {
	j := job("run", 4)
	j.Status.CompletedIndexes, j.Status.Succeeded, j.Status.Active = "0", 1, 1
	return j, []*corev1.Pod{pod(j, 0, 0, ptr.To[int32](0)), pod(j, 1, 0, ptr.To[int32](1)), pod(j, 2, 0, nil)}
}

type result struct {
	out, errOut string
	code        int
}

// run executes the status command in-process, with client and a fixed clock.
func run(t *testing.T, client *fake.Clientset, stdin string, args ...string) result {
	t.Helper()
	io := cmdtest.NewIO(stdin)
	o := NewOptions(io.Streams())
	if client != nil {
		o.NewClient = clientIs(client)
	}
	o.Clock = testingclock.NewFakeClock(t0.Add(time.Minute))
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	r := io.Run(NewCmdStatusWithOptions(f, o), args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

func writeObjects(t *testing.T, j *batchv1.Job, pods []*corev1.Pod) (jobFile, podsFile string) {
	t.Helper()
	dir := t.TempDir()
	jobFile, podsFile = filepath.Join(dir, "job.json"), filepath.Join(dir, "pods.json")
	list := corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for _, p := range pods {
		list.Items = append(list.Items, *p)
	}
	for path, obj := range map[string]any{jobFile: j, podsFile: list} {
		b, err := json.MarshalIndent(obj, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return jobFile, podsFile
}

// clientIs is a NewClient that returns c: Complete makes the command read through it.
func clientIs(c kubernetes.Interface) func(*rest.Config) (kubernetes.Interface, error) {
	return func(*rest.Config) (kubernetes.Interface, error) { return c, nil }
}

func clientFor(j *batchv1.Job, pods []*corev1.Pod, extra ...runtime.Object) *fake.Clientset {
	objs := []runtime.Object{j}
	for _, p := range pods {
		objs = append(objs, p)
	}
	return fake.NewClientset(append(objs, extra...)...)
}

func TestLiveAndOfflineAgree(t *testing.T) {
	for _, mk := range []func() (*batchv1.Job, []*corev1.Pod){seed, running} {
		j, pods := mk()
		jobFile, podsFile := writeObjects(t, j, pods)
		for _, output := range []string{"", "wide", "json", "yaml"} {
			live := run(t, clientFor(j, pods), "", j.Name, "-o", output)
			offline := run(t, nil, "", "-f", jobFile, "--pods-file", podsFile, "-o", output, "--now", t0.Add(time.Minute).Format(time.RFC3339))
			if live.code != 0 || offline.code != 0 {
				t.Fatalf("%s -o %q: exit %d/%d: %s%s", j.Name, output, live.code, offline.code, live.errOut, offline.errOut)
			}
			if live.out != offline.out {
				t.Errorf("%s -o %q: live and offline differ:\n--- live\n%s\n--- offline\n%s", j.Name, output, live.out, offline.out)
			}
		}
	}
}

func TestSeedText(t *testing.T) {
	j, pods := seed()
	r := run(t, clientFor(j, pods), "", "seed")
	for _, want := range []string{
		"Phase:        Failed",
		"Condition:    FailedIndexes: Job has failed indexes",
		"NOT complete: the Job failed with 4 of 6 indexes succeeded; no result for 2,4",
		"Succeeded  4      0,1,3,5",
		"Failed     2      2,4",
		"failed at once: exit code 42 in container worker matched podFailurePolicy rule 0 (FailIndex)",
		"failed after 2 attempts (exit code 1 in container worker), backoffLimitPerIndex 1 exhausted",
	} {
		// The text view wraps at 80 columns: compare with the line breaks and padding folded.
		if !strings.Contains(strings.Join(strings.Fields(r.out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("output lacks %q:\n%s", want, r.out)
		}
	}
}

func TestExitCodes(t *testing.T) {
	j, pods := seed()
	if r := run(t, clientFor(j, pods), "", "seed", "--exit-code"); r.code != exitcode.Findings || r.out == "" {
		t.Errorf("failed Job: exit %d, want 1", r.code)
	}
	if r := run(t, clientFor(j, pods), "", "seed"); r.code != 0 {
		t.Errorf("failed Job without --exit-code: exit %d, want 0", r.code)
	}
	j, pods = running()
	if r := run(t, clientFor(j, pods), "", "run", "--exit-code"); r.code != exitcode.Running {
		t.Errorf("running Job: exit %d, want 3", r.code)
	}
	j = job("done", 2)
	j.Status.CompletedIndexes, j.Status.Succeeded = "0,1", 2
	for _, t := range []batchv1.JobConditionType{batchv1.JobSuccessCriteriaMet, batchv1.JobComplete} {
		j.Status.Conditions = append(j.Status.Conditions, batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: "CompletionsReached"})
	}
	if r := run(t, clientFor(j, nil), "", "done", "--exit-code"); r.code != 0 {
		t.Errorf("complete Job: exit %d, want 0: %s", r.code, r.errOut)
	}
	// Complete through a success policy with an index missing is not success.
	j.Status.CompletedIndexes, j.Status.Succeeded = "0", 1
	for i := range j.Status.Conditions {
		j.Status.Conditions[i].Reason = "SuccessPolicy"
	}
	if r := run(t, clientFor(j, nil), "", "done", "--exit-code"); r.code != exitcode.Findings {
		t.Errorf("success-policy Job: exit %d, want 1", r.code)
	}
}

func TestErrors(t *testing.T) {
	j, pods := seed()
	cases := []struct {
		name   string
		client *fake.Clientset
		args   []string
		code   int
		errSub string
	}{
		{"not found", clientFor(j, pods), []string{"nope"}, exitcode.Cluster, `job "nope" not found in namespace "ns"`},
		{"no name", clientFor(j, pods), nil, exitcode.Usage, "give a Job name, or -f JOB_FILE"},
		{"two names", clientFor(j, pods), []string{"a", "b"}, exitcode.Usage, "expected one Job name"},
		{"bad output", clientFor(j, pods), []string{"seed", "-o", "table"}, exitcode.Usage, `unable to match a printer suitable for the output format "table"`},
		{"pods file without -f", clientFor(j, pods), []string{"seed", "--pods-file", "x"}, exitcode.Usage, "--pods-file, --shards-file and --now need -f"},
		{"watch offline", nil, []string{"-f", "x", "--watch"}, exitcode.Usage, "--watch needs a live Job"},
		{"name and -f", nil, []string{"seed", "-f", "x"}, exitcode.Usage, "either a Job name or -f"},
		{"missing file", nil, []string{"-f", "/nonexistent/job.json"}, exitcode.Usage, "cannot read the Job"},
		{"two stdins", nil, []string{"-f", "-", "--pods-file", "-"}, exitcode.Usage, "only one of -f, --pods-file and --shards-file can be -"},
	}
	forbidden := clientFor(j, pods)
	forbidden.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", fmt.Errorf("no"))
	})
	cases = append(cases, struct {
		name   string
		client *fake.Clientset
		args   []string
		code   int
		errSub string
	}{"forbidden", forbidden, []string{"seed"}, exitcode.Cluster, `permission denied: you may not list pods in namespace "ns"`})
	nonIndexed := job("plain", 1)
	nonIndexed.Spec.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	cases = append(cases, struct {
		name   string
		client *fake.Clientset
		args   []string
		code   int
		errSub string
	}{"not indexed", clientFor(nonIndexed, nil), []string{"plain"}, exitcode.Usage, "is not an Indexed Job: its completionMode is NonIndexed"})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, c.client, "", c.args...)
			if r.code != c.code || !strings.Contains(r.errOut, c.errSub) {
				t.Errorf("exit %d stderr %q; want %d and %q", r.code, r.errOut, c.code, c.errSub)
			}
			if strings.Contains(r.errOut, "goroutine") {
				t.Errorf("stack trace printed")
			}
		})
	}
}

// TestOneGetOnePaginatedList checks the requests a live report makes: one Job GET and a pod
// LIST by controller-uid, page by page until the continue token is empty.
func TestOneGetOnePaginatedList(t *testing.T) {
	j, pods := seed()
	client := clientFor(j, pods)
	var pages []metav1.ListOptions
	client.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		la := a.(k8stesting.ListActionImpl)
		opts := la.ListOptions
		pages = append(pages, opts)
		start := 0
		if opts.Continue != "" {
			start, _ = strconv.Atoi(opts.Continue)
		}
		end := min(start+int(opts.Limit), len(pods))
		list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "42"}}
		for _, p := range pods[start:end] {
			list.Items = append(list.Items, *p)
		}
		if end < len(pods) {
			list.Continue = strconv.Itoa(end)
		}
		return true, list, nil
	})
	r := run(t, client, "", "seed", "--chunk-size", "3", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if len(pages) != 3 {
		t.Fatalf("%d pages listed, want 3", len(pages))
	}
	for _, p := range pages {
		if p.LabelSelector != "batch.kubernetes.io/controller-uid=uid-seed" || p.Limit != 3 || p.ResourceVersion != "" || p.ResourceVersionMatch != "" {
			t.Errorf("list options %+v", p)
		}
	}
	var gets, lists, jobLists int
	for _, a := range client.Actions() {
		switch {
		case a.GetVerb() == "get" && a.GetResource().Resource == "jobs":
			gets++
		case a.GetVerb() == "list" && a.GetResource().Resource == "pods":
			lists++
		case a.GetVerb() == "list" && a.GetResource().Resource == "jobs":
			// The seed Job failed: the Jobs that retried it, on the lineage's label.
			jobLists++
		default:
			t.Errorf("unexpected request %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
	if gets != 1 || lists != 3 || jobLists != 1 {
		t.Errorf("%d job GETs, %d pod LIST pages, %d job LISTs", gets, lists, jobLists)
	}
	var rep struct {
		Summary struct{ Succeeded, Failed int }
		Pods    struct{ Seen int }
	}
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil || rep.Summary.Succeeded != 4 || rep.Summary.Failed != 2 || rep.Pods.Seen != 7 {
		t.Errorf("report %+v, %v", rep, err)
	}

	// Without --chunk-size: a first page of up to 10,000 pods, which holds the whole Job, and
	// no resourceVersion (a consistent read).
	pages = nil
	if r := run(t, client, "", "seed", "-o", "json"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if len(pages) != 1 || pages[0].Limit != DefaultFirstPageSize || pages[0].ResourceVersion != "" || pages[0].ResourceVersionMatch != "" {
		t.Errorf("default pages %+v", pages)
	}
}

// seedWithShards is the seed Job annotated with its shard ConfigMap, and that ConfigMap.
func seedWithShards() (*batchv1.Job, []*corev1.Pod, *corev1.ConfigMap) {
	j, pods := seed()
	j.Annotations = map[string]string{shards.AnnotationShardsConfigMap: "seed-shards"}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "seed-shards", Namespace: "ns"},
		Data:       map[string]string{shards.KeyShardIDs: `["s-a","s-b","s-c","s-d","s-e","s-f"]`},
	}
	return j, pods, cm
}

func TestShards(t *testing.T) {
	j, pods, cm := seedWithShards()
	live := run(t, clientFor(j, pods, cm), "", "seed", "-o", "wide")
	if !strings.Contains(live.out, "2      s-c    Failed") {
		t.Errorf("shard ID missing:\n%s", live.out)
	}
	jobFile, podsFile := writeObjects(t, j, pods)
	cmFile := filepath.Join(t.TempDir(), "cm.json")
	b, _ := json.Marshal(cm)
	if err := os.WriteFile(cmFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	offline := run(t, nil, "", "-f", jobFile, "--pods-file", podsFile, "--shards-file", cmFile, "-o", "wide", "--now", t0.Add(time.Minute).Format(time.RFC3339))
	if offline.out != live.out {
		t.Errorf("offline with --shards-file differs from live:\n%s\n---\n%s", offline.out, live.out)
	}
	// No ConfigMap: a note, not a failure.
	missing := run(t, clientFor(j, pods), "", "seed")
	if missing.code != 0 || !strings.Contains(missing.out, `The Job names shard ConfigMap "seed-shards" but it does not exist`) {
		t.Errorf("exit %d:\n%s", missing.code, missing.out)
	}
	forbidden := clientFor(j, pods, cm)
	forbidden.PrependReactor("get", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "seed-shards", fmt.Errorf("no"))
	})
	if r := run(t, forbidden, "", "seed"); r.code != 0 || !strings.Contains(r.out, `Not allowed to get ConfigMap "seed-shards"`) {
		t.Errorf("exit %d:\n%s", r.code, r.out)
	}
}

func TestOfflineStdinAndNoPods(t *testing.T) {
	j, _ := seed()
	b, _ := json.Marshal(j)
	r := run(t, nil, string(b), "-f", "-")
	if r.code != 0 || !strings.Contains(r.out, "No pods given (--pods-file, or in -f)") || !strings.Contains(r.out, "Why indexes 2,4 failed") {
		t.Errorf("exit %d:\n%s%s", r.code, r.out, r.errOut)
	}
}

// TestWatch follows a running Job through pod and Job updates until it is Failed, then exits
// with --exit-code's code. It uses watches only: no LIST after the first.
func TestWatch(t *testing.T) {
	j, pods := watched()
	client := clientFor(j, pods)
	// The fake records a WATCH before its default reactor registers the watcher with the
	// tracker, so an update made as soon as the action shows could be lost: count the watchers
	// once registered.
	var mu sync.Mutex
	registered := map[string]int{}
	client.PrependWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
		w, err := client.Tracker().Watch(a.GetResource(), a.GetNamespace())
		mu.Lock()
		registered[a.GetResource().Resource]++
		mu.Unlock()
		return true, w, err
	})
	done := startWatch(t, client)

	// Wait for both watches, then change the pods and the Job.
	waitFor(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return registered["jobs"] == 1 && registered["pods"] == 1
	})
	firstLists := countActions(client, "list", "pods")
	ctx := context.Background()
	failedPod := pod(j, 2, 0, ptr.To[int32](42))
	failedPod.ResourceVersion = "20"
	if _, err := client.CoreV1().Pods("ns").Update(ctx, failedPod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	j2 := j.DeepCopy()
	j2.ResourceVersion = "21"
	j2.Status.FailedIndexes = ptr.To("1,2")
	j2.Status.Active = 0
	for _, ct := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		j2.Status.Conditions = append(j2.Status.Conditions, batchv1.JobCondition{Type: ct, Status: corev1.ConditionTrue, Reason: "FailedIndexes", Message: "Job has failed indexes"})
	}
	if _, err := client.BatchV1().Jobs("ns").UpdateStatus(ctx, j2, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r := wait(t, done)
	if r.code != exitcode.Findings {
		t.Errorf("exit %d, want 1: %s", r.code, r.errOut)
	}
	// Off a terminal: a line per change, the full report once at the end (issue 36 item 1:
	// a full report per event flooded a pipe).
	if n := strings.Count(r.out, "Phase:"); n != 1 || !strings.HasPrefix(r.out, "+0s Running: 1/4 succeeded") {
		t.Errorf("%d reports drawn, want a first line and the final report only:\n%s", n, r.out)
	}
	last := r.out[strings.LastIndex(r.out, "Job:"):]
	if !strings.Contains(last, "Phase:        Failed") || !strings.Contains(last, "Failed  1      42    0 FailIndex  0             2\n") {
		t.Errorf("final report:\n%s", last)
	}
	// Between the first read and the final one (one LIST, or two when it falls back to every
	// pod), watches only.
	if lists := countActions(client, "list", "pods") - firstLists; lists < 1 || lists > 2 {
		t.Errorf("%d pod LISTs after the watches started, want the final read's only (1 or 2)", lists)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHelpDocumentsExitCodes(t *testing.T) {
	var buf bytes.Buffer
	f := cmdtesting.NewTestFactory()
	defer f.Cleanup()
	cmd := NewCmdStatus(f, genericiooptions.IOStreams{Out: &buf, ErrOut: &buf})
	for _, want := range []string{"--exit-code, 0 only when every index succeeded", "1 when the", "3 while it is still running", "4 the API server"} {
		if !strings.Contains(strings.Join(strings.Fields(cmd.Long), " "), want) {
			t.Errorf("long help lacks %q", want)
		}
	}
}

// TestClientConfig: pods are listed in protobuf, and client-go's default rate limit (5 per
// second) does not throttle the pages of a large Job.
func TestClientConfig(t *testing.T) {
	j, pods := seed()
	client := clientFor(j, pods)
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	o := NewOptions(streams)
	var got *rest.Config
	o.NewClient = func(c *rest.Config) (kubernetes.Interface, error) { got = c; return client, nil }
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	if err := o.Complete(f, []string{"seed"}); err != nil {
		t.Fatal(err)
	}
	if got.ContentType != "application/vnd.kubernetes.protobuf" || !strings.HasPrefix(got.AcceptContentTypes, "application/vnd.kubernetes.protobuf") {
		t.Errorf("content types %q / %q", got.ContentType, got.AcceptContentTypes)
	}
	if got.QPS != ListQPS || got.Burst != ListBurst {
		t.Errorf("QPS %v burst %d", got.QPS, got.Burst)
	}
}
