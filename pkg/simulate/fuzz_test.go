package simulate

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
)

// FuzzOutcomeFlags: any --outcome / --duration / --condition value is either rejected with an
// error or gives attempts a simulation runs to an end without panicking.
func FuzzOutcomeFlags(f *testing.F) {
	for _, s := range []string{"0=1", "1-3=1,1,0", "2=never", "0=DisruptionTarget,", "4=2s,1m", "x=1", "1=", "0-1048576=1"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, v string, kind uint8) {
		o := NewOutcomes()
		var err error
		switch kind % 3 {
		case 0:
			err = o.ParseOutcome(v)
		case 1:
			err = o.ParseDuration(v)
		default:
			err = o.ParseCondition(v)
		}
		if err != nil {
			return
		}
		for i := 0; i < 4; i++ {
			for a := 0; a < 4; a++ {
				at := o.Attempt(i, a, a)
				if at.Duration < 0 || (at.Condition != "" && at.ExitCode == 0) {
					t.Fatalf("attempt %d/%d of %q: %+v", i, a, v, at)
				}
			}
		}
		j := job(4, 2, nil)
		j.Spec.BackoffLimitPerIndex = i32(1)
		r, err := Simulate(j, o, Options{Start: t0, Horizon: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if r.Finished && r.Outcome() != "Complete" && r.Outcome() != "Failed" {
			t.Fatalf("finished with %s", r.Outcome())
		}
	})
}

// FuzzScenarioAnnotations: the scenario reader accepts the annotations the harness accepts and
// a simulation of a Job carrying them always ends (Complete, Failed, Running or the horizon).
func FuzzScenarioAnnotations(f *testing.F) {
	for _, kv := range [][2]string{{"exit-code.1", "1"}, {"run-time", "never"}, {"condition.2.0", "DisruptionTarget"},
		{"termination-delay.1", "5s"}, {"run-time.1.1", "2s"}, {"container", "worker"}, {"exit-code.01", "1"}, {"bogus", "1"}} {
		f.Add(kv[0], kv[1], true)
		f.Add(kv[0], kv[1], false)
	}
	f.Fuzz(func(t *testing.T, key, value string, perIndex bool) {
		j := job(3, 2, map[string]string{ScenarioPrefix + key: value})
		if perIndex {
			j.Spec.BackoffLimitPerIndex = i32(1)
		}
		j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget"}}}}}
		r, err := Simulate(j, nil, Options{Start: t0, Horizon: 2 * time.Hour})
		if err != nil {
			return
		}
		if r.Syncs > 100000 {
			t.Fatalf("%d syncs", r.Syncs)
		}
	})
}
