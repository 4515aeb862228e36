package logs

import (
	"errors"
	"fmt"
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
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// job is an Indexed Job of 4 indexes with backoffLimitPerIndex 1, as the server returns it
// after: index 0 succeeded; index 1 failed twice (its first pod since deleted), index 2 failed
// once and was retried, its retry running; index 3 failed on its first and second attempt.
func fixture() (*batchv1.Job, []*corev1.Pod) {
	j := testutil.StartedJob("ns", "eval", 4, t0)
	j.APIVersion, j.Kind = "batch/v1", "Job"
	j.Spec.Parallelism = ptr.To[int32](4)
	j.Status.CompletedIndexes, j.Status.FailedIndexes = "0", ptr.To("1,3")
	j.Status.Succeeded, j.Status.Failed, j.Status.Active = 1, 5, 1
	pods := []*corev1.Pod{
		pod(j, 0, 0, ptr.To[int32](0)),
		pod(j, 1, 1, ptr.To[int32](3)),
		pod(j, 2, 0, ptr.To[int32](7)),
		pod(j, 2, 1, nil),
		pod(j, 3, 0, ptr.To[int32](5)),
		pod(j, 3, 1, ptr.To[int32](6)),
	}
	return j, pods
}

func pod(j *batchv1.Job, index, failures int, exit *int32) *corev1.Pod {
	p := testutil.IndexPod(j, index, failures)
	p.UID = types.UID(fmt.Sprintf("p-%d-%d", index, failures))
	p.Labels[batchv1.JobNameLabel] = j.Name
	p.CreationTimestamp = metav1.Time{Time: t0.Add(time.Duration(failures) * time.Minute)}
	p.Spec = corev1.PodSpec{Containers: []corev1.Container{{Name: "worker"}}}
	if exit != nil {
		testutil.Terminate(p, *exit, t0.Add(time.Duration(failures)*time.Minute+30*time.Second))
	}
	return p
}

// logServer answers log requests in the order they come with "log of request N" lines and
// records the options of each.
type logServer struct {
	mu    sync.Mutex
	opts  []corev1.PodLogOptions
	lines []string
	err   error
	// errAt fails the requests of these numbers (from 1), the others answered in turn.
	errAt map[int]error
}

func (s *logServer) react(a k8stesting.Action) (bool, runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return true, nil, s.err
	}
	g := a.(k8stesting.GenericAction)
	s.opts = append(s.opts, *g.GetValue().(*corev1.PodLogOptions))
	if err := s.errAt[len(s.opts)]; err != nil {
		return true, nil, err
	}
	body := s.lines[len(s.opts)-1]
	return true, &runtime.Unknown{Raw: []byte(body)}, nil
}

type result struct {
	out, errOut string
	code        int
}

func run(t *testing.T, srv *logServer, args ...string) result {
	t.Helper()
	j, pods := fixture()
	return runOn(t, srv, j, pods, args...)
}

func runOn(t *testing.T, srv *logServer, j *batchv1.Job, pods []*corev1.Pod, args ...string) result {
	t.Helper()
	objs := []runtime.Object{j}
	for _, p := range pods {
		objs = append(objs, p)
	}
	client := fake.NewClientset(objs...)
	client.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		return srv.react(a)
	})
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.Client = client
	o.Clock = testingclock.NewFakeClock(t0.Add(time.Hour))
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	t.Cleanup(f.Cleanup) // its temporary kubeconfig
	r := io.Run(NewCmdLogsWithOptions(f, o), args...)
	return result{out: r.Stdout, errOut: r.Stderr, code: r.Code}
}

func TestLatestAttemptOfAnIndex(t *testing.T) {
	srv := &logServer{lines: []string{"starting\nshard 2 at 40%\n"}}
	r := run(t, srv, "job.batch/eval", "--index", "2", "--tail", "20", "--since", "5m")
	if r.code != 0 || r.out != "starting\nshard 2 at 40%\n" || r.errOut != "" {
		t.Fatalf("got code %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
	}
	if len(srv.opts) != 1 {
		t.Fatalf("want one log request, got %d", len(srv.opts))
	}
	got := srv.opts[0]
	if got.Container != "worker" || got.TailLines == nil || *got.TailLines != 20 || got.SinceSeconds == nil || *got.SinceSeconds != 300 || got.Follow {
		t.Errorf("log options = %+v", got)
	}
}

func TestFollowAsksTheServerToFollow(t *testing.T) {
	srv := &logServer{lines: []string{"x\n"}}
	if r := run(t, srv, "eval", "--index", "2", "-f"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if !srv.opts[0].Follow || srv.opts[0].TailLines != nil {
		t.Errorf("log options = %+v", srv.opts[0])
	}
}

func TestAllAttemptsPrefixesAndNamesTheGonePod(t *testing.T) {
	srv := &logServer{lines: []string{"first try\n", "second try\nno newline at end"}}
	r := run(t, srv, "eval", "--index", "2", "--all-attempts")
	want := "[index 2 attempt 1] first try\n[index 2 attempt 2] second try\n[index 2 attempt 2] no newline at end\n"
	if r.code != 0 || r.out != want {
		t.Fatalf("code %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", r.code, r.out, want, r.errOut)
	}

	// Index 1: attempt 1's pod was deleted; attempt 2's pod counts one failure before it.
	srv = &logServer{lines: []string{"exit 3\n"}}
	r = run(t, srv, "eval", "--index", "1", "--all-attempts")
	if r.code != 0 || r.out != "exit 3\n" {
		t.Fatalf("code %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
	}
	for _, w := range []string{"index 1 attempt 1: its pod is gone; it failed: pod eval-1-1 (attempt 2) counts 1 failure of this index before it"} {
		if !strings.Contains(r.errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.errOut)
		}
	}
}

func TestGoneAttemptAloneExitsOne(t *testing.T) {
	srv := &logServer{}
	r := run(t, srv, "eval", "--index", "1", "--attempt", "1")
	if r.code != exitcode.Findings || r.out != "" || len(srv.opts) != 0 {
		t.Fatalf("code %d (want 1)\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
	}
	if !strings.Contains(r.errOut, "index 1 attempt 1: its pod is gone") || !strings.Contains(r.errOut, "no logs to show") {
		t.Errorf("stderr:\n%s", r.errOut)
	}
}

func TestFailedShowsTheLastFailedAttemptOfEachFailedIndex(t *testing.T) {
	srv := &logServer{lines: []string{"boom 3\n", "boom 6\n"}}
	r := run(t, srv, "eval", "--failed")
	want := "[index 1 attempt 2] boom 3\n[index 3 attempt 2] boom 6\n"
	if r.code != 0 || r.out != want || r.errOut != "" {
		t.Fatalf("code %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", r.code, r.out, want, r.errOut)
	}
}

// Issue 22: --failed shows one sample log per cause, saying which indexes it stands for;
// --all shows every failed index.
func TestFailedGroupsByCause(t *testing.T) {
	j, pods := fixture()
	// Index 3's attempts exit 3, as index 1's last does: one cause.
	pods[4] = pod(j, 3, 0, ptr.To[int32](3))
	pods[5] = pod(j, 3, 1, ptr.To[int32](3))
	srv := &logServer{lines: []string{"boom 3\n"}}
	r := runOn(t, srv, j, pods, "eval", "--failed")
	if r.code != 0 || r.out != "boom 3\n" || len(srv.opts) != 1 {
		t.Fatalf("code %d, %d log requests\nstdout:\n%s\nstderr:\n%s", r.code, len(srv.opts), r.out, r.errOut)
	}
	if want := "2 indexes (1,3) failed: exit code 3 in container worker: the log of index 1 attempt 2 stands for them (--all: every index)\n"; r.errOut != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.errOut, want)
	}
	srv = &logServer{lines: []string{"boom 1\n", "boom 3\n"}}
	r = runOn(t, srv, j, pods, "eval", "--failed", "--all")
	if want := "[index 1 attempt 2] boom 1\n[index 3 attempt 2] boom 3\n"; r.code != 0 || r.out != want || r.errOut != "" {
		t.Errorf("--all: code %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", r.code, r.out, want, r.errOut)
	}
	if r := run(t, &logServer{}, "eval", "--index", "1", "--all"); r.code != exitcode.Usage || !strings.Contains(r.errOut, "--all goes with --failed") {
		t.Errorf("--all without --failed: code %d\n%s", r.code, r.errOut)
	}
}

func TestBadSelections(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval"}, exitcode.Usage, "give --index N"},
		{[]string{"eval", "--index", "1", "--failed"}, exitcode.Usage, "not both"},
		{[]string{"eval", "--index", "9"}, exitcode.Usage, "index 9 is out of range: job \"eval\" has completion indexes 0 to 3"},
		{[]string{"eval", "--index", "1,9"}, exitcode.Usage, "index 9 is out of range: job \"eval\" has completion indexes 0 to 3"},
		{[]string{"eval", "--index", "3-1"}, exitcode.Usage, `--index "3-1": "3-1" ends before it starts: give completion indexes, a list such as 2,5,11-14`},
		{[]string{"eval", "--index", "-1"}, exitcode.Usage, `--index "-1": "-1" is not an index`},
		{[]string{"eval", "--index", "1", "--attempt", "3"}, exitcode.Usage, "index 1 has run 2 attempts: there is no attempt 3"},
		{[]string{"eval", "--index", "1", "--attempt", "1", "--all-attempts"}, exitcode.Usage, "not both"},
		{[]string{"eval", "--failed", "--attempt", "1"}, exitcode.Usage, "go with --index"},
		// Issue 26, item 15: --attempt 0 was taken as "the latest".
		{[]string{"eval", "--index", "1", "--attempt", "0"}, exitcode.Usage, "--attempt 0: attempts count from 1"},
		{[]string{"nope", "--index", "1"}, exitcode.Cluster, `job "nope" not found in namespace "ns"`},
	} {
		r := run(t, &logServer{}, tc.args...)
		if r.code != tc.code || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("%v: code %d (want %d), stderr:\n%s(want %q)", tc.args, r.code, tc.code, r.errOut, tc.want)
		}
	}
}

func TestLogFetchErrorIsAClusterError(t *testing.T) {
	srv := &logServer{err: errors.New(`Get "https://192.0.2.10:10250/containerLogs/ns/eval-2-1/worker": dial tcp 192.0.2.10:10250: connect: connection refused`)}
	r := run(t, srv, "eval", "--index", "2")
	if r.code != exitcode.Cluster || !strings.Contains(r.errOut, `cannot fetch the logs of pod "eval-2-1" (index 2 attempt 2, container "worker"): the API server could not reach the node's kubelet`) {
		t.Fatalf("code %d\nstderr:\n%s", r.code, r.errOut)
	}
}

// TestIndexList: --index takes the one index grammar (it took a single number): the latest
// attempt of every index listed, each line prefixed with its index. Fails before the fix.
func TestIndexList(t *testing.T) {
	srv := &logServer{lines: []string{"hello\n", "hello\n"}}
	r := run(t, srv, "eval", "--index", "2,1")
	if r.code != 0 || !strings.Contains(r.out, "[index 1 ") || !strings.Contains(r.out, "[index 2 ") || strings.Index(r.out, "[index 1 ") > strings.Index(r.out, "[index 2 ") {
		t.Fatalf("code %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
	}
}

// TestLogsForbiddenAsksForPodsLog: a denied pods/log is worded as every other permission error
// (issue 26, item 15: it was the server's bare message).
func TestLogsForbiddenAsksForPodsLog(t *testing.T) {
	srv := &logServer{err: apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "eval-2-1", errors.New(`User "viewer" cannot get resource "pods/log"`))}
	r := run(t, srv, "eval", "--index", "2")
	if r.code != exitcode.Cluster || !strings.Contains(r.errOut, `permission denied: you may not get the logs of pod "eval-2-1" (index 2 attempt 2) in namespace "ns"; ask for "get" on "pods/log"`) {
		t.Fatalf("code %d\nstderr:\n%s", r.code, r.errOut)
	}
}

// Issue 36, item 6: when a failed attempt's log cannot be fetched (its node's kubelet
// unreachable, the pod gone since the LIST), --failed says what the pod's status already
// records (exit code, reason, termination message) on one line and goes on; it exits 1 only
// when no log at all could be shown, not 4.
func TestFailedFallsBackToThePodsFacts(t *testing.T) {
	j, pods := fixture()
	pods[1].Status.ContainerStatuses[0].State.Terminated.Reason = "OOMKilled"
	pods[1].Status.ContainerStatuses[0].State.Terminated.Message = "loading shard 1\nout of memory"
	unreachable := errors.New(`Get "https://192.0.2.10:10250/containerLogs/ns/eval-1-1/worker": dial tcp 192.0.2.10:10250: connect: connection refused`)
	srv := &logServer{lines: []string{"", "boom 6\n"}, errAt: map[int]error{1: unreachable}}
	r := runOn(t, srv, j, pods, "eval", "--failed", "--all")
	if r.code != 0 || r.out != "[index 3 attempt 2] boom 6\n" {
		t.Fatalf("code %d (want 0)\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
	}
	// One line: the attempt, why its log is missing, what its pod's status says.
	if lines := strings.Split(strings.TrimSuffix(r.errOut, "\n"), "\n"); len(lines) != 1 ||
		!strings.HasPrefix(lines[0], "index 1 attempt 2: logs not fetched (pod eval-1-1: the API server could not reach the node's kubelet, which serves container logs: ") ||
		!strings.HasSuffix(lines[0], unreachable.Error()+`); the pod's status says: exit code 3 (OOMKilled) in container worker; termination message "loading shard 1 out of memory"`) {
		t.Errorf("stderr:\n%s", r.errOut)
	}

	// Every log fails: the facts of each, then exit 1 (nothing shown), not 4.
	gone := apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "eval-1-1")
	srv = &logServer{errAt: map[int]error{1: gone, 2: gone}}
	r = runOn(t, srv, j, pods, "eval", "--failed", "--all")
	if r.code != exitcode.Findings || r.out != "" {
		t.Fatalf("code %d (want 1)\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
	}
	for _, w := range []string{
		`index 1 attempt 2: logs not fetched (pod eval-1-1: `, `pods "eval-1-1" not found); the pod's status says: exit code 3 (OOMKilled) in container worker`,
		`index 3 attempt 2: logs not fetched (pod eval-3-1: `, `); the pod's status says: exit code 6 (Error) in container worker`,
		"no logs to show: the logs of the selected attempts could not be fetched",
	} {
		if !strings.Contains(r.errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.errOut)
		}
	}
	if n := strings.Count(r.errOut, "logs not fetched"); n != 2 {
		t.Errorf("%d fallback lines, want one per attempt:\n%s", n, r.errOut)
	}
}

// A container named with -c that the pod lacks stays an error (exit 4): it is not a log the
// node cannot serve.
func TestFailedWrongContainerIsAnError(t *testing.T) {
	bad := apierrors.NewBadRequest(`container nope is not valid for pod eval-1-1`)
	srv := &logServer{errAt: map[int]error{1: bad, 2: bad}}
	r := run(t, srv, "eval", "--failed", "--all", "-c", "nope")
	if r.code != exitcode.Cluster || !strings.Contains(r.errOut, `cannot fetch the logs of pod "eval-1-1" (index 1 attempt 2, container "nope")`) || strings.Contains(r.errOut, "logs not fetched") {
		t.Errorf("code %d (want 4)\nstderr:\n%s", r.code, r.errOut)
	}
}

// The pods of a Job of 5,000 indexes are read page by page (Limit set, each page's continue
// token followed), not in one LIST, and the attempt picked is the right one.
func TestPodsAreReadInPages(t *testing.T) {
	const n = 5000
	j := testutil.StartedJob("ns", "eval", n, t0)
	j.Status.CompletedIndexes, j.Status.FailedIndexes = fmt.Sprintf("0-4320,4322-%d", n-1), ptr.To("4321")
	j.Status.Succeeded, j.Status.Failed = n-1, 2
	var pods []corev1.Pod
	for i := range n {
		pods = append(pods, *pod(j, i, 0, ptr.To[int32](0)))
	}
	pods = append(pods, *pod(j, 4321, 0, ptr.To[int32](3)))
	pods[4321] = *pod(j, 4321, 1, ptr.To[int32](9))
	client := fake.NewClientset(j)
	type request struct {
		limit int64
		cont  string
	}
	var requests []request
	client.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		opts := a.(k8stesting.ListActionImpl).ListOptions
		requests = append(requests, request{opts.Limit, opts.Continue})
		from := 0
		if opts.Continue != "" {
			from, _ = strconv.Atoi(opts.Continue)
		}
		to := min(from+int(opts.Limit), len(pods))
		if opts.Limit == 0 {
			to = len(pods)
		}
		list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "99"}, Items: pods[from:to]}
		if to < len(pods) {
			list.Continue = strconv.Itoa(to)
		}
		return true, list, nil
	})
	// The log is gone: the command names the attempt's pod and what its status says.
	client.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "")
	})
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.Client = client
	o.Clock = testingclock.NewFakeClock(t0.Add(time.Hour))
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	t.Cleanup(f.Cleanup)
	r := io.Run(NewCmdLogsWithOptions(f, o), "eval", "--failed")

	if want := "index 4321 attempt 2: logs not fetched (pod eval-4321-1: "; r.Code != exitcode.Findings || !strings.HasPrefix(r.Stderr, want) || !strings.Contains(r.Stderr, "exit code 9") {
		t.Fatalf("exit %d, stderr %q: want 1 and %q... exit code 9 (index 4321's last failed attempt)", r.Code, r.Stderr, want)
	}
	if want := (n + 1 + 499) / 500; len(requests) != want {
		t.Fatalf("%d pod LISTs, want %d pages of 500", len(requests), want)
	}
	for i, req := range requests {
		wantContinue := ""
		if i > 0 {
			wantContinue = strconv.Itoa(500 * i)
		}
		if req.limit != 500 || req.cont != wantContinue {
			t.Errorf("pod LIST %d: limit %d continue %q, want limit 500 continue %q", i+1, req.limit, req.cont, wantContinue)
		}
	}
}
