package simulate

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func i32(v int32) *int32 { return &v }

func job(completions, parallelism int32, annotations map[string]string) *batchv1.Job {
	mode := batchv1.IndexedCompletion
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns"}, Spec: batchv1.JobSpec{
		CompletionMode: &mode, Completions: i32(completions), Parallelism: i32(parallelism),
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "worker", Image: "busybox:1.36"}}}},
	}}
}

func run(t *testing.T, j *batchv1.Job, out *Outcomes) *Result {
	t.Helper()
	r, err := Simulate(j, out, Options{Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func condAt(r *Result, ct batchv1.JobConditionType) (time.Duration, string, bool) {
	for _, c := range r.Job.Status.Conditions {
		if c.Type == ct {
			return c.LastTransitionTime.Sub(t0), c.Reason, true
		}
	}
	return 0, "", false
}

// The global backoff (newBackoffRecord, getRemainingTimeForFailuresCount): with parallelism 2
// index 1 fails at 2s; no pod is created until 2s+10s; it fails again at 14s; the second
// failure since the last success doubles the delay to 20s: the third pod starts at 34s and
// fails at 36s, after the sync at 36s its status write asked for, so the sync a batch period
// later (SyncJobBatchPeriod) finds it to exceed backoffLimit 2 (failed 3 > 2): Failed at 38s,
// index 0 killed at once (no pod terminates). The control plane: Failed at 38s (TestZZTiming
// capture, this stop's note).
func TestGlobalBackoffDelaysEveryIndex(t *testing.T) {
	j := job(10, 2, map[string]string{
		"scenario.indexed.kubectl.io/run-time": "never", "scenario.indexed.kubectl.io/run-time.1": "2s",
		"scenario.indexed.kubectl.io/exit-code.1": "1"})
	j.Spec.BackoffLimit = i32(2)
	r := run(t, j, nil)
	at, reason, ok := condAt(r, batchv1.JobFailed)
	if !ok || at != 38*time.Second || reason != batchv1.JobReasonBackoffLimitExceeded {
		t.Fatalf("Failed at %s (%s, %v), want 38s BackoffLimitExceeded", at, reason, ok)
	}
	// 3 failures of index 1 plus index 0 killed and counted (the Job is failing).
	if r.Job.Status.Failed != 4 || r.Indexes[1].Pods != 3 || r.Indexes[0].Pods != 1 {
		t.Fatalf("failed %d, pods of 1: %d, of 0: %d; want 4, 3, 1", r.Job.Status.Failed, r.Indexes[1].Pods, r.Indexes[0].Pods)
	}
}

// pastBackoffLimitOnFailure: restarts of running pods >= backoffLimit fail the Job; a container
// exiting 1 every 2s reaches 2 restarts at 4s, seen by the sync a batch period later
// (FailureTarget at 5s), and Failed once the killed pods' ends are seen, at 6s.
func TestOnFailureRestartsFailTheJob(t *testing.T) {
	j := job(3, 3, map[string]string{"scenario.indexed.kubectl.io/run-time": "never",
		"scenario.indexed.kubectl.io/run-time.1": "2s", "scenario.indexed.kubectl.io/exit-code.1": "1"})
	j.Spec.BackoffLimit = i32(2)
	j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	r := run(t, j, nil)
	at, reason, ok := condAt(r, batchv1.JobFailed)
	if !ok || at != 6*time.Second || reason != batchv1.JobReasonBackoffLimitExceeded {
		t.Fatalf("Failed at %s (%s, %v), want 6s BackoffLimitExceeded", at, reason, ok)
	}
	if r.Job.Status.Failed != 3 || r.Indexes[1].Restarts != 2 {
		t.Fatalf("failed %d restarts %d, want 3 killed pods counted and 2 restarts", r.Job.Status.Failed, r.Indexes[1].Restarts)
	}
}

// Per-index backoff (getRemainingTimePerIndex): index 0 fails at 1s, its second pod starts
// at 11s (10s), fails at 12s, the third at 32s (20s); --outcome 0=1,1,0 makes it succeed at
// 33s, after the sync at 33s its status write asked for: Complete at 34s, as on the control
// plane (34s).
func TestPerIndexBackoffAndOutcomeFlags(t *testing.T) {
	j := job(2, 2, nil)
	j.Spec.BackoffLimitPerIndex = i32(2)
	out := NewOutcomes()
	if err := out.ParseOutcome("0=1,1,0"); err != nil {
		t.Fatal(err)
	}
	r := run(t, j, out)
	at, reason, ok := condAt(r, batchv1.JobComplete)
	if !ok || at != 34*time.Second || reason != batchv1.JobReasonCompletionsReached {
		t.Fatalf("Complete at %s (%s, %v), want 34s CompletionsReached", at, reason, ok)
	}
	if r.Job.Status.Failed != 2 || r.Job.Status.CompletedIndexes != "0,1" || *r.Job.Status.FailedIndexes != "" {
		t.Fatalf("status %+v", r.Job.Status)
	}
}

// firstPendingIndexes takes the lowest indexes, backoff or not, and
// getPodCreationInfoForIndependentIndexes creates none while all of them wait: with
// parallelism 1, index 0 in its backoff holds index 1 back.
func TestIndexInBackoffHoldsTheQueue(t *testing.T) {
	j := job(2, 1, nil)
	j.Spec.BackoffLimitPerIndex = i32(1)
	out := NewOutcomes()
	_ = out.ParseOutcome("0=1,0")
	r := run(t, j, out)
	// 0 fails at 1s, retried at 11s, succeeds at 12s, seen at 13s (the sync at 12s its status
	// write asked for runs first); only then index 1 (13s-14s), seen at 15s. The control plane:
	// Complete at 15s.
	if at, _, _ := condAt(r, batchv1.JobComplete); at != 15*time.Second {
		t.Fatalf("Complete at %s, want 15s", at)
	}
}

// The most specific scenario annotation wins, and the attempt suffix needs
// backoffLimitPerIndex (kwok reads the attempt from the index-failure-count annotations).
func TestAnnotationLookup(t *testing.T) {
	a := map[string]string{
		AnnotationExitCode: "5", AnnotationExitCode + ".1": "6", AnnotationExitCode + ".1.1": "7",
		AnnotationRunTime: "3s", AnnotationRunTime + ".2": "never", AnnotationCondition + ".3.0": "DisruptionTarget",
	}
	o := NewOutcomes().WithAnnotations(a)
	cases := []struct {
		index, run, attempt int
		want                Attempt
	}{
		{0, 0, 0, Attempt{ExitCode: 5, Duration: 3 * time.Second}},
		{1, 0, 0, Attempt{ExitCode: 6, Duration: 3 * time.Second}},
		{1, 1, 1, Attempt{ExitCode: 7, Duration: 3 * time.Second}},
		{1, 1, -1, Attempt{ExitCode: 6, Duration: 3 * time.Second}},
		{2, 0, 0, Attempt{ExitCode: 5, Never: true}},
		{3, 0, 0, Attempt{ExitCode: 5, Condition: "DisruptionTarget", Duration: 3 * time.Second}},
		{3, 1, 1, Attempt{ExitCode: 5, Duration: 3 * time.Second}},
	}
	for _, c := range cases {
		if got := o.Attempt(c.index, c.run, c.attempt); got != c.want {
			t.Errorf("Attempt(%d, %d, %d) = %+v, want %+v", c.index, c.run, c.attempt, got, c.want)
		}
	}
	// A condition without an exit code exits 137, as the stage makes it.
	o = NewOutcomes()
	_ = o.ParseCondition("0=DisruptionTarget,")
	if got := o.Attempt(0, 0, 0); got.ExitCode != KilledExitCode || got.Condition != "DisruptionTarget" {
		t.Errorf("condition attempt = %+v", got)
	}
	if got := o.Attempt(0, 1, 1); got.Failed() {
		t.Errorf("second attempt = %+v, want no condition and exit 0", got)
	}
	// Flags: per index, then the default flag, over the bare annotation.
	o = NewOutcomes().WithAnnotations(a)
	_ = o.ParseOutcome("1-2=0,9")
	c := int32(4)
	o.DefaultCode = &c
	if o.Attempt(1, 0, 1).ExitCode != 0 || o.Attempt(2, 5, 5).ExitCode != 9 || o.Attempt(0, 0, 0).ExitCode != 4 {
		t.Errorf("flags did not take precedence")
	}
}

func TestFlagErrors(t *testing.T) {
	o := NewOutcomes()
	for _, v := range []string{"", "1", "=1", "x=1", "1=x", "1=256", "1=-1", "3-1=1", "1=1,,2"} {
		if err := o.ParseOutcome(v); err == nil {
			t.Errorf("--outcome %q accepted", v)
		}
	}
	for _, v := range []string{"1=forever", "1=-1s", "a=1s"} {
		if err := o.ParseDuration(v); err == nil {
			t.Errorf("--duration %q accepted", v)
		}
	}
	if err := o.ParseCondition("1=a b"); err == nil {
		t.Error("--condition with a space accepted")
	}
}

func TestCheckRejects(t *testing.T) {
	j := job(2, 1, nil)
	j.Spec.CompletionMode = nil
	if err := Check(j); err == nil || !strings.Contains(err.Error(), "not an Indexed Job") {
		t.Errorf("NonIndexed: %v", err)
	}
	j = job(2, 1, map[string]string{ScenarioPrefix + "exit-code.x": "1"})
	if err := Check(j); err == nil {
		t.Error("bad annotation accepted")
	}
}

// A failure racing a success at the same instant: the success policy (succeededIndexes "0")
// and a FailJob rule. Together the FailJob rule wins (getFailJobMessage comes first in
// syncJob); with the success 500ms earlier the success policy wins: both are reported.
func TestRaceIsReported(t *testing.T) {
	j := job(2, 2, map[string]string{ScenarioPrefix + "run-time": "2s", ScenarioPrefix + "exit-code.1": "3"})
	j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: strPtr("0")}}}
	j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionFailJob,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{3}}}}}
	rep, err := Predict(j, nil, Options{Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != "Failed" {
		t.Fatalf("outcome %s, want Failed", rep.Outcome)
	}
	found := false
	for _, a := range rep.TimingDependent {
		if a.Timing == SuccessesFirst && a.Outcome == "Complete" {
			found = true
		}
	}
	if !found {
		t.Fatalf("the race is not reported: %+v", rep.TimingDependent)
	}
}

func strPtr(s string) *string { return &s }

// A Job whose pods run forever stops with Running, not in an endless loop.
func TestStuckJob(t *testing.T) {
	r := run(t, job(3, 3, map[string]string{ScenarioPrefix + "run-time": "never"}), nil)
	if !r.Stuck || r.Outcome() != "Running" {
		t.Fatalf("outcome %s", r.Outcome())
	}
}

func TestOutOfRange(t *testing.T) {
	o := NewOutcomes()
	_ = o.ParseOutcome("9=1")
	_ = o.ParseDuration("2-7=1s")
	if got := o.OutOfRange(6); len(got) != 3 || got[0] != 6 || got[2] != 9 {
		t.Errorf("OutOfRange(6) = %v, want [6 7 9]", got)
	}
}

// Under backoffLimitPerIndex the restart limit is 2^31-1 (pastBackoffLimitOnFailure never
// fires): a crash-looping container keeps its pod running, the index never finishes, and the
// simulation says so at once instead of restarting it for a day.
func TestCrashLoopWithoutLimit(t *testing.T) {
	j := job(3, 3, map[string]string{ScenarioPrefix + "exit-code.1": "1"})
	j.Spec.BackoffLimitPerIndex = i32(1)
	j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	r := run(t, j, nil)
	if r.Outcome() != "Running" || r.Syncs > 10 || r.Job.Status.CompletedIndexes != "0,2" {
		t.Fatalf("outcome %s after %d syncs, completed %q", r.Outcome(), r.Syncs, r.Job.Status.CompletedIndexes)
	}
}

// A deadline close to the finish: pods ending 1.2s before activeDeadlineSeconds are seen a
// batch period later, at 9.8s, and complete the Job; half a second more of controller and
// kubelet latency brings that sync to the deadline, which fails it first (pastActiveDeadline
// comes before the completion check): both outcomes are reported.
func TestDeadlineRaceIsReported(t *testing.T) {
	j := job(2, 2, map[string]string{ScenarioPrefix + "run-time": "8800ms"})
	deadline := int64(10)
	j.Spec.ActiveDeadlineSeconds = &deadline
	rep, err := Predict(j, nil, Options{Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != "Complete" || len(rep.TimingDependent) == 0 || rep.TimingDependent[0].Outcome != "Failed" {
		t.Fatalf("outcome %s, alternatives %+v", rep.Outcome, rep.TimingDependent)
	}
}

// Issue 25: under restartPolicy OnFailure restarts are instant here, while a kubelet waits its
// crash-loop back-off; the report says its times are lower bounds. A Job whose containers
// never restart says nothing of it.
func TestRestartTimingIsFlagged(t *testing.T) {
	j := job(3, 3, map[string]string{"scenario.indexed.kubectl.io/run-time": "never",
		"scenario.indexed.kubectl.io/run-time.1": "2s", "scenario.indexed.kubectl.io/exit-code.1": "1"})
	j.Spec.BackoffLimit = i32(2)
	j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	rep, err := Predict(j, nil, Options{Start: time.Unix(0, 0), Horizon: time.Hour, MaxEvents: 100})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RestartTiming != RestartTiming {
		t.Errorf("OnFailure with restarts: restartTiming %q", rep.RestartTiming)
	}
	never := job(3, 3, nil)
	if rep, err = Predict(never, nil, Options{Start: time.Unix(0, 0), Horizon: time.Hour, MaxEvents: 100}); err != nil || rep.RestartTiming != "" {
		t.Errorf("no restarts: restartTiming %q (%v)", rep.RestartTiming, err)
	}
}

// A count of one meets a noun of one: "1 pod created (index 0)", not "(indexes 0)"; more
// than one keeps the plural.
func TestEventWordsCountIndexes(t *testing.T) {
	j := job(10, 2, map[string]string{
		"scenario.indexed.kubectl.io/run-time": "never", "scenario.indexed.kubectl.io/run-time.1": "2s",
		"scenario.indexed.kubectl.io/exit-code.1": "1"})
	j.Spec.BackoffLimit = i32(2)
	r := run(t, j, nil)
	var msgs []string
	for _, e := range r.Events {
		if e.Type == "PodsCreated" || e.Type == "PodsKilled" {
			msgs = append(msgs, e.Message)
		}
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{"2 pods created (indexes 0,1)", "1 pod created (index 1)", "1 running pod deleted (index 0): it counts as failed"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "(indexes 0)") || strings.Contains(got, "(indexes 1)") {
		t.Errorf("a plural for one index:\n%s", got)
	}
}

// A timing variant moves the runs it puts first Skew earlier and the others Skew later, and
// when two ends meet at one instant the first kind comes first: index 0 failing after 2s and
// index 1 succeeding after 1s both end at 1.5s under failures-first, the failure first; the
// other way round under successes-first (index 0 failing after 1s, index 1 succeeding after 2s).
func TestTimingVariantOrdersAnInstant(t *testing.T) {
	for _, c := range []struct {
		timing    Timing
		durations string
		want      string
	}{
		{FailuresFirst, "0=2s", "PodFailed,PodSucceeded"},
		{SuccessesFirst, "1=2s", "PodSucceeded,PodFailed"},
	} {
		out := NewOutcomes()
		for _, err := range []error{out.ParseOutcome("0=1"), out.ParseDuration(c.durations), out.SetDefaultDuration("1s")} {
			if err != nil {
				t.Fatal(err)
			}
		}
		j := job(2, 2, nil)
		j.Spec.BackoffLimit = i32(1)
		r, err := Simulate(j, out, Options{Start: t0, Timing: c.timing})
		if err != nil {
			t.Fatal(err)
		}
		var at []string
		for _, e := range r.Events {
			if e.At == 1500*time.Millisecond {
				at = append(at, e.Type)
			}
		}
		if got := strings.Join(at, ","); got != c.want {
			t.Errorf("%s: events at 1.5s %s, want %s", c.timing, got, c.want)
		}
	}
}
