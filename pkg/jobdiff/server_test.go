package jobdiff

import (
	"encoding/json"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestProbes(t *testing.T) {
	live := liveJob(stRunning, nil)
	desired := desiredJob(func(j *batchv1.Job) {
		j.Spec.Parallelism = ptrTo[int32](3)                                       // Live
		j.Spec.Completions = ptrTo[int32](8)                                       // Conditional, not in tandem
		j.Spec.BackoffLimitPerIndex = ptrTo[int32](2)                              // NewJob
		worker(j).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1") // Conditional, not suspended
	})
	r, err := Diff(live, desired, Options{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	probes, err := r.Probes(live)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Probe{}
	for _, p := range probes {
		got[p.Name] = p
	}
	want := map[string]struct {
		expect Outcome
		paths  string
	}{
		ProbeNow:                            {OutcomeAccepted, "spec.parallelism"},
		"spec.backoffLimitPerIndex":         {OutcomeRejected, "spec.backoffLimitPerIndex"},
		"spec.completions":                  {OutcomeRejected, "spec.completions,spec.parallelism"},
		pWorker + ".resources.requests.cpu": {OutcomeRejected, pWorker + ".resources.requests.cpu"},
	}
	if len(got) != len(want) {
		t.Errorf("probes %v", keys(got))
	}
	for name, w := range want {
		p, ok := got[name]
		if !ok {
			t.Errorf("no probe %q in %v", name, keys(got))
			continue
		}
		if p.Expected != w.expect || strings.Join(p.Paths, ",") != w.paths {
			t.Errorf("%s: expect %s paths %v, want %s %s", name, p.Expected, p.Paths, w.expect, w.paths)
		}
		if p.Job.Status.Active != live.Status.Active || p.Job.UID != live.UID {
			t.Errorf("%s: the probe Job is not the live Job", name)
		}
	}
	if p := got[ProbeNow].Job; *p.Spec.Parallelism != 3 || *p.Spec.Completions != 6 {
		t.Errorf("apply-now Job has parallelism %d completions %d", *p.Spec.Parallelism, *p.Spec.Completions)
	}
	if p := got["spec.completions"].Job; *p.Spec.Parallelism != 3 || *p.Spec.Completions != 8 {
		t.Errorf("completions probe has parallelism %d completions %d", *p.Spec.Parallelism, *p.Spec.Completions)
	}

	// Judging: the server accepted what was expected; rejected what was expected; a value the
	// server drops is a disagreement.
	now := got[ProbeNow]
	if res := now.Judge(now.Job, ""); !res.Agrees || res.Outcome != OutcomeAccepted {
		t.Errorf("accepted as expected: %+v", res)
	}
	if res := now.Judge(nil, "spec.parallelism: Invalid value"); res.Agrees || res.Outcome != OutcomeRejected || res.Message == "" {
		t.Errorf("rejected against expectations: %+v", res)
	}
	dropped := now.Job.DeepCopy()
	dropped.Spec.Parallelism = ptrTo[int32](2)
	if res := now.Judge(dropped, ""); res.Agrees || res.Outcome != OutcomeDropped || !strings.Contains(res.Message, "spec.parallelism") {
		t.Errorf("dropped: %+v", res)
	}
	bpi := got["spec.backoffLimitPerIndex"]
	// The server dropping a change classified as needing a new Job agrees: the live Job does
	// not get it either way.
	droppedBPI := bpi.Job.DeepCopy()
	droppedBPI.Spec.BackoffLimitPerIndex = ptrTo[int32](1)
	if res := bpi.Judge(droppedBPI, ""); !res.Agrees || res.Outcome != OutcomeDropped || !strings.Contains(res.Message, "disabled") {
		t.Errorf("dropped, expected rejected: %+v", res)
	}
	if res := bpi.Judge(nil, "field is immutable"); !res.Agrees {
		t.Errorf("rejected as expected: %+v", res)
	}

	r.SetServerCheck([]ProbeResult{now.Judge(now.Job, ""), now.Judge(dropped, "")})
	if r.Server.Disagreements != 1 || len(r.Server.Probes) != 2 {
		t.Errorf("server check %+v", r.Server)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"disagreements":1`) {
		t.Errorf("JSON lacks the server check: %s", b)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// FuzzDiff: any pair of objects that decode as Jobs is compared without panic, every
// difference is classified, and the plan's patches apply to the live Job.
func FuzzDiff(f *testing.F) {
	live, _ := json.Marshal(liveJob(stRunning, nil))
	desired, _ := json.Marshal(desiredJob(func(j *batchv1.Job) { j.Spec.Parallelism = ptrTo[int32](3) }))
	f.Add(live, desired)
	f.Add([]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"a"}]}}}}`), []byte(`{"spec":{"suspend":true,"template":{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"1"}}}]}}}}`))
	f.Add([]byte(`{"metadata":{"labels":{"a/b":"c"}},"spec":{"completionMode":"Indexed","completions":3}}`), []byte(`{"spec":{"completionMode":"Indexed","completions":4,"parallelism":4}}`))
	f.Add([]byte(`{}`), []byte(`{"spec":{"selector":{"matchLabels":{"x":"y"}},"manualSelector":true}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var lj, dj batchv1.Job
		if json.Unmarshal(a, &lj) != nil || json.Unmarshal(b, &dj) != nil {
			return
		}
		r, err := Diff(&lj, &dj, Options{Now: testNow, DesiredSource: "d.yaml"})
		if err != nil {
			return
		}
		for _, d := range r.Differences {
			if d.Class == "" || d.Field == "" || d.Path == "" {
				t.Errorf("unclassified difference %+v", d)
			}
		}
		if _, err := r.Probes(&lj); err != nil {
			t.Errorf("probes: %v", err)
		}
	})
}
