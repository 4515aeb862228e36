package jobpolicy

import (
	"math"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestGetRemainingBackoffTime (backoff_utils_test.go) with the controller's constants
// (10s default, 10 min cap) in place of the test's 5s and 700s.
func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		failures         int32
		elapsed          time.Duration
		total, remaining time.Duration
	}{
		{0, 0, 0, 0}, // no failures
		{1, 0, 10 * time.Second, 10 * time.Second}, // one failure; current time and failure time are same
		{1, time.Second, 10 * time.Second, 9 * time.Second},
		{1, 10 * time.Second, 10 * time.Second, 0},   // current time == expected backoff time
		{1, 11 * time.Second, 10 * time.Second, 0},   // ... + 1 second
		{3, 0, 40 * time.Second, 40 * time.Second},   // three failures
		{6, 0, 320 * time.Second, 320 * time.Second}, // not exceeding the cap
		{7, 0, 10 * time.Minute, 10 * time.Minute},   // exceeding the cap
		{40, 0, 10 * time.Minute, 10 * time.Minute},
	} {
		total, remaining := Backoff(tc.failures, t0, t0.Add(tc.elapsed))
		if total != tc.total || remaining != tc.remaining {
			t.Errorf("Backoff(%d, +%s) = %s, %s; want %s, %s", tc.failures, tc.elapsed, total, remaining, tc.total, tc.remaining)
		}
	}
}

// TestGetFinishedTime (backoff_utils_test.go): containers, then Ready=False, then deletion
// timestamp minus grace period, then creation.
func TestFinishedTime(t *testing.T) {
	p := pod("a", 0).exit(1, t0.Add(-time.Minute))
	if got := FinishedTime(p.Pod); !got.Equal(t0.Add(-time.Minute)) {
		t.Errorf("containers: %s", got)
	}
	p = pod("a", 0).restarts(0)
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(t0.Add(-2 * time.Minute))}}
	if got := FinishedTime(p.Pod); !got.Equal(t0.Add(-2 * time.Minute)) {
		t.Errorf("ready false: %s", got)
	}
	p = pod("a", 0).restarts(0).deleted(t0, 30)
	if got := FinishedTime(p.Pod); !got.Equal(t0.Add(-30 * time.Second)) {
		t.Errorf("deleted: %s", got)
	}
	p = pod("a", 0).restarts(0)
	if got := FinishedTime(p.Pod); !got.Equal(t0.Add(-time.Hour)) {
		t.Errorf("created: %s", got)
	}
	// A sidecar (restartable init container) still running: no finish time from containers.
	p = pod("a", 0).exit(0, t0.Add(-time.Minute))
	p.Spec.InitContainers = []corev1.Container{{Name: "side", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
	p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "side", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	if got := FinishedTime(p.Pod); !got.Equal(t0.Add(-time.Hour)) {
		t.Errorf("running sidecar: %s", got)
	}
	p.Status.InitContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.NewTime(t0.Add(-30 * time.Second))}}
	if got := FinishedTime(p.Pod); !got.Equal(t0.Add(-30 * time.Second)) {
		t.Errorf("finished sidecar: %s", got)
	}
}

// Cases from TestMatchPodFailurePolicy (pod_failure_policy_test.go).
func TestMatchPodFailurePolicy(t *testing.T) {
	failed := func(cs ...corev1.ContainerStatus) *corev1.Pod {
		p := pod("a", 0).phase(corev1.PodFailed)
		p.Status.ContainerStatuses = cs
		return p.Pod
	}
	term := func(name string, code int32) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}
	}
	rules := func(rs ...batchv1.PodFailurePolicyRule) *batchv1.PodFailurePolicy {
		return &batchv1.PodFailurePolicy{Rules: rs}
	}
	ignore, failJob, count, failIndex := batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionFailIndex
	cond := func(action batchv1.PodFailurePolicyAction, t corev1.PodConditionType, st corev1.ConditionStatus) batchv1.PodFailurePolicyRule {
		return batchv1.PodFailurePolicyRule{Action: action, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: t, Status: st}}}
	}
	disrupted := failed(term("main", 137))
	disrupted.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}
	named := exitRule(failJob, in, 5)
	named.OnExitCodes.ContainerName = ptr.To("side")
	for name, tc := range map[string]struct {
		pfp  *batchv1.PodFailurePolicy
		pod  *corev1.Pod
		rule int
		act  batchv1.PodFailurePolicyAction
	}{
		"unknown action for rule matching by exit codes - skip rule with unknown action": {rules(exitRule("UnknownAction", in, 1, 2), exitRule(failJob, in, 2, 3)), failed(term("main", 2)), 1, failJob},
		"ignore rule matched for exit codes":                                             {rules(exitRule(ignore, in, 1, 2, 3)), failed(term("main", 2)), 0, ignore},
		"FailJob rule matched for exit codes":                                            {rules(exitRule(failJob, in, 1, 2, 3)), failed(term("main", 2)), 0, failJob},
		"successful containers are skipped by the rules":                                 {rules(exitRule(failJob, notIn, 111)), failed(term("init", 0)), -1, ""},
		"pod failure policy with NotIn operator and value 0":                             {rules(exitRule(failJob, notIn, 0)), failed(term("main", 1)), 0, failJob},
		"second jobfail rule matched for exit codes":                                     {rules(exitRule(count, in, 1, 2, 3), exitRule(failJob, notIn, 4, 5, 6)), failed(term("main", 7)), 1, failJob},
		"FailIndex rule matched for exit codes":                                          {rules(exitRule(failIndex, in, 1, 2, 3)), failed(term("main", 2)), 0, failIndex},
		"ignore rule matched for pod conditions":                                         {rules(cond(ignore, corev1.DisruptionTarget, corev1.ConditionTrue)), disrupted, 0, ignore},
		"no match for pod conditions with a different status":                            {rules(cond(ignore, corev1.DisruptionTarget, corev1.ConditionFalse)), disrupted, -1, ""},
		"defaulted pattern status True matches":                                          {rules(cond(count, corev1.DisruptionTarget, "")), disrupted, 0, count},
		"container name restricts the rule":                                              {rules(named), failed(term("main", 5)), -1, ""},
		"no policy":                                                                      {nil, failed(term("main", 5)), -1, ""},
		"init containers after app containers": {rules(exitRule(failJob, in, 9)), func() *corev1.Pod {
			p := failed(term("main", 1))
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{term("init", 9)}
			return p
		}(), 0, failJob},
	} {
		t.Run(name, func(t *testing.T) {
			m := MatchPodFailurePolicy(tc.pfp, tc.pod)
			if m.Rule != tc.rule || m.Action != tc.act || m.Matched() != (tc.rule >= 0) {
				t.Fatalf("match = %+v, want rule %d %s", m, tc.rule, tc.act)
			}
			if m.CountFailed() != (tc.act != ignore) {
				t.Fatalf("count failed %v", m.CountFailed())
			}
		})
	}
}

func TestSpecFacts(t *testing.T) {
	// Defaults (SetDefaults_Job).
	s := SpecOf(&batchv1.Job{})
	if s.Completions != 1 || s.Parallelism != 1 || s.BackoffLimit != 6 || s.BackoffLimitSet || s.Indexed {
		t.Fatalf("defaults: %+v", s)
	}
	s = SpecOf(&batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr.To[int32](3)}})
	if s.Completions != 0 || s.RunningAtOnce() != 0 {
		t.Fatalf("parallelism only: %+v", s)
	}
	s = SpecOf(indexedJob(10, 4).perIndex(2).Job)
	if s.BackoffLimit != math.MaxInt32 || s.GlobalLimitFiresFirst() || s.SharedBudget() || s.PerIndexFailuresAtMost() != 30 || s.RunningAtOnce() != 4 {
		t.Fatalf("per-index default: %+v", s)
	}
	// test/lint/corpus/015-clean-backoff-high.yaml: backoffLimit 30 next to 10 indexes × 3.
	if SpecOf(indexedJob(10, 4).perIndex(2).backoff(30).Job).GlobalLimitFiresFirst() {
		t.Fatal("30 >= 30: every index fails on its own first")
	}
	if !SpecOf(indexedJob(10, 4).perIndex(2).backoff(29).Job).GlobalLimitFiresFirst() {
		t.Fatal("29 < 30: the 30th counted failure fails the Job")
	}
	s = SpecOf(indexedJob(10, 10).backoff(2).Job)
	if !s.SharedBudget() || s.FailuresToFail() != 3 || s.RestartsCount() || !s.BackoffLimitSet {
		t.Fatalf("prepare-db: %+v", s)
	}
	if n := SpecOf(indexedJob(4, 4).perIndex(1).maxFailed(1).Job).FailedIndexesToFail(); n != 2 {
		t.Fatalf("maxFailedIndexes 1: %d failed indexes fail the Job", n)
	}
	if n := SpecOf(indexedJob(4, 4).perIndex(1).Job).FailedIndexesToFail(); n != 0 {
		t.Fatalf("no maxFailedIndexes: %d", n)
	}
	if SpecOf(indexedJob(1, 1).Job).SharedBudget() {
		t.Fatal("one index shares nothing")
	}
}

func TestDecisionOrder(t *testing.T) {
	// Existing conditions are kept, in syncJob's order.
	for _, tc := range []struct {
		job  jobB
		kind DecisionKind
	}{
		{indexedJob(2, 2).cond(batchv1.JobComplete, "CompletionsReached"), Finished},
		{indexedJob(2, 2).cond(batchv1.JobFailed, "BackoffLimitExceeded"), Finished},
		{indexedJob(2, 2).cond(batchv1.JobSuccessCriteriaMet, "SuccessPolicy").cond(batchv1.JobFailureTarget, "DeadlineExceeded"), Succeed},
		{indexedJob(2, 2).cond(batchv1.JobFailureTarget, "DeadlineExceeded"), Fail},
	} {
		f := eval(tc.job, pod("a", 0).phase(corev1.PodRunning).tracked())
		if f.Decision.Kind != tc.kind || !f.Decision.Existing {
			t.Errorf("%v: %+v", tc.job.Status.Conditions, f.Decision)
		}
		if f.Count(IndexNoResult)+f.Count(IndexActive) != 2 {
			t.Errorf("%v: states %+v", tc.job.Status.Conditions, f.Indexes)
		}
	}
	f := eval(indexedJob(2, 2).cond(batchv1.JobComplete, "CompletionsReached"))
	if !f.CanSucceed {
		t.Error("a complete Job succeeded")
	}
	// pastActiveDeadline, only while not suspended.
	job := indexedJob(2, 2)
	job.Spec.ActiveDeadlineSeconds = ptr.To[int64](60)
	job.Status.StartTime = ptr.To(metav1.NewTime(t0.Add(-time.Minute)))
	wantDecision(t, eval(job), Fail, batchv1.JobReasonDeadlineExceeded)
	job.Status.StartTime = ptr.To(metav1.NewTime(t0.Add(-59 * time.Second)))
	if f := eval(job); f.Decision.Kind != Continue || !f.DeadlineAt.Equal(t0.Add(time.Second)) {
		t.Errorf("deadline: %+v %s", f.Decision, f.DeadlineAt)
	}
	// CompletionsReached needs no active pod after manageJob: with every index succeeded its
	// wantActive is 0 and it deletes the active pods in the same sync (job_controller.go:
	// 1781-1806, then 1154; test/oracle TestNextSyncCompletesAfterScaleDown); it does not run
	// for a Job being deleted (1139).
	job = indexedJob(2, 2).status("0-1", nil, 0)
	wantDecision(t, eval(job), Succeed, batchv1.JobReasonCompletionsReached)
	wantDecision(t, eval(job, pod("x", 1).phase(corev1.PodRunning).tracked()), Succeed, batchv1.JobReasonCompletionsReached)
	job.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
	wantDecision(t, eval(job, pod("x", 1).phase(corev1.PodRunning).tracked()), Continue, "")
	job.DeletionTimestamp = nil
	// A malformed completedIndexes is read as the controller reads it.
	job = indexedJob(3, 3).status("0,x,2", nil, 0)
	if f := eval(job); f.Succeeded.String() != "0,2" {
		t.Errorf("lenient: %q", f.Succeeded.String())
	}
	// Success policy on indexes: every rule index, or succeededCount of them.
	job = indexedJob(4, 4).status("1,2", nil, 0).success(batchv1.SuccessPolicyRule{SucceededIndexes: ptr.To("x")}, batchv1.SuccessPolicyRule{SucceededIndexes: ptr.To("0-2"), SucceededCount: ptr.To[int32](2)})
	wantDecision(t, eval(job, pod("r", 3).phase(corev1.PodRunning).tracked()), Succeed, batchv1.JobReasonSuccessPolicy)
	job = indexedJob(4, 4).status("1", nil, 0).success(batchv1.SuccessPolicyRule{SucceededIndexes: ptr.To("1")})
	wantDecision(t, eval(job, pod("r", 3).phase(corev1.PodRunning).tracked()), Succeed, batchv1.JobReasonSuccessPolicy)
	job = indexedJob(4, 4).status("1", nil, 0).success(batchv1.SuccessPolicyRule{SucceededIndexes: ptr.To("1-2")})
	wantDecision(t, eval(job, pod("r", 3).phase(corev1.PodRunning).tracked()), Continue, "")
	// A rule with unparsable indexes is skipped by canSucceed too.
	job = indexedJob(4, 4).perIndex(0).status("", ptr.To("0"), 1).success(batchv1.SuccessPolicyRule{SucceededIndexes: ptr.To("x")})
	if f := eval(job, pod("r", 3).phase(corev1.PodRunning).tracked()); f.CanSucceed {
		t.Error("no usable rule")
	}
}

func TestPodFacts(t *testing.T) {
	job := indexedJob(2, 2).perIndex(3)
	p := pod("a", 0).phase(corev1.PodRunning).count(2).ignored(1).restarts(2)
	p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init", RestartCount: 1}}
	got := ObservePod(job.Job, p.Pod)
	if got.Attempt() != 3 || got.Restarts != 3 || !got.Active() || got.Terminating() || got.Failed || got.Tracked {
		t.Fatalf("%+v", got)
	}
	for v, want := range map[string]int32{"7": 7, "-3": 0, "x": 0, "99999999999": 0} {
		if parseInt32(v) != want {
			t.Errorf("parseInt32(%q) = %d", v, parseInt32(v))
		}
	}
	if !OnlyReplaceFailedPods(indexedJob(1, 1).rules(exitRule(batchv1.PodFailurePolicyActionIgnore, in, 1)).Job) || OnlyReplaceFailedPods(indexedJob(1, 1).Job) {
		t.Error("onlyReplaceFailedPods default")
	}
	// A pod that succeeded while being deleted is not failed.
	if IsPodFailed(job.Job, pod("s", 0).phase(corev1.PodSucceeded).deleted(t0, 0).Pod) {
		t.Error("succeeded pod failed")
	}
}

// Count returns how many indexes are in state.
func (f *Facts) Count(state IndexState) int {
	n := 0
	for i := range f.Indexes {
		if f.Indexes[i].State == state {
			n++
		}
	}
	return n
}

// IndexStates lists every state.
var IndexStates = []IndexState{IndexSucceeded, IndexFailed, IndexActive, IndexNoResult, IndexTerminating, IndexSuspended, IndexBackoff, IndexPending}

// TestFinishingCondition: the condition sets the API server accepts (a Job's status may not
// hold Complete with Failed or FailureTarget, nor SuccessCriteriaMet with Failed or
// FailureTarget) and the one each is decided by; a False condition does not count.
func TestFinishingCondition(t *testing.T) {
	cond := func(ct batchv1.JobConditionType, s corev1.ConditionStatus) batchv1.JobCondition {
		return batchv1.JobCondition{Type: ct, Status: s, Reason: string(ct) + "Reason"}
	}
	for _, tc := range []struct {
		conds    []batchv1.JobCondition
		want     batchv1.JobConditionType // "" for none
		finished bool
	}{
		{nil, "", false},
		{[]batchv1.JobCondition{cond(batchv1.JobSuspended, corev1.ConditionTrue)}, "", false},
		{[]batchv1.JobCondition{cond(batchv1.JobFailureTarget, corev1.ConditionFalse)}, "", false},
		{[]batchv1.JobCondition{cond(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue)}, batchv1.JobSuccessCriteriaMet, false},
		{[]batchv1.JobCondition{cond(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue), cond(batchv1.JobComplete, corev1.ConditionTrue)}, batchv1.JobComplete, true},
		{[]batchv1.JobCondition{cond(batchv1.JobFailureTarget, corev1.ConditionTrue)}, batchv1.JobFailureTarget, false},
		{[]batchv1.JobCondition{cond(batchv1.JobFailureTarget, corev1.ConditionTrue), cond(batchv1.JobFailed, corev1.ConditionTrue)}, batchv1.JobFailed, true},
		{[]batchv1.JobCondition{cond(batchv1.JobFailed, corev1.ConditionTrue)}, batchv1.JobFailed, true},
	} {
		job := &batchv1.Job{Status: batchv1.JobStatus{Conditions: tc.conds}}
		var got batchv1.JobConditionType
		if c := FinishingCondition(job); c != nil {
			got = c.Type
			if c.Reason != string(c.Type)+"Reason" {
				t.Errorf("%v: the condition returned is not the Job's own", tc.conds)
			}
		}
		if got != tc.want || JobFinished(job) != tc.finished {
			t.Errorf("%v: FinishingCondition %q, JobFinished %v; want %q, %v", tc.conds, got, JobFinished(job), tc.want, tc.finished)
		}
	}
}
