package e2e

// This file has no build tag: `go test ./test/e2e/` (and so `make test`) runs its tests without
// a cluster. It holds what each scenario IS (the Job manifest, the description and the capture
// point, all recorded in test/fixtures/<name>/scenario.yaml), so that a plain unit test can check
// that every committed fixture was captured from the scenario as it is defined now. How a
// scenario is driven and checked on the real control plane is in scenarios_test.go (tag e2e).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// Definition is what a scenario is. Every field but Changed is written to the fixture's
// scenario.yaml, and TestFixturesMatchDefinitions fails when a fixture records anything else.
type Definition struct {
	// Name is the fixture directory and, when capturing, the namespace.
	Name string
	// Description says what the scenario shows.
	Description string
	// JobName is metadata.name in Manifest.
	JobName string
	// Manifest is the Job, with scenario annotations on its pod template.
	Manifest string
	// CapturePoint says in words when the state is captured.
	CapturePoint string
	// Changed lists the spec fields (dotted paths under the Job) the scenario's Drive changes
	// after creation; the captured Job is expected to differ from Manifest there only.
	Changed []string
}

// fixtureMeta is test/fixtures/<scenario>/scenario.yaml.
type fixtureMeta struct {
	Scenario          string            `json:"scenario"`
	Description       string            `json:"description"`
	CapturePoint      string            `json:"capturePoint"`
	Namespace         string            `json:"namespace"`
	JobName           string            `json:"jobName"`
	KubernetesVersion string            `json:"kubernetesVersion"`
	KubectlVersion    string            `json:"kubectlVersion"`
	EtcdVersion       string            `json:"etcdVersion"`
	KwokVersion       string            `json:"kwokVersion"`
	CapturedAt        string            `json:"capturedAt"`
	Files             map[string]string `json:"files"`
	Manifest          string            `json:"manifest"`
}

// fixturesDir is test/fixtures, relative to this package.
const fixturesDir = "../fixtures"

// indexedJob renders a Job manifest: the spec lines (indented 2 spaces, under spec:) and the
// scenario annotations (key suffix after the prefix -> value).
func indexedJob(name, spec string, annotations map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s\nspec:\n  completionMode: Indexed\n", name)
	b.WriteString(strings.TrimRight(spec, "\n") + "\n")
	b.WriteString("  template:\n")
	if len(annotations) > 0 {
		b.WriteString("    metadata:\n      annotations:\n")
		for _, k := range sortedKeys(annotations) {
			fmt.Fprintf(&b, "        scenario.indexed.kubectl.io/%s: %q\n", k, annotations[k])
		}
	}
	b.WriteString(`    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: shard-worker:1.0
        command: ["/bin/process-shard"]
`)
	return b.String()
}

// withPodSpec adds lines (indented 6 spaces, under template.spec:) after the restartPolicy line
// of an indexedJob manifest.
func withPodSpec(manifest, lines string) string {
	i := strings.Index(manifest, "\n      restartPolicy: ")
	if i < 0 {
		return manifest
	}
	j := i + 1 + strings.Index(manifest[i+1:], "\n") + 1
	return manifest[:j] + strings.TrimRight(lines, "\n") + "\n" + manifest[j:]
}

// withGracePeriod sets terminationGracePeriodSeconds on the pod template of an indexedJob
// manifest, so that a termination-delay stays within what a real kubelet would allow.
func withGracePeriod(manifest string, seconds int) string {
	return withPodSpec(manifest, fmt.Sprintf("      terminationGracePeriodSeconds: %d", seconds))
}

// withRestartPolicy replaces the pod template's restartPolicy Never of an indexedJob manifest.
func withRestartPolicy(manifest, policy string) string {
	return strings.Replace(manifest, "      restartPolicy: Never\n", "      restartPolicy: "+policy+"\n", 1)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Natural enough: by length then lexically keeps exit-code.2 before exit-code.10.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && (len(keys[j]) < len(keys[j-1]) || len(keys[j]) == len(keys[j-1]) && keys[j] < keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// prepareDBAnnotations is the "prepare-db" failure mode: ten shards, three fail fast with exit
// 1, seven run until killed. extra adds annotations.
func prepareDBAnnotations(extra map[string]string) map[string]string {
	a := map[string]string{
		"run-time":    "never",
		"run-time.1":  "2s",
		"run-time.4":  "2s",
		"run-time.7":  "2s",
		"exit-code.1": "1",
		"exit-code.4": "1",
		"exit-code.7": "1",
	}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

// definitions lists every scenario, in the order they run.
func definitions() []Definition {
	return append([]Definition{
		{
			Name:        "seed",
			Description: "Indexed Job, 6 indexes, parallelism 2, backoffLimitPerIndex 1, maxFailedIndexes 2, FailIndex on exit 42 of container worker; index 2 exits 42, index 4 exits 1 on every attempt, the rest exit 0.",
			JobName:     "seed",
			Manifest: indexedJob("seed", `  completions: 6
  parallelism: 2
  backoffLimitPerIndex: 1
  maxFailedIndexes: 2
  activeDeadlineSeconds: 600
  podFailurePolicy:
    rules:
    - action: FailIndex
      onExitCodes:
        containerName: worker
        operator: In
        values: [42]
`, map[string]string{"exit-code.2": "42", "exit-code.4": "1"}),
			CapturePoint: "final: Failed=True",
		},
		{
			Name:        "prepare-db-terminating",
			Description: "prepare-db: 10 indexes, parallelism 10, backoffLimit 2, no per-index limit; indexes 1, 4, 7 exit 1 after 2s while the other seven run; killed pods take their whole 120s grace period to stop.",
			JobName:     "prepare-db",
			Manifest: withGracePeriod(indexedJob("prepare-db", `  completions: 10
  parallelism: 10
  backoffLimit: 2
`, prepareDBAnnotations(map[string]string{"termination-delay": "120s"})), 120),
			CapturePoint: "FailureTarget=True (BackoffLimitExceeded), Failed not yet, the seven killed pods Terminating",
		},
		{
			Name:        "prepare-db-failed",
			Description: "prepare-db: 10 indexes, parallelism 10, backoffLimit 2, no per-index limit; indexes 1, 4, 7 exit 1 after 2s while the other seven run and are killed.",
			JobName:     "prepare-db",
			Manifest: indexedJob("prepare-db", `  completions: 10
  parallelism: 10
  backoffLimit: 2
`, prepareDBAnnotations(nil)),
			CapturePoint: "final: Failed=True",
		},
		{
			Name:        "per-index-recovered",
			Description: "The prepare-db shards with backoffLimitPerIndex 1 and no explicit backoffLimit: indexes 1, 4, 7 exit 1 on both attempts, the other seven run 20s and complete.",
			JobName:     "prepare-db",
			Manifest: indexedJob("prepare-db", `  completions: 10
  parallelism: 10
  backoffLimitPerIndex: 1
`, prepareDBAnnotations(map[string]string{"run-time": "20s"})),
			CapturePoint: "final: Failed=True",
		},
		{
			Name:        "max-failed-indexes-exceeded",
			Description: "8 indexes, parallelism 8, backoffLimitPerIndex 0, maxFailedIndexes 1; index 2 exits 1 after 2s, index 5 after 4s, the others run until killed.",
			JobName:     "max-failed",
			Manifest: indexedJob("max-failed", `  completions: 8
  parallelism: 8
  backoffLimitPerIndex: 0
  maxFailedIndexes: 1
`, map[string]string{"run-time": "never", "run-time.2": "2s", "exit-code.2": "1", "run-time.5": "4s", "exit-code.5": "1"}),
			CapturePoint: "final: Failed=True",
		},
		{
			Name:        "retrying",
			Description: "4 indexes, parallelism 4, backoffLimitPerIndex 2; index 0 succeeds after 1s, index 1 fails (exit 1) after 2s on its first attempt, indexes 2 and 3 keep running.",
			JobName:     "retrying",
			Manifest: indexedJob("retrying", `  completions: 4
  parallelism: 4
  backoffLimitPerIndex: 2
`, map[string]string{"run-time": "never", "run-time.0": "1s", "run-time.1.0": "2s", "exit-code.1.0": "1"}),
			CapturePoint: "index 1's first pod Failed and its replacement not yet created (per-index backoff)",
		},
		{
			Name:        "success-policy",
			Description: "5 indexes, parallelism 5, successPolicy succeededIndexes \"0\"; index 0 succeeds after 2s while the other four still run.",
			JobName:     "success-policy",
			Manifest: indexedJob("success-policy", `  completions: 5
  parallelism: 5
  successPolicy:
    rules:
    - succeededIndexes: "0"
`, map[string]string{"run-time": "never", "run-time.0": "2s"}),
			CapturePoint: "final: Complete=True",
		},
		{
			Name:        "suspended",
			Description: "4 indexes, parallelism 2, created with suspend: true.",
			JobName:     "suspended",
			Manifest: indexedJob("suspended", `  completions: 4
  parallelism: 2
  suspend: true
`, nil),
			CapturePoint: "Suspended=True, no pods",
		},
		{
			Name:        "suspended-after-progress",
			Description: "6 indexes, parallelism 2; indexes 0 and 1 succeed after 2s, the rest run; suspended (kubectl patch) once 0 and 1 completed and 2 and 3 run.",
			JobName:     "suspended-after-progress",
			Manifest: indexedJob("suspended-after-progress", `  completions: 6
  parallelism: 2
`, map[string]string{"run-time": "never", "run-time.0": "2s", "run-time.1": "2s"}),
			CapturePoint: "Suspended=True after suspend, running pods gone",
			Changed:      []string{"spec.suspend"},
		},
		{
			Name:        "transient-recovered",
			Description: "3 indexes, parallelism 3, backoffLimitPerIndex 1; index 1 exits 1 on its first attempt and 0 on the second.",
			JobName:     "transient-recovered",
			Manifest: indexedJob("transient-recovered", `  completions: 3
  parallelism: 3
  backoffLimitPerIndex: 1
`, map[string]string{"exit-code.1.0": "1"}),
			CapturePoint: "final: Complete=True",
		},
		{
			Name:        "flaky-recovered",
			Description: "4 indexes, parallelism 4, backoffLimitPerIndex 1; index 1 exits 1 and index 2 exits 137 on their first attempt, both exit 0 on the second: flaky shards.",
			JobName:     "flaky-recovered",
			Manifest: indexedJob("flaky-recovered", `  completions: 4
  parallelism: 4
  backoffLimitPerIndex: 1
`, map[string]string{"exit-code.1.0": "1", "exit-code.2.0": "137"}),
			CapturePoint: "final: Complete=True",
		},
		{
			Name:        "pod-failure-policy-failjob",
			Description: "4 indexes, parallelism 4, backoffLimit 6, podFailurePolicy FailJob on exit 3 of container worker; index 2 exits 3 after 2s, the others run.",
			JobName:     "failjob",
			Manifest: indexedJob("failjob", `  completions: 4
  parallelism: 4
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes:
        containerName: worker
        operator: In
        values: [3]
`, map[string]string{"run-time": "never", "run-time.2": "2s", "exit-code.2": "3"}),
			CapturePoint: "final: Failed=True",
		},
		{
			Name:        "disruption-ignored",
			Description: "3 indexes, parallelism 3, backoffLimitPerIndex 1, podFailurePolicy Ignore on DisruptionTarget; index 1's first pod fails with DisruptionTarget=True, its replacement succeeds.",
			JobName:     "disruption-ignored",
			Manifest: indexedJob("disruption-ignored", `  completions: 3
  parallelism: 3
  backoffLimitPerIndex: 1
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
`, map[string]string{"run-time": "2s", "condition.1.0": "DisruptionTarget"}),
			CapturePoint: "final: Complete=True",
		},
		{
			Name:        "deadline-exceeded",
			Description: "4 indexes, parallelism 2, activeDeadlineSeconds 5; every pod runs until killed.",
			JobName:     "deadline",
			Manifest: indexedJob("deadline", `  completions: 4
  parallelism: 2
  activeDeadlineSeconds: 5
`, map[string]string{"run-time": "never"}),
			CapturePoint: "final: Failed=True",
		},
		{
			Name:        "running",
			Description: "20 indexes, parallelism 5, backoffLimitPerIndex 2; every pod runs 3s, index 6 fails (exit 1) on its first attempt.",
			JobName:     "running",
			Manifest: indexedJob("running", `  completions: 20
  parallelism: 5
  backoffLimitPerIndex: 2
`, map[string]string{"run-time": "3s", "exit-code.6.0": "1"}),
			CapturePoint: "mid-flight: at least 8 indexes completed, pods active, not finished",
		},
		{
			Name:        "failjob-on-condition",
			Description: "4 indexes, parallelism 4, podFailurePolicy rule 0 Ignore on DisruptionTarget, rule 1 FailJob on the pod condition example.com/InputCorrupt; index 2's pod fails after 2s with example.com/InputCorrupt=True (exit 137), the others run until killed.",
			JobName:     "failjob-cond",
			Manifest: indexedJob("failjob-cond", `  completions: 4
  parallelism: 4
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
    - action: FailJob
      onPodConditions:
      - type: example.com/InputCorrupt
`, map[string]string{"run-time": "never", "run-time.2": "2s", "condition.2": "example.com/InputCorrupt"}),
			CapturePoint: "final: Failed=True",
		},
		{
			Name:        "onfailure-restarts",
			Description: "4 indexes, parallelism 4, backoffLimit 2, restartPolicy OnFailure; index 1's container exits 1 every 2s and is restarted in place (restartCount grows, the pod stays Running), the others run; killed pods take their whole 120s grace period to stop.",
			JobName:     "onfailure",
			Manifest: withRestartPolicy(withGracePeriod(indexedJob("onfailure", `  completions: 4
  parallelism: 4
  backoffLimit: 2
`, map[string]string{"run-time": "never", "run-time.1": "2s", "exit-code.1": "1", "termination-delay": "120s"}), 120), "OnFailure"),
			CapturePoint: "FailureTarget=True (BackoffLimitExceeded) from container restarts, Failed not yet, the four killed pods Terminating",
		},
		{
			Name:        "elastic-scale-down",
			Description: "6 indexes, parallelism 6; indexes 0 and 4 succeed after 2s, the others run; then completions and parallelism are scaled down together to 3 (kubectl patch); the killed pod of index 5 takes its whole 120s grace period to stop.",
			JobName:     "elastic",
			Manifest: withGracePeriod(indexedJob("elastic", `  completions: 6
  parallelism: 6
`, map[string]string{"run-time": "never", "run-time.0": "2s", "run-time.4": "2s", "termination-delay.5": "120s"}), 120),
			CapturePoint: "after the scale-down to 3: completedIndexes cut to 0, indexes 1 and 2 running, index 3's pod gone, index 5's pod Terminating, index 4's succeeded pod left",
			Changed:      []string{"spec.completions", "spec.parallelism"},
		},
		{
			Name:        "completing",
			Description: "5 indexes, parallelism 5, successPolicy rule 0 succeededIndexes \"4\", rule 1 succeededCount 2; indexes 0 and 1 succeed after 2s while the others run; the lingering pods take their whole 120s grace period to stop.",
			JobName:     "completing",
			Manifest: withGracePeriod(indexedJob("completing", `  completions: 5
  parallelism: 5
  successPolicy:
    rules:
    - succeededIndexes: "4"
    - succeededCount: 2
`, map[string]string{"run-time": "never", "run-time.0": "2s", "run-time.1": "2s", "termination-delay": "120s"}), 120),
			CapturePoint: "SuccessCriteriaMet=True (SuccessPolicy, rule 1), Complete not yet, the three lingering pods Terminating",
		},
		{
			Name:        "pending-unschedulable",
			Description: "3 indexes, parallelism 2; the pod template's nodeSelector matches no node, so the scheduler leaves the pods Pending (PodScheduled=False, Unschedulable).",
			JobName:     "unschedulable",
			Manifest: withPodSpec(indexedJob("unschedulable", `  completions: 3
  parallelism: 2
`, nil), `      nodeSelector:
        indexed.kubectl.io/pool: gpu-a100`),
			CapturePoint: "the pods of indexes 0 and 1 Pending and marked Unschedulable, index 2 not started",
		},
	}, policyDefinitions()...)
}

// TestDefinitionsAreValid: names are unique, every manifest is a Job that parses strictly, is
// named JobName and carries scenario annotations kwok's stages can play.
func TestDefinitionsAreValid(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range definitions() {
		if d.Name == "" || seen[d.Name] {
			t.Errorf("scenario name %q is empty or used twice", d.Name)
		}
		seen[d.Name] = true
		if d.Description == "" || d.CapturePoint == "" {
			t.Errorf("%s: no description or capture point", d.Name)
		}
		var job batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(d.Manifest), &job); err != nil {
			t.Errorf("%s: manifest does not parse as a Job: %v\n%s", d.Name, err, d.Manifest)
			continue
		}
		if job.Name != d.JobName {
			t.Errorf("%s: manifest names Job %q, JobName is %q", d.Name, job.Name, d.JobName)
		}
		if err := harness.ValidateScenarioAnnotations(job.Spec.Template.Annotations); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
}

// TestFixturesMatchDefinitions fails when a committed fixture was not captured from its scenario
// as defined now (re-capture it: make fixtures E2E_FIXTURES_FLAGS=-scenarios=NAME, then
// regenerate the golden files that read it), when a scenario has no fixture, or a fixture no
// scenario. It reads scenario.yaml (the recorded definition and versions) and checks that
// job.json is the Job created from the recorded manifest.
func TestFixturesMatchDefinitions(t *testing.T) {
	entries, err := os.ReadDir(fixturesDir)
	if err != nil {
		t.Fatalf("reading the fixtures: %v", err)
	}
	onDisk := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			onDisk[e.Name()] = true
		}
	}
	for _, d := range definitions() {
		t.Run(d.Name, func(t *testing.T) {
			if !onDisk[d.Name] {
				t.Fatalf("no fixture test/fixtures/%s: capture it (make fixtures E2E_FIXTURES_FLAGS=-scenarios=%s)", d.Name, d.Name)
			}
			delete(onDisk, d.Name)
			dir := filepath.Join(fixturesDir, d.Name)
			data, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var m fixtureMeta
			if err := yaml.UnmarshalStrict(data, &m); err != nil {
				t.Fatalf("scenario.yaml: %v", err)
			}
			stale := func(field, recorded, defined string) {
				t.Helper()
				if recorded != defined {
					t.Errorf("the fixture was captured from another definition: %s differs\nrecorded: %s\ndefined:  %s\n(re-capture it: make fixtures E2E_FIXTURES_FLAGS=-scenarios=%s, and regenerate the golden files that read it)",
						field, recorded, defined, d.Name)
				}
			}
			stale("scenario", m.Scenario, d.Name)
			stale("namespace", m.Namespace, d.Name)
			stale("jobName", m.JobName, d.JobName)
			stale("description", m.Description, d.Description)
			stale("capturePoint", m.CapturePoint, d.CapturePoint)
			stale("manifest", m.Manifest, d.Manifest)
			stale("kubernetesVersion", m.KubernetesVersion, harness.KubernetesVersion)
			stale("kubectlVersion", m.KubectlVersion, harness.KubernetesVersion)
			stale("etcdVersion", m.EtcdVersion, harness.EtcdVersion)
			stale("kwokVersion", m.KwokVersion, harness.KwokVersion)
			if _, err := time.Parse(time.RFC3339, m.CapturedAt); err != nil {
				t.Errorf("capturedAt %q: %v", m.CapturedAt, err)
			}

			// job.json is the Job the server stored for the recorded manifest: every field the
			// manifest sets has that value (the server only adds defaults), except the fields
			// the scenario changes after creation.
			jobData, err := os.ReadFile(filepath.Join(dir, "job.json"))
			if err != nil {
				t.Fatal(err)
			}
			var live map[string]any
			if err := json.Unmarshal(jobData, &live); err != nil {
				t.Fatalf("job.json: %v", err)
			}
			var manifest map[string]any
			if err := yaml.Unmarshal([]byte(m.Manifest), &manifest); err != nil {
				t.Fatalf("recorded manifest: %v", err)
			}
			meta, _ := live["metadata"].(map[string]any)
			if meta["name"] != d.JobName || meta["namespace"] != d.Name {
				t.Errorf("job.json is Job %v/%v, want %s/%s", meta["namespace"], meta["name"], d.Name, d.JobName)
			}
			changed := map[string]bool{}
			for _, p := range d.Changed {
				changed[p] = true
			}
			for _, diff := range notSubset("", manifest, live, changed) {
				t.Errorf("job.json does not come from the recorded manifest: %s", diff)
			}
			for p := range changed {
				a, _ := lookup(manifest, p)
				b, _ := lookup(live, p)
				if reflect.DeepEqual(a, b) {
					t.Errorf("%s is listed as changed after creation but job.json has the manifest's value %v", p, a)
				}
			}
		})
	}
	var extra []string
	for name := range onDisk {
		extra = append(extra, name)
	}
	sort.Strings(extra)
	for _, name := range extra {
		t.Errorf("test/fixtures/%s has no scenario definition (definitions_test.go); remove it or define it", name)
	}
}

// notSubset lists where want (a manifest decoded to JSON values) is not contained in got (the
// stored object): maps must hold every key of want, lists must have the same length with each
// element contained, scalars must be equal. Paths in skip are not compared.
func notSubset(path string, want, got any, skip map[string]bool) []string {
	if skip[path] {
		return nil
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: manifest has an object, job.json has %v", path, got)}
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			gv, ok := g[k]
			if !ok {
				if !skip[p] {
					out = append(out, fmt.Sprintf("%s: set in the manifest, absent from job.json", p))
				}
				continue
			}
			out = append(out, notSubset(p, w[k], gv, skip)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: manifest has %v, job.json has %v", path, want, got)}
		}
		var out []string
		for i := range w {
			out = append(out, notSubset(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], skip)...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: manifest has %v, job.json has %v", path, want, got)}
	}
	return nil
}

// lookup follows a dotted path of object keys.
func lookup(v any, path string) (any, bool) {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// TestNotSubset: the containment check finds a changed, a missing and an extra-length value, and
// accepts what the server adds.
func TestNotSubset(t *testing.T) {
	want := map[string]any{"spec": map[string]any{"completions": 6.0, "suspend": false, "template": map[string]any{
		"containers": []any{map[string]any{"name": "worker"}}}}}
	got := map[string]any{"spec": map[string]any{"completions": 6.0, "suspend": false, "backoffLimit": 6.0, "template": map[string]any{
		"containers": []any{map[string]any{"name": "worker", "imagePullPolicy": "IfNotPresent"}}}}}
	if d := notSubset("", want, got, nil); len(d) != 0 {
		t.Errorf("defaults reported as differences: %v", d)
	}
	got["spec"].(map[string]any)["completions"] = 3.0
	got["spec"].(map[string]any)["template"].(map[string]any)["containers"] = []any{map[string]any{"name": "worker"}, map[string]any{"name": "sidecar"}}
	delete(got["spec"].(map[string]any), "suspend")
	d := notSubset("", want, got, nil)
	if len(d) != 3 || !strings.HasPrefix(d[0], "spec.completions:") || !strings.HasPrefix(d[1], "spec.suspend:") || !strings.HasPrefix(d[2], "spec.template.containers:") {
		t.Errorf("differences: %q", d)
	}
	if d := notSubset("", want, got, map[string]bool{"spec.completions": true, "spec.suspend": true, "spec.template.containers": true}); len(d) != 0 {
		t.Errorf("skipped paths reported: %v", d)
	}
}
