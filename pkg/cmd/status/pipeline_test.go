package status

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/fake"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// Issue 36 items 1, 2 and 5 and issue 35 item 8: status --watch and --wait as a pipeline step.

// piped runs status in the background with a fake clock and output a test reads while it runs.
type piped struct {
	clk         *testingclock.FakeClock
	out, errOut *lockedBuffer
	done        chan result
	cancel      context.CancelCauseFunc
}

func startPiped(t *testing.T, client *fake.Clientset, args ...string) *piped {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	p := &piped{clk: testingclock.NewFakeClock(t0.Add(time.Minute)), out: &lockedBuffer{}, errOut: &lockedBuffer{}, done: make(chan result, 1), cancel: cancel}
	t.Cleanup(func() { cancel(nil) })
	o := NewOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: p.out, ErrOut: p.errOut})
	o.NewClient, o.Clock = clientIs(client), p.clk
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	t.Cleanup(f.Cleanup)
	cmd := NewCmdStatusWithOptions(f, o)
	cmd.SetArgs(args)
	cmd.SetOut(p.out)
	cmd.SetErr(p.errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	go func() {
		err := cmd.ExecuteContext(ctx)
		code := exitcode.Report(p.errOut, err, nil)
		p.done <- result{p.out.String(), p.errOut.String(), code}
	}()
	return p
}

// Off a terminal, --watch prints a line when the Job's state changes, nothing for pod events
// that change none of it, and the full report once at the end (it printed a full report per
// event: 315,502 lines for a 2,000-index Job).
func TestWatchOffATerminalPrintsALinePerChange(t *testing.T) {
	j, pods := watched()
	client := clientFor(j, pods)
	ws := newWatchServer(client)
	p := startPiped(t, client, "run", "--watch", "--exit-code")
	jw, pw := ws.await(t, "jobs", 1), ws.await(t, "pods", 1)

	// 40 pod events: index 3's pod created, then updated, without a change of the Job.
	p3 := pod(j, 3, 0, nil)
	p3.Status.Phase = corev1.PodPending
	p3.ResourceVersion = "30"
	pw.Add(p3)
	for i := range 39 {
		q := p3.DeepCopy()
		q.ResourceVersion = fmt.Sprint(31 + i)
		q.Status.Phase = corev1.PodRunning
		pw.Modify(q)
	}
	p.clk.Step(5 * time.Second)
	more := j.DeepCopy()
	more.ResourceVersion = "80"
	more.Status.CompletedIndexes, more.Status.Succeeded, more.Status.Active = "0,2", 2, 1
	jw.Modify(more)
	waitFor(t, func() bool { return strings.Contains(p.out.String(), "2/4 succeeded (+1)") })
	jw.Modify(failedJob(more, "81"))
	r := wait(t, p.done)

	if r.code != exitcode.Findings {
		t.Fatalf("exit %d, want 1:\n%s\n%s", r.code, r.out, r.errOut)
	}
	head, report, _ := strings.Cut(r.out, "\nJob:")
	lines := strings.Split(strings.TrimSpace(head), "\n")
	want := []string{
		"+0s Running: 1/4 succeeded, 0 failed pods, 1 active; index 1 runs again (finished pods not counted by the Job) (job ns/run; a line per change, the full report at the end)",
		"+5s Running: 2/4 succeeded (+1), 0 failed pods, 1 active",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines before the report:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if n := strings.Count(r.out, "Phase:"); n != 1 || !strings.Contains(report, "Phase:        Failed") {
		t.Errorf("%d reports, want the final one once:\n%s", n, r.out)
	}
}

// changeLine names what changed: newly failed indexes and conditions, not the old ones again.
func TestChangeLine(t *testing.T) {
	a := jobState{phase: "Running", completions: 10, succeeded: 3, failedPods: 1, active: 4, conditions: []string{"Suspended"}}
	b := a
	b.succeeded, b.failedPods, b.phase = 3, 3, "Failing"
	b.failedIx = indexes.Of(2, 7)
	b.conditions = []string{"Suspended", "FailureTarget"}
	got := changeLine(&a, b, 95*time.Second)
	want := "+1m35s Failing: 3/10 succeeded, 3 failed pods (+2), 4 active; indexes 2,7 failed; condition FailureTarget"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// On a terminal a frame opens with the elapsed time and the ETA from the rate indexes finished.
func TestWatchFrameShowsElapsedAndETA(t *testing.T) {
	old := isTerminal
	isTerminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { isTerminal = old })
	j, pods := watched()
	client := clientFor(j, pods)
	ws := newWatchServer(client)
	p := startPiped(t, client, "run", "--watch")
	jw := ws.await(t, "jobs", 1)
	ws.await(t, "pods", 1)
	// Started at t0, now t0+1m: 1 index of 4 finished in a minute, 3 left: about 3m.
	waitFor(t, func() bool {
		return strings.Contains(p.out.String(), "Watching for 0s; 1 of 4 indexes finished, about 3m0s left")
	})
	p.clk.Step(3 * time.Second)
	waitFor(t, func() bool { return strings.Contains(p.out.String(), "Watching for 3s;") })
	jw.Modify(completeJob(j, "90"))
	if r := wait(t, p.done); r.code != 0 || !strings.HasPrefix(r.out, clearScreen) {
		t.Fatalf("exit %d:\n%q", r.code, r.out)
	}
}

func suspendedJob(kueueQueue string) *batchv1.Job {
	j, _ := watched()
	j.Spec.Suspend = ptr.To(true)
	j.Status = batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue, Reason: "JobSuspended"}}}
	if kueueQueue != "" {
		j.Labels = map[string]string{"kueue.x-k8s.io/queue-name": kueueQueue}
	}
	return j
}

// --wait --timeout on a suspended Job warns at once that it is suspended (why, and what resumes
// it), prints the last report and exits 5 when the time is up (it blocked silently for an hour).
func TestWaitTimeoutOnASuspendedJob(t *testing.T) {
	for _, c := range []struct{ queue, warning string }{
		{"", `warning: job "run" is suspended (spec.suspend: true): nothing runs until it is resumed (kubectl patch job run -n ns`},
		{"team-a", `warning: job "run" is suspended, waiting for admission by Kueue: nothing runs until Kueue admits its Workload (kubectl get workloads.kueue.x-k8s.io -n ns`},
	} {
		t.Run("queue="+c.queue, func(t *testing.T) {
			j := suspendedJob(c.queue)
			client := clientFor(j, nil)
			ws := newWatchServer(client)
			p := startPiped(t, client, "run", "--wait", "--timeout", "10s")
			ws.await(t, "pods", 1)
			waitFor(t, func() bool { return strings.Contains(p.errOut.String(), c.warning) })
			if strings.Contains(p.out.String(), "Phase:") {
				t.Fatalf("a report before the timeout:\n%s", p.out.String())
			}
			p.clk.Step(10 * time.Second)
			r := wait(t, p.done)
			if r.code != exitcode.Timeout || !strings.Contains(r.errOut, `error: timed out after 10s waiting for job "run" to finish (Suspended: 0/4 succeeded, 0 failed pods, 0 active)`) {
				t.Fatalf("exit %d, want 5 and the timeout said:\n%s", r.code, r.errOut)
			}
			if strings.Count(r.out, "Phase:") != 1 || strings.Count(r.errOut, "warning:") != 1 {
				t.Errorf("want one report and one warning:\n%s\n%s", r.out, r.errOut)
			}
		})
	}
}

// --timeout 0 looks once (kubectl wait's grammar): a running Job times out at once, a finished
// one exits by its verdict; a negative timeout is a week; --timeout without a wait is refused.
func TestTimeoutGrammar(t *testing.T) {
	j, pods := watched()
	if r := run(t, clientFor(j, pods), "", "run", "--wait", "--timeout", "0"); r.code != exitcode.Timeout || strings.Count(r.out, "Phase:") != 1 {
		t.Errorf("--timeout 0 on a running Job: exit %d, want 5 with the report:\n%s%s", r.code, r.out, r.errOut)
	}
	if r := run(t, clientFor(completeJob(j, "11"), pods), "", "run", "--wait", "--timeout", "0"); r.code != exitcode.OK {
		t.Errorf("--timeout 0 on a complete Job: exit %d, want 0:\n%s", r.code, r.errOut)
	}
	if r := run(t, clientFor(j, pods), "", "run", "--wait", "--timeout", "5"); r.code != exitcode.Usage || !strings.Contains(r.errOut, "missing unit") {
		t.Errorf("--timeout 5: exit %d, want 2 (a duration needs a unit, as kubectl wait):\n%s", r.code, r.errOut)
	}
	o := NewOptions(genericiooptions.IOStreams{})
	o.JobName, o.Wait, o.Timeout, o.timeoutSet = "run", true, -time.Second, true
	if err := o.Validate(); err != nil || o.Timeout != 7*24*time.Hour {
		t.Errorf("--timeout -1s: %v, timeout %s, want a week", err, o.Timeout)
	}
}

// --wait's progress goes to standard error at most once per progressEvery, with counts and the
// elapsed time (a 185 s wait said nothing before).
func TestWaitProgressIsBounded(t *testing.T) {
	j, pods := watched()
	client := clientFor(j, pods)
	ws := newWatchServer(client)
	p := startPiped(t, client, "run", "--wait")
	jw := ws.await(t, "jobs", 1)
	ws.await(t, "pods", 1)
	waitFor(t, func() bool {
		return strings.Contains(p.errOut.String(), `waiting for job "run": Running: 1/4 succeeded, 0 failed pods, 1 active (0s elapsed)`)
	})
	// A change of the Job every second for 30 s: at most one line per 10 s.
	cur := j
	for i := range 30 {
		cur = cur.DeepCopy()
		cur.ResourceVersion = fmt.Sprint(100 + i)
		cur.Status.Failed = int32(2 + i)
		jw.Modify(cur)
		p.clk.Step(time.Second)
		time.Sleep(2 * time.Millisecond)
	}
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(p.errOut.String(), "waiting for job") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no progress line after 30 s of changes:\n%s", p.errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	jw.Modify(completeJob(j, "200"))
	r := wait(t, p.done)
	if n := strings.Count(r.errOut, "waiting for job"); n < 2 || n > 4 {
		t.Errorf("%d progress lines in 30 s, want 2 to 4 (one per 10 s at most):\n%s", n, r.errOut)
	}
	if r.code != 0 || strings.Count(r.out, "Phase:") != 1 {
		t.Errorf("exit %d:\n%s", r.code, r.out)
	}
}

// SIGINT and SIGTERM end --wait and --watch --exit-code with 130 and 143 and a line on standard
// error, the last report printed (issue 35 item 8: exit 3, no message); a plain --watch the
// user stops exits 0.
func TestWaitInterrupted(t *testing.T) {
	for _, c := range []struct {
		args []string
		sig  syscall.Signal
		code int
		line string
	}{
		{[]string{"--wait"}, syscall.SIGTERM, 143, `error: interrupted (terminated) while waiting for job "run" to finish: stopped (Running: 1/4 succeeded, 0 failed pods, 1 active)`},
		{[]string{"--watch", "--exit-code"}, syscall.SIGINT, 130, `error: interrupted (interrupt) while waiting for job "run" to finish: stopped`},
		{[]string{"--watch"}, syscall.SIGINT, 0, ""},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			j, pods := watched()
			client := clientFor(j, pods)
			ws := newWatchServer(client)
			p := startPiped(t, client, append([]string{"run"}, c.args...)...)
			ws.await(t, "jobs", 1)
			ws.await(t, "pods", 1)
			p.cancel(&exitcode.Interrupt{Signal: c.sig})
			r := wait(t, p.done)
			if r.code != c.code || !strings.Contains(r.errOut, c.line) || strings.Count(r.out, "Phase:") != 1 {
				t.Fatalf("exit %d, want %d with %q and the last report:\n%s\n%s", r.code, c.code, c.line, r.out, r.errOut)
			}
		})
	}
}

// runningLineage is seedLineage with its retry still running: index 1 (shard 4) succeeded,
// index 0 (shard 2) runs.
func runningLineage() (root, r1 *batchv1.Job, objs []runtime.Object) {
	root, r1, pods := seedLineage()
	r1.Status.Conditions, r1.Status.FailedIndexes, r1.Status.Active = nil, nil, 1
	r1.Status.Succeeded, r1.Status.Failed = 1, 0
	for i, p := range pods {
		if p.Labels[batchv1.JobNameLabel] == "seed-r1" && p.Labels[batchv1.JobCompletionIndexAnnotation] == "0" {
			pods[i] = pod(r1, 0, 0, nil)
		}
	}
	objs = []runtime.Object{r1}
	for _, p := range pods {
		objs = append(objs, p)
	}
	return root, r1, objs
}

// Issue 36 item 5: --lineage --wait waits for every Job of the lineage, then exits by the final
// verdict; --lineage alone, while the retry runs, does not call the run complete.
func TestLineageWaitsForTheRetry(t *testing.T) {
	root, r1, objs := runningLineage()
	client := clientFor(root, nil, objs...)
	r := run(t, client, "", "seed", "--lineage", "--exit-code")
	if r.code != exitcode.Running || !strings.Contains(strings.Join(strings.Fields(r.out), " "), "2 shards are run by a Job still running (seed-r1): not settled until it finishes") {
		t.Fatalf("--lineage while the retry runs: exit %d, want 3 and the shards unsettled:\n%s", r.code, r.out)
	}

	p := startPiped(t, client, "seed", "--lineage", "--wait")
	waitFor(t, func() bool {
		return strings.Contains(p.errOut.String(), `waiting for the lineage of job "seed": seed Failed 4/6 succeeded, failed indexes 2,4; seed-r1 Running 1/2 succeeded, 1 active (0s elapsed)`)
	})
	waitFor(t, p.clk.HasWaiters)
	p.clk.Step(lineagePoll)
	if p.out.String() != "" {
		t.Fatalf("a report while the retry runs:\n%s", p.out.String())
	}
	done := r1.DeepCopy()
	done.Status.CompletedIndexes, done.Status.Succeeded, done.Status.Active = "0-1", 2, 0
	done.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue}, {Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	if err := client.Tracker().Update(batchv1.SchemeGroupVersion.WithResource("jobs"), done, "ns"); err != nil {
		t.Fatal(err)
	}
	succeeded := pod(r1, 0, 0, ptr.To[int32](0))
	if err := client.Tracker().Update(corev1.SchemeGroupVersion.WithResource("pods"), succeeded, "ns"); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for {
		select {
		case r := <-p.done:
			if r.code != 0 || !strings.Contains(r.out, "6 of 6 shards succeeded.") || strings.Count(r.out, "Lineage of job") != 1 {
				t.Fatalf("exit %d, want 0 and one report, all shards succeeded:\n%s\n%s", r.code, r.out, r.errOut)
			}
			return
		case <-time.After(20 * time.Millisecond):
			if p.clk.HasWaiters() {
				p.clk.Step(lineagePoll)
			}
		case <-deadline:
			t.Fatal("the wait did not end")
		}
	}
}

// With -o json (or yaml, name, a template) standard output holds the final report alone, one
// document a parser reads; the change lines go to standard error.
func TestWatchJSONKeepsStdoutParseable(t *testing.T) {
	j, pods := watched()
	client := clientFor(j, pods)
	ws := newWatchServer(client)
	p := startPiped(t, client, "run", "--watch", "-o", "json")
	jw := ws.await(t, "jobs", 1)
	ws.await(t, "pods", 1)
	waitFor(t, func() bool { return strings.Contains(p.errOut.String(), "+0s Running") })
	jw.Modify(failedJob(j, "81"))
	r := wait(t, p.done)
	var rep map[string]any
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil || rep["phase"] != "Failed" {
		t.Fatalf("stdout is not the final report alone (%v):\n%s", err, r.out)
	}
	if !strings.Contains(r.errOut, "+0s Running: 1/4 succeeded") {
		t.Errorf("stderr lacks the first line:\n%s", r.errOut)
	}
}

// --lineage --watch off a terminal: a line per change of the lineage's Jobs, the lineage report
// once when every Job finished.
func TestLineageWatchPrintsLines(t *testing.T) {
	root, r1, objs := runningLineage()
	client := clientFor(root, nil, objs...)
	p := startPiped(t, client, "seed", "--lineage", "--watch")
	waitFor(t, func() bool {
		return strings.HasPrefix(p.out.String(), "+0s seed Failed 4/6 succeeded, failed indexes 2,4; seed-r1 Running 1/2 succeeded, 1 active (lineage of job ns/seed;")
	})
	done := r1.DeepCopy()
	done.Status.CompletedIndexes, done.Status.Succeeded, done.Status.Active = "0-1", 2, 0
	done.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	if err := client.Tracker().Update(batchv1.SchemeGroupVersion.WithResource("jobs"), done, "ns"); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for {
		select {
		case r := <-p.done:
			head, _, _ := strings.Cut(r.out, "\nLineage of job")
			if r.code != 0 || strings.Count(r.out, "Lineage of job") != 1 || strings.Count(head, "\n") != 1 {
				t.Fatalf("exit %d, want 0, one line and one report:\n%s\n%s", r.code, r.out, r.errOut)
			}
			return
		case <-time.After(20 * time.Millisecond):
			if p.clk.HasWaiters() {
				p.clk.Step(lineagePoll)
			}
		case <-deadline:
			t.Fatal("the watch did not end")
		}
	}
}
