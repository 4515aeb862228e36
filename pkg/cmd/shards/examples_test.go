package shards

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

const examples = "../../../examples"

// TestExampleManifestIsSplitOfExampleCases: the README's tour says examples/manifest.yaml is what
// split makes of examples/cases.txt; keep it true.
func TestExampleManifestIsSplitOfExampleCases(t *testing.T) {
	r := run(t, "", "split", "--cases", filepath.Join(examples, "cases.txt"), "--shards", "4", "--name", "demo", "--revision", "1")
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	want, err := os.ReadFile(filepath.Join(examples, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Stdout != string(want) {
		t.Errorf("examples/manifest.yaml is not the split of examples/cases.txt; regenerate it:\n  kubectl indexed shards split --cases examples/cases.txt --shards 4 --name demo --revision 1 > examples/manifest.yaml")
	}
}

// runWorker runs examples/worker.sh with env and returns its output and exit code.
func runWorker(t *testing.T, env ...string) (string, int) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	cmd := exec.Command(sh, filepath.Join(examples, "worker.sh"))
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("running the worker: %v", err)
	return "", -1
}

// TestExampleWorkerWithTheConfigMapLayout lays the ConfigMap create makes out as files, as the
// volume mount does, gives the worker the environment of the Job's container (with
// $(JOB_COMPLETION_INDEX) expanded as the kubelet does), and runs every index.
func TestExampleWorkerWithTheConfigMapLayout(t *testing.T) {
	m, err := shards.Read(filepath.Join(examples, "manifest.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := scaffold.Build(scaffold.Options{Manifest: m, JobName: "demo", Namespace: "ns", Image: "busybox"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for k, v := range objs.ConfigMap.Data {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range m.Shards {
		var env []string
		for _, e := range objs.Job.Spec.Template.Spec.Containers[0].Env {
			v := e.Value
			if e.Name == scaffold.EnvCompletionIndex {
				v = itoa(i)
			}
			v = strings.ReplaceAll(v, "$("+scaffold.EnvCompletionIndex+")", itoa(i))
			v = strings.Replace(v, scaffold.MountPath, dir, 1)
			env = append(env, e.Name+"="+v)
		}
		out, code := runWorker(t, env...)
		if code != 0 {
			t.Fatalf("index %d: exit %d\n%s", i, code, out)
		}
		if !strings.Contains(out, "shard "+s.ID+" (completion index "+itoa(i)+", manifest demo revision 1)") ||
			!strings.Contains(out, "shard "+s.ID+": 10 cases done") || !strings.Contains(out, "case "+s.Cases[0]+": ok") {
			t.Errorf("index %d output:\n%s", i, out)
		}
	}
}

func TestExampleWorkerInvalidInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("ok-1\nnot ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  []string
		code int
		want string
	}{
		{[]string{"INDEXED_SHARD_FILE=" + bad}, 42, "invalid input: case ID 'not ok' has characters this worker does not accept"},
		{[]string{"INDEXED_SHARD_FILE=" + bad, "INDEXED_INVALID_INPUT_EXIT_CODE=7"}, 7, "invalid input"},
		{[]string{"INDEXED_SHARD_FILE=" + empty}, 42, "has no cases"},
		{nil, 42, "INDEXED_SHARD_FILE is not set"},
		{[]string{"INDEXED_SHARD_FILE=" + filepath.Join(dir, "missing")}, 42, "cannot read the shard file"},
	} {
		out, code := runWorker(t, tc.env...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s", tc.env, code, tc.code, tc.want, out)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
