// Package harness starts a real Kubernetes control plane for the project's tests: etcd,
// kube-apiserver, kube-controller-manager (with the Job controller), kube-scheduler and kwok
// standing in for kubelets, all built by test/cluster/build.sh from pinned versions.
//
// Pods of Jobs run and end according to scenario annotations on the Job's pod template (see
// test/README.md and stages.yaml). The package only depends on client-go and apimachinery, so it
// lives in the main module without pulling in k8s.io/kubernetes.
package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/version"
)

// Versions of the pinned components (test/cluster/go.mod, test/cluster/etcd/go.mod,
// test/cluster/kwok/go.mod). A unit test keeps these in step with the go.mod files.
const (
	KubernetesVersion = "v" + version.Kubernetes
	EtcdVersion       = "v3.6.16"
	KwokVersion       = "v0.8.0"
)

// Users in the static token file.
const (
	// AdminUser is in system:masters.
	AdminUser = "admin"
	// ViewerUser may only get, list and watch Jobs and Pods in ViewerNamespace.
	ViewerUser = "viewer"
	// ViewerNamespace is the one namespace ViewerUser can read.
	ViewerNamespace = "indexed-viewer"
	// NodeName is the kwok node every pod is scheduled to.
	NodeName = "kwok-node-0"
)

// tempDirPrefix names the temporary directories of clusters started without Options.Dir.
const tempDirPrefix = "kubectl-indexed-cluster-"

// Components, in start order.
var components = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "kueue"}

// Binaries returns the file names the harness needs in the bin directory.
func Binaries() []string {
	return []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "kubectl"}
}

// DefaultBinDir is where test/cluster/build.sh puts the binaries:
// $INDEXED_CLUSTER_BIN, else ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-indexed/cluster/<version>/bin.
func DefaultBinDir() string {
	if d := os.Getenv("INDEXED_CLUSTER_BIN"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			home = os.TempDir()
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "kubectl-indexed", "cluster", KubernetesVersion, "bin")
}

// CheckBinaries returns an error naming every binary missing from dir, and how to build them.
func CheckBinaries(dir string) error {
	var missing []string
	for _, b := range Binaries() {
		st, err := os.Stat(filepath.Join(dir, b))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("control-plane binaries missing in %s: %s; build them with `make cluster-bins` "+
			"(test/cluster/build.sh), or point INDEXED_CLUSTER_BIN at a directory that has them",
			dir, strings.Join(missing, ", "))
	}
	return nil
}

// Options configures Start.
type Options struct {
	// BinDir holds the binaries; default DefaultBinDir().
	BinDir string
	// Dir holds data, certificates, kubeconfigs and the state file. Default: a new temporary
	// directory. Stop removes everything in it except LogDir.
	Dir string
	// LogDir receives one <component>.log per component; default Dir/logs. Never removed by Stop.
	LogDir string
	// Detached starts the components in their own sessions without a parent-death signal, so
	// they outlive this process (localcluster up). Default: they die with this process.
	Detached bool
	// HandleSignals stops the cluster on SIGINT/SIGTERM and then re-raises the signal.
	HandleSignals bool
	// SkipProbe skips the end-to-end probe Job run at the end of Start.
	SkipProbe bool
	// ContextName names the cluster, user and context in the kubeconfigs; default "kubectl-indexed".
	ContextName string
	// Log receives progress lines; default io.Discard.
	Log io.Writer
	// ControllerManagerFlags are added to kube-controller-manager's, after those of
	// INDEXED_CONTROLLER_MANAGER_FLAGS (a test that needs, say, a lower
	// --terminated-pod-gc-threshold on a control plane of its own).
	ControllerManagerFlags []string
}

// Cluster is a running control plane.
type Cluster struct {
	// Dir is the working directory (see Options.Dir).
	Dir string
	// LogDir holds the component logs.
	LogDir string
	// BinDir holds the binaries the cluster runs, kubectl included.
	BinDir string
	// Server is the API server URL (https://127.0.0.1:PORT).
	Server string
	// Kubeconfig is an admin (system:masters) kubeconfig.
	Kubeconfig string
	// ViewerKubeconfig is a kubeconfig for ViewerUser.
	ViewerKubeconfig string
	// Config is the admin REST config; Client an admin clientset.
	Config *rest.Config
	Client kubernetes.Interface

	opts     Options
	pki      *pki
	spawner  *spawner
	mu       sync.Mutex
	procs    []*process
	stopOnce sync.Once
	stopErr  error
	sigStop  chan struct{}
	ownDir   bool
	log      io.Writer
}

// Start starts a control plane and returns once it is ready: API server /readyz ok, the node
// Ready and schedulable, the default service account present, and (unless SkipProbe) a probe
// Job run to completion by the Job controller on kwok. On error everything started is stopped.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.BinDir == "" {
		opts.BinDir = DefaultBinDir()
	}
	if opts.ContextName == "" {
		opts.ContextName = "kubectl-indexed"
	}
	c := &Cluster{opts: opts, BinDir: opts.BinDir, log: opts.Log}
	if c.log == nil {
		c.log = io.Discard
	}
	if err := CheckBinaries(opts.BinDir); err != nil {
		return nil, err
	}
	if opts.Dir == "" {
		d, err := os.MkdirTemp("", tempDirPrefix)
		if err != nil {
			return nil, err
		}
		opts.Dir = d
		c.ownDir = true
		removeStaleTempDirs(d)
	}
	abs, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	c.Dir = abs
	c.LogDir = opts.LogDir
	if c.LogDir == "" {
		c.LogDir = filepath.Join(c.Dir, "logs")
	}
	if c.LogDir, err = filepath.Abs(c.LogDir); err != nil {
		return nil, err
	}
	for _, d := range []string{c.Dir, c.LogDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if !opts.Detached {
		c.spawner = newSpawner()
	}
	if opts.HandleSignals {
		c.handleSignals()
	}
	if err := c.start(ctx); err != nil {
		tail := c.LogTail(30)
		_ = c.Stop()
		return nil, fmt.Errorf("%w\ncomponent logs in %s\n%s", err, c.LogDir, tail)
	}
	return c, nil
}

func (c *Cluster) logf(format string, args ...any) {
	_, _ = fmt.Fprintf(c.log, "harness: "+format+"\n", args...)
}

func (c *Cluster) start(ctx context.Context) error {
	began := time.Now()
	p, err := writePKI(filepath.Join(c.Dir, "pki"))
	if err != nil {
		return fmt.Errorf("writing certificates: %w", err)
	}
	c.pki = p
	stagesPath := filepath.Join(c.Dir, "stages.yaml")
	if err := os.WriteFile(stagesPath, Stages(), 0o644); err != nil {
		return err
	}

	// etcd, retried with new ports if another process grabbed one between choice and bind.
	var etcdURL string
	for attempt := 1; ; attempt++ {
		ports, err := freePorts(2)
		if err != nil {
			return err
		}
		etcdURL = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
		peerURL := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
		dataDir := filepath.Join(c.Dir, "etcd")
		_ = os.RemoveAll(dataDir)
		proc, err := c.spawn("etcd", []string{
			"--name=default",
			"--data-dir=" + dataDir,
			"--listen-client-urls=" + etcdURL,
			"--advertise-client-urls=" + etcdURL,
			"--listen-peer-urls=" + peerURL,
			"--initial-advertise-peer-urls=" + peerURL,
			"--initial-cluster=default=" + peerURL,
			"--unsafe-no-fsync=true",
			"--quota-backend-bytes=2147483648",
			"--log-level=warn",
		})
		if err != nil {
			return err
		}
		err = c.waitHTTP(ctx, proc, etcdURL+"/health", nil, `"health":"true"`, 30*time.Second)
		if err == nil {
			break
		}
		if attempt < 3 && logContains(proc.LogPath, "address already in use") {
			c.logf("etcd port taken, retrying")
			c.removeProc(proc)
			continue
		}
		return fmt.Errorf("etcd did not become healthy: %w", err)
	}
	c.logf("etcd ready at %s (%s)", etcdURL, time.Since(began).Round(time.Millisecond))

	for attempt := 1; ; attempt++ {
		ports, err := freePorts(1)
		if err != nil {
			return err
		}
		c.Server = fmt.Sprintf("https://127.0.0.1:%d", ports[0])
		proc, err := c.spawn("kube-apiserver", []string{
			"--etcd-servers=" + etcdURL,
			"--bind-address=127.0.0.1",
			"--advertise-address=127.0.0.1",
			"--secure-port=" + strconv.Itoa(ports[0]),
			"--cert-dir=" + filepath.Join(c.Dir, "pki"),
			"--tls-cert-file=" + c.pki.ServingCert,
			"--tls-private-key-file=" + c.pki.ServingKey,
			"--client-ca-file=" + c.pki.CAFile,
			"--token-auth-file=" + c.pki.TokenFile,
			"--authorization-mode=RBAC",
			"--service-account-issuer=https://kubernetes.default.svc",
			"--service-account-key-file=" + c.pki.SAPublicKey,
			"--service-account-signing-key-file=" + c.pki.SAPrivateKey,
			"--service-cluster-ip-range=10.96.0.0/16",
			"--endpoint-reconciler-type=none",
			// kwok serves the kubelet API (container logs) at the node's InternalIP; the node
			// also has a Hostname address (kwok-node-0) that does not resolve.
			"--kubelet-preferred-address-types=InternalIP",
			"--profiling=false",
		})
		if err != nil {
			return err
		}
		hdr := http.Header{"Authorization": []string{"Bearer " + c.pki.AdminToken}}
		err = c.waitHTTP(ctx, proc, c.Server+"/readyz", hdr, "ok", 90*time.Second)
		if err == nil {
			break
		}
		if attempt < 3 && logContains(proc.LogPath, "address already in use") {
			c.logf("kube-apiserver port taken, retrying")
			c.removeProc(proc)
			continue
		}
		return fmt.Errorf("kube-apiserver did not become ready: %w", err)
	}
	c.logf("kube-apiserver ready at %s (%s)", c.Server, time.Since(began).Round(time.Millisecond))

	c.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	c.ViewerKubeconfig = filepath.Join(c.Dir, "kubeconfig-viewer")
	componentKubeconfig := filepath.Join(c.Dir, "pki", "kubeconfig-control-plane")
	for _, kc := range []struct{ path, user, token, ns string }{
		{c.Kubeconfig, AdminUser, c.pki.AdminToken, "default"},
		{c.ViewerKubeconfig, ViewerUser, c.pki.ViewerToken, ViewerNamespace},
		{componentKubeconfig, "control-plane", c.pki.ComponentToken, "default"},
	} {
		if err := writeKubeconfig(kc.path, c.opts.ContextName, c.Server, c.pki.CAData, kc.user, kc.token, kc.ns); err != nil {
			return err
		}
	}
	c.Config = &rest.Config{
		Host:            c.Server,
		BearerToken:     c.pki.AdminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.pki.CAData},
		QPS:             50,
		Burst:           100,
	}
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	c.Client = cs

	// INDEXED_CONTROLLER_MANAGER_FLAGS adds flags (split at spaces) for a benchmark that needs
	// another client rate or pod GC threshold than the defaults the tests run with.
	if _, err := c.spawn("kube-controller-manager", append([]string{
		"--kubeconfig=" + componentKubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--controllers=job-controller,garbage-collector-controller,namespace-controller," +
			"serviceaccount-controller,ttl-after-finished-controller,pod-garbage-collector-controller",
		"--service-account-private-key-file=" + c.pki.SAPrivateKey,
		"--use-service-account-credentials=false",
		"--root-ca-file=" + c.pki.CAFile,
		"--v=2",
	}, append(strings.Fields(os.Getenv("INDEXED_CONTROLLER_MANAGER_FLAGS")), c.opts.ControllerManagerFlags...)...)); err != nil {
		return err
	}
	// INDEXED_SCHEDULER_FLAGS does the same for the scheduler, whose client rate (50 requests
	// per second, a bind and an event per pod) bounds how fast a Job of thousands of pods starts.
	if _, err := c.spawn("kube-scheduler", append([]string{
		"--kubeconfig=" + componentKubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
	}, strings.Fields(os.Getenv("INDEXED_SCHEDULER_FLAGS"))...)); err != nil {
		return err
	}
	if err := c.startKwok(ctx); err != nil {
		return err
	}

	if err := c.createNode(ctx); err != nil {
		return err
	}
	c.logf("node %s ready and schedulable (%s)", NodeName, time.Since(began).Round(time.Millisecond))
	if err := c.waitServiceAccount(ctx, "default", 60*time.Second); err != nil {
		return err
	}
	if err := c.setupViewer(ctx); err != nil {
		return err
	}
	if !c.opts.SkipProbe {
		if err := c.probe(ctx); err != nil {
			return err
		}
		c.logf("probe Job completed (%s)", time.Since(began).Round(time.Millisecond))
	}
	return c.Healthy()
}

// spawn starts a component from BinDir and records it (and the state file).
func (c *Cluster) spawn(name string, args []string) (*process, error) {
	path := filepath.Join(c.BinDir, name)
	env := append(os.Environ(), "GOTRACEBACK=all")
	p, err := startProcess(c.spawner, name, path, args, filepath.Join(c.LogDir, name+".log"), c.opts.Detached, env)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	if err := c.writeState(); err != nil {
		return p, err
	}
	return p, nil
}

func (c *Cluster) removeProc(p *process) {
	p.stopGroup(5 * time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, q := range c.procs {
		if q == p {
			c.procs = append(c.procs[:i], c.procs[i+1:]...)
			break
		}
	}
}

// Healthy returns an error if any component has exited.
func (c *Cluster) Healthy() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, p := range c.procs {
		if exited, err := p.exitedErr(); exited {
			errs = append(errs, fmt.Errorf("%s (pid %d) exited: %v; log: %s", p.Name, p.pid, err, p.LogPath))
		}
	}
	return errors.Join(errs...)
}

// Pids returns the pid of each running component by name.
func (c *Cluster) Pids() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := map[string]int{}
	for _, p := range c.procs {
		m[p.Name] = p.pid
	}
	return m
}

// LogTail returns the last n lines of every component log, each under a header.
func (c *Cluster) LogTail(n int) string {
	var b strings.Builder
	for _, name := range components {
		path := filepath.Join(c.LogDir, name+".log")
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > n {
			lines = lines[len(lines)-n:]
		}
		fmt.Fprintf(&b, "==> %s (last %d lines) <==\n%s\n", path, len(lines), strings.Join(lines, "\n"))
	}
	return b.String()
}

// Stop stops every component (SIGTERM to each process group, SIGKILL after a grace period) and
// removes the working directory except LogDir. It is safe to call more than once.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		c.mu.Lock()
		procs := append([]*process(nil), c.procs...)
		c.mu.Unlock()
		// Clients first (kwok, scheduler, controller manager), then the API server, then etcd.
		byName := map[string][]*process{}
		for _, p := range procs {
			byName[p.Name] = append(byName[p.Name], p)
		}
		stopAll := func(names ...string) {
			var wg sync.WaitGroup
			for _, n := range names {
				for _, p := range byName[n] {
					wg.Add(1)
					go func() { defer wg.Done(); p.stopGroup(10 * time.Second) }()
				}
			}
			wg.Wait()
		}
		stopAll("kueue", "kwok", "kube-scheduler", "kube-controller-manager")
		stopAll("kube-apiserver")
		stopAll("etcd")
		if c.spawner != nil {
			c.spawner.close()
		}
		if c.sigStop != nil {
			close(c.sigStop)
		}
		c.stopErr = c.removeData()
	})
	return c.stopErr
}

// removeData removes Dir, keeping LogDir if it is inside Dir.
func (c *Cluster) removeData() error {
	if c.Dir == "" {
		return nil
	}
	keep := topEntryInside(c.Dir, c.LogDir)
	if keep == "" && c.ownDir {
		return os.RemoveAll(c.Dir)
	}
	return removeContents(c.Dir, keep)
}

// topEntryInside returns the first path element of sub relative to dir when sub lies strictly
// inside dir ("logs" for dir/logs/x), else "".
func topEntryInside(dir, sub string) string {
	rel, err := filepath.Rel(dir, sub)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return strings.Split(rel, string(filepath.Separator))[0]
}

func removeContents(dir, keep string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	var errs []error
	for _, e := range entries {
		if keep != "" && e.Name() == keep {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (c *Cluster) handleSignals() {
	c.sigStop = make(chan struct{})
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		defer signal.Stop(ch)
		select {
		case sig := <-ch:
			fmt.Fprintf(os.Stderr, "harness: %v received, stopping the cluster (logs in %s)\n", sig, c.LogDir)
			_ = c.Stop()
			signal.Reset(sig)
			if s, ok := sig.(syscall.Signal); ok {
				_ = syscall.Kill(os.Getpid(), s)
			}
		case <-c.sigStop:
		}
	}()
}

// waitHTTP polls url until the body contains want, the process exits, or timeout passes.
func (c *Cluster) waitHTTP(ctx context.Context, proc *process, url string, hdr http.Header, want string, timeout time.Duration) error {
	client := &http.Client{Timeout: 5 * time.Second}
	if strings.HasPrefix(url, "https://") {
		tr, err := rest.TransportFor(&rest.Config{TLSClientConfig: rest.TLSClientConfig{CAData: c.pki.CAData}})
		if err != nil {
			return err
		}
		client.Transport = tr
	}
	var last string
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if exited, err := proc.exitedErr(); exited {
			return false, fmt.Errorf("%s exited: %v", proc.Name, err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		for k, v := range hdr {
			req.Header[k] = v
		}
		resp, err := client.Do(req)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
		return resp.StatusCode == http.StatusOK && strings.Contains(string(body), want), nil
	})
	if err != nil {
		if last != "" {
			return fmt.Errorf("%w (last answer from %s: %s)", err, url, textwrap.Truncate(last, 500, "..."))
		}
		return err
	}
	return nil
}

func (c *Cluster) createNode(ctx context.Context) error {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: NodeName,
			Labels: map[string]string{
				"kubernetes.io/hostname": NodeName,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"type":                   "kwok",
			},
			Annotations: map[string]string{
				"node.alpha.kubernetes.io/ttl": "0",
				"kwok.x-k8s.io/node":           "fake",
			},
		},
	}
	if _, err := c.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating node %s: %w", NodeName, err)
	}
	// kwok marks the node Ready; the API server's admission added the not-ready NoSchedule
	// taint and no node-lifecycle controller runs to remove it, so remove it here.
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	err := wait.PollUntilContextCancel(wctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := c.Healthy(); err != nil {
			return false, err
		}
		n, err := c.Client.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("node %s did not become Ready (kwok): %w", NodeName, err)
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := c.Client.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var keep []corev1.Taint
		for _, t := range n.Spec.Taints {
			if t.Key != "node.kubernetes.io/not-ready" {
				keep = append(keep, t)
			}
		}
		if len(keep) == len(n.Spec.Taints) {
			return nil
		}
		n.Spec.Taints = keep
		_, err = c.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
}

func (c *Cluster) waitServiceAccount(ctx context.Context, ns string, timeout time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := wait.PollUntilContextCancel(wctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := c.Healthy(); err != nil {
			return false, err
		}
		_, err := c.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("service account default/%s not created (serviceaccount controller): %w", ns, err)
	}
	return nil
}

// CreateNamespace creates namespace name (labels optional) and waits for its default service
// account, without which the API server rejects pods.
func (c *Cluster) CreateNamespace(ctx context.Context, name string, labels map[string]string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if _, err := c.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %q: %w", name, err)
	}
	return c.waitServiceAccount(ctx, name, 60*time.Second)
}

// setupViewer gives ViewerUser get/list/watch on Jobs and Pods in ViewerNamespace, nothing else.
func (c *Cluster) setupViewer(ctx context.Context) error {
	if err := c.CreateNamespace(ctx, ViewerNamespace, nil); err != nil {
		return err
	}
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "job-viewer", Namespace: ViewerNamespace},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
		},
	}
	if _, err := c.Client.RbacV1().Roles(ViewerNamespace).Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating role for %s: %w", ViewerUser, err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "job-viewer", Namespace: ViewerNamespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "job-viewer"},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: ViewerUser}},
	}
	if _, err := c.Client.RbacV1().RoleBindings(ViewerNamespace).Create(ctx, rb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating role binding for %s: %w", ViewerUser, err)
	}
	return nil
}

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("choosing a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func logContains(path, s string) bool {
	data, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(data), s)
}
