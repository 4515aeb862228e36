package jobdiff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// fixturesDir holds Jobs captured from a real v1.37.2 control plane, each with the manifest it
// was created from (test/README.md).
const fixturesDir = "../../test/fixtures"

type fixture struct {
	name     string
	manifest *batchv1.Job
	live     *batchv1.Job
}

func loadFixtures(t *testing.T) []fixture {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "scenario.yaml"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures in %s (%v)", fixturesDir, err)
	}
	var out []fixture
	for _, sc := range dirs {
		dir := filepath.Dir(sc)
		var meta struct {
			Manifest string `json:"manifest"`
		}
		b, err := os.ReadFile(sc)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, &meta); err != nil {
			t.Fatalf("%s: %v", sc, err)
		}
		f := fixture{name: filepath.Base(dir), manifest: &batchv1.Job{}, live: &batchv1.Job{}}
		if err := yaml.UnmarshalStrict([]byte(meta.Manifest), f.manifest); err != nil {
			t.Fatalf("%s manifest: %v", sc, err)
		}
		jb, err := os.ReadFile(filepath.Join(dir, "job.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(jb, f.live); err != nil {
			t.Fatalf("%s job.json: %v", dir, err)
		}
		out = append(out, f)
	}
	return out
}

// TestFixturesMatchTheirManifests: every Job the real API server stored compares equal to the
// manifest it was created from: the defaults mirrored here are the server's, for these
// manifests, and nothing generated is compared.
func TestFixturesMatchTheirManifests(t *testing.T) {
	for _, f := range loadFixtures(t) {
		r, err := Diff(f.live, f.manifest, Options{Now: f.live.CreationTimestamp.Add(3600e9)})
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if f.name == "suspended-after-progress" {
			// Suspended after creation: spec.suspend is the one difference.
			if len(r.Differences) != 1 || r.Differences[0].Path != "spec.suspend" {
				t.Errorf("%s: %v", f.name, describeDiffs(r.Differences))
			}
			continue
		}
		if f.name == "parallelism-lowered" {
			// Parallelism lowered after creation: the one difference.
			if len(r.Differences) != 1 || r.Differences[0].Path != "spec.parallelism" {
				t.Errorf("%s: %v", f.name, describeDiffs(r.Differences))
			}
			continue
		}
		if f.name == "elastic-scale-down" {
			// Scaled down after creation: completions and parallelism are the differences.
			if len(r.Differences) != 2 || r.Differences[0].Path != "spec.completions" || r.Differences[1].Path != "spec.parallelism" {
				t.Errorf("%s: %v", f.name, describeDiffs(r.Differences))
			}
			continue
		}
		if r.HasDifferences() {
			t.Errorf("%s: %v", f.name, describeDiffs(r.Differences))
		}
	}
}

// TestFixturePhases: the phase read from the captured status.
func TestFixturePhases(t *testing.T) {
	want := map[string]Phase{
		"seed": PhaseFailed, "prepare-db-failed": PhaseFailed, "prepare-db-terminating": PhaseFailing,
		"per-index-recovered": PhaseFailed, "max-failed-indexes-exceeded": PhaseFailed, "retrying": PhaseRunning,
		"success-policy": PhaseComplete, "suspended": PhaseSuspended, "suspended-after-progress": PhaseSuspended,
		"transient-recovered": PhaseComplete, "pod-failure-policy-failjob": PhaseFailed, "disruption-ignored": PhaseComplete,
		"deadline-exceeded": PhaseFailed, "running": PhaseRunning,
		"failjob-on-condition": PhaseFailed, "onfailure-restarts": PhaseFailing, "elastic-scale-down": PhaseRunning,
		"completing": PhaseSucceeding, "pending-unschedulable": PhaseRunning,
		// The scenarios of issue 10.
		"success-policy-after-failed-index": PhaseComplete, "deleted-during-retries": PhaseRunning,
		"parallelism-lowered": PhaseRunning, "elastic-scale-up-again": PhaseRunning,
		"failed-index-across-suspension": PhaseRunning,
		"flaky-recovered":                PhaseComplete,
	}
	for _, f := range loadFixtures(t) {
		w, ok := want[f.name]
		if !ok {
			t.Errorf("fixture %s has no expected phase", f.name)
			continue
		}
		if got := StateOf(f.live); got.Phase != w {
			t.Errorf("%s: phase %s, want %s", f.name, got.Phase, w)
		}
	}
}

// TestSeedFixOnTheCapturedPrepareDBJob: the prepare-db Job as captured, against the seed's fix.
func TestSeedFixOnTheCapturedPrepareDBJob(t *testing.T) {
	var live *batchv1.Job
	for _, f := range loadFixtures(t) {
		if f.name == "prepare-db-terminating" {
			live = f.live
		}
	}
	if live == nil {
		t.Fatal("no prepare-db-terminating fixture")
	}
	desired := &batchv1.Job{}
	desired.Name = live.Name
	desired.Spec = *live.Spec.DeepCopy()
	desired.Spec.BackoffLimit = nil
	desired.Spec.BackoffLimitPerIndex = ptrTo[int32](1)
	desired.Spec.MaxFailedIndexes = ptrTo[int32](3)
	desired.Spec.Selector = nil
	r, err := Diff(live, desired, Options{Now: live.CreationTimestamp.Add(60e9)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Class{}
	for _, d := range r.Differences {
		got[d.Path] = d.Class
	}
	if got["spec.backoffLimitPerIndex"] != ClassNewJob || got["spec.maxFailedIndexes"] != ClassNewJob || got["spec.backoffLimit"] != ClassLive {
		t.Errorf("classes %v", got)
	}
	codes := map[string]bool{}
	for _, w := range r.Warnings {
		codes[w.Code+"/"+w.Side] = true
	}
	if !codes["PrepareDBMode/live"] || !codes["NoEffectEnding/change"] {
		t.Errorf("warnings %v", codes)
	}
}
