//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// scenarioNamed returns the scenario called name.
func scenarioNamed(t *testing.T, name string) Scenario {
	t.Helper()
	for _, s := range scenarios() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no scenario %q", name)
	return Scenario{}
}

// saveSnapshot writes the snapshot as kubectl printed it, for status -f / --pods-file.
func saveSnapshot(t *testing.T, s Snapshot) (jobFile, podsFile string) {
	t.Helper()
	dir := t.TempDir()
	jobFile, podsFile = filepath.Join(dir, "job.json"), filepath.Join(dir, "pods.json")
	if err := os.WriteFile(jobFile, s.JobJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(podsFile, s.PodsJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	return jobFile, podsFile
}

// withoutObservedAt decodes a JSON report and drops the one field that depends on the clock.
func withoutObservedAt(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("status -o json is not JSON: %v\n%s", err, out)
	}
	if m["apiVersion"] != "indexed.kubectl.io/v1alpha1" || m["kind"] != "IndexedJobStatus" {
		t.Errorf("apiVersion/kind = %v/%v", m["apiVersion"], m["kind"])
	}
	delete(m, "observedAt")
	return m
}

// TestStatusLiveEqualsOffline runs finished scenarios on the real control plane and checks that
// `kubectl indexed status JOB --all-pods` and `kubectl indexed status -f job.json --pods-file pods.json`
// print the same report for the same objects, in every output format.
func TestStatusLiveEqualsOffline(t *testing.T) {
	RequirePlugin(t)
	for _, name := range []string{"seed", "prepare-db-failed", "per-index-recovered", "max-failed-indexes-exceeded",
		"success-policy", "transient-recovered", "pod-failure-policy-failjob", "disruption-ignored", "suspended-after-progress"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc := scenarioNamed(t, name)
			ns := NewNamespace(t)
			s := runScenario(t, sc, ns)
			jobFile, podsFile := saveSnapshot(t, s)
			for _, output := range []string{"", "wide", "json", "yaml"} {
				liveArgs := []string{"status", sc.JobName, "-n", ns, "--all-pods"}
				offArgs := []string{"status", "-f", jobFile, "--pods-file", podsFile}
				if output != "" {
					liveArgs = append(liveArgs, "-o", output)
					offArgs = append(offArgs, "-o", output)
				}
				live, off := KubectlIndexed(t, liveArgs...), KubectlIndexed(t, offArgs...)
				if live.ExitCode != 0 || off.ExitCode != 0 || live.Stderr != "" || off.Stderr != "" {
					t.Fatalf("status failed:\n%s\n%s", live, off)
				}
				switch output {
				case "json":
					if a, b := withoutObservedAt(t, live.Stdout), withoutObservedAt(t, off.Stdout); !reflect.DeepEqual(a, b) {
						t.Errorf("-o json: live and offline differ:\n--- live\n%s\n--- offline\n%s", live.Stdout, off.Stdout)
					}
				case "yaml":
					strip := func(s string) string {
						var keep []string
						for _, l := range strings.Split(s, "\n") {
							if !strings.HasPrefix(l, "observedAt:") {
								keep = append(keep, l)
							}
						}
						return strings.Join(keep, "\n")
					}
					if strip(live.Stdout) != strip(off.Stdout) {
						t.Errorf("-o yaml: live and offline differ:\n--- live\n%s\n--- offline\n%s", live.Stdout, off.Stdout)
					}
				default:
					if live.Stdout != off.Stdout {
						t.Errorf("-o %q: live and offline differ:\n--- live\n%s\n--- offline\n%s", output, live.Stdout, off.Stdout)
					}
				}
			}
			if name == "seed" {
				checkSeedStatus(t, sc, ns)
			}
			followNext(t, sc.JobName, ns)
		})
	}
}

// followNext runs every command that status's Next section prints for the Job, as printed,
// through sh (issue 22, item 6: advice that works when followed): none may be refused as a
// usage error (exit 2) or fail against the cluster (exit 4, or kubectl's 1 with an error).
func followNext(t *testing.T, job, ns string) {
	t.Helper()
	st := statusJSON(t, job, "-n", ns)
	for _, e := range st.NextEntries {
		if e.Command == "" {
			continue
		}
		cmd := e.Command
		if strings.HasPrefix(cmd, "kubectl indexed retry ") {
			// Next's retry entries are alternatives (the budget-exhausted shards, or those
			// and the policy-failed ones named deliberately): creating one makes the other
			// overlap a running retry, which retry rightly refuses. The server checks each
			// on its own without anything being created.
			cmd += " --dry-run=server"
		}
		r := shell(t, cmd)
		ok := r.ExitCode == 0 || r.ExitCode == 1 && !strings.Contains(r.Stderr, "error:") && !strings.Contains(r.Stderr, "Error from server")
		if !ok {
			t.Errorf("%s: the printed %s command fails when followed:\n%s", job, e.Kind, r)
		} else {
			t.Logf("%s: followed %s: %s (exit %d)", job, e.Kind, cmd, r.ExitCode)
		}
	}
}

// TestStatusNotSucceededEqualsAllPods runs finished scenarios on the real control plane and
// checks that `status JOB` (the pods that did not succeed) prints the report of `status JOB
// --all-pods` (every pod) except what only a succeeded pod holds, for the Succeeded indexes:
// the succeeded pods' names, their exits, their receipts and the pod counts
// (docs/status.md, "Live: the pods that did not succeed"). Some scenarios must take the cheap
// read (pods.notRead above 0) for the check to mean anything.
func TestStatusNotSucceededEqualsAllPods(t *testing.T) {
	RequirePlugin(t)
	var cheap atomic.Int32
	t.Cleanup(func() {
		if !t.Failed() && cheap.Load() == 0 {
			t.Error("no scenario was read without its succeeded pods")
		}
	})
	for _, name := range []string{"seed", "per-index-recovered", "max-failed-indexes-exceeded",
		"success-policy", "transient-recovered", "pod-failure-policy-failjob", "disruption-ignored", "elastic-scale-down"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc := scenarioNamed(t, name)
			ns := NewNamespace(t)
			s := runScenario(t, sc, ns)
			var pods struct {
				Items []struct {
					Metadata struct{ Name string }
					Status   struct{ Phase string }
				}
			}
			if err := json.Unmarshal(s.PodsJSON, &pods); err != nil {
				t.Fatal(err)
			}
			succeeded := map[string]bool{}
			for _, p := range pods.Items {
				if p.Status.Phase == "Succeeded" {
					succeeded[p.Metadata.Name] = true
				}
			}
			fast := KubectlIndexed(t, "status", sc.JobName, "-n", ns, "-o", "json")
			all := KubectlIndexed(t, "status", sc.JobName, "-n", ns, "-o", "json", "--all-pods")
			if fast.ExitCode != 0 || all.ExitCode != 0 || fast.Stderr != "" || all.Stderr != "" {
				t.Fatalf("status failed:\n%s\n%s", fast, all)
			}
			f, a := withoutObservedAt(t, fast.Stdout), withoutObservedAt(t, all.Stdout)
			notRead, _ := f["pods"].(map[string]any)["notRead"].(float64)
			if notRead > 0 {
				cheap.Add(1)
			}
			t.Logf("%d succeeded pods, %v not read", len(succeeded), notRead)
			if name == "elastic-scale-down" && notRead > 0 {
				// kubectl patch set spec.completions after the Job was made (its managedFields
				// say so): the elastic guard must read every pod (pkg/indexstatus/unread.go).
				t.Errorf("the scaled Job was read without its succeeded pods (%v not read)", notRead)
			}
			if name == "elastic-scale-down" {
				// It is still running: its two reads are not of one instant, so only the guard
				// is checked here; the comparison below is for finished Jobs.
				return
			}
			for _, m := range []map[string]any{f, a} {
				delete(m, "pods")
				for _, x := range m["indexes"].([]any) {
					ix := x.(map[string]any)
					if ix["state"] != "Succeeded" {
						continue
					}
					var keep []any
					for _, p := range ix["pods"].([]any) {
						if !succeeded[p.(string)] {
							keep = append(keep, p)
						}
					}
					ix["pods"] = keep
					for _, k := range []string{"lastExitCode", "lastReason", "lastContainer", "cases", "detail"} {
						delete(ix, k)
					}
					// The succeeded attempt's pod, reason, container, node and times (its exit code, 0, is known).
					history, _ := ix["attemptHistory"].([]any)
					for _, h := range history {
						if a := h.(map[string]any); a["phase"] == "Succeeded" {
							for _, k := range []string{"pod", "reason", "container", "node", "startedAt", "finishedAt"} {
								delete(a, k)
							}
						}
					}
				}
			}
			if !reflect.DeepEqual(f, a) {
				fj, _ := json.MarshalIndent(f, "", " ")
				aj, _ := json.MarshalIndent(a, "", " ")
				t.Errorf("status and status --all-pods differ beyond the succeeded pods:\n--- status\n%s\n--- --all-pods\n%s", fj, aj)
			}
		})
	}
}

// checkSeedStatus: the seed scenario reads as the issue says.
func checkSeedStatus(t *testing.T, sc Scenario, ns string) {
	t.Helper()
	r := KubectlIndexed(t, "status", sc.JobName, "-n", ns, "-o", "json", "--exit-code")
	if r.ExitCode != 1 {
		t.Errorf("--exit-code on a failed Job: exit %d, want 1\n%s", r.ExitCode, r)
	}
	var rep struct {
		Phase, Reason string
		Completeness  struct{ Succeeded, Completions int }
		Indexes       []struct {
			Index, Attempts int
			State           string
			LastExitCode    *int
			RetriesLeft     *int
			Rule            *struct{ Action string } `json:"podFailurePolicyRule"`
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	if rep.Phase != "Failed" || rep.Reason != "FailedIndexes" || rep.Completeness.Succeeded != 4 || rep.Completeness.Completions != 6 {
		t.Errorf("phase %s reason %s completeness %+v", rep.Phase, rep.Reason, rep.Completeness)
	}
	want := map[int]string{0: "Succeeded", 1: "Succeeded", 2: "Failed", 3: "Succeeded", 4: "Failed", 5: "Succeeded"}
	for _, ix := range rep.Indexes {
		if want[ix.Index] != ix.State {
			t.Errorf("index %d: %s, want %s", ix.Index, ix.State, want[ix.Index])
		}
		switch ix.Index {
		case 2:
			if ix.LastExitCode == nil || *ix.LastExitCode != 42 || ix.Rule == nil || ix.Rule.Action != "FailIndex" {
				t.Errorf("index 2: %+v", ix)
			}
		case 4:
			if ix.LastExitCode == nil || *ix.LastExitCode != 1 || ix.Attempts != 2 || ix.RetriesLeft == nil || *ix.RetriesLeft != 0 {
				t.Errorf("index 4: %+v", ix)
			}
		}
	}
	text := KubectlIndexed(t, "status", sc.JobName, "-n", ns).Stdout
	// The text view wraps at 80 columns: compare with the line breaks and padding folded.
	folded := strings.Join(strings.Fields(text), " ")
	for _, s := range []string{"Phase:        Failed", "FailedIndexes", "4 of 6 indexes succeeded",
		"exit code 42 in container worker matched podFailurePolicy rule 0 (FailIndex)",
		"failed after 2 attempts (exit code 1 in container worker), backoffLimitPerIndex 1 exhausted"} {
		if !strings.Contains(folded, strings.Join(strings.Fields(s), " ")) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
}

// TestStatusWatchAndExitCodes follows a running Job with --watch until it completes; while it
// runs, --exit-code says 3.
func TestStatusWatchAndExitCodes(t *testing.T) {
	RequirePlugin(t)
	t.Parallel()
	ns := NewNamespace(t)
	CreateJob(t, ns, indexedJob("watched", `  completions: 4
  parallelism: 2
  backoffLimitPerIndex: 1
`, map[string]string{"run-time": "4s", "exit-code.1.0": "1"}))
	WaitForJob(t, ns, "watched", time.Minute, "a pod running", func(_ *batchv1.Job, pods []corev1.Pod) bool { return len(pods) > 0 })
	if r := KubectlIndexed(t, "status", "watched", "-n", ns, "--exit-code"); r.ExitCode != 3 {
		t.Errorf("running Job: exit %d, want 3\n%s", r.ExitCode, r)
	}
	r := Run(t, Cmd{Args: []string{"indexed", "status", "watched", "-n", ns, "--watch", "--exit-code"}, Timeout: 3 * time.Minute})
	if r.ExitCode != 0 {
		t.Fatalf("--watch --exit-code on a Job that completes: exit %d\n%s", r.ExitCode, r)
	}
	// Its standard output is not a terminal: a line per change of the Job, then the report
	// once (issue 36 item 1: a report per event before).
	reports := strings.Count(r.Stdout, "Phase:")
	last := r.Stdout[strings.LastIndex(r.Stdout, "Job:"):]
	head := r.Stdout[:strings.LastIndex(r.Stdout, "Job:")]
	if reports != 1 || strings.Count(head, "\n+") < 1 || !strings.Contains(last, "Phase:        Complete") || !strings.Contains(head, "1 failed pod (+1)") {
		t.Errorf("%d reports; want a line per change, index 1's failure on the way, then the report once, Complete:\n%s", reports, r.Stdout)
	}
	if !strings.Contains(last, "complete: all 4 indexes succeeded") {
		t.Errorf("final frame:\n%s", last)
	}
}

// TestStatusShardIDs reads shard IDs from the ConfigMap the Job names, and says so when it is
// missing.
func TestStatusShardIDs(t *testing.T) {
	RequirePlugin(t)
	t.Parallel()
	ns := NewNamespace(t)
	MustKubectlStdin(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: sharded-shards
immutable: true
data:
  shard-ids.json: '["alpha","beta","gamma"]'
`, "create", "-n", ns, "-f", "-")
	manifest := strings.Replace(indexedJob("sharded", "  completions: 3\n  parallelism: 3\n", nil),
		"metadata:\n  name: sharded\n", "metadata:\n  name: sharded\n  annotations:\n    indexed.kubectl.io/shards-configmap: sharded-shards\n", 1)
	CreateJob(t, ns, manifest)
	WaitForFinished(t, ns, "sharded", 2*time.Minute)
	r := KubectlIndexed(t, "status", "sharded", "-n", ns, "-o", "json")
	var rep struct {
		Indexes []struct {
			Index   int
			ShardID string `json:"shardID"`
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil || len(rep.Indexes) != 3 {
		t.Fatalf("%v\n%s", err, r)
	}
	for i, want := range []string{"alpha", "beta", "gamma"} {
		if rep.Indexes[i].ShardID != want {
			t.Errorf("index %d shard %q, want %q", i, rep.Indexes[i].ShardID, want)
		}
	}
	// Job names complete (cobra's __complete, which kubectl_complete-indexed and the shell
	// scripts call).
	if c := KubectlIndexed(t, "__complete", "status", "-n", ns, ""); !strings.Contains(c.Stdout, "sharded\n") {
		t.Errorf("Job name completion does not offer the Job:\n%s", c)
	}
	MustKubectl(t, "delete", "configmap", "sharded-shards", "-n", ns)
	r = KubectlIndexed(t, "status", "sharded", "-n", ns)
	if r.ExitCode != 0 || !strings.Contains(strings.Join(strings.Fields(r.Stdout), " "), `The Job names shard ConfigMap "sharded-shards" but it does not exist`) {
		t.Errorf("missing ConfigMap should be a note:\n%s", r)
	}
}

// TestStatusErrors: a Job that does not exist and a user who may not read it exit 4 with a
// message that says what to do.
func TestStatusErrors(t *testing.T) {
	RequirePlugin(t)
	t.Parallel()
	ns := NewNamespace(t)
	r := KubectlIndexed(t, "status", "nope", "-n", ns)
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, `job "nope" not found in namespace "`+ns+`"`) {
		t.Errorf("not found:\n%s", r)
	}
	RequireViewer(t)
	r = Run(t, Cmd{Args: []string{"indexed", "status", "nope", "-n", ns}, Kubeconfig: env.ViewerKubeconfig})
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, "permission denied: you may not get job") {
		t.Errorf("forbidden:\n%s", r)
	}
}

// MustKubectlStdin runs kubectl with stdin and fails the test on a non-zero exit.
func MustKubectlStdin(t *testing.T, stdin string, args ...string) Result {
	t.Helper()
	r := Run(t, Cmd{Args: args, Stdin: stdin})
	if r.ExitCode != 0 {
		t.Fatalf("command failed:\n%s", r)
	}
	return r
}

// shell runs a command line through sh as the admin ($KUBECONFIG), for at most 2 minutes.
func shell(t *testing.T, line string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := Result{Args: []string{"sh", "-c", line}, Stdout: out.String(), Stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ctx.Err() == nil:
		r.ExitCode = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v\n%s", line, err, r)
	}
	return r
}

// TestStatusFlakyLive (issue 36, item 3): on the real control plane, a Job whose index 1
// exited 1 and index 2 exited 137 before each succeeded: the default status (which does not
// read succeeded pods) names both in its text, and -o json keeps both attempts' exit codes.
func TestStatusFlakyLive(t *testing.T) {
	RequirePlugin(t)
	sc := scenarioNamed(t, "flaky-recovered")
	ns := NewNamespace(t)
	runScenario(t, sc, ns)
	text := KubectlIndexed(t, "status", sc.JobName, "-n", ns)
	if text.ExitCode != 0 || !strings.Contains(text.Stdout, "Flaky:        2 indexes needed a second attempt: 1 (exit 1), 2 (exit 137)\n") {
		t.Errorf("the default text does not name the flaky indexes:\n%s", text)
	}
	js := KubectlIndexed(t, "status", sc.JobName, "-n", ns, "-o", "json")
	var rep struct {
		Flaky   string
		Pods    struct{ NotRead int }
		Indexes []struct {
			Index          int
			Flaky          bool
			AttemptHistory []struct {
				Attempt  int
				ExitCode *int
			}
		}
	}
	if err := json.Unmarshal([]byte(js.Stdout), &rep); err != nil || js.ExitCode != 0 {
		t.Fatalf("%v\n%s", err, js)
	}
	if rep.Flaky != "1,2" || rep.Pods.NotRead == 0 {
		t.Errorf("flaky %q, pods.notRead %d: want 1,2 from the default read, which leaves the succeeded pods out", rep.Flaky, rep.Pods.NotRead)
	}
	for _, want := range []struct{ index, first int }{{1, 1}, {2, 137}} {
		ix := rep.Indexes[want.index]
		h := ix.AttemptHistory
		if !ix.Flaky || len(h) != 2 || h[0].ExitCode == nil || *h[0].ExitCode != want.first || h[1].ExitCode == nil || *h[1].ExitCode != 0 || h[1].Attempt != 2 {
			t.Errorf("index %d: %+v; want flaky, exit %d then 0", want.index, ix, want.first)
		}
	}
}
