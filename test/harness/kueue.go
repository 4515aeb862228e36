package harness

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KueueVersion is the Kueue controller manager pinned in test/cluster/kueue/go.mod.
const KueueVersion = "v0.17.0"

// KueueNamespace is the namespace Kueue's configuration names (events, its own objects).
const KueueNamespace = "kueue-system"

// kueueMetricsCertDir is where Kueue v0.17.0 reads its metrics serving certificate when its
// internal certificate management is off: a fixed path in cmd/kueue/main.go, and the manager
// exits when tls.crt/tls.key are missing there, even with metrics disabled.
const kueueMetricsCertDir = "/etc/kueue/metrics/certs"

// CheckKueue returns an error unless dir holds the Kueue manager and its CRDs
// (test/cluster/build-kueue.sh, `make kueue-bins`).
func CheckKueue(dir string) error {
	st, err := os.Stat(filepath.Join(dir, "kueue"))
	crds, _ := filepath.Glob(filepath.Join(dir, "kueue-crds", "*.yaml"))
	if err != nil || st.IsDir() || st.Mode()&0o111 == 0 || len(crds) == 0 {
		return fmt.Errorf("the Kueue manager or its CRDs are missing in %s; build them with `make kueue-bins` "+
			"(test/cluster/build-kueue.sh)", dir)
	}
	return nil
}

// StartKueue installs Kueue's CRDs and starts its controller manager (no leader election,
// webhooks on loopback that the API server is not told about, visibility API off) against
// the running cluster, and returns once its readiness probe answers. Jobs reach Kueue by
// being created suspended with the kueue.x-k8s.io/queue-name label, as Kueue's own
// integration tests create them; nothing mutates them at admission.
func (c *Cluster) StartKueue(ctx context.Context) error {
	began := time.Now()
	if err := CheckKueue(c.BinDir); err != nil {
		return err
	}
	if err := ensureKueueMetricsCert(); err != nil {
		return err
	}
	apply := exec.CommandContext(ctx, filepath.Join(c.BinDir, "kubectl"), "--kubeconfig", c.Kubeconfig,
		"apply", "--server-side", "--force-conflicts", "-f", filepath.Join(c.BinDir, "kueue-crds"))
	if out, err := apply.CombinedOutput(); err != nil {
		return fmt.Errorf("installing Kueue's CRDs: %v: %s", err, out)
	}
	wait := exec.CommandContext(ctx, filepath.Join(c.BinDir, "kubectl"), "--kubeconfig", c.Kubeconfig,
		"wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
	if out, err := wait.CombinedOutput(); err != nil {
		return fmt.Errorf("waiting for Kueue's CRDs: %v: %s", err, out)
	}
	_, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: KueueNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}

	dir := filepath.Join(c.Dir, "kueue")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The webhook server needs a serving pair even though no webhook configuration points at it.
	for src, dst := range map[string]string{c.pki.ServingCert: "tls.crt", c.pki.ServingKey: "tls.key"} {
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, dst), data, 0o600); err != nil {
			return err
		}
	}
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	cfg := fmt.Sprintf(`apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: %s
manageJobsWithoutQueueName: false
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: 127.0.0.1
  port: %d
  certDir: %s
health:
  healthProbeBindAddress: 127.0.0.1:%d
metrics:
  bindAddress: "0"
clientConnection:
  qps: 50
  burst: 100
featureGates:
  VisibilityOnDemand: false
integrations:
  frameworks: ["batch/job"]
`, KueueNamespace, ports[0], dir, ports[1])
	cfgPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		return err
	}
	proc, err := c.spawn("kueue", []string{
		"--config=" + cfgPath,
		"--kubeconfig=" + filepath.Join(c.Dir, "pki", "kubeconfig-control-plane"),
		"--zap-log-level=2",
	})
	if err != nil {
		return err
	}
	if err := c.waitHTTP(ctx, proc, fmt.Sprintf("http://127.0.0.1:%d/readyz", ports[1]), nil, "ok", 90*time.Second); err != nil {
		return fmt.Errorf("kueue did not become ready: %w\n%s", err, tailFile(proc.LogPath, 30))
	}
	c.logf("kueue %s ready (%s)", KueueVersion, time.Since(began).Round(time.Millisecond))
	return nil
}

// ensureKueueMetricsCert writes a self-signed pair to kueueMetricsCertDir unless one is there.
// Only root (or whoever made the directory writable) can; the error says how to do it once.
func ensureKueueMetricsCert() error {
	crt := filepath.Join(kueueMetricsCertDir, "tls.crt")
	key := filepath.Join(kueueMetricsCertDir, "tls.key")
	if _, err := os.Stat(crt); err == nil {
		if _, err := os.Stat(key); err == nil {
			return nil
		}
	}
	crtPEM, keyPEM, err := selfSigned("kueue-metrics")
	if err == nil {
		err = os.MkdirAll(kueueMetricsCertDir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(key, keyPEM, 0o644)
	}
	if err == nil {
		err = os.WriteFile(crt, crtPEM, 0o644)
	}
	if err != nil {
		return fmt.Errorf("kueue %s reads its metrics certificate from the fixed path %s and exits without it; "+
			"writing one failed (%w); create it once as root: mkdir -p %s && openssl req -x509 -newkey rsa:2048 -nodes "+
			"-subj /CN=kueue-metrics -days 3650 -keyout %s -out %s && chmod a+r %s",
			KueueVersion, kueueMetricsCertDir, err, kueueMetricsCertDir, key, crt, key)
	}
	return nil
}

func selfSigned(cn string) (crtPEM, keyPEM []byte, err error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		return nil, nil, err
	}
	kd, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), nil
}

func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
