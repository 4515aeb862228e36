package simulate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The captured fixtures of test/fixtures whose capture point is the end of the Job are the
// real v1.37.2 control plane's answer for their manifest (scenario annotations read by kwok):
// the simulator must predict the same final status from the manifest alone.
var finalFixtures = []string{
	"seed", "prepare-db-failed", "deadline-exceeded", "disruption-ignored", "failjob-on-condition",
	"max-failed-indexes-exceeded", "per-index-recovered", "pod-failure-policy-failjob",
	"success-policy-after-failed-index", "success-policy", "transient-recovered", "flaky-recovered",
}

type fixture struct {
	Manifest     string `json:"manifest"`
	CapturePoint string `json:"capturePoint"`
}

func loadFixture(t *testing.T, name string) (*batchv1.Job, *batchv1.Job, map[string]int) {
	t.Helper()
	dir := filepath.Join("..", "..", "test", "fixtures", name)
	raw, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var fx fixture
	if err := yaml.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	var manifest batchv1.Job
	if err := yaml.Unmarshal([]byte(fx.Manifest), &manifest); err != nil {
		t.Fatal(err)
	}
	raw, err = os.ReadFile(filepath.Join(dir, "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	var live batchv1.Job
	if err := json.Unmarshal(raw, &live); err != nil {
		t.Fatal(err)
	}
	raw, err = os.ReadFile(filepath.Join(dir, "pods.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pods corev1.PodList
	if err := json.Unmarshal(raw, &pods); err != nil {
		t.Fatal(err)
	}
	perIndex := map[string]int{}
	for _, p := range pods.Items {
		perIndex[p.Annotations[batchv1.JobCompletionIndexAnnotation]]++
	}
	return &manifest, &live, perIndex
}

func TestFixturesFinalStatus(t *testing.T) {
	for _, name := range finalFixtures {
		t.Run(name, func(t *testing.T) {
			manifest, live, pods := loadFixture(t, name)
			res, err := Simulate(manifest, nil, Options{Start: time.Unix(0, 0)})
			if err != nil {
				t.Fatal(err)
			}
			want, got := Summarize(&live.Status, pods), Summarize(&res.Job.Status, res.PodsPerIndex())
			if diffs := want.Diff(got); len(diffs) > 0 {
				for _, e := range res.Events {
					t.Logf("%6s %-18s %s", e.At, e.Type, e.Message)
				}
				t.Errorf("%s: simulated status differs from the capture:\n  %s", name, strings.Join(diffs, "\n  "))
			}
			if !res.Finished {
				t.Errorf("%s: the simulation did not finish", name)
			}
		})
	}
}

// Two fixtures are captured between FailureTarget and Failed, while the killed pods take their
// 120s grace period (termination-delay): the simulation stopped 60s in must show the same
// moment: FailureTarget only, the killed pods already counted as failed, and terminating.
func TestFixturesFailureTargetWhileTerminating(t *testing.T) {
	for _, name := range []string{"prepare-db-terminating", "onfailure-restarts"} {
		t.Run(name, func(t *testing.T) {
			manifest, live, _ := loadFixture(t, name)
			res, err := Simulate(manifest, nil, Options{Start: time.Unix(0, 0), Horizon: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			want, got := Summarize(&live.Status, nil), Summarize(&res.Job.Status, nil)
			if diffs := want.Diff(got); len(diffs) > 0 {
				t.Errorf("%s: simulated status 60s in differs from the capture:\n  %s", name, strings.Join(diffs, "\n  "))
			}
			if res.Finished || res.Job.Status.Terminating == nil || live.Status.Terminating == nil || *res.Job.Status.Terminating != *live.Status.Terminating {
				t.Errorf("%s: terminating %v, captured %v (finished %v)", name, res.Job.Status.Terminating, live.Status.Terminating, res.Finished)
			}
			// And at the end, once the grace period is over: Failed.
			end, err := Simulate(manifest, nil, Options{Start: time.Unix(0, 0)})
			if err != nil {
				t.Fatal(err)
			}
			if end.Outcome() != "Failed" || end.End < 120*time.Second {
				t.Errorf("%s: %s after %s, want Failed after the 120s grace period", name, end.Outcome(), end.End)
			}
		})
	}
}

// TestIndexFailedNamesFailIndexRule: in the seed fixture index 2 exits 42, which podFailurePolicy
// rule 0 (FailIndex) matches on the real control plane; the timeline says that rule failed
// it, not "backoffLimitPerIndex 1 used up" (issue 22: the pod had already been counted in the
// same sync, so it was not looked at). Index 4 (exit 1 on every attempt) used up its retries.
func TestIndexFailedNamesFailIndexRule(t *testing.T) {
	manifest, _, _ := loadFixture(t, "seed")
	res, err := Simulate(manifest, nil, Options{Start: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, e := range res.Events {
		if e.Type == "IndexFailed" {
			got[e.Index] = e.Message
		}
	}
	if got[2] != "index 2 failed: podFailurePolicy rule 0 (FailIndex)" {
		t.Errorf("index 2: %q", got[2])
	}
	if got[4] != "index 4 failed: backoffLimitPerIndex 1 used up" {
		t.Errorf("index 4: %q", got[4])
	}
}
