package indexstatus

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

const (
	failIndex = batchv1.PodFailurePolicyActionFailIndex
	failJob   = batchv1.PodFailurePolicyActionFailJob
	ignore    = batchv1.PodFailurePolicyActionIgnore
	count     = batchv1.PodFailurePolicyActionCount
	opIn      = batchv1.PodFailurePolicyOnExitCodesOpIn
	opNotIn   = batchv1.PodFailurePolicyOnExitCodesOpNotIn
)

func build(t *testing.T, job *batchv1.Job, pods []corev1.Pod, clock Clock) *IndexedJobStatus {
	t.Helper()
	r, err := Build(job, pods, Options{Clock: clock, AllIndexes: true})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return r
}

func indexOf(t *testing.T, r *IndexedJobStatus, i int) IndexStatus {
	t.Helper()
	for _, st := range r.Indexes {
		if st.Index == i {
			return st
		}
	}
	t.Fatalf("index %d not in report", i)
	return IndexStatus{}
}

func wantStates(t *testing.T, r *IndexedJobStatus, want map[int]State) {
	t.Helper()
	for i, s := range want {
		if got := indexOf(t, r, i).State; got != s {
			t.Errorf("index %d: state %s, want %s (%s)", i, got, s, indexOf(t, r, i).Detail)
		}
	}
}

func wantContains(t *testing.T, what, got string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(got, s) {
			t.Errorf("%s does not contain %q:\n%s", what, s, got)
		}
	}
}

// seedJob is the seed scenario (test/fixtures/seed) in its final state.
func seedJob() (*batchv1.Job, []corev1.Pod) {
	j := newJob("seed", 6, 2).perIndex(1, ptr.To[int32](2)).rule(failIndex, "worker", opIn, 42).
		status("0,1,3,5", ptr.To("2,4"), 4, 3, 0).
		cond(batchv1.JobFailureTarget, "FailedIndexes", "Job has failed indexes", 60*time.Second).
		cond(batchv1.JobFailed, "FailedIndexes", "Job has failed indexes", 60*time.Second).get()
	j.Spec.ActiveDeadlineSeconds = ptr.To[int64](600)
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(0, 2*time.Second).counted().get(),
		newPod(j, 1, 0, 0).exited(0, 2*time.Second).counted().get(),
		newPod(j, 2, 0, 3*time.Second).exited(42, 5*time.Second).counted().get(),
		newPod(j, 3, 0, 3*time.Second).exited(0, 5*time.Second).counted().get(),
		newPod(j, 4, 0, 6*time.Second).exited(1, 8*time.Second).counted().get(),
		newPod(j, 5, 0, 6*time.Second).exited(0, 8*time.Second).counted().get(),
		newPod(j, 4, 1, 20*time.Second).exited(1, 22*time.Second).counted().get(),
	}
	return j, pods
}

func TestSeedFinalState(t *testing.T) {
	job, pods := seedJob()
	r := build(t, job, pods, at(2*time.Minute))
	if r.Phase != PhaseFailed || r.Reason != "FailedIndexes" || r.Message != "Job has failed indexes" {
		t.Errorf("phase %s reason %q message %q", r.Phase, r.Reason, r.Message)
	}
	wantStates(t, r, map[int]State{0: StateSucceeded, 1: StateSucceeded, 2: StateFailed, 3: StateSucceeded, 4: StateFailed, 5: StateSucceeded})
	i2 := indexOf(t, r, 2)
	if i2.LastExitCode == nil || *i2.LastExitCode != 42 || i2.Rule == nil || i2.Rule.Index != 0 || i2.Rule.Action != "FailIndex" || i2.Attempts != 1 || i2.LastContainer != "worker" {
		t.Errorf("index 2 = %+v", i2)
	}
	i4 := indexOf(t, r, 4)
	if i4.LastExitCode == nil || *i4.LastExitCode != 1 || i4.Rule != nil || i4.Attempts != 2 || i4.FailureCount != 2 || *i4.RetriesLeft != 0 || len(i4.Pods) != 2 {
		t.Errorf("index 4 = %+v", i4)
	}
	wantContains(t, "index 4 detail", i4.Detail, "after 2 attempts", "backoffLimitPerIndex 1 exhausted")
	if c := r.Completeness; c.Succeeded != 4 || c.Completions != 6 || c.Complete || c.Missing.String() != "2,4" {
		t.Errorf("completeness = %+v", c)
	}
	if s := r.Summary; s.Succeeded != 4 || s.Failed != 2 || s.Running+s.Pending+s.Retrying+s.Terminating+s.Unfinished != 0 {
		t.Errorf("summary = %+v", s)
	}
	wantContains(t, "explanation", r.Explanation, "2 failed", "index 2 failed at once: exit code 42 in container worker matched podFailurePolicy rule 0 (FailIndex)", "index 4 failed after 2 attempts")
	if len(r.Grid) != 5 || r.Grid[0].Indexes != "0,1" || r.Grid[1].State != StateFailed {
		t.Errorf("grid = %+v", r.Grid)
	}
}

func TestRetryingBackoff(t *testing.T) {
	j := newJob("r", 4, 4).perIndex(2, nil).status("0", ptr.To(""), 1, 0, 2).get()
	cases := []struct {
		name          string
		pod           corev1.Pod
		wantBackoff   int64
		wantRemaining int64
		wantAttempt   string
	}{
		// n = failure-count + ignored + 1 of the failed pod; measured from its finish time.
		{"first failure", newPod(j, 1, 0, 0).exited(1, 10*time.Second).get(), 10, 6, "attempt 2 of 3"},
		{"second failure", newPod(j, 1, 1, 0).exited(1, 10*time.Second).get(), 20, 16, "attempt 3 of 3"},
		{"ignored failures slow retries too", newPod(j, 1, 1, 0).ignoredCount(2).exited(1, 10*time.Second).get(), 80, 76, "attempt 5 of 5"},
		{"capped at 10 minutes", newPod(j, 1, 1, 0).ignoredCount(20).exited(1, 10*time.Second).get(), 600, 596, "attempt 23 of 23"},
		{"backoff over", newPod(j, 1, 0, 0).exited(1, -time.Minute).get(), 10, 0, "attempt 2 of 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pods := []corev1.Pod{
				newPod(j, 0, 0, 0).exited(0, time.Second).counted().get(),
				c.pod,
				newPod(j, 2, 0, 0).running(time.Second).get(),
				newPod(j, 3, 0, 0).running(time.Second).get(),
			}
			r := build(t, j, pods, at(14*time.Second))
			st := indexOf(t, r, 1)
			if st.State != StateRetrying {
				t.Fatalf("state %s, want Retrying: %s", st.State, st.Detail)
			}
			if *st.BackoffSeconds != c.wantBackoff || *st.BackoffRemainingSeconds != c.wantRemaining {
				t.Errorf("backoff %ds remaining %ds, want %d/%d", *st.BackoffSeconds, *st.BackoffRemainingSeconds, c.wantBackoff, c.wantRemaining)
			}
			wantContains(t, "detail", st.Detail, c.wantAttempt)
			wantContains(t, "next", strings.Join(r.Next, "\n"), "Index 1 ")
		})
	}
}

func TestRetryingMessageIssueExample(t *testing.T) {
	j := newJob("e", 6, 2).perIndex(1, ptr.To[int32](2)).status("0-3", ptr.To(""), 4, 0, 1).get()
	pods := []corev1.Pod{
		newPod(j, 4, 0, 0).exited(1, 0).get(), // still tracked: the replacement does not exist yet
		newPod(j, 5, 0, 0).running(0).get(),
	}
	r := build(t, j, pods, at(0))
	next := strings.Join(r.Next, "\n")
	wantContains(t, "next", next, "Index 4 will be retried after 10s (attempt 2 of 2).", "3 more failed indexes abort the Job (maxFailedIndexes 2, 0 failed so far)")
	if r.Phase != PhaseRunning {
		t.Errorf("phase %s", r.Phase)
	}
}

func TestGlobalBackoffLimitNext(t *testing.T) {
	// "the global backoffLimit 2 is 1 failure away from killing 7 running indexes"
	j := newJob("g", 10, 10).backoffLimit(2).status("", nil, 0, 2, 7).get()
	var pods []corev1.Pod
	for i := range 10 {
		switch i {
		case 1, 4:
			pods = append(pods, newPod(j, i, 0, 0).exited(1, 2*time.Second).counted().get())
		case 7:
			pods = append(pods, newPod(j, i, 0, 0).exited(1, 3*time.Second).counted().get(),
				newPod(j, i, 1, 15*time.Second).running(15*time.Second).get())
		default:
			pods = append(pods, newPod(j, i, 0, 0).running(0).get())
		}
	}
	// Index 7's replacement runs; 1 and 4 wait for the global backoff (2 failures... 3 failed pods).
	r := build(t, j, pods, at(16*time.Second))
	next := strings.Join(r.Next, "\n")
	wantContains(t, "next", next, "The global backoffLimit 2 is 1 failure away from failing the Job and killing its 8 running indexes.")
	wantStates(t, r, map[int]State{1: StateRetrying, 4: StateRetrying, 7: StateRunning, 0: StateRunning})
	if st := indexOf(t, r, 7); st.Attempts != 2 || st.FailureCount != 1 {
		t.Errorf("index 7 = %+v", st)
	}
	wantContains(t, "unknown", strings.Join(r.Unknown, "\n"), "global backoff")
}

func TestPrepareDBFailing(t *testing.T) {
	j := newJob("p", 10, 10).backoffLimit(2).status("", nil, 0, 10, 0).terminating(7).
		cond(batchv1.JobFailureTarget, "BackoffLimitExceeded", "Job has reached the specified backoff limit", 3*time.Second).get()
	var pods []corev1.Pod
	for i := range 10 {
		if i == 1 || i == 4 || i == 7 {
			pods = append(pods, newPod(j, i, 0, 0).exited(1, 2*time.Second).counted().get())
		} else {
			pods = append(pods, newPod(j, i, 0, 0).running(0).deleting(3*time.Second).counted().get())
		}
	}
	r := build(t, j, pods, at(10*time.Second))
	if r.Phase != PhaseFailing {
		t.Fatalf("phase %s", r.Phase)
	}
	wantStates(t, r, map[int]State{0: StateTerminating, 1: StateUnfinished, 9: StateTerminating})
	wantContains(t, "waitingFor", r.WaitingFor, "7 pods to finish terminating (indexes 0,2,3,5,6,8,9)", "adds the Failed condition")
	wantContains(t, "explanation", r.Explanation, "More than backoffLimit 2 pod failures", "3 pods failed on their own", "7 indexes are terminating")
	if r.Completeness.Complete || !strings.HasPrefix(r.Completeness.Verdict, "NOT complete") {
		t.Errorf("completeness %+v", r.Completeness)
	}
}

func TestPrepareDBFailed(t *testing.T) {
	j := newJob("p", 10, 10).backoffLimit(2).status("", nil, 0, 10, 0).
		cond(batchv1.JobFailureTarget, "BackoffLimitExceeded", "Job has reached the specified backoff limit", 3*time.Second).
		cond(batchv1.JobFailed, "BackoffLimitExceeded", "Job has reached the specified backoff limit", 5*time.Second).get()
	pods := []corev1.Pod{
		newPod(j, 1, 0, 0).exited(1, 2*time.Second).counted().get(),
		newPod(j, 4, 0, 0).exited(1, 2*time.Second).counted().get(),
		newPod(j, 7, 0, 0).exited(1, 2*time.Second).counted().get(),
	}
	r := build(t, j, pods, at(time.Minute))
	if r.Phase != PhaseFailed || r.Summary.Unfinished != 10 {
		t.Fatalf("phase %s summary %+v", r.Phase, r.Summary)
	}
	wantContains(t, "explanation", r.Explanation, "status.failed counts 10 failed pods of which 3 are left, so 7 were killed", "10 indexes have no result (0-9)")
	wantContains(t, "unknown", strings.Join(r.Unknown, "\n"), "Whether indexes 0,2,3,5,6,8,9 ran at all")
	wantContains(t, "index 1", indexOf(t, r, 1).Detail, "attempt 1 failed (exit code 1 in container worker) and the Job failed before it was retried")
}

func TestSuccessPolicyIsNotCompleteEvidence(t *testing.T) {
	j := newJob("s", 5, 5).status("0", nil, 1, 0, 0).
		cond(batchv1.JobSuccessCriteriaMet, "SuccessPolicy", "Matched rules at index 0", time.Second).
		cond(batchv1.JobComplete, "SuccessPolicy", "Matched rules at index 0", 2*time.Second).get()
	j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr.To("0")}}}
	pods := []corev1.Pod{newPod(j, 0, 0, 0).exited(0, time.Second).counted().get()}
	r := build(t, j, pods, at(time.Minute))
	if r.Phase != PhaseComplete || r.Completeness.Complete {
		t.Errorf("phase %s completeness %+v", r.Phase, r.Completeness)
	}
	wantContains(t, "verdict", r.Completeness.Verdict, "NOT complete", "success policy", "1 of 5")
	wantContains(t, "explanation", r.Explanation, `rule 0 (succeededIndexes "0")`, "only 1 of 5")
	wantStates(t, r, map[int]State{0: StateSucceeded, 1: StateUnfinished, 4: StateUnfinished})
}

func TestCompleteAllSucceeded(t *testing.T) {
	j := newJob("c", 3, 3).status("0-2", nil, 3, 0, 0).
		cond(batchv1.JobSuccessCriteriaMet, "CompletionsReached", "Reached expected number of succeeded pods", time.Second).
		cond(batchv1.JobComplete, "CompletionsReached", "Reached expected number of succeeded pods", time.Second).get()
	r := build(t, j, nil, at(time.Minute))
	if !r.Completeness.Complete || r.Phase != PhaseComplete || r.Explanation != "All 3 indexes succeeded." {
		t.Errorf("%+v %s %q", r.Completeness, r.Phase, r.Explanation)
	}
}

func TestSuspended(t *testing.T) {
	j := newJob("sus", 6, 2).status("0,1", nil, 2, 0, 0).suspend().get()
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(0, time.Second).counted().get(),
		newPod(j, 1, 0, 0).exited(0, time.Second).counted().get(),
		newPod(j, 2, 0, 0).running(0).deleting(2 * time.Second).get(),
	}
	r := build(t, j, pods, at(3*time.Second))
	if r.Phase != PhaseSuspended || r.Reason != "JobSuspended" {
		t.Errorf("phase %s reason %s", r.Phase, r.Reason)
	}
	wantStates(t, r, map[int]State{2: StateTerminating, 3: StatePending, 5: StatePending})
	wantContains(t, "index 2", indexOf(t, r, 2).Detail, "suspended; not counted as a failure")
}

func TestFailJobExplanation(t *testing.T) {
	j := newJob("fj", 4, 4).rule(failJob, "", opIn, 3).status("0", nil, 1, 3, 0).
		cond(batchv1.JobFailureTarget, "PodFailurePolicy", "Container worker for pod ns/fj-2-a0 failed with exit code 3 matching FailJob rule at index 0", time.Second).
		cond(batchv1.JobFailed, "PodFailurePolicy", "Container worker for pod ns/fj-2-a0 failed with exit code 3 matching FailJob rule at index 0", 2*time.Second).get()
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(0, time.Second).counted().get(),
		newPod(j, 2, 0, 0).exited(3, time.Second).counted().get(),
	}
	r := build(t, j, pods, at(time.Minute))
	wantContains(t, "explanation", r.Explanation, "Container worker of pod fj-2-a0 (index 2) exited with code 3, which matches podFailurePolicy rule 0 (FailJob)")
	st := indexOf(t, r, 2)
	if st.State != StateUnfinished || st.Rule == nil || st.Rule.Action != "FailJob" {
		t.Errorf("index 2 = %+v", st)
	}
}

// The condition's message is read by building it again from each pod (jobpolicy.FailJobMessage),
// never parsed: when the pod it names is gone, the explanation quotes the message.
func TestFailJobExplanationPodGone(t *testing.T) {
	msg := "Container worker for pod ns/fj-2-a0 failed with exit code 3 matching FailJob rule at index 0"
	j := newJob("fj", 4, 4).rule(failJob, "", opIn, 3).status("0", nil, 1, 3, 0).
		cond(batchv1.JobFailureTarget, "PodFailurePolicy", msg, time.Second).
		cond(batchv1.JobFailed, "PodFailurePolicy", msg, 2*time.Second).get()
	r := build(t, j, []corev1.Pod{newPod(j, 0, 0, 0).exited(0, time.Second).counted().get()}, at(time.Minute))
	wantContains(t, "explanation", r.Explanation, "A pod matched a FailJob rule of the podFailurePolicy: "+msg+".")
}

func TestPolicyMatching(t *testing.T) {
	term := func(name string, code int32) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Error"}}}
	}
	cases := []struct {
		name       string
		job        *batchv1.Job
		containers []corev1.ContainerStatus
		inits      []corev1.ContainerStatus
		conds      []corev1.PodCondition
		wantRule   int
		wantCount  bool
		wantCont   string
	}{
		{"no policy", newJob("a", 1, 1).get(), []corev1.ContainerStatus{term("worker", 1)}, nil, nil, -1, true, "worker"},
		{"first matching rule wins", newJob("a", 1, 1).rule(ignore, "", opIn, 5).rule(count, "", opNotIn, 0).rule(failJob, "", opIn, 1).get(),
			[]corev1.ContainerStatus{term("worker", 1)}, nil, nil, 1, true, "worker"},
		{"container name filters", newJob("a", 1, 1).rule(failJob, "other", opIn, 1).get(), []corev1.ContainerStatus{term("worker", 1)}, nil, nil, -1, true, "worker"},
		{"app containers before init containers", newJob("a", 1, 1).rule(ignore, "", opIn, 2, 7).get(),
			[]corev1.ContainerStatus{term("worker", 7)}, []corev1.ContainerStatus{term("init", 2)}, nil, 0, false, "worker"},
		{"init container matches when no app container does", newJob("a", 1, 1).rule(ignore, "", opIn, 2).get(),
			[]corev1.ContainerStatus{term("worker", 7)}, []corev1.ContainerStatus{term("init", 2)}, nil, 0, false, "init"},
		{"exit code 0 never matches NotIn", newJob("a", 1, 1).rule(ignore, "", opNotIn, 5).get(),
			[]corev1.ContainerStatus{term("side", 0), term("worker", 1)}, nil, nil, 0, false, "worker"},
		{"unknown action is skipped", newJob("a", 1, 1).rule("Retry", "", opIn, 1).rule(count, "", opIn, 1).get(),
			[]corev1.ContainerStatus{term("worker", 1)}, nil, nil, 1, true, "worker"},
		{"condition with defaulted status", newJob("a", 1, 1).conditionRule(ignore, corev1.DisruptionTarget, "").get(),
			[]corev1.ContainerStatus{term("worker", 137)}, nil, []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "PreemptionByScheduler"}}, 0, false, "worker"},
		{"condition status must match", newJob("a", 1, 1).conditionRule(ignore, corev1.DisruptionTarget, corev1.ConditionFalse).get(),
			[]corev1.ContainerStatus{term("worker", 137)}, nil, []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}, -1, true, "worker"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pod := newPod(c.job, 0, 0, 0).get()
			pod.Status = corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: c.containers, InitContainerStatuses: c.inits, Conditions: c.conds}
			s := summarize(c.job, &pod, &interner{})
			rule, container := -1, ""
			if s.Match.Matched() {
				rule = s.Match.Rule
			}
			if s.exit != nil {
				container = s.exit.container
			}
			if rule != c.wantRule || s.Match.CountFailed() != c.wantCount || container != c.wantCont {
				t.Errorf("rule %d count %v container %q, want %d %v %q", rule, s.Match.CountFailed(), container, c.wantRule, c.wantCount, c.wantCont)
			}
		})
	}
}

// isPodFailed and getFinishedTime are jobpolicy's, tested there (rules_test.go).

func TestMalformedStatusAndForeignPods(t *testing.T) {
	j := newJob("m", 4, 2).status("0,x,2-9", nil, 2, 0, 0).get()
	other := newJob("other", 4, 2).get()
	pods := []corev1.Pod{
		newPod(other, 1, 0, 0).running(0).get(),
		newPod(j, 7, 0, 0).running(0).get(),
	}
	noIndex := newPod(j, 1, 0, 0).running(0).get()
	delete(noIndex.Annotations, batchv1.JobCompletionIndexAnnotation)
	delete(noIndex.Labels, batchv1.JobCompletionIndexAnnotation)
	pods = append(pods, noIndex)
	r := build(t, j, pods, at(0))
	notes := strings.Join(r.Notes, "\n")
	wantContains(t, "notes", notes, `status.completedIndexes "0,x,2-9" is malformed`, `fragment "x" skipped`, "clipped to 2-3",
		"1 pod has an index at or above completions 4", "2 pods given were ignored")
	wantStates(t, r, map[int]State{0: StateSucceeded, 1: StatePending, 2: StateSucceeded, 3: StateSucceeded})
}

func TestNotIndexed(t *testing.T) {
	j := newJob("n", 1, 1).get()
	j.Spec.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	if _, err := Build(j, nil, Options{}); err == nil || !strings.Contains(err.Error(), `job "n" in namespace "ns" is not an Indexed Job: its completionMode is NonIndexed`) {
		t.Errorf("err = %v", err)
	}
}

// TestIncrementalEqualsBatch checks that feeding pods one at a time, in any order, with
// updates and removals, gives the same report as Build on the final pods.
func TestIncrementalEqualsBatch(t *testing.T) {
	job, pods := seedJob()
	want, _ := json.Marshal(build(t, job, pods, at(time.Minute)))
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		a, err := NewAccumulator(job)
		if err != nil {
			t.Fatal(err)
		}
		order := r.Perm(len(pods))
		for _, k := range order {
			stale := pods[k].DeepCopy()
			stale.Status = corev1.PodStatus{Phase: corev1.PodRunning}
			a.Add(stale)
		}
		extra := newPod(job, 3, 0, 0).get()
		extra.UID = "gone"
		a.Add(&extra)
		a.Remove(&extra)
		for _, k := range order {
			a.Add(&pods[k])
		}
		got, _ := json.Marshal(a.Report(Options{Clock: at(time.Minute), AllIndexes: true}))
		if !bytes.Equal(got, want) {
			t.Fatalf("incremental report differs:\n%s\nwant\n%s", got, want)
		}
	}
}

func TestLargeJobWithoutPods(t *testing.T) {
	j := newJob("big", 100000, 100).status("0-49999,50001", nil, 50001, 0, 0).get()
	r, err := Build(j, nil, Options{Clock: at(0)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Grid) != 4 || r.Summary.Succeeded != 50001 || r.Summary.Pending != 49999 || len(r.Indexes) != 0 {
		t.Errorf("grid %d runs, summary %+v, %d indexes listed", len(r.Grid), r.Summary, len(r.Indexes))
	}
	var buf bytes.Buffer
	if err := PrintText(&buf, r, false); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "text", buf.String(), "Succeeded  50001  0-49999,50001", "Pending    49999  50000,50002-99999")
}

func TestShardIDs(t *testing.T) {
	job, pods := seedJob()
	r, err := Build(job, pods, Options{Clock: at(0), ShardIDs: []string{"a", "b", "c"}, ShardsConfigMap: "seed-shards", AllIndexes: true})
	if err != nil {
		t.Fatal(err)
	}
	if indexOf(t, r, 2).ShardID != "c" || indexOf(t, r, 4).ShardID != "" || r.Shards.ConfigMap != "seed-shards" {
		t.Errorf("shards: %+v %+v", indexOf(t, r, 2), r.Shards)
	}
	wantContains(t, "notes", strings.Join(r.Notes, "\n"), "The shard list has 3 IDs but completions is 6")
}

func BenchmarkReport5000Pods(b *testing.B) {
	j := newJob("bench", 5000, 500).perIndex(1, nil).status("0-3999", ptr.To(""), 4000, 0, 500).get()
	var pods []corev1.Pod
	for i := range 5000 {
		switch {
		case i < 4000:
			pods = append(pods, newPod(j, i, 0, 0).exited(0, time.Second).counted().get())
		case i < 4500:
			pods = append(pods, newPod(j, i, 0, 0).running(time.Second).get())
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(j, pods, Options{Clock: at(time.Minute), AllIndexes: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestIgnoredDisruption(t *testing.T) {
	j := newJob("d", 3, 3).perIndex(1, nil).conditionRule(ignore, corev1.DisruptionTarget, "").status("0,2", ptr.To(""), 2, 0, 1).get()
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(0, time.Second).counted().get(),
		newPod(j, 1, 0, 0).exited(137, 2*time.Second).condition(corev1.DisruptionTarget, "PreemptionByScheduler").counted().get(),
		newPod(j, 1, 1, 15*time.Second).ignoredCount(1).running(15 * time.Second).get(),
		newPod(j, 2, 0, 0).exited(0, time.Second).counted().get(),
	}
	// The replacement of an ignored failure carries failure-count 0 and ignored-failure-count 1.
	pods[2].Annotations[batchv1.JobIndexFailureCountAnnotation] = "0"
	r := build(t, j, pods, at(20*time.Second))
	st := indexOf(t, r, 1)
	if st.State != StateRunning || st.FailureCount != 0 || st.IgnoredFailureCount != 1 || st.Attempts != 2 || *st.RetriesLeft != 1 {
		t.Errorf("index 1 = %+v", st)
	}
	if st.Rule == nil || st.Rule.Action != "Ignore" || st.Rule.On != "condition DisruptionTarget" {
		t.Errorf("rule = %+v", st.Rule)
	}
	wantContains(t, "detail", st.Detail, "attempt 2 running", "the previous attempt failed (exit code 137 in container worker; DisruptionTarget (PreemptionByScheduler); podFailurePolicy rule 0 (Ignore))")
}

func TestSucceededNotYetRecorded(t *testing.T) {
	j := newJob("u", 4, 2).status("", nil, 0, 0, 2).get()
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(0, time.Second).get(), // finalizer still on: not counted yet
		newPod(j, 1, 0, 0).get(),                        // created, not running yet
	}
	r := build(t, j, pods, at(2*time.Second))
	wantStates(t, r, map[int]State{0: StateSucceeded, 1: StatePending, 2: StatePending})
	// Issue 26, item 16: the explanation said "1 of 4 indexes succeeded" beside "Completeness:
	// 0 of 4": both count the controller's record, the succeeded pod is said apart.
	wantContains(t, "explanation", r.Explanation, "0 of 4 indexes succeeded (1 more whose pod succeeded, not yet recorded by the controller)")
	wantContains(t, "completeness", r.Completeness.Verdict, "0 of 4 indexes succeeded")
	wantContains(t, "next", strings.Join(r.Next, "\n"), "2 indexes are not started yet")
	wantContains(t, "notes", strings.Join(r.Notes, "\n"), "Index 0 has a succeeded pod that the controller has not recorded")
	if r.Completeness.Succeeded != 0 || r.Completeness.Complete {
		t.Errorf("completeness counts the record only: %+v", r.Completeness)
	}
	wantContains(t, "index 1", indexOf(t, r, 1).Detail, "is pending")
}

// TestBeyondCompletionsAndRestarts: pods left above completions by a scale-down are described by
// what the controller does with them; a running OnFailure pod shows its in-place restarts.
func TestBeyondCompletionsAndRestarts(t *testing.T) {
	j := newJob("s", 2, 2).status("0", nil, 1, 1, 2).get()
	j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	restarted := newPod(j, 1, 0, 0).running(0).get()
	restarted.Status.ContainerStatuses[0].RestartCount = 3
	restarted.Status.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}
	pods := []corev1.Pod{
		newPod(j, 0, 0, 0).exited(0, time.Second).counted().get(),
		restarted,
		newPod(j, 2, 0, 0).running(0).get(), // active above completions
		newPod(j, 3, 0, 0).running(0).get(), // another one
		newPod(j, 4, 0, 0).exited(1, 2*time.Second).counted().get(),             // failed above completions
		newPod(j, 5, 0, 0).running(0).deleting(3 * time.Second).counted().get(), // being deleted
	}
	r := build(t, j, pods, at(10*time.Second))
	wantContains(t, "notes", strings.Join(r.Notes, "\n"),
		"4 pods have an index at or above completions 2 (left from a scale-down) and are not shown: 2 active, which the controller deletes without counting them as failed; 1 being deleted; 1 failed, still counted in status.failed.")
	if st := indexOf(t, r, 1); st.State != StateRunning || !strings.Contains(st.Detail, "; containers restarted 3 times (last exit code 2 in container worker)") {
		t.Errorf("index 1 = %+v", st)
	}
	if len(r.Indexes) != 2 {
		t.Errorf("%d indexes listed, want 2", len(r.Indexes))
	}
}
