//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lineageRecordExits are the exit codes of the shards of the lineage-record test that fail,
// in the root and again in their retries (the retries keep the pod annotations).
var lineageRecordExits = map[int]int32{1: 11, 3: 13}

// TestStatusLineageRecordOutlivesThePodGC (issue 34 item 2, a lineage): a root Job whose shards
// 1 and 3 fail (exit 11 and 13), and its retry (retry --indexes failed, one Job per index for a
// Job kubectl created), each followed to its end by `status ROOT --lineage --wait --record R`,
// the second run appending to the first's file. Once the pod GC (threshold 1) removed the
// pods, the live lineage report cannot say why the shards failed; status --lineage with the
// Jobs and R (-f R, and --pods-file R) explains each shard, in every Job that ran it, with its
// exit code, and R holds each pod of the lineage once.
func TestStatusLineageRecordOutlivesThePodGC(t *testing.T) {
	RequirePlugin(t)
	t.Parallel()
	began := time.Now()
	kc := GCCluster(t)
	const ns = "lineage-record"
	run := func(timeout time.Duration, args ...string) Result {
		t.Helper()
		return Run(t, Cmd{Args: append(args, "-n", ns), Kubeconfig: kc, Timeout: timeout})
	}
	if r := run(time.Minute, "create", "namespace", ns); r.ExitCode != 0 {
		t.Fatalf("create namespace:\n%s", r)
	}
	annotations := map[string]string{"run-time": "1s"}
	for i, code := range lineageRecordExits {
		annotations[fmt.Sprintf("exit-code.%d", i)] = fmt.Sprint(code)
	}
	manifest := indexedJob("lr", "  completions: 4\n  parallelism: 4\n  backoffLimitPerIndex: 0\n", annotations)
	if r := Run(t, Cmd{Args: []string{"create", "-n", ns, "-f", "-"}, Stdin: manifest, Kubeconfig: kc}); r.ExitCode != 0 {
		t.Fatalf("create:\n%s", r)
	}
	dir := t.TempDir()
	rec := filepath.Join(dir, "lr.record")

	// The pipeline: wait for the root with the record, retry its failed shards, wait for the
	// lineage again on the same record.
	first := run(2*time.Minute, "indexed", "status", "lr", "--lineage", "--wait", "--record", rec)
	if first.ExitCode != 1 || !strings.Contains(first.Stderr, "recorded 4 terminal pods") {
		t.Fatalf("first --lineage --wait --record: exit %d, want 1 and 4 pods recorded:\n%s", first.ExitCode, first)
	}
	if r := run(time.Minute, "indexed", "retry", "lr", "--indexes", "failed"); r.ExitCode != 0 {
		t.Fatalf("retry:\n%s", r)
	}
	second := run(2*time.Minute, "indexed", "status", "lr", "--lineage", "--wait", "--record", rec)
	if second.ExitCode != 1 || !strings.Contains(second.Stderr, "recorded 2 terminal pods in "+rec+" (4 were in it already)") {
		t.Fatalf("second --lineage --wait --record: exit %d, want 1 and the retries' 2 pods added to the 4:\n%s", second.ExitCode, second)
	}

	// The GC removes the terminated pods but 1 (it looks every 20 s).
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(2 * time.Second) {
		pods := run(time.Minute, "get", "pods", "-o", "name")
		if n := len(strings.Fields(pods.Stdout)); n <= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pod GC left the pods in 90 s:\n%s", pods.Stdout)
		}
	}
	live := run(time.Minute, "indexed", "status", "lr", "--lineage", "-o", "json")
	if n := lineageExits(t, live.Stdout); n == 2*len(lineageRecordExits) {
		t.Fatalf("the live read still explains every failed run with the pods gone: the GC did not run\n%s", live.Stdout)
	}
	jobs := filepath.Join(dir, "jobs.json")
	if err := os.WriteFile(jobs, []byte(run(time.Minute, "get", "jobs", "-o", "json").Stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-f", jobs, "-f", rec}, {"-f", jobs, "--pods-file", rec}} {
		off := Run(t, Cmd{Args: append([]string{"indexed", "status", "--lineage", "-o", "json"}, args...), Kubeconfig: kc, Timeout: time.Minute})
		if n := lineageExits(t, off.Stdout); off.ExitCode != 0 || n != 2*len(lineageRecordExits) {
			t.Errorf("%q: exit %d, %d of the %d failed runs explained with their exit code:\n%s%s", args, off.ExitCode, n, 2*len(lineageRecordExits), off.Stdout, off.Stderr)
		}
	}
	uids := recordUIDs(t, rec)
	for uid, n := range uids {
		if n != 1 {
			t.Errorf("pod %s recorded %d times", uid, n)
		}
	}
	if len(uids) != 6 {
		t.Errorf("the record holds %d pods, want 6 (the root's 4, a retry's 1 for each of 2 shards)", len(uids))
	}
	t.Logf("live read: %d of %d failed runs with an exit code; from the record: %d; %s in all",
		lineageExits(t, live.Stdout), 2*len(lineageRecordExits), 2*len(lineageRecordExits), time.Since(began).Round(time.Second))
}

// lineageExits counts the runs of the failing shards of lineageRecordExits, in a LineageReport,
// whose lastExitCode is their code.
func lineageExits(t *testing.T, report string) int {
	t.Helper()
	var r struct {
		ShardStatuses []struct {
			Index int `json:"index"`
			Runs  []struct {
				Job          string `json:"job"`
				LastExitCode *int32 `json:"lastExitCode"`
			} `json:"runs"`
		} `json:"shardStatuses"`
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("not a LineageReport: %v\n%s", err, report)
	}
	n := 0
	for _, s := range r.ShardStatuses {
		code, ok := lineageRecordExits[s.Index]
		if !ok {
			continue
		}
		for _, run := range s.Runs {
			if run.LastExitCode != nil && *run.LastExitCode == code {
				n++
			}
		}
	}
	return n
}
