package diff

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/cmdtest"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// runWithConfigFlags runs diff with the plugin's real kubeconfig flags (as the root command
// adds them) and a factory made from them, with no client.
func runWithConfigFlags(t *testing.T, args ...string) result {
	t.Helper()
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	cf := genericclioptions.NewConfigFlags(true)
	f := cmdutil.NewFactory(cf)
	io := cmdtest.NewIO("")
	o := testOptions(io, nil)
	cmd := NewCmdDiffWithOptions(f, o)
	cf.AddFlags(cmd.PersistentFlags())
	r := io.Run(cmd, args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

// TestOfflineReadsNoKubeconfig: with --live-file, diff needs no kubeconfig, as status -f,
// reconcile --manifest, simulate and lint do; it used to fail with "cannot read the kubeconfig"
// (exit 2) for a missing --kubeconfig file or an unknown --context.
func TestOfflineReadsNoKubeconfig(t *testing.T) {
	liveFile := writeYAML(t, "live.yaml", stored(manifestJob()))
	desired := writeYAML(t, "job.yaml", manifestJob())
	missing := filepath.Join(t.TempDir(), "nonexistent")
	for _, extra := range [][]string{nil, {"--kubeconfig", missing}, {"--context", "nope"}, {"--cluster", "nope", "--user", "nope"}} {
		args := append([]string{"--live-file", liveFile, "-f", desired}, extra...)
		r := runWithConfigFlags(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "No differences") {
			t.Errorf("%v: code %d\n%s%s", extra, r.code, r.stdout, r.stderr)
		}
	}
	// -n still says which namespace the desired Job must be in.
	if r := runWithConfigFlags(t, "--live-file", liveFile, "-f", desired, "-n", "other", "--kubeconfig", missing); r.code != exitcode.Usage ||
		!strings.Contains(r.stderr, `the desired Job "eval" is in namespace "ns", but the namespace given is "other"`) {
		t.Errorf("-n other: code %d\n%s", r.code, r.stderr)
	}
	// Live, the kubeconfig is still needed, and its problem named.
	if r := runWithConfigFlags(t, "eval", "-f", desired, "--kubeconfig", missing); r.code != exitcode.Usage || !strings.Contains(r.stderr, "cannot read the kubeconfig") {
		t.Errorf("live: code %d\n%s", r.code, r.stderr)
	}
}

// TestOfflineNamespaceWithoutOne: offline, files that name no namespace are compared in
// "default" (the kubeconfig is not read for one), and the plan's commands say so.
func TestOfflineNamespaceWithoutOne(t *testing.T) {
	live := stored(manifestJob())
	live.Namespace = ""
	m := manifestJob()
	m.Namespace = ""
	m.Spec.Parallelism = ptr.To[int32](3)
	r := runWithConfigFlags(t, "--live-file", writeYAML(t, "live.yaml", live), "-f", writeYAML(t, "job.yaml", m), "--context", "nope")
	if r.code != 1 || !strings.Contains(r.stdout, "patch job eval -n default --type=merge") {
		t.Errorf("code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
