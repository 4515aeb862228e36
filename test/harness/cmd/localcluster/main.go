// Command localcluster starts and stops the project's test control plane for a developer or a
// user trying the plugin: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok,
// from the binaries test/cluster/build.sh builds (`make cluster-bins`).
//
//	localcluster up   [--dir DIR] [--bin-dir BIN] [--timeout 3m] [--kueue]
//	localcluster down [--dir DIR]
//
// up starts the cluster detached, writes DIR/kubeconfig (admin), DIR/kubeconfig-viewer (a user
// who may only read Jobs and Pods in namespace indexed-viewer) and DIR/state.json, and returns
// once the cluster is ready; with --kueue it also installs Kueue's CRDs and starts the Kueue
// controller manager (test/cluster/build-kueue.sh, `make cluster-up INDEXED_KUEUE=1`). down
// stops every recorded process and removes everything in DIR except DIR/logs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

const usage = `usage:
  localcluster up   [--dir DIR] [--bin-dir BIN] [--timeout DURATION] [--kueue]
  localcluster down [--dir DIR]
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "localcluster: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprint(os.Stderr, usage)
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"missing command (up or down)"}
	}
	cmd, rest := args[0], args[1:]
	fs := flag.NewFlagSet("localcluster "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", ".cluster", "directory for the cluster's data, kubeconfigs, state and logs")
	binDir := fs.String("bin-dir", harness.DefaultBinDir(), "directory with the control-plane binaries (make cluster-bins)")
	timeout := fs.Duration("timeout", 3*time.Minute, "how long up waits for the cluster to be ready")
	kueue := fs.Bool("kueue", false, "also start the Kueue controller manager (make kueue-bins)")
	if err := fs.Parse(rest); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected arguments: %v", fs.Args())}
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	switch cmd {
	case "up":
		return up(abs, *binDir, *timeout, *kueue, stdout, stderr)
	case "down":
		if err := harness.Down(abs, 10*time.Second); err != nil {
			return fmt.Errorf("stopping the cluster in %s: %w", abs, err)
		}
		_, err := fmt.Fprintf(stdout, "cluster in %s stopped; logs kept in %s\n", abs, filepath.Join(abs, "logs"))
		return err
	default:
		return usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
}

func up(dir, binDir string, timeout time.Duration, kueue bool, stdout, stderr io.Writer) error {
	if kueue {
		if err := harness.CheckKueue(binDir); err != nil {
			return err
		}
	}
	if st, err := harness.ReadState(dir); err == nil {
		if st.Alive() {
			return fmt.Errorf("a cluster is already running in %s (server %s); stop it with `make cluster-down` (localcluster down --dir %s) first", dir, st.Server, dir)
		}
		// Left behind by a cluster whose processes are gone (machine restart, kill -9).
		_, _ = fmt.Fprintf(stderr, "localcluster: removing the stale cluster recorded in %s\n", dir)
		if err := harness.Down(dir, time.Second); err != nil {
			return fmt.Errorf("cleaning the stale cluster in %s: %w", dir, err)
		}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	defer cancelTimeout()

	began := time.Now()
	c, err := harness.Start(ctx, harness.Options{
		BinDir:      binDir,
		Dir:         dir,
		Detached:    true,
		ContextName: "kubectl-indexed-local",
		Log:         stderr,
	})
	if err != nil {
		return err
	}
	if kueue {
		if err := c.StartKueue(ctx); err != nil {
			_ = c.Stop()
			return err
		}
	}
	pids := c.Pids()
	var b strings.Builder
	fmt.Fprintf(&b, "cluster ready in %s: kubernetes %s at %s\n", time.Since(began).Round(100*time.Millisecond), harness.KubernetesVersion, c.Server)
	fmt.Fprintf(&b, "  processes: etcd %d, kube-apiserver %d, kube-controller-manager %d, kube-scheduler %d, kwok %d\n",
		pids["etcd"], pids["kube-apiserver"], pids["kube-controller-manager"], pids["kube-scheduler"], pids["kwok"])
	if kueue {
		fmt.Fprintf(&b, "  kueue:     %s, pid %d (Jobs join a queue created suspended with the kueue.x-k8s.io/queue-name label)\n", harness.KueueVersion, pids["kueue"])
	}
	fmt.Fprintf(&b, "  logs:      %s\n", c.LogDir)
	fmt.Fprintf(&b, "  admin:     export KUBECONFIG=%s\n", c.Kubeconfig)
	fmt.Fprintf(&b, "  viewer:    %s (reads jobs and pods in namespace %s only)\n", c.ViewerKubeconfig, harness.ViewerNamespace)
	fmt.Fprintf(&b, "  kubectl:   %s\n", filepath.Join(c.BinDir, "kubectl"))
	b.WriteString("stop it with: make cluster-down\n")
	_, err = io.WriteString(stdout, b.String())
	return err
}
