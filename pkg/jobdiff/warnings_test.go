package jobdiff

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
)

func TestWarnings(t *testing.T) {
	prepareDB := func(j *batchv1.Job) {
		j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.BackoffLimit = nil, nil, ptrTo[int32](2)
	}
	cases := []struct {
		name          string
		state         liveState
		live, desired func(*batchv1.Job)
		edit          func(live *batchv1.Job) // changes the live Job's status
		want          []string                // Code/Side, exactly
	}{
		{name: "clean", state: stRunning, want: nil},
		{name: "prepare-db on both sides", state: stRunning, live: prepareDB, desired: prepareDB,
			want: []string{"PrepareDBMode/live", "PrepareDBMode/desired"}},
		{name: "prepare-db with the default backoffLimit", state: stRunning, live: func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = nil, nil },
			desired: func(j *batchv1.Job) { j.Spec.MaxFailedIndexes = nil },
			// The per-index limit takes a new Job, which runs index 0 again (issue 36, item 9).
			want: []string{"NewJobRerunsSucceeded/change", "PrepareDBMode/live", "UnlimitedRetries/change"}},
		{name: "a single-index Job is not prepare-db", state: stRunning,
			live: func(j *batchv1.Job) {
				j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.Completions, j.Spec.Parallelism = nil, nil, ptrTo[int32](1), ptrTo[int32](1)
			},
			desired: func(j *batchv1.Job) {
				j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.Completions, j.Spec.Parallelism = nil, nil, ptrTo[int32](1), ptrTo[int32](1)
			},
			want: nil},
		{name: "explicit backoffLimit next to per-index", state: stRunning, desired: func(j *batchv1.Job) { j.Spec.BackoffLimit = ptrTo[int32](3) },
			want: []string{"BackoffLimitWithPerIndex/desired"}},
		{name: "backoffLimit below the failures so far", state: stRunning, live: prepareDB,
			desired: chain(prepareDB, func(j *batchv1.Job) { j.Spec.BackoffLimit = ptrTo[int32](0) }),
			want:    []string{"PrepareDBMode/live", "PrepareDBMode/desired", "BackoffLimitFailsNow/change"}},
		{name: "backoffLimit equal to the failures so far", state: stRunning, live: prepareDB,
			desired: chain(prepareDB, func(j *batchv1.Job) { j.Spec.BackoffLimit = ptrTo[int32](1) }),
			want:    []string{"PrepareDBMode/live", "PrepareDBMode/desired", "BackoffLimitFailsNow/change"}},
		{name: "deadline already exceeded", state: stRunning, desired: func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptrTo[int64](300) },
			want: []string{"DeadlineExceededNow/change"}},
		{name: "deadline not yet exceeded", state: stRunning, desired: func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptrTo[int64](3600) },
			want: nil},
		{name: "deadline on a suspended Job does not run", state: stSuspendedStarted, desired: func(j *batchv1.Job) {
			j.Spec.ActiveDeadlineSeconds = ptrTo[int64](1)
			j.Spec.Suspend = ptrTo(true)
		}, want: nil},
		{name: "maxFailedIndexes below the failed indexes", state: stRunning, desired: func(j *batchv1.Job) { j.Spec.MaxFailedIndexes = ptrTo[int32](1) },
			edit: func(j *batchv1.Job) { j.Status.FailedIndexes = ptrTo("1,3") },
			want: []string{"MaxFailedIndexesFailsNow/change"}},
		{name: "completions scale down", state: stRunning, desired: func(j *batchv1.Job) { j.Spec.Completions, j.Spec.Parallelism = ptrTo[int32](4), ptrTo[int32](4) },
			want: []string{"CompletionsScaleDown/change"}},
		{name: "suspending kills active pods", state: stRunning, desired: func(j *batchv1.Job) { j.Spec.Suspend = ptrTo(true) },
			want: []string{"SuspendKillsPods/change"}},
		{name: "template change on a running Job", state: stRunning, desired: func(j *batchv1.Job) {
			worker(j).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
		}, want: []string{"TemplateOnlyNewPods/change"}},
		{name: "template change on a suspended Job", state: stSuspendedStarted, desired: func(j *batchv1.Job) {
			j.Spec.Suspend = ptrTo(true)
			worker(j).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
		}, want: []string{"TemplateOnlyNewPods/change"}},
		{name: "parallelism on a finished Job", state: stComplete, desired: func(j *batchv1.Job) { j.Spec.Parallelism = ptrTo[int32](4) },
			want: []string{"NewJobRerunsSucceeded/change", "NoEffectFinished/change"}},
		{name: "parallelism on a failing Job", state: stFailing, desired: func(j *batchv1.Job) { j.Spec.Parallelism = ptrTo[int32](4) },
			want: []string{"NoEffectEnding/change"}},
		{name: "labels on a finished Job take effect", state: stFailed, desired: func(j *batchv1.Job) { j.Labels = map[string]string{"app": "eval", "x": "y"} },
			want: nil},
		{name: "ttl on a failing Job does not start", state: stFailing, desired: func(j *batchv1.Job) { j.Spec.TTLSecondsAfterFinished = ptrTo[int32](60) },
			want: []string{"TTLNotStarted/change"}},
		{name: "ttl shorter than the time since the Job finished", state: stComplete, desired: func(j *batchv1.Job) { j.Spec.TTLSecondsAfterFinished = ptrTo[int32](60) },
			want: []string{"TTLDeletesNow/change"}},
		{name: "ttl longer than the time since the Job finished", state: stComplete, desired: func(j *batchv1.Job) { j.Spec.TTLSecondsAfterFinished = ptrTo[int32](3600) },
			want: nil},
		{name: "external controller", state: stRunning, live: func(j *batchv1.Job) { j.Spec.ManagedBy = ptrTo("example.com/batch") },
			desired: func(j *batchv1.Job) { j.Spec.ManagedBy = ptrTo("example.com/batch") },
			want:    []string{"ExternalController/live"}},
		{name: "name differs", state: stRunning, desired: func(j *batchv1.Job) { j.Name = "eval-2" },
			want: []string{"NameDiffers/desired"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			live := liveJob(tc.state, tc.live)
			if tc.edit != nil {
				tc.edit(live)
			}
			desired := desiredJob(tc.desired)
			if tc.desired == nil || desired.Spec.Suspend == nil {
				desired.Spec.Suspend = live.Spec.Suspend
			}
			r, err := Diff(live, desired, Options{Now: testNow})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range r.Warnings {
				got = append(got, w.Code+"/"+w.Side)
				if w.Message == "" {
					t.Errorf("%s without a message", w.Code)
				}
			}
			want := slices.Clone(tc.want)
			sort.Strings(got)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Errorf("warnings %v, want %v", got, want)
				for _, w := range r.Warnings {
					t.Logf("  %s: %s", w.Code, w.Message)
				}
			}
		})
	}
}

func TestStateOf(t *testing.T) {
	want := map[liveState]struct {
		phase   Phase
		mutable bool
	}{
		stRunning:          {PhaseRunning, false},
		stSuspended:        {PhaseSuspended, true},
		stSuspendedStarted: {PhaseSuspended, true},
		stSuspending:       {PhaseSuspending, false},
		stFailing:          {PhaseFailing, false},
		stComplete:         {PhaseComplete, false},
		stFailed:           {PhaseFailed, false},
	}
	for st, w := range want {
		s := StateOf(liveJob(st, nil))
		if s.Phase != w.phase || s.TemplateMutable != w.mutable {
			t.Errorf("%s: phase %s mutable %v, want %s %v", st, s.Phase, s.TemplateMutable, w.phase, w.mutable)
		}
	}
	// Suspended with a start time but without the Suspended condition (the controller has
	// not synced yet): the template is not mutable.
	j := liveJob(stSuspendedStarted, nil)
	j.Status.Conditions = nil
	if s := StateOf(j); s.TemplateMutable || s.Phase != PhaseSuspending {
		t.Errorf("suspended without condition: %+v", s)
	}
	// Not started and not suspended.
	j = liveJob(stRunning, nil)
	j.Status = batchv1.JobStatus{}
	if s := StateOf(j); s.Phase != PhaseNotStarted {
		t.Errorf("not started: %+v", s)
	}
	// Succeeding: SuccessCriteriaMet without Complete.
	j = liveJob(stRunning, nil)
	j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobSuccessCriteriaMet, "SuccessPolicy", testNow)}
	if s := StateOf(j); s.Phase != PhaseSucceeding || s.Reason != "SuccessPolicy" || !s.Ending() || s.Finished() {
		t.Errorf("succeeding: %+v", s)
	}
	// A condition that is not True does not count.
	j = liveJob(stRunning, nil)
	j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(testNow.Add(-time.Minute))}}
	if s := StateOf(j); s.Phase != PhaseRunning {
		t.Errorf("Failed=False: %+v", s)
	}
}

// The text report heads each warning with what it means in words, not its code and side
// ("! TemplateOnlyNewPods (change)" before); -o json keeps the code and the side.
func TestWarningTitlesAreWords(t *testing.T) {
	codes := []string{WarnPrepareDBMode, WarnBackoffLimitWithPerIndex, WarnNoEffectFinished, WarnNoEffectEnding, WarnDeadlineExceededNow,
		WarnTTLNotStarted, WarnTTLDeletesNow, WarnBackoffLimitFailsNow, WarnMaxFailedIndexesFailsNow, WarnUnlimitedRetries,
		WarnCompletionsScaleDown, WarnSuspendKillsPods, WarnTemplateOnlyNewPods, WarnExternalController, WarnNameDiffers}
	for _, code := range codes {
		if title := WarningTitle(code); title == code || !strings.Contains(title, " ") {
			t.Errorf("%s: title %q is not words", code, title)
		}
	}
	r := &Report{Job: Target{JobRef: contract.JobRef{Name: "eval"}}, Warnings: []Warning{{Code: WarnTemplateOnlyNewPods, Side: SideChange, Path: "spec.template", Message: "pods are made from the template when they are created"}}}
	var b strings.Builder
	if err := WriteText(&b, r, time.Now()); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "! Only new pods get the new template: pods are made") || strings.Contains(out, WarnTemplateOnlyNewPods) || strings.Contains(out, "(change)") {
		t.Errorf("text report:\n%s", out)
	}
}

// A count of one meets a noun of one in the warnings: "1 index has already failed", "the 1
// active pod; its index starts" (before: "1 indexes have", "the 1 active pods; their indexes").
func TestWarningWordsForOne(t *testing.T) {
	for _, tc := range []struct {
		name    string
		desired func(*batchv1.Job)
		edit    func(*batchv1.Job)
		want    string
	}{
		{"one failed index", func(j *batchv1.Job) { j.Spec.MaxFailedIndexes = ptrTo[int32](0) },
			func(j *batchv1.Job) { j.Status.FailedIndexes = ptrTo("3") }, "1 index has already failed (3)"},
		{"one active pod", func(j *batchv1.Job) { j.Spec.Suspend = ptrTo(true) },
			func(j *batchv1.Job) { j.Status.Active = 1 }, "suspending deletes the 1 active pod; its index starts again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := liveJob(stRunning, nil)
			tc.edit(live)
			desired := desiredJob(tc.desired)
			r, err := Diff(live, desired, Options{Now: testNow})
			if err != nil {
				t.Fatal(err)
			}
			var msgs []string
			for _, w := range r.Warnings {
				msgs = append(msgs, w.Message)
			}
			if all := strings.Join(msgs, "\n"); !strings.Contains(all, tc.want) {
				t.Errorf("no %q in:\n%s", tc.want, all)
			}
		})
	}
}
