package jobdiff

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestNowPatchBringsOverTheNowChanges: for every case and state, the plan's patch of the live
// Job, applied as the API server applies patches, brings over exactly the changes that hold
// now, except those a warning calls dangerous (see dangerousPaths), which no command carries.
func TestNowPatchBringsOverTheNowChanges(t *testing.T) {
	n := 0
	for _, fc := range fieldCases() {
		for _, st := range allStates {
			live := liveJob(st, fc.live)
			desired := desiredJob(fc.desired)
			if !fc.keepSuspend {
				desired.Spec.Suspend = live.Spec.Suspend
			}
			r, err := Diff(live, desired, Options{Now: testNow})
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s/%s/%s", fc.field, fc.dir, st)
			dangerous := dangerousPaths(r)
			var later []string
			for _, d := range r.Differences {
				if !d.HoldsNow || dangerous[d.Path] {
					later = append(later, d.Path)
				}
			}
			patched := live
			for _, step := range r.Plan {
				if step.Kind == StepNewJob {
					// On an ending Job, changes that would do nothing are left to the new Job.
					for _, p := range step.Paths {
						if !slices.Contains(later, p) {
							if !StateOf(live).Ending() {
								t.Errorf("%s: %s holds now, yet is left to a new Job", name, p)
							}
							later = append(later, p)
						}
					}
				}
				if step.Kind == StepDrastic && len(step.Commands) > 0 {
					t.Errorf("%s: the step for dangerous changes has commands %q", name, step.Commands)
				}
				if step.Kind != StepPatch {
					continue
				}
				if len(step.Commands) != 1 {
					t.Fatalf("%s: %s step with commands %q", name, step.Kind, step.Commands)
				}
				n++
				if patched, err = applyPatch(patched, patchFromCommand(t, step.Commands[0])); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			r2, err := Diff(patched, desired, Options{Now: testNow})
			if err != nil {
				t.Fatal(err)
			}
			left := paths(r2.Differences)
			sort.Strings(left)
			sort.Strings(later)
			if strings.Join(left, ",") != strings.Join(later, ",") {
				t.Errorf("%s: after the patches, left %v, want %v", name, left, later)
			}
		}
	}
	t.Logf("%d plan patches applied and re-diffed", n)
}

// TestTemplateStepOnceSuspended: the template patch of the plan for a running Job applies to
// the Job once it is suspended and brings the template over.
func TestTemplateStepOnceSuspended(t *testing.T) {
	for _, fc := range fieldCases() {
		if !strings.HasPrefix(fc.field, "spec.template.") || fc.want[len(fc.want)-1].holds != holdsTemplate {
			continue
		}
		live := liveJob(stRunning, fc.live)
		desired := desiredJob(fc.desired)
		r, err := Diff(live, desired, Options{Now: testNow})
		if err != nil {
			t.Fatal(err)
		}
		step := r.Plan[len(r.Plan)-1]
		if !strings.HasPrefix(step.Description, "Change the pod template") {
			t.Fatalf("%s/%s: last step %q", fc.field, fc.dir, step.Description)
		}
		want := []string{
			`kubectl patch job eval -n ml --type=merge -p '{"spec":{"suspend":true}}'`,
			`kubectl wait --for=condition=Suspended job/eval -n ml`,
		}
		if len(step.Commands) != 4 || step.Commands[0] != want[0] || step.Commands[1] != want[1] ||
			step.Commands[3] != `kubectl patch job eval -n ml --type=merge -p '{"spec":{"suspend":false}}'` {
			t.Errorf("%s/%s: commands %q", fc.field, fc.dir, step.Commands)
			continue
		}
		p := patchFromCommand(t, step.Commands[2])
		suspended := inState(live.DeepCopy(), stSuspendedStarted)
		patched, err := applyPatch(suspended, p)
		if err != nil {
			t.Fatalf("%s/%s: %v", fc.field, fc.dir, err)
		}
		desired.Spec.Suspend = ptrTo(true)
		r2, err := Diff(patched, desired, Options{Now: testNow})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range r2.Differences {
			if strings.HasPrefix(d.Path, "spec.template") {
				t.Errorf("%s/%s: %s still differs after %s", fc.field, fc.dir, d.Path, p.Body)
			}
		}
	}
}

// TestTandemSteps: completions that does not equal the desired parallelism is changed in two
// patches, the first setting both to the new completions.
func TestTandemSteps(t *testing.T) {
	live := liveJob(stRunning, nil)
	desired := desiredJob(func(j *batchv1.Job) { j.Spec.Completions, j.Spec.MaxFailedIndexes = ptrTo[int32](8), ptrTo[int32](7) })
	r, err := Diff(live, desired, Options{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Plan) != 1 {
		t.Fatalf("plan %+v", r.Plan)
	}
	want := []string{
		`kubectl patch job eval -n ml --type=merge -p '{"spec":{"completions":8,"maxFailedIndexes":7,"parallelism":8}}'`,
		`kubectl patch job eval -n ml --type=merge -p '{"spec":{"parallelism":2}}'`,
	}
	if strings.Join(r.Plan[0].Commands, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(r.Plan[0].Commands, "\n"), strings.Join(want, "\n"))
	}
	job := live
	for _, c := range r.Plan[0].Commands {
		if job, err = applyPatch(job, patchFromCommand(t, c)); err != nil {
			t.Fatal(err)
		}
	}
	r2, _ := Diff(job, desired, Options{Now: testNow})
	if r2.HasDifferences() {
		t.Errorf("left after the two patches: %v", describeDiffs(r2.Differences))
	}
}

// TestSeedFixPlan: the example. A running Job with backoffLimit 2 and no per-index
// limit; the desired Job has backoffLimitPerIndex and maxFailedIndexes.
func TestSeedFixPlan(t *testing.T) {
	live := liveJob(stRunning, func(j *batchv1.Job) {
		j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.BackoffLimit = nil, nil, ptrTo[int32](2)
	})
	r, err := Diff(live, manifest(), Options{Now: testNow, DesiredSource: "eval.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]Class{}
	for _, d := range r.Differences {
		classes[d.Path] = d.Class
	}
	if classes["spec.backoffLimitPerIndex"] != ClassNewJob || classes["spec.maxFailedIndexes"] != ClassNewJob {
		t.Errorf("classes %v", classes)
	}
	codes := map[string]bool{}
	for _, w := range r.Warnings {
		codes[w.Code+"/"+w.Side] = true
	}
	for _, c := range []string{"PrepareDBMode/live", "UnlimitedRetries/change"} {
		if !codes[c] {
			t.Errorf("no %s warning in %v", c, codes)
		}
	}
	if codes["PrepareDBMode/desired"] {
		t.Error("the desired Job has per-index retries, yet PrepareDBMode was reported on it")
	}
	last := r.Plan[len(r.Plan)-1]
	if !strings.Contains(last.Description, "A new Job is needed") || !strings.Contains(last.Description, "never deletes") {
		t.Errorf("last step %q", last.Description)
	}
	// backoffLimit 2147483647 on a Job without backoffLimitPerIndex: the Job fails only when
	// failed > backoffLimit (job-semantics §1.2, syncJob's exceedsBackoffLimit), i.e. never.
	// The UnlimitedRetries warning says so; no command of the plan may patch it onto the live Job.
	for _, s := range r.Plan {
		for _, c := range s.Commands {
			if strings.Contains(c, "2147483647") {
				t.Errorf("the plan patches the unlimited backoffLimit a warning calls dangerous: %q", c)
			}
		}
	}
	for _, s := range r.Plan {
		for _, c := range s.Commands {
			if strings.Contains(c, "delete") {
				t.Errorf("the plan deletes: %q", c)
			}
		}
	}
}

// patchFromCommand reads the patch back from a `kubectl patch ... --type=T -p '...'` command.
func patchFromCommand(t *testing.T, cmd string) Patch {
	t.Helper()
	typ := ""
	for _, f := range strings.Fields(cmd) {
		if strings.HasPrefix(f, "--type=") {
			typ = strings.TrimPrefix(f, "--type=")
		}
	}
	i := strings.Index(cmd, " -p '")
	if i < 0 || typ == "" || !strings.HasSuffix(cmd, "'") {
		t.Fatalf("not a patch command: %q", cmd)
	}
	body := strings.ReplaceAll(cmd[i+len(" -p '"):len(cmd)-1], `'\''`, "'")
	if !json.Valid([]byte(body)) {
		t.Fatalf("patch body is not JSON: %s", body)
	}
	return Patch{Type: typ, Body: []byte(body)}
}

// TestJSONPatchAddsMissingMaps: changes inside a list item are a JSON patch; two new keys of a
// map the live Job lacks become one "add" of that map.
func TestJSONPatchAddsMissingMaps(t *testing.T) {
	live := liveJob(stSuspended, nil)
	desired := desiredJob(func(j *batchv1.Job) {
		j.Spec.Suspend = ptrTo(true)
		worker(j).Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}
		worker(j).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("750m")
	})
	r, err := Diff(live, desired, Options{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Plan) != 1 || len(r.Plan[0].Commands) != 1 {
		t.Fatalf("plan %+v", r.Plan)
	}
	want := `kubectl patch job eval -n ml --type=json -p '[{"op":"add","path":"/spec/template/spec/containers/0/resources/limits","value":{"cpu":"1","memory":"1Gi"}},{"op":"replace","path":"/spec/template/spec/containers/0/resources/requests/cpu","value":"750m"}]'`
	if r.Plan[0].Commands[0] != want {
		t.Errorf("command\n%s\nwant\n%s", r.Plan[0].Commands[0], want)
	}
	patched, err := applyPatch(live, patchFromCommand(t, r.Plan[0].Commands[0]))
	if err != nil {
		t.Fatal(err)
	}
	if r2, _ := Diff(patched, desired, Options{Now: testNow}); r2.HasDifferences() {
		t.Errorf("left: %v", describeDiffs(r2.Differences))
	}
}

// dangerousPaths are the paths of the changes a warning says would end the live Job at once,
// make the TTL controller delete it, or retry its pods without limit (job-semantics §1.2:
// activeDeadlineSeconds measured from startTime; backoffLimit "failed > backoffLimit";
// maxFailedIndexes "len(failedIndexes) > maxFailedIndexes"; ttlSecondsAfterFinished deletes at
// the terminal condition's lastTransitionTime plus the TTL).
func dangerousPaths(r *Report) map[string]bool {
	out := map[string]bool{}
	for _, w := range r.Warnings {
		switch w.Code {
		case WarnDeadlineExceededNow, WarnTTLDeletesNow, WarnMaxFailedIndexesFailsNow, WarnUnlimitedRetries:
			out[w.Path] = true
		case WarnBackoffLimitFailsNow:
			if strings.Contains(w.Message, "fails at once") {
				out[w.Path] = true
			}
		}
	}
	return out
}

// TestNoCommandCarriesADangerousChange: over every case and state, and the scenarios below
// built to trip each dangerous warning, no command of the plan names a field a dangerous
// warning is about.
func TestNoCommandCarriesADangerousChange(t *testing.T) {
	type pair struct {
		name          string
		live, desired *batchv1.Job
	}
	var pairs []pair
	for _, fc := range fieldCases() {
		for _, st := range allStates {
			d := desiredJob(fc.desired)
			l := liveJob(st, fc.live)
			if !fc.keepSuspend {
				d.Spec.Suspend = l.Spec.Suspend
			}
			pairs = append(pairs, pair{fmt.Sprintf("%s/%s/%s", fc.field, fc.dir, st), l, d})
		}
	}
	// Running for 10 minutes (stRunning's startTime): a 60 s deadline fails it at once.
	pairs = append(pairs, pair{"deadline", liveJob(stRunning, nil), desiredJob(func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptrTo[int64](60) })})
	// Finished long ago: a TTL of 60 s deletes it at once.
	pairs = append(pairs, pair{"ttl", liveJob(stComplete, nil), desiredJob(func(j *batchv1.Job) { j.Spec.TTLSecondsAfterFinished = ptrTo[int32](60) })})
	// 1 failed pod counted; backoffLimit 0: failed > backoffLimit.
	pairs = append(pairs, pair{"backoffLimit", liveJob(stRunning, func(j *batchv1.Job) {
		j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = nil, nil
	}), desiredJob(func(j *batchv1.Job) {
		j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.BackoffLimit = nil, nil, ptrTo[int32](0)
	})})
	// No per-index limit on the live Job: 2147483647 means unlimited retries.
	pairs = append(pairs, pair{"unlimited", liveJob(stRunning, func(j *batchv1.Job) {
		j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.BackoffLimit = nil, nil, ptrTo[int32](2)
	}), desiredJob(func(j *batchv1.Job) {
		j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.BackoffLimit = nil, nil, ptrTo[int32](2147483647)
	})})
	seen := map[string]int{}
	for _, p := range pairs {
		r, err := Diff(p.live, p.desired, Options{Now: testNow, DesiredSource: "eval.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		for path := range dangerousPaths(r) {
			seen[p.name]++
			key := path[strings.LastIndexByte(path, '.')+1:]
			for _, s := range r.Plan {
				for _, c := range s.Commands {
					if strings.Contains(c, "patch job") && strings.Contains(c, `"`+key+`"`) {
						t.Errorf("%s: step %s patches %s, which a warning calls dangerous: %q", p.name, s.Kind, path, c)
					}
				}
			}
		}
	}
	for _, want := range []string{"deadline", "ttl", "backoffLimit", "unlimited"} {
		if seen[want] == 0 {
			t.Errorf("scenario %s raised no dangerous warning", want)
		}
	}
	t.Logf("dangerous changes checked: %d scenarios with at least one", len(seen))
}

// TestFinishedJobPlanIsANewJob: a Complete or Failed Job is never synced again and its terminal
// condition cannot be removed (job-semantics §2.3: "terminal conditions cannot be removed";
// syncJob returns for a finished Job), so it never becomes suspended with Suspended=True and
// its template never becomes mutable (§1.2 template, strategy.go:
// shouldAllowMutablePodTemplate). The plan is one step, create a new Job, and no difference
// is left "conditional, does not hold now".
func TestFinishedJobPlanIsANewJob(t *testing.T) {
	for _, st := range []liveState{stComplete, stFailed} {
		desired := desiredJob(func(j *batchv1.Job) {
			j.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "big"}
			worker(j).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
			j.Spec.Completions = ptrTo[int32](8) // not in tandem with parallelism
			j.Spec.Parallelism = ptrTo[int32](3)
		})
		r, err := Diff(liveJob(st, nil), desired, Options{Now: testNow, DesiredSource: "eval.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range r.Differences {
			if d.Class == ClassConditional && !d.HoldsNow {
				t.Errorf("%s: %s is conditional (does not hold now) on a finished Job", st, d.Path)
			}
		}
		if r.Count(ClassNewJob) < 3 {
			t.Errorf("%s: %d differences need a new Job, want the template's two and completions", st, r.Count(ClassNewJob))
		}
		if len(r.Plan) != 1 || r.Plan[0].Kind != StepNewJob {
			t.Fatalf("%s: plan %+v, want one new-job step", st, r.Plan)
		}
		for _, c := range r.Plan[0].Commands {
			if strings.Contains(c, "patch job") {
				t.Errorf("%s: the plan patches the finished Job: %q", st, c)
			}
		}
	}
}

// TestNewJobStepUsesANewName: the desired manifest names the live Job; a new Job with that
// name is refused with AlreadyExists while the old one exists (kubectl indexed never deletes),
// so the plan's create command renames it.
func TestNewJobStepUsesANewName(t *testing.T) {
	desired := desiredJob(func(j *batchv1.Job) { worker(j).Image = "busybox:1.37" })
	for _, tc := range []struct {
		opts    Options
		want    string
		wantCmd bool
	}{
		{Options{Now: testNow, DesiredSource: "eval.yaml"}, "eval-2", true},
		{Options{Now: testNow, DesiredSource: "eval.yaml", NewName: "eval-4"}, "eval-4", true},
		{Options{Now: testNow, DesiredSource: "-"}, "eval-2", false},
	} {
		r, err := Diff(liveJob(stComplete, nil), desired, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		st := r.Plan[len(r.Plan)-1]
		if st.Kind != StepNewJob || !strings.Contains(st.Description, tc.want) {
			t.Errorf("%+v: last step %s %q, want a new-job step naming %s", tc.opts, st.Kind, st.Description, tc.want)
		}
		var create string
		for _, c := range st.Commands {
			if strings.Contains(c, "kubectl create") {
				create = c
			}
		}
		if !tc.wantCmd {
			if create != "" || !strings.Contains(st.Description, "metadata.name") {
				t.Errorf("from stdin: command %q, description %q: want no command and to set metadata.name", create, st.Description)
			}
			continue
		}
		want := `kubectl patch --local -f eval.yaml --type=merge -p '{"metadata":{"name":"` + tc.want + `"}}' -o yaml | kubectl create -f - -n ml`
		if create != want {
			t.Errorf("create command\n%s\nwant\n%s", create, want)
		}
	}
}

func TestSuggestNames(t *testing.T) {
	long := strings.Repeat("a", 70)
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"eval", []string{"eval-2", "eval-3"}},
		{"eval-2", []string{"eval-3", "eval-4"}},
		{"eval-r1", []string{"eval-r1-2", "eval-r1-3"}},
		{"eval-007", []string{"eval-007-2", "eval-007-3"}},
		{"gsm8k", []string{"gsm8k-2", "gsm8k-3"}},
	} {
		if got := SuggestNames(tc.in, 2); !slices.Equal(got, tc.want) {
			t.Errorf("SuggestNames(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	// validateNameAllowsCompletions (job-semantics §1.2): <name>-<completions-1> must be a
	// DNS-1123 label (63 characters); leave room for indexes of up to six digits.
	for _, n := range SuggestNames(long, 3) {
		if len(n)+len("-999999") > 63 {
			t.Errorf("%q is too long for pod hostnames", n)
		}
	}
}

// TestNoTandemStepWhenANewJobIsNeeded: when a new Job is needed anyway, the plan does not change
// the completions of the Job being replaced in tandem (a scale-down deletes the pods of indexes
// >= the new completions, job-semantics §1.2 completions): the new Job gets them.
func TestNoTandemStepWhenANewJobIsNeeded(t *testing.T) {
	desired := desiredJob(func(j *batchv1.Job) {
		j.Spec.Completions = ptrTo[int32](4)
		worker(j).Image = "busybox:1.37"
	})
	r, err := Diff(liveJob(stRunning, nil), desired, Options{Now: testNow, DesiredSource: "eval.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Plan {
		if s.Kind == StepTandem {
			t.Errorf("tandem step next to a new Job: %+v", s)
		}
	}
	last := r.Plan[len(r.Plan)-1]
	if last.Kind != StepNewJob || !slices.Contains(last.Paths, "spec.completions") {
		t.Errorf("the new Job does not carry completions: %+v", last)
	}
}

// TestReplacedJobIsNotResumed: a suspended Job that must be replaced (backoffLimitPerIndex is
// immutable) is left suspended: no step resumes it, since the new Job runs every shard too
// (issue 26, HIGH 4: step 1 patched suspend:false, step 2 created the new Job, and following
// both ran every shard twice, once with the old image).
func TestReplacedJobIsNotResumed(t *testing.T) {
	desired := desiredJob(func(j *batchv1.Job) {
		j.Spec.BackoffLimitPerIndex = ptrTo[int32](3)
		worker(j).Image = "busybox:1.37"
	})
	for _, st := range []liveState{stSuspended, stSuspendedStarted} {
		r, err := Diff(liveJob(st, nil), desired, Options{Now: testNow, DesiredSource: "eval.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range r.Plan {
			for _, c := range step.Commands {
				if strings.Contains(c, `"suspend":false`) {
					t.Errorf("%s: step %s resumes the Job it replaces: %s", st, step.Kind, c)
				}
			}
		}
		last := r.Plan[len(r.Plan)-1]
		if last.Kind != StepNewJob || !strings.Contains(last.Description, "eval is suspended: leave it so") || !slices.Contains(last.Paths, "spec.suspend") {
			t.Errorf("%s: last step %s %q %v", st, last.Kind, last.Description, last.Paths)
		}
	}
	// Without a new Job, resuming is the plan.
	r, err := Diff(liveJob(stSuspendedStarted, nil), desiredJob(nil), Options{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Plan) == 0 || !strings.Contains(strings.Join(r.Plan[0].Commands, "\n"), `"suspend":false`) {
		t.Errorf("no resume for a Job that is kept: %+v", r.Plan)
	}
}
