//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobdiff"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
)

// The fault-injection suite of issue 16 ("Nothing lost, nothing misleading"): every case
// injects one fault on the shared control plane, in its own namespace, and asserts the exit
// code, the message, and that no object changed that should not have (faultState: each Job's
// generation, spec, labels and annotations — its status moves with its pods — and each
// ConfigMap's resourceVersion, compared before and after).
//
//	E2E_SKIP_BUILD= go test -tags e2e -count=1 ./test/e2e/ -run TestFaults -v
//
// faultCases counts the cases run, for the closing note.
var faultCases atomic.Int32

// faultState is what must not change: per object, a fingerprint.
type faultState map[string]string

func takeFaultState(t *testing.T, ns string) faultState {
	t.Helper()
	ctx := context.Background()
	st := faultState{}
	jobs, err := env.Client.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	if jobs != nil {
		for _, j := range jobs.Items {
			b, _ := json.Marshal([]any{j.UID, j.Generation, j.Spec, j.Labels, j.Annotations})
			st["job/"+j.Name] = string(b)
		}
	}
	cms, err := env.Client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	if cms != nil {
		for _, c := range cms.Items {
			if c.Name == "kube-root-ca.crt" {
				continue
			}
			st["configmap/"+c.Name] = string(c.UID) + "@" + c.ResourceVersion
		}
	}
	return st
}

func (a faultState) keys() []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// assertUnchanged fails when an object of before changed or went, or a new one appeared.
func assertUnchanged(t *testing.T, ns string, before faultState) {
	t.Helper()
	after := takeFaultState(t, ns)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed or disappeared in namespace %s", k, ns)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s appeared in namespace %s: %v", k, ns, after.keys())
		}
	}
}

func expect(t *testing.T, r Result, code int, wants ...string) {
	t.Helper()
	if r.ExitCode != code {
		t.Errorf("exit %d, want %d\n%s", r.ExitCode, code, r)
	}
	// Text reports wrap at 80 columns: compare with every run of white space as one space.
	fold := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	out := fold(r.Stderr + "\n" + r.Stdout)
	for _, w := range wants {
		if !strings.Contains(out, fold(w)) {
			t.Errorf("output lacks %q\n%s", w, r)
		}
	}
}

func indexed(t *testing.T, args ...string) Result {
	t.Helper()
	faultCases.Add(1)
	return KubectlIndexed(t, args...)
}

// writeKubeconfigVariant copies the admin kubeconfig, changed by mut, to a temporary file.
func writeKubeconfigVariant(t *testing.T, mut func(*clientcmdapi.Config)) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	mut(cfg)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func currentCluster(cfg *clientcmdapi.Config) *clientcmdapi.Cluster {
	return cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]
}

func currentUser(cfg *clientcmdapi.Config) *clientcmdapi.AuthInfo {
	return cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo]
}

// faultProxy relays TCP to the API server. After budget bytes from the client it either closes
// both connections (drop) or stops relaying and holds them open (stall).
type faultProxy struct {
	ln     net.Listener
	target string
	budget int64
	stall  bool
	mu     sync.Mutex
	conns  []net.Conn
}

func startProxy(t *testing.T, target string, budget int64, stall bool) *faultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{ln: ln, target: target, budget: budget, stall: stall}
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *faultProxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
}

func (p *faultProxy) serve() {
	var used atomic.Int64
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(c, up) }()
		go func() {
			buf := make([]byte, 512)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					if used.Add(int64(n)) > p.budget {
						if p.stall {
							return // hold both open, relay nothing more
						}
						_ = c.Close()
						_ = up.Close()
						return
					}
					if _, werr := up.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					_ = up.Close()
					return
				}
			}
		}()
	}
}

// commandAfter returns the text after marker up to the end of its line, without a final period.
func commandAfter(t *testing.T, s, marker string) string {
	t.Helper()
	i := strings.Index(s, marker)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", marker, s)
	}
	rest := s[i+len(marker):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.Index(rest, ". To remove"); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSuffix(strings.TrimSpace(rest), ".")
}

// runShell runs a printed command line through sh, with KUBECONFIG pointing nowhere: it works
// only if it carries the connection flags itself.
func runShell(t *testing.T, line string) Result {
	t.Helper()
	faultCases.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(os.TempDir(), "no-such-kubeconfig"))
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := Result{Args: []string{"sh", "-c", line}, Stdout: out.String(), Stderr: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.ExitCode = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// pluginProcess starts the plugin binary itself (so that a signal reaches it, not kubectl).
func pluginProcess(t *testing.T, stdin *os.File, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	RequirePlugin(t)
	faultCases.Add(1)
	cmd := exec.Command(filepath.Join(env.PluginDir, "kubectl-indexed"), args...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	cmd.WaitDelay = 5 * time.Second
	var errOut strings.Builder
	cmd.Stderr = &errOut
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &errOut
}

// waitUntil polls cond every 50 ms for at most d and reports whether it held. The fault cases
// that interrupt a command wait for it to be where the test means to interrupt it, not a fixed
// time: on a loaded machine (make check's two lanes) a SIGINT sent 700 ms after the start
// landed before the command had set up its handler and killed it (exit -1, not 130).
func waitUntil(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// readingPipe reports whether a thread of process pid is blocked reading a pipe (Linux: the
// kernel function it waits in, /proc/PID/task/TID/wchan, is anon_pipe_read or pipe_read).
func readingPipe(pid int) bool {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
	for _, p := range tasks {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "pipe_read") {
			return true
		}
	}
	return false
}

// waitExit waits at most d for cmd and returns its exit code (-1: killed by the test).
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(d):
		_ = cmd.Process.Kill()
		if err := <-done; err != nil {
			t.Logf("after the kill: %v", err)
		}
		t.Errorf("still running %s after the signal: killed", d)
		return -1
	}
}

func TestFaults(t *testing.T) {
	RequirePlugin(t)
	t.Cleanup(func() { t.Logf("fault cases run: %d", faultCases.Load()) })

	// Item 1: diff never proposes the identity keys; status checks the mount.
	t.Run("diff-identity-and-mount", func(t *testing.T) {
		t.Parallel()
		ns := NewNamespace(t)
		a, _, _ := createFiles(t, "ida", 6, 3, nil)
		b, _, _ := createFiles(t, "ida", 9, 3, nil)
		expect(t, indexed(t, "create", "ida", "-n", ns, "--manifest", a, "--image", "busybox:1.36", "--parallelism", "1"), 0)
		before := takeFaultState(t, ns)
		r := indexed(t, "diff", "ida", "-n", ns, "--manifest", b, "--image", "busybox:1.36", "--parallelism", "1", "--server-dry-run", "-o", "json")
		expect(t, r, 1)
		var rep jobdiff.Report
		if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
			t.Fatalf("%v\n%s", err, r)
		}
		identity := 0
		for _, d := range rep.Differences {
			if strings.Contains(d.Path, "indexed.kubectl.io/") {
				identity++
				if d.Class != jobdiff.ClassNewJob {
					t.Errorf("%s is %s, want NewJob", d.Path, d.Class)
				}
			}
		}
		if identity == 0 {
			t.Errorf("no identity difference between manifests A and B:\n%s", r.Stdout)
		}
		for _, s := range rep.Plan {
			for _, c := range s.Commands {
				if strings.Contains(c, "indexed.kubectl.io") {
					t.Errorf("plan writes an identity key: %s", c)
				}
			}
		}
		if rep.Server == nil || rep.Server.Disagreements != 0 {
			t.Errorf("server check: %+v", rep.Server)
		}
		assertUnchanged(t, ns, before)

		// A plain Job: no plan writes the keys onto it.
		CreateJob(t, ns, "apiVersion: batch/v1\nkind: Job\nmetadata: {name: plain}\nspec:\n  completionMode: Indexed\n  completions: 3\n  parallelism: 1\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: worker, image: busybox:1.36}]\n")
		before = takeFaultState(t, ns)
		r = indexed(t, "diff", "plain", "-n", ns, "--manifest", a, "--image", "busybox:1.36", "--parallelism", "1", "-o", "json")
		expect(t, r, 1)
		if strings.Contains(strings.Join(planCommands(t, r.Stdout), "\n"), "indexed.kubectl.io") {
			t.Errorf("plan writes identity keys onto a plain Job:\n%s", r.Stdout)
		}
		assertUnchanged(t, ns, before)

		// The annotation changed by hand (as the old plan did): status says so.
		MustKubectl(t, "annotate", "job", "ida", "-n", ns, "--overwrite", "indexed.kubectl.io/shards-configmap=ida-shards-other")
		r = indexed(t, "status", "ida", "-n", ns)
		expect(t, r, 0, `The Job names shard ConfigMap "ida-shards-other" (annotation indexed.kubectl.io/shards-configmap) but its pods mount ConfigMap "ida-shards-`)
	})

	// Item 2: --save writes nothing when create fails.
	t.Run("save-on-failure", func(t *testing.T) {
		t.Parallel()
		ns := NewNamespace(t)
		m, _, _ := createFiles(t, "sv", 4, 2, nil)
		expect(t, indexed(t, "create", "sv", "-n", ns, "--manifest", m, "--image", "busybox:1.36"), 0)
		before := takeFaultState(t, ns)
		save := filepath.Join(t.TempDir(), "sv.yaml")
		expect(t, indexed(t, "create", "sv", "-n", ns, "--manifest", m, "--image", "busybox:1.36", "--save", save), 4, `job "sv" already exists`, "nothing was created")
		if _, err := os.Stat(save); !os.IsNotExist(err) {
			t.Errorf("--save file written by a failed create: %v", err)
		}
		expect(t, indexed(t, "create", "sv2", "-n", ns, "--manifest", m, "--image", "busybox:1.36", "--save", "-"), 2, "--save -: standard output")
		// Issue 26, item 2: a --save that cannot be created is refused before anything is
		// sent (the objects were created, then exit 2).
		expect(t, indexed(t, "create", "sv4", "-n", ns, "--manifest", m, "--image", "busybox:1.36", "--save", filepath.Join(t.TempDir(), "no-such-dir", "sv4.yaml")), 2, "nothing was sent")
		assertUnchanged(t, ns, before)
		save2 := filepath.Join(t.TempDir(), "sv3.yaml")
		r := indexed(t, "create", "sv3", "-n", ns, "--manifest", m, "--image", "busybox:1.36", "--dry-run=client", "--save", save2)
		expect(t, r, 0, "kubectl create -f "+save2+" creates them")
		if strings.Contains(r.Stderr, "apply") {
			t.Errorf("hint mentions apply: %s", r.Stderr)
		}
		// Item 6: a second Job of the same manifest shares the ConfigMap; status says so.
		expect(t, indexed(t, "create", "sv-b", "-n", ns, "--manifest", m, "--image", "busybox:1.36"), 0, "unchanged")
		expect(t, indexed(t, "status", "sv", "-n", ns), 0, "is shared with 1 other Job(s) of the same manifest (sv-b)")
	})

	// Items 3 and 7: RBAC allowing ConfigMaps but not Jobs; the printed commands run as printed.
	t.Run("rbac-and-printed-commands", func(t *testing.T) {
		t.Parallel()
		RequireViewer(t)
		ns := NewNamespace(t)
		GrantViewer(t, ns, "half", []rbacv1.PolicyRule{
			{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "create", "delete"}},
		})
		vcfg, err := clientcmd.LoadFromFile(env.ViewerKubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		// A kubeconfig path with a space and a quote, to exercise the quoting.
		dir := filepath.Join(t.TempDir(), "it's here")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		kc := filepath.Join(dir, "viewer config")
		if err := clientcmd.WriteToFile(*vcfg, kc); err != nil {
			t.Fatal(err)
		}
		m, _, _ := createFiles(t, "perm", 4, 2, nil)
		before := takeFaultState(t, ns)
		faultCases.Add(1)
		r := Run(t, Cmd{Args: []string{"indexed", "create", "perm", "-n", ns, "--manifest", m, "--image", "busybox:1.36", "--kubeconfig", kc, "--context", vcfg.CurrentContext},
			Env: []string{"KUBECONFIG=" + filepath.Join(dir, "none")}})
		expect(t, r, 4, `permission denied: you may not create job "perm"`, "the ConfigMap is left behind")
		after := takeFaultState(t, ns)
		if len(after) != len(before)+1 {
			t.Errorf("want exactly the one ConfigMap created: %v", after.keys())
		}
		check := commandAfter(t, r.Stderr, "check that this lists none: ")
		del := commandAfter(t, r.Stderr, "To remove it: ")
		for _, c := range []string{check, del} {
			if !strings.Contains(c, "'--kubeconfig="+kc+"'") && !strings.Contains(c, "--kubeconfig=") {
				t.Errorf("printed command lacks --kubeconfig: %s", c)
			}
			if !strings.Contains(c, "--context=") {
				t.Errorf("printed command lacks --context: %s", c)
			}
		}
		if rr := runShell(t, check); rr.ExitCode != 0 || strings.TrimSpace(rr.Stdout) != "" {
			t.Errorf("printed check command:\n%s", rr)
		}
		if rr := runShell(t, del); rr.ExitCode != 0 || !strings.Contains(rr.Stdout, "deleted") {
			t.Errorf("printed delete command:\n%s", rr)
		}
		assertUnchanged(t, ns, before)
	})

	// Item 3: diff's kubectl patch runs against the cluster of the flags given.
	t.Run("diff-patch-command-runs", func(t *testing.T) {
		t.Parallel()
		ns := NewNamespace(t)
		m, _, _ := createFiles(t, "dp", 4, 4, nil)
		expect(t, indexed(t, "create", "dp", "-n", ns, "--manifest", m, "--image", "busybox:1.36", "--parallelism", "1"), 0)
		cfg, err := clientcmd.LoadFromFile(env.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		faultCases.Add(1)
		r := Run(t, Cmd{Args: []string{"indexed", "diff", "dp", "-n", ns, "--manifest", m, "--image", "busybox:1.36", "--parallelism", "2",
			"--kubeconfig", env.Kubeconfig, "--context", cfg.CurrentContext, "-o", "json"}, Env: []string{"KUBECONFIG=/nonexistent"}})
		expect(t, r, 1)
		cmds := planCommands(t, r.Stdout)
		if len(cmds) != 1 || !strings.Contains(cmds[0], "--context=") {
			t.Fatalf("plan commands: %q", cmds)
		}
		if rr := runShell(t, cmds[0]); rr.ExitCode != 0 {
			t.Fatalf("printed patch:\n%s", rr)
		}
		if p := GetJob(t, ns, "dp").Spec.Parallelism; p == nil || *p != 2 {
			t.Errorf("parallelism after the printed patch: %v", p)
		}
	})

	// Item 4: an unpullable image is refused before sending; a missing service account is
	// reported from the controller's FailedCreate events.
	t.Run("bad-image-and-missing-service-account", func(t *testing.T) {
		t.Parallel()
		ns := NewNamespace(t)
		m, _, _ := createFiles(t, "img", 4, 2, nil)
		before := takeFaultState(t, ns)
		expect(t, indexed(t, "create", "img", "-n", ns, "--manifest", m, "--image", "busybox:1.36 "), 2, `image "busybox:1.36 " cannot be pulled`)
		expect(t, indexed(t, "create", "img", "-n", ns, "--manifest", m, "--image", "BusyBox"), 2, "must be lowercase")
		assertUnchanged(t, ns, before)
		expect(t, indexed(t, "create", "nosa", "-n", ns, "--manifest", m, "--image", "busybox:1.36", "--service-account", "nope"), 0)
		deadline := time.Now().Add(60 * time.Second)
		var r Result
		for time.Now().Before(deadline) {
			r = KubectlIndexed(t, "status", "nosa", "-n", ns)
			if strings.Contains(r.Stdout, "FailedCreate") {
				break
			}
			time.Sleep(time.Second)
		}
		faultCases.Add(1)
		expect(t, r, 0, "the Job controller cannot create them: FailedCreate", `serviceaccount "nope" not found`)
	})

	// Item 5: bounded, interruptible input.
	t.Run("input-devzero-directory-fifo-stdin", func(t *testing.T) {
		t.Parallel()
		ns := NewNamespace(t)
		before := takeFaultState(t, ns)
		began := time.Now()
		expect(t, indexed(t, "create", "z", "-n", ns, "--manifest", "/dev/zero", "--image", "busybox:1.36"), 2, "a character device, not a regular file")
		t.Logf("--manifest /dev/zero refused in %s", time.Since(began).Round(time.Millisecond))
		expect(t, indexed(t, "create", "z", "-n", ns, "--manifest", t.TempDir(), "--image", "busybox:1.36"), 2, "is a directory")
		expect(t, indexed(t, "lint", "/dev/zero"), 2, "a character device, not a regular file")

		// A FIFO or a device is not read at all: refused at once, rather than blocking until
		// a signal (issue 26, item 7).
		fifo := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		expect(t, indexed(t, "create", "f", "-n", ns, "--manifest", fifo, "--image", "busybox:1.36"), 2, "a FIFO (named pipe), not a regular file")
		expect(t, indexed(t, "shards", "validate", fifo), 2, "a FIFO (named pipe), not a regular file")
		// Standard input that is never closed (an *os.File: exec copies nothing, so Wait does
		// not wait for the pipe).
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = pw.Close(); _ = pr.Close() }()
		cmd, errOut := pluginProcess(t, pr, "lint", "-")
		if !waitUntil(20*time.Second, func() bool { return readingPipe(cmd.Process.Pid) }) {
			t.Errorf("lint - never read its standard input")
		}
		_ = cmd.Process.Signal(syscall.SIGINT)
		if code := waitExit(t, cmd, 10*time.Second); code != 130 || !strings.Contains(errOut.String(), "interrupted") {
			t.Errorf("lint - after SIGINT: exit %d: %s", code, errOut)
		}
		assertUnchanged(t, ns, before)
	})

	// Item 7: namespaces missing and terminating.
	t.Run("namespace-missing-and-terminating", func(t *testing.T) {
		t.Parallel()
		m, _, _ := createFiles(t, "nsf", 4, 2, nil)
		missing := fmt.Sprintf("no-such-ns-%d", time.Now().UnixNano()%100000)
		expect(t, indexed(t, "create", "x", "-n", missing, "--manifest", m, "--image", "busybox:1.36"), 4, fmt.Sprintf("namespace %q not found", missing))
		expect(t, indexed(t, "status", "x", "-n", missing), 4)

		ctx := context.Background()
		ns, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "faults-terminating-"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		hold := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hold", Finalizers: []string{"example.com/hold"}}}
		if _, err := env.Client.CoreV1().ConfigMaps(ns.Name).Create(ctx, hold, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = env.Client.CoreV1().ConfigMaps(ns.Name).Patch(context.Background(), "hold", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		})
		if err := env.Client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		before := takeFaultState(t, ns.Name)
		expect(t, indexed(t, "create", "x", "-n", ns.Name, "--manifest", m, "--image", "busybox:1.36"), 4, fmt.Sprintf("namespace %q is being deleted", ns.Name))
		assertUnchanged(t, ns.Name, before)
	})

	// Items 7 and 10: exec credential plugins that fail or hang.
	t.Run("exec-plugin-fails-and-hangs", func(t *testing.T) {
		t.Parallel()
		ns := NewNamespace(t)
		exe := func(script string) string {
			return writeKubeconfigVariant(t, func(c *clientcmdapi.Config) {
				u := currentUser(c)
				u.Token, u.ClientCertificateData, u.ClientKeyData = "", nil, nil
				u.Exec = &clientcmdapi.ExecConfig{APIVersion: "client.authentication.k8s.io/v1", Command: "sh", Args: []string{"-c", script}, InteractiveMode: clientcmdapi.NeverExecInteractiveMode}
			})
		}
		m, _, _ := createFiles(t, "ex", 4, 2, nil)
		before := takeFaultState(t, ns)
		failing := exe("echo token service down >&2; exit 1")
		faultCases.Add(1)
		r := Run(t, Cmd{Args: []string{"indexed", "create", "ex", "-n", ns, "--manifest", m, "--image", "busybox:1.36"}, Kubeconfig: failing})
		expect(t, r, 4, "the credential plugin of your kubeconfig failed")
		if strings.Contains(r.Stderr, "is the cluster running") || strings.Contains(r.Stderr, "cannot reach the API server") {
			t.Errorf("blames the cluster:\n%s", r)
		}
		hanging := exe("exec 2>/dev/null; sleep 60")
		faultCases.Add(1)
		began := time.Now()
		r = Run(t, Cmd{Args: []string{"indexed", "status", "ex", "-n", ns, "--request-timeout", "3s"}, Kubeconfig: hanging, Timeout: 90 * time.Second})
		took := time.Since(began)
		t.Logf("status with a hanging exec plugin and --request-timeout 3s: exit %d after %s", r.ExitCode, took.Round(100*time.Millisecond))
		if r.ExitCode != 4 || took > 30*time.Second || !strings.Contains(r.Stderr, "exec credential plugin ran") || !strings.Contains(r.Stderr, "nothing was sent") {
			t.Errorf("hanging plugin: exit %d after %s\n%s", r.ExitCode, took, r)
		}
		faultCases.Add(1)
		began = time.Now()
		r = Run(t, Cmd{Args: []string{"indexed", "create", "ex", "-n", ns, "--manifest", m, "--image", "busybox:1.36", "--request-timeout", "3s"}, Kubeconfig: hanging, Timeout: 90 * time.Second})
		took = time.Since(began)
		t.Logf("create with a hanging exec plugin and --request-timeout 3s: exit %d after %s", r.ExitCode, took.Round(100*time.Millisecond))
		expect(t, r, 4, "timed out while the kubeconfig's exec credential plugin ran", "nothing was sent to the API server")
		if took > 30*time.Second {
			t.Errorf("create with a hanging plugin took %s", took)
		}
		// Issue 26, item 10: Ctrl-C while the plugin hangs exits 130 (it was 4, "may or may
		// not have reached the API server") and leaves no plugin process behind.
		marker := fmt.Sprintf("%d", 600+time.Now().UnixNano()%300)
		hangingMarked := exe("exec 2>/dev/null; sleep " + marker)
		cmd, errOut := pluginProcess(t, nil, "status", "ex", "-n", ns, "--kubeconfig", hangingMarked)
		if !waitUntil(20*time.Second, func() bool { return len(processesRunning("sleep "+marker)) > 0 }) {
			t.Errorf("the credential plugin never started")
		}
		_ = cmd.Process.Signal(syscall.SIGINT)
		if code := waitExit(t, cmd, 10*time.Second); code != 130 || !strings.Contains(errOut.String(), "nothing was sent") {
			t.Errorf("SIGINT while the plugin hangs: exit %d, want 130\n%s", code, errOut)
		}
		time.Sleep(500 * time.Millisecond)
		if left := processesRunning("sleep " + marker); len(left) > 0 {
			t.Errorf("the credential plugin outlived the command: %v", left)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL) // ours: started by this test
			}
		}
		assertUnchanged(t, ns, before)
	})

	// Item 7: a connection dropped or stalled on the way to the API server.
	t.Run("proxy-drop-and-stall", func(t *testing.T) {
		t.Parallel()
		ns := NewNamespace(t)
		cfg, err := clientcmd.LoadFromFile(env.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		server := currentCluster(cfg).Server
		hostport := strings.TrimPrefix(server, "https://")
		host, _, err := net.SplitHostPort(hostport)
		if err != nil {
			t.Fatal(err)
		}
		via := func(p *faultProxy) string {
			return writeKubeconfigVariant(t, func(c *clientcmdapi.Config) {
				currentCluster(c).Server = "https://" + p.ln.Addr().String()
				if net.ParseIP(host) == nil {
					currentCluster(c).TLSServerName = host
				}
			})
		}
		m, _, _ := createFiles(t, "px", 4, 2, nil)
		before := takeFaultState(t, ns)
		for _, tc := range []struct {
			name   string
			budget int64
			stall  bool
			wants  []string // one of them
		}{
			// client-go retries a GET whose connection was reset, until --request-timeout.
			{"drop at once", 0, false, []string{"cannot reach the API server", "connection reset by peer"}},
			// A POST whose connection was lost may have been carried out: never "cannot reach".
			{"drop mid-stream", 2500, false, []string{"the request may or may not have been carried out", `while trying to get`}},
			// Either the client's deadline passes first, or the API server's own (the request
			// carries ?timeout=3s) and it answers 504 with "may still be processing".
			{"stall", 2500, true, []string{"timed out while trying to", "may still be processing the request"}},
		} {
			p := startProxy(t, hostport, tc.budget, tc.stall)
			faultCases.Add(1)
			began := time.Now()
			r := Run(t, Cmd{Args: []string{"indexed", "create", "px", "-n", ns, "--manifest", m, "--image", "busybox:1.36", "--request-timeout", "3s"}, Kubeconfig: via(p), Timeout: 90 * time.Second})
			t.Logf("%s: exit %d after %s: %s", tc.name, r.ExitCode, time.Since(began).Round(100*time.Millisecond), firstLine(r.Stderr))
			if r.ExitCode != 4 {
				t.Errorf("%s: exit %d, want 4\n%s", tc.name, r.ExitCode, r)
			}
			found := false
			for _, w := range tc.wants {
				found = found || strings.Contains(r.Stderr, w)
			}
			if !found {
				t.Errorf("%s: lacks any of %q\n%s", tc.name, tc.wants, r)
			}
			if strings.Contains(r.Stderr, "Post ") && strings.Contains(r.Stderr, "cannot reach the API server") {
				t.Errorf("%s: a lost POST is blamed on an unreachable server:\n%s", tc.name, r)
			}
			if _, err := env.Client.BatchV1().Jobs(ns).Get(context.Background(), "px", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("%s: a Job exists after a failed create: %v", tc.name, err)
			}
		}
		// A ConfigMap may have been created before the drop; if so the message said so.
		after := takeFaultState(t, ns)
		for k := range after {
			if _, ok := before[k]; !ok && !strings.HasPrefix(k, "configmap/px-shards-") {
				t.Errorf("unexpected object %s", k)
			}
		}
	})

	// Item 7: concurrent creates of one Job name, same and different manifests.
	t.Run("concurrent-creates", func(t *testing.T) {
		t.Parallel()
		ns := NewNamespace(t)
		same, _, _ := createFiles(t, "cc", 6, 3, nil)
		other, _, _ := createFiles(t, "cc", 7, 3, nil)
		run := func(manifests ...string) []Result {
			out := make([]Result, len(manifests))
			var wg sync.WaitGroup
			for i, mf := range manifests {
				wg.Add(1)
				go func() {
					defer wg.Done()
					out[i] = indexed(t, "create", "race", "-n", ns, "--manifest", mf, "--image", "busybox:1.36")
				}()
			}
			wg.Wait()
			return out
		}
		judge := func(rs []Result) {
			t.Helper()
			winners := 0
			for _, r := range rs {
				switch r.ExitCode {
				case 0:
					winners++
				case 4:
					if !strings.Contains(r.Stderr, `job "race" already exists`) {
						t.Errorf("loser's message:\n%s", r)
					}
					if strings.Contains(r.Stderr, "nothing was created") && strings.Contains(r.Stderr, "left behind") {
						t.Errorf("loser says nothing was created and something was left behind:\n%s", r)
					}
				default:
					t.Errorf("exit %d:\n%s", r.ExitCode, r)
				}
			}
			if winners != 1 {
				t.Errorf("%d creates succeeded, want 1", winners)
			}
		}
		judge(run(same, same, same, same))
		st := takeFaultState(t, ns)
		if len(st) != 2 {
			t.Errorf("after 4 creates of one manifest: %v, want one Job and one ConfigMap", st.keys())
		}
		MustKubectl(t, "delete", "job", "race", "-n", ns, "--wait=true")
		judge(run(same, other))
	})

	// Items 6 and 7: a ConfigMap being deleted is not reused; --save-config over the limit,
	// a bad field manager and guards refuse before sending.
	t.Run("deleting-configmap-and-guards", func(t *testing.T) {
		t.Parallel()
		ns := NewNamespace(t)
		m, _, man := createFiles(t, "dc", 4, 2, nil)
		expect(t, indexed(t, "create", "dc1", "-n", ns, "--manifest", m, "--image", "busybox:1.36"), 0)
		cm := scaffold.ConfigMapName(man)
		MustKubectl(t, "patch", "configmap", cm, "-n", ns, "--type=merge", "-p", `{"metadata":{"finalizers":["example.com/hold"]}}`)
		t.Cleanup(func() {
			_, _ = env.Client.CoreV1().ConfigMaps(ns).Patch(context.Background(), cm, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		})
		MustKubectl(t, "delete", "configmap", cm, "-n", ns, "--wait=false")
		before := takeFaultState(t, ns)
		expect(t, indexed(t, "create", "dc2", "-n", ns, "--manifest", m, "--image", "busybox:1.36"), 4, "is being deleted", "kubectl wait --for=delete configmap/"+cm)
		big, _, _ := createFiles(t, "big", 25000, 4, nil)
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--manifest", big, "--save-config"}, "--save-config: the last-applied-configuration annotation"},
			{[]string{"--field-manager", "a\nb"}, "--field-manager"},
			{[]string{"--field-manager", strings.Repeat("f", 129)}, "--field-manager"},
			{[]string{"--active-deadline-seconds", "0"}, "--active-deadline-seconds must be at least 1"},
			{[]string{"--ttl-seconds-after-finished", "0"}, "--ttl-seconds-after-finished must be at least 1"},
			{[]string{"--invalid-input-exit-code", "137"}, "128+9"},
		} {
			args := append([]string{"create", "g", "-n", ns, "--manifest", m, "--image", "busybox:1.36"}, tc.args...)
			expect(t, indexed(t, args...), 2, tc.want)
		}
		assertUnchanged(t, ns, before)
	})

	// Item 9: a status written by another controller that contradicts itself.
	t.Run("managed-by-contradiction", func(t *testing.T) {
		t.Parallel()
		ns := NewNamespace(t)
		CreateJob(t, ns, "apiVersion: batch/v1\nkind: Job\nmetadata: {name: ext}\nspec:\n  managedBy: example.com/other\n  completionMode: Indexed\n  completions: 4\n  parallelism: 4\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: worker, image: busybox:1.36}]\n")
		now := time.Now().UTC().Format(time.RFC3339)
		patch := fmt.Sprintf(`{"status":{"startTime":%q,"completionTime":%q,"completedIndexes":"0-2","succeeded":3,"conditions":[`+
			`{"type":"SuccessCriteriaMet","status":"True","reason":"CompletionsReached","lastTransitionTime":%q},`+
			`{"type":"Complete","status":"True","reason":"CompletionsReached","lastTransitionTime":%q}]}}`, now, now, now, now)
		faultCases.Add(1)
		pr := Kubectl(t, "patch", "job", "ext", "-n", ns, "--subresource=status", "--type=merge", "-p", patch)
		if pr.ExitCode != 0 {
			// The API server refuses such a status itself: then nothing can show it.
			t.Logf("the API server refused the contradictory status: %s", firstLine(pr.Stderr))
			return
		}
		expect(t, indexed(t, "status", "ext", "-n", ns), 0, "status contradicts itself", `written by "example.com/other" (spec.managedBy)`)
	})

	// Item 10: a Job deleted, then created again under the same name, while status --watch
	// follows it ends the watch with a clear message, never showing the new Job with the old
	// one's pods. (The same check on the path after a 410 Expired, which a real API server
	// cannot be made to send on demand, is a unit test with client-go's fake watchers:
	// pkg/cmd/status/watch_test.go.)
	t.Run("watch-job-deleted-and-recreated", func(t *testing.T) {
		t.Parallel()
		ns := NewNamespace(t)
		const manifest = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: w}\nspec:\n  suspend: true\n  completionMode: Indexed\n  completions: 2\n  parallelism: 2\n  backoffLimitPerIndex: 1\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: worker, image: busybox:1.36}]\n"
		CreateJob(t, ns, manifest)
		before := GetJob(t, ns, "w")
		done := make(chan Result, 1)
		go func() { done <- indexed(t, "status", "w", "-n", ns, "--watch") }()
		// The first line is printed once both watches run; then the Job goes and comes back.
		time.Sleep(3 * time.Second)
		MustKubectl(t, "delete", "job", "w", "-n", ns, "--wait=true")
		CreateJob(t, ns, manifest)
		select {
		case r := <-done:
			expect(t, r, 4, `job "w" in namespace "`+ns+`" was deleted`)
			// Off a terminal its first state is one line; nothing after the Job was deleted.
			if strings.Count(r.Stdout, "Job:") != 0 || strings.Count(r.Stdout, "\n") != 1 {
				t.Errorf("the watch printed more than its first line after the Job was deleted:\n%s", r)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("status --watch did not end when its Job was deleted and created again")
		}
		if after := GetJob(t, ns, "w"); after.UID == before.UID {
			t.Errorf("the Job was not re-created")
		}
	})
}

// planCommands are the commands of a diff report (-o json).
func planCommands(t *testing.T, out string) []string {
	t.Helper()
	var rep jobdiff.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var cmds []string
	for _, s := range rep.Plan {
		cmds = append(cmds, s.Commands...)
	}
	return cmds
}

// processesRunning lists the processes whose command line is exactly cmdline (words joined by
// spaces), read from /proc; zombies are not running.
func processesRunning(cmdline string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ") != cmdline {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			s := string(st)
			if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		out = append(out, pid)
	}
	return out
}
