//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 34 item 2: status --wait|--watch --record keeps the terminal pods' evidence in a file
// that outlives the pod garbage collector.

// recordExits are the exit codes of the indexes that fail, every attempt (backoffLimitPerIndex
// 1: two failed pods each).
var recordExits = map[int]int{1: 11, 3: 13, 5: 15, 6: 16}

// TestStatusRecordOutlivesThePodGC runs on the control plane of GCCluster, whose controller
// manager deletes terminated pods beyond 1 (--terminated-pod-gc-threshold=1; the GC looks
// every 20 s): the shared one must keep every test's pods. Two recorders follow one Job: `status --wait
// --record R` from start to end, and `status --watch --exit-code --record R2` killed with
// SIGKILL once it wrote a pod, then started again on R2. Once the GC removed the pods, the live
// report cannot say why the indexes failed; the Job with R, and with R2, explains each with its
// exit code, and R2 holds each pod once.
func TestStatusRecordOutlivesThePodGC(t *testing.T) {
	RequirePlugin(t)
	t.Parallel()
	began := time.Now()
	kc := GCCluster(t)
	run := func(timeout time.Duration, args ...string) Result {
		t.Helper()
		return Run(t, Cmd{Args: args, Kubeconfig: kc, Timeout: timeout})
	}
	annotations := map[string]string{"run-time": "3s"}
	for i, code := range recordExits {
		annotations[fmt.Sprintf("exit-code.%d", i)] = fmt.Sprint(code)
	}
	manifest := indexedJob("gc", "  completions: 8\n  parallelism: 2\n  backoffLimitPerIndex: 1\n", annotations)
	if r := Run(t, Cmd{Args: []string{"create", "-f", "-"}, Stdin: manifest, Kubeconfig: kc}); r.ExitCode != 0 {
		t.Fatalf("create:\n%s", r)
	}
	dir := t.TempDir()
	rec, rec2 := filepath.Join(dir, "gc.record"), filepath.Join(dir, "gc-killed.record")

	// The watch that is killed: started now, killed once its record holds a pod.
	killed := exec.Command(filepath.Join(env.PluginDir, "kubectl-indexed"), "status", "gc", "--watch", "--exit-code", "--record", rec2)
	killed.Env = append(os.Environ(), "KUBECONFIG="+kc)
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	waitDone := make(chan Result, 1)
	go func() {
		waitDone <- Run(t, Cmd{Args: []string{"indexed", "status", "gc", "--wait", "--record", rec}, Kubeconfig: kc, Timeout: 3 * time.Minute})
	}()
	for deadline := time.Now().Add(90 * time.Second); recordLines(t, rec2) < 2; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watch recorded no pod in 90 s")
		}
	}
	_ = killed.Process.Signal(syscall.SIGKILL)
	_ = killed.Wait()
	atKill := recordLines(t, rec2) - 1
	restarted := run(3*time.Minute, "indexed", "status", "gc", "--watch", "--exit-code", "--record", rec2)
	w := <-waitDone
	if w.ExitCode != 1 || restarted.ExitCode != 1 {
		t.Fatalf("--wait --record exit %d, restarted --watch exit %d; want 1 (indexes failed):\n%s\n%s", w.ExitCode, restarted.ExitCode, w, restarted)
	}
	if !strings.Contains(restarted.Stderr, fmt.Sprintf("(%d were in it already)", atKill)) {
		t.Errorf("the restarted watch did not resume the record of %d pods:\n%s", atKill, restarted.Stderr)
	}

	// The GC removes the terminated pods but 1 (it looks every 20 s).
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(2 * time.Second) {
		pods := run(time.Minute, "get", "pods", "-l", "batch.kubernetes.io/job-name=gc", "-o", "name")
		if n := len(strings.Fields(pods.Stdout)); n <= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pod GC left the pods in 90 s:\n%s", pods.Stdout)
		}
	}
	live := run(time.Minute, "indexed", "status", "gc", "-o", "json")
	if n := knownExits(t, live.Stdout); n == len(recordExits) {
		t.Fatalf("the live read still explains every failed index with the pods gone: the GC did not run\n%s", live.Stdout)
	}
	jobFile := filepath.Join(dir, "job.json")
	if err := os.WriteFile(jobFile, []byte(run(time.Minute, "get", "job", "gc", "-o", "json").Stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{rec, rec2} {
		off := run(time.Minute, "indexed", "status", "-f", jobFile, "--pods-file", r, "-o", "json")
		if n := knownExits(t, off.Stdout); n != len(recordExits) {
			t.Errorf("%s: %d of the %d failed indexes explained with their exit code:\n%s%s", filepath.Base(r), n, len(recordExits), off.Stdout, off.Stderr)
		}
		uids := recordUIDs(t, r)
		for uid, n := range uids {
			if n != 1 {
				t.Errorf("%s: pod %s recorded %d times", filepath.Base(r), uid, n)
			}
		}
		// Every pod the Job made: 4 indexes that succeed once, 4 that fail twice.
		if len(uids) != 12 {
			t.Errorf("%s holds %d pods, want 12", filepath.Base(r), len(uids))
		}
	}
	t.Logf("live read: %d of %d failed indexes with an exit code; from the records: all %d; the killed watch had written %d pods; %s in all",
		knownExits(t, live.Stdout), len(recordExits), len(recordExits), atKill, time.Since(began).Round(time.Second))
}

// knownExits counts the failing indexes of recordExits whose lastExitCode in an
// IndexedJobStatus is their code.
func knownExits(t *testing.T, report string) int {
	t.Helper()
	var r struct {
		Indexes []struct {
			Index        int  `json:"index"`
			LastExitCode *int `json:"lastExitCode"`
		} `json:"indexes"`
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("not an IndexedJobStatus: %v\n%s", err, report)
	}
	n := 0
	for _, ix := range r.Indexes {
		if code, ok := recordExits[ix.Index]; ok && ix.LastExitCode != nil && *ix.LastExitCode == code {
			n++
		}
	}
	return n
}

// recordLines counts the whole lines of a record (0 when it does not exist yet).
func recordLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// recordUIDs counts each pod UID in a record.
func recordUIDs(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var p struct {
			Kind     string `json:"kind"`
			Metadata struct {
				UID string `json:"uid"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if p.Kind == "Pod" {
			out[p.Metadata.UID]++
		}
	}
	return out
}
