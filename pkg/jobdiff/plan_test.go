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
// Job (and its drastic patch, if any), applied as the API server applies patches, bring over
// exactly the changes that hold now.
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
			var later []string
			for _, d := range r.Differences {
				if !d.HoldsNow {
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
				if step.Kind != StepPatch && step.Kind != StepDrastic {
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
	if !strings.Contains(last.Description, "a new Job is needed") || !strings.Contains(last.Description, "never deletes") {
		t.Errorf("last step %q", last.Description)
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

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"eval":          "eval",
		"ml-team":       "ml-team",
		`{"a":1}`:       `'{"a":1}'`,
		"it's":          `'it'\''s'`,
		"":              "''",
		"a b":           "'a b'",
		"job/eval-2.x=": "job/eval-2.x=",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
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
