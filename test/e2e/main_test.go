//go:build e2e

// Package e2e runs the built kubectl-indexed through the real kubectl (v1.37.2, from the
// cluster binary cache) against a real control plane started by test/harness: etcd,
// kube-apiserver, kube-controller-manager (Job controller), kube-scheduler and kwok.
//
//	go test -tags e2e -count=1 -timeout 40m ./test/e2e/...     (make e2e)
//
// Environment:
//
//	E2E_KUBECONFIG=path   use an already running cluster (make cluster-up) instead of starting one
//	E2E_KEEP=1            keep the work directory (plugin binary, logs) even when every test passes
//	E2E_SKIP_BUILD=1      do not run test/cluster/build.sh; only check that the binaries exist
//	INDEXED_CLUSTER_BIN   where the control-plane binaries are (see test/cluster/build.sh)
package e2e

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// Env is what TestMain set up; every helper reads it.
type Env struct {
	// RepoRoot is the root of the main module.
	RepoRoot string
	// WorkDir holds the plugin binaries, kubectl's cache and the cluster logs.
	WorkDir string
	// ClusterBinDir holds kubectl v1.37.2 and the control-plane binaries.
	ClusterBinDir string
	// PluginDir holds kubectl-indexed (first on PATH); PluginErr is why it could not be built.
	PluginDir string
	PluginErr error
	// Cluster is nil when E2E_KUBECONFIG points at an external cluster.
	Cluster *harness.Cluster
	// Kubeconfig is the admin kubeconfig (also $KUBECONFIG); ViewerKubeconfig the limited user's
	// (empty for an external cluster that has none).
	Kubeconfig       string
	ViewerKubeconfig string
	Client           kubernetes.Interface
}

var env Env

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	began := time.Now()
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 2
	}
	env.RepoRoot = root
	work, err := os.MkdirTemp("", workDirPrefix)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 2
	}
	env.WorkDir = work
	keep := os.Getenv("E2E_KEEP") != ""
	markOwner(work)
	trimStaleWorkDirs(work)

	// 1. The plugin, built from this checkout. A broken build fails the plugin tests, not the
	//    cluster scenarios.
	env.PluginDir = filepath.Join(work, "bin")
	env.PluginErr = buildPlugin(root, env.PluginDir)
	if env.PluginErr != nil {
		fmt.Fprintf(os.Stderr, "e2e: WARNING: %v\n", env.PluginErr)
	}

	// 2. The control-plane binaries (a no-op when the cache is up to date).
	env.ClusterBinDir = harness.DefaultBinDir()
	if err := ensureClusterBinaries(root, env.ClusterBinDir); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 2
	}

	// 3. PATH: kubectl-indexed, then kubectl v1.37.2, then the rest. kubectl's plugin discovery
	//    finds kubectl-indexed on this PATH exactly as a user's kubectl would.
	path := env.PluginDir + string(os.PathListSeparator) + env.ClusterBinDir + string(os.PathListSeparator) + os.Getenv("PATH")
	if err := setenv("PATH", path, "KUBECACHEDIR", filepath.Join(work, "kube-cache")); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 2
	}
	if err := checkKubectl(env.ClusterBinDir); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 2
	}

	// 4. The cluster.
	if kc := os.Getenv("E2E_KUBECONFIG"); kc != "" {
		env.Kubeconfig = kc
		// A cluster from `make cluster-up` has the limited user's kubeconfig beside the admin's.
		if viewer := filepath.Join(filepath.Dir(kc), "kubeconfig-viewer"); fileExists(viewer) {
			env.ViewerKubeconfig = viewer
		}
		fmt.Fprintf(os.Stderr, "e2e: using the cluster of E2E_KUBECONFIG=%s\n", kc)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		c, err := harness.Start(ctx, harness.Options{
			BinDir:        env.ClusterBinDir,
			LogDir:        filepath.Join(work, "cluster-logs"),
			HandleSignals: true,
			ContextName:   "kubectl-indexed-e2e",
			Log:           os.Stderr,
		})
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "e2e: starting the cluster: %v\n", err)
			return 2
		}
		env.Cluster = c
		env.Kubeconfig = c.Kubeconfig
		env.ViewerKubeconfig = c.ViewerKubeconfig
		fmt.Fprintf(os.Stderr, "e2e: cluster %s ready in %s (logs in %s)\n", c.Server, time.Since(began).Round(100*time.Millisecond), c.LogDir)
	}
	if err := setenv("KUBECONFIG", env.Kubeconfig); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		stopCluster(false)
		return 2
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", env.Kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: reading %s: %v\n", env.Kubeconfig, err)
		stopCluster(false)
		return 2
	}
	cfg.QPS, cfg.Burst = 50, 100
	env.Client, err = kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		stopCluster(false)
		return 2
	}

	code := m.Run()

	if code != 0 && env.Cluster != nil {
		fmt.Fprintf(os.Stderr, "e2e: tests failed; component logs are kept in %s\n%s", env.Cluster.LogDir, env.Cluster.LogTail(15))
	}
	stopCluster(code != 0 || keep)
	switch {
	case keep:
		fmt.Fprintf(os.Stderr, "e2e: work directory kept: %s\n", work)
	case code != 0:
		// Keep the logs only; the plugin binary and kubectl's cache are large and rebuilt anyway.
		_ = os.RemoveAll(env.PluginDir)
		_ = os.RemoveAll(filepath.Join(work, "kube-cache"))
		fmt.Fprintf(os.Stderr, "e2e: work directory kept: %s\n", work)
	default:
		_ = os.RemoveAll(work)
	}
	return code
}

func stopCluster(keepLogs bool) {
	if env.Cluster == nil {
		return
	}
	if err := env.Cluster.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: stopping the cluster: %v\n", err)
	}
	if !keepLogs {
		_ = os.RemoveAll(env.Cluster.LogDir)
	}
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.Contains(data, []byte("module github.com/kubectl-indexed/kubectl-indexed\n")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of github.com/kubectl-indexed/kubectl-indexed above %s", dir)
		}
	}
}

// buildPlugin builds ./cmd/kubectl-indexed (and ./cmd/kubectl_complete-indexed if present).
func buildPlugin(root, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var errs []string
	for _, name := range []string{"kubectl-indexed", "kubectl_complete-indexed"} {
		pkg := "./cmd/" + name
		if _, err := os.Stat(filepath.Join(root, "cmd", name)); err != nil {
			if name == "kubectl-indexed" {
				errs = append(errs, fmt.Sprintf("%s does not exist", pkg))
			}
			continue
		}
		// As the release builds it (.goreleaser.yaml): the binary users get, and on linux/amd64
		// the same compiled packages, which `make check` then reuses in its release build.
		cmd := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(out, name), pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if outp, err := cmd.CombinedOutput(); err != nil {
			errs = append(errs, fmt.Sprintf("go build %s: %v\n%s", pkg, err, outp))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("building the plugin: %s", strings.Join(errs, "; "))
	}
	return nil
}

func ensureClusterBinaries(root, binDir string) error {
	if os.Getenv("E2E_SKIP_BUILD") == "" {
		script := filepath.Join(root, "test", "cluster", "build.sh")
		cmd := exec.Command("bash", script)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		cmd.Env = append(os.Environ(), "INDEXED_CLUSTER_BIN="+binDir)
		began := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("test/cluster/build.sh failed (%v); run `make cluster-bins` to see why", err)
		}
		if d := time.Since(began); d > 10*time.Second {
			fmt.Fprintf(os.Stderr, "e2e: cluster binaries built in %s\n", d.Round(time.Second))
		}
	}
	return harness.CheckBinaries(binDir)
}

// checkKubectl makes sure the kubectl first on PATH is the cache's v1.37.2, not the machine's.
func checkKubectl(binDir string) error {
	path, err := exec.LookPath("kubectl")
	if err != nil {
		return fmt.Errorf("kubectl not on PATH: %w", err)
	}
	if filepath.Dir(path) != binDir {
		return fmt.Errorf("kubectl on PATH is %s, want the one in %s", path, binDir)
	}
	out, err := exec.Command(path, "version", "--client", "-o", "json").Output()
	if err != nil {
		return fmt.Errorf("%s version: %w", path, err)
	}
	if !bytes.Contains(out, []byte(`"gitVersion": "`+harness.KubernetesVersion+`"`)) {
		return fmt.Errorf("%s is not %s:\n%s", path, harness.KubernetesVersion, out)
	}
	return nil
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

const workDirPrefix = "kubectl-indexed-e2e-"

// markOwner records this process in dir/owner so a later run can tell the directory is stale.
func markOwner(dir string) {
	start, err := harness.ProcessStartTime(os.Getpid())
	if err != nil {
		return
	}
	_ = os.WriteFile(filepath.Join(dir, "owner"), []byte(fmt.Sprintf("%d %d\n", os.Getpid(), start)), 0o644)
}

// trimStaleWorkDirs removes the large parts (plugin binary, kubectl cache) of work directories
// left by runs that were killed; their logs stay for post-mortems.
func trimStaleWorkDirs(except string) {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), workDirPrefix+"*"))
	for _, dir := range matches {
		if dir == except {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "owner"))
		if err != nil {
			continue
		}
		var pid int
		var start uint64
		if _, err := fmt.Sscanf(string(data), "%d %d", &pid, &start); err != nil || harness.ProcessAlive(pid, start) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(dir, "bin"))
		_ = os.RemoveAll(filepath.Join(dir, "kube-cache"))
	}
}

// setenv sets KEY, VALUE pairs in this process's environment.
func setenv(kv ...string) error {
	for i := 0; i+1 < len(kv); i += 2 {
		if err := os.Setenv(kv[i], kv[i+1]); err != nil {
			return fmt.Errorf("setting %s: %w", kv[i], err)
		}
	}
	return nil
}
