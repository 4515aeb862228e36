package indexstatus

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// fixturesDir holds Job and pod JSON captured from the real v1.37.2 control plane
// (test/fixtures/<scenario>/, written by `make fixtures`; never edited by hand).
const fixturesDir = "../../test/fixtures"

// readFixture reads a captured scenario: its Job, its pods and when it was captured.
func readFixture(t *testing.T, name string) (*batchv1.Job, []corev1.Pod, time.Time) {
	t.Helper()
	dir := filepath.Join(fixturesDir, name)
	meta, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	var m struct {
		CapturedAt time.Time `json:"capturedAt"`
	}
	if err := yaml.Unmarshal(meta, &m); err != nil || m.CapturedAt.IsZero() {
		t.Fatalf("fixture %s: scenario.yaml has no capturedAt: %v", name, err)
	}
	job, err := testutil.ReadJob(filepath.Join(dir, "job.json"))
	if err != nil {
		t.Fatal(err)
	}
	pods, err := source.ReadPods(filepath.Join(dir, "pods.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return job, pods, m.CapturedAt
}

type fixture struct {
	name string
	r    *IndexedJobStatus // every index listed
	text string
	wide string
}

// loadFixture builds the report of a captured scenario with the clock at its capture time.
func loadFixture(t *testing.T, name string) fixture {
	t.Helper()
	job, pods, capturedAt := readFixture(t, name)
	clock := fixedClock(capturedAt)
	all, err := Build(job, pods, Options{Clock: clock, AllIndexes: true})
	if err != nil {
		t.Fatal(err)
	}
	attention, err := Build(job, pods, Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	var text, wide bytes.Buffer
	if err := PrintText(&text, attention, false); err != nil {
		t.Fatal(err)
	}
	if err := PrintText(&wide, all, true); err != nil {
		t.Fatal(err)
	}
	return fixture{name: name, r: all, text: text.String(), wide: wide.String()}
}

func fixtureNames(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(fixturesDir)
	if err != nil {
		t.Fatalf("no captured fixtures: %v", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatal("no captured fixtures")
	}
	return names
}

// TestGolden compares the text, wide and JSON reports of every captured scenario with
// testdata/golden (go test -run TestGolden -update rewrites them; review the diff).
func TestGolden(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			f := loadFixture(t, name)
			js, err := json.MarshalIndent(f.r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			for ext, got := range map[string]string{".txt": f.text, ".wide.txt": f.wide, ".json": string(js) + "\n"} {
				path := filepath.Join("testdata", "golden", name+ext)
				testutil.Golden(t, path, []byte(got))
			}
		})
	}
}

// TestGoldenInvariants checks what must hold for every captured scenario, whatever the words.
func TestGoldenInvariants(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			f := loadFixture(t, name)
			r := f.r
			total := 0
			for _, s := range States {
				total += r.Summary.Count(s)
			}
			if total != int(r.Completions) || len(r.Indexes) != int(r.Completions) {
				t.Errorf("summary adds up to %d, %d indexes listed, completions %d", total, len(r.Indexes), r.Completions)
			}
			if r.Summary.Succeeded != int(r.Counters.Succeeded) {
				t.Errorf("Succeeded indexes %d, status.succeeded %d", r.Summary.Succeeded, r.Counters.Succeeded)
			}
			if r.Completeness.Complete != (r.Summary.Succeeded == int(r.Completions)) {
				t.Errorf("complete %v with %d of %d succeeded", r.Completeness.Complete, r.Summary.Succeeded, r.Completions)
			}
			if (r.Phase == PhaseFailed || r.Reason == "SuccessPolicy") && r.Completeness.Complete {
				t.Errorf("a %s/%s Job presented as complete", r.Phase, r.Reason)
			}
			if r.Pods.Ignored != 0 {
				t.Errorf("%d pods of the fixture ignored", r.Pods.Ignored)
			}
			for _, st := range r.Indexes {
				if st.State == StateUnfinished && (r.Phase == PhaseRunning || r.Phase == PhaseSuspended) {
					t.Errorf("index %d Unfinished in phase %s", st.Index, r.Phase)
				}
				if st.Detail == "" {
					t.Errorf("index %d has no detail", st.Index)
				}
			}
			if r.Explanation == "" || r.Completeness.Verdict == "" {
				t.Error("no explanation or verdict")
			}
		})
	}
}

// TestSeedReadsAsTheIssueSays: indexes 0,1,3,5 Succeeded; 2 Failed, exit 42, FailIndex rule;
// 4 Failed after 2 attempts, exit 1, budget exhausted; Job Failed (FailedIndexes); 4 of 6.
func TestSeedReadsAsTheIssueSays(t *testing.T) {
	f := loadFixture(t, "seed")
	r := f.r
	wantStates(t, r, map[int]State{0: StateSucceeded, 1: StateSucceeded, 2: StateFailed, 3: StateSucceeded, 4: StateFailed, 5: StateSucceeded})
	i2, i4 := indexOf(t, r, 2), indexOf(t, r, 4)
	if i2.LastExitCode == nil || *i2.LastExitCode != 42 || i2.Rule == nil || i2.Rule.Action != "FailIndex" {
		t.Errorf("index 2: %+v", i2)
	}
	if i4.LastExitCode == nil || *i4.LastExitCode != 1 || i4.Attempts != 2 || *i4.RetriesLeft != 0 || !strings.Contains(i4.Detail, "exhausted") {
		t.Errorf("index 4: %+v", i4)
	}
	if r.Phase != PhaseFailed || r.Reason != "FailedIndexes" || r.Completeness.Succeeded != 4 || r.Completeness.Completions != 6 {
		t.Errorf("phase %s reason %s completeness %+v", r.Phase, r.Reason, r.Completeness)
	}
	for _, want := range []string{"Phase:        Failed", "FailedIndexes", "4 of 6 indexes succeeded", "Succeeded  4      0,1,3,5", "Failed     2      2,4"} {
		if !strings.Contains(f.text, want) {
			t.Errorf("text lacks %q:\n%s", want, f.text)
		}
	}
}

// TestScenarioFacts checks the key facts of the other captured scenarios.
func TestScenarioFacts(t *testing.T) {
	cases := []struct {
		name   string
		phase  Phase
		reason string
		states map[int]State
		check  func(t *testing.T, f fixture)
	}{
		{name: "prepare-db-terminating", phase: PhaseFailing, reason: "BackoffLimitExceeded",
			states: map[int]State{0: StateTerminating, 1: StateUnfinished, 4: StateUnfinished, 7: StateUnfinished, 9: StateTerminating},
			check: func(t *testing.T, f fixture) {
				wantContains(t, "waitingFor", f.r.WaitingFor, "7 pods to finish terminating")
			}},
		{name: "prepare-db-failed", phase: PhaseFailed, reason: "BackoffLimitExceeded",
			check: func(t *testing.T, f fixture) {
				if f.r.Summary.Unfinished != 10 {
					t.Errorf("summary %+v", f.r.Summary)
				}
				wantContains(t, "explanation", f.r.Explanation, "so 7 were killed")
			}},
		{name: "per-index-recovered", phase: PhaseFailed, reason: "FailedIndexes",
			states: map[int]State{0: StateSucceeded, 1: StateFailed, 4: StateFailed, 7: StateFailed}},
		{name: "max-failed-indexes-exceeded", phase: PhaseFailed, reason: "MaxFailedIndexesExceeded",
			states: map[int]State{2: StateFailed, 5: StateFailed},
			check: func(t *testing.T, f fixture) {
				wantContains(t, "explanation", f.r.Explanation, "more than maxFailedIndexes 1 allows")
			}},
		{name: "retrying", phase: PhaseRunning, states: map[int]State{0: StateSucceeded, 1: StateRetrying, 2: StateRunning},
			check: func(t *testing.T, f fixture) {
				st := indexOf(t, f.r, 1)
				if st.BackoffSeconds == nil || *st.BackoffSeconds != 10 || *st.RetriesLeft != 1 {
					t.Errorf("index 1 = %+v", st)
				}
				wantContains(t, "next", strings.Join(f.r.Next, "\n"), "Index 1 ", "(attempt 2 of 3)")
			}},
		{name: "success-policy", phase: PhaseComplete, reason: "SuccessPolicy", states: map[int]State{0: StateSucceeded},
			check: func(t *testing.T, f fixture) {
				wantContains(t, "verdict", f.r.Completeness.Verdict, "NOT complete")
			}},
		{name: "suspended", phase: PhaseSuspended, reason: "JobSuspended"},
		{name: "suspended-after-progress", phase: PhaseSuspended, reason: "JobSuspended", states: map[int]State{0: StateSucceeded, 1: StateSucceeded}},
		{name: "transient-recovered", phase: PhaseComplete, reason: "CompletionsReached",
			check: func(t *testing.T, f fixture) {
				st := indexOf(t, f.r, 1)
				if st.State != StateSucceeded || st.Attempts != 2 || st.FailureCount != 1 {
					t.Errorf("index 1 = %+v", st)
				}
				if !f.r.Completeness.Complete {
					t.Error("not complete")
				}
			}},
		{name: "pod-failure-policy-failjob", phase: PhaseFailed, reason: "PodFailurePolicy",
			check: func(t *testing.T, f fixture) {
				wantContains(t, "explanation", f.r.Explanation, "exited with code 3, which matches podFailurePolicy rule 0 (FailJob)")
			}},
		{name: "disruption-ignored", phase: PhaseComplete, reason: "CompletionsReached",
			check: func(t *testing.T, f fixture) {
				st := indexOf(t, f.r, 1)
				if st.IgnoredFailureCount != 1 || st.Rule == nil || st.Rule.Action != "Ignore" {
					t.Errorf("index 1 = %+v", st)
				}
			}},
		{name: "deadline-exceeded", phase: PhaseFailed, reason: "DeadlineExceeded"},
		{name: "running", phase: PhaseRunning},
		{name: "failjob-on-condition", phase: PhaseFailed, reason: "PodFailurePolicy",
			states: map[int]State{0: StateUnfinished, 1: StateUnfinished, 2: StateUnfinished, 3: StateUnfinished},
			check: func(t *testing.T, f fixture) {
				wantContains(t, "explanation", f.r.Explanation, "has condition example.com/InputCorrupt, which matches podFailurePolicy rule 1 (FailJob)", "so 3 were killed")
				st := indexOf(t, f.r, 2)
				if st.Rule == nil || st.Rule.Index != 1 || st.Rule.Action != "FailJob" || st.Rule.On != "condition example.com/InputCorrupt" ||
					!strings.HasSuffix(st.Detail, "which failed the whole Job") {
					t.Errorf("index 2 = %+v", st)
				}
			}},
		{name: "onfailure-restarts", phase: PhaseFailing, reason: "BackoffLimitExceeded",
			states: map[int]State{0: StateTerminating, 1: StateTerminating, 2: StateTerminating, 3: StateTerminating},
			check: func(t *testing.T, f fixture) {
				wantContains(t, "explanation", f.r.Explanation, "Container restarts reached backoffLimit 2", "(index 1: 2 restarts, last exit code 1 in container worker)")
				wantContains(t, "waitingFor", f.r.WaitingFor, "4 pods to finish terminating")
				if st := indexOf(t, f.r, 1); !strings.Contains(st.Detail, "containers restarted 2 times (last exit code 1 in container worker)") {
					t.Errorf("index 1 = %+v", st)
				}
			}},
		{name: "elastic-scale-down", phase: PhaseRunning, states: map[int]State{0: StateSucceeded, 1: StateRunning, 2: StateRunning},
			check: func(t *testing.T, f fixture) {
				// completedIndexes was cut from "0,4" to "0": index 4's success no longer counts.
				if f.r.Completions != 3 || len(f.r.Indexes) != 3 || f.r.Completeness.Succeeded != 1 || f.r.Pods.Seen != 5 {
					t.Errorf("completions %d, %d indexes, completeness %+v, pods %+v", f.r.Completions, len(f.r.Indexes), f.r.Completeness, f.r.Pods)
				}
				wantContains(t, "notes", strings.Join(f.r.Notes, "\n"), "2 pods have an index at or above completions 3", "1 being deleted", "1 succeeded, whose index is no longer counted")
			}},
		{name: "completing", phase: PhaseCompleting, reason: "SuccessPolicy",
			states: map[int]State{0: StateSucceeded, 1: StateSucceeded, 2: StateTerminating, 3: StateTerminating, 4: StateTerminating},
			check: func(t *testing.T, f fixture) {
				wantContains(t, "explanation", f.r.Explanation, "Success policy rule 1 (succeededCount 2) was met")
				wantContains(t, "verdict", f.r.Completeness.Verdict, "NOT complete")
				wantContains(t, "waitingFor", f.r.WaitingFor, "3 pods to finish terminating", "Complete condition")
			}},
		{name: "pending-unschedulable", phase: PhaseRunning, states: map[int]State{0: StatePending, 1: StatePending, 2: StatePending},
			check: func(t *testing.T, f fixture) {
				// The scheduler's reason and message, not the backoff budget nothing spends.
				next := strings.Join(f.r.Next, "\n")
				wantContains(t, "next", next, "1 index is not started yet", "The pods of indexes 0,1 cannot be scheduled (PodScheduled=False, Unschedulable: 0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector")
				if strings.Contains(next, "backoffLimit") || f.r.NextEntries[0].Kind != EntryUnschedulable || f.r.NextEntries[0].Reason != "Unschedulable" {
					t.Errorf("next: %+v", f.r.NextEntries)
				}
				for _, i := range []int{0, 1} {
					if st := indexOf(t, f.r, i); !strings.Contains(st.Detail, "is pending (Unschedulable: 0/1 nodes are available") {
						t.Errorf("index %d = %+v", i, st)
					}
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := loadFixture(t, c.name)
			if f.r.Phase != c.phase || f.r.Reason != c.reason {
				t.Errorf("phase %s reason %q, want %s %q", f.r.Phase, f.r.Reason, c.phase, c.reason)
			}
			wantStates(t, f.r, c.states)
			if c.check != nil {
				c.check(t, f)
			}
		})
	}
}
