//go:build e2e

package e2e

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// The control plane of the record tests: its controller manager deletes terminated pods beyond
// 1 (--terminated-pod-gc-threshold=1; the GC looks every 20 s), which the shared one must not
// (it keeps every test's pods). The tests that need it share one, each in a namespace of its
// own; the last one to finish stops it.
var gcCluster struct {
	sync.Mutex
	c     *harness.Cluster
	users int
}

// GCCluster is the kubeconfig of the control plane with a pod GC threshold of 1, started on
// first use and stopped when the last test using it ends.
func GCCluster(t *testing.T) string {
	t.Helper()
	gcCluster.Lock()
	defer gcCluster.Unlock()
	if gcCluster.c == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		c, err := harness.Start(ctx, harness.Options{
			BinDir:                 env.ClusterBinDir,
			LogDir:                 filepath.Join(env.WorkDir, "cluster-logs-record"),
			ContextName:            "kubectl-indexed-e2e-record",
			SkipProbe:              true,
			ControllerManagerFlags: []string{"--terminated-pod-gc-threshold=1"},
		})
		cancel()
		if err != nil {
			t.Fatalf("starting the control plane with a low pod GC threshold: %v", err)
		}
		gcCluster.c = c
	}
	gcCluster.users++
	t.Cleanup(func() {
		gcCluster.Lock()
		defer gcCluster.Unlock()
		if gcCluster.users--; gcCluster.users == 0 {
			_ = gcCluster.c.Stop()
			gcCluster.c = nil
		}
	})
	return gcCluster.c.Kubeconfig
}
