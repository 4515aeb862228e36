package harness

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// ContainerLogLine is the one line every container on the local cluster logs: kwok runs no
// container, it serves this line from a file (kind ClusterLogs in kwok's configuration) for
// every pod and container when the API server asks the node for a container's log
// (`kubectl logs`, `kubectl indexed logs`).
const ContainerLogLine = "kwok: the same log line for every container (nothing runs)"

// containerLogTime is the time stamp of ContainerLogLine in the CRI log file kwok reads. It is
// fixed, so `--since` selects nothing and `--timestamps` prints it.
const containerLogTime = "2026-01-01T00:00:00.000000000Z"

// kubeletConfig is kwok's configuration for the kubelet API it serves: one ClusterLogs for every
// pod (no selector) and every container (no containers list), current and previous logs alike.
const kubeletConfig = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: harness-container-logs
spec:
  logs:
  - logsFile: %q
    previousLogsFile: %q
`

// startKwok starts kwok with the Stages and the logs configuration, serving the kubelet API over
// TLS (the API server's serving certificate, valid for 127.0.0.1) at 127.0.0.1 on a free port,
// which the node-initialize stage writes to the node's status.daemonEndpoints.kubeletEndpoint.
// The API server, which verifies no kubelet certificate (no --kubelet-certificate-authority),
// then reaches it there, as it would a kubelet. The port is chosen per cluster and retried if
// another process takes it first.
func (c *Cluster) startKwok(ctx context.Context) error {
	stagesPath := filepath.Join(c.Dir, "stages.yaml")
	logPath := filepath.Join(c.Dir, "container.log")
	line := containerLogTime + " stdout F " + ContainerLogLine + "\n"
	if err := os.WriteFile(logPath, []byte(line), 0o644); err != nil {
		return err
	}
	configPath := filepath.Join(c.Dir, "kwok-kubelet.yaml")
	if err := os.WriteFile(configPath, fmt.Appendf(nil, kubeletConfig, logPath, logPath), 0o644); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		ports, err := freePorts(1)
		if err != nil {
			return err
		}
		port := strconv.Itoa(ports[0])
		addr := net.JoinHostPort("127.0.0.1", port)
		proc, err := c.spawn("kwok", []string{
			"--kubeconfig=" + filepath.Join(c.Dir, "pki", "kubeconfig-control-plane"),
			"--manage-all-nodes=true",
			"--config=" + stagesPath,
			"--config=" + configPath,
			"--cidr=10.0.0.0/16",
			"--node-ip=127.0.0.1",
			"--node-port=" + port,
			"--server-address=" + addr,
			"--tls-cert-file=" + c.pki.ServingCert,
			"--tls-private-key-file=" + c.pki.ServingKey,
		})
		if err != nil {
			return err
		}
		err = c.waitHTTP(ctx, proc, "https://"+addr+"/healthz", nil, "ok", 30*time.Second)
		if err == nil {
			c.logf("kwok serves the kubelet API at %s", addr)
			return nil
		}
		if attempt < 3 && logContains(proc.LogPath, "address already in use") {
			c.logf("kwok port taken, retrying")
			c.removeProc(proc)
			continue
		}
		return fmt.Errorf("kwok did not serve its kubelet API at %s: %w", addr, err)
	}
}
