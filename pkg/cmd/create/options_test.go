package create

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// TestRunLeavesOptionsAlone: Complete reads the manifest and --from-job once and resolves the
// namespace there (a --from-job object's own namespace, -n not given); Run builds, lints and
// sends without changing the options.
func TestRunLeavesOptionsAlone(t *testing.T) {
	m, _ := manifestFile(t)
	base := testutil.WriteFile(t, "job.yaml", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x, namespace: elsewhere}\nspec:\n  template:\n    spec:\n      containers: [{name: worker, image: i}]\n")
	for _, tc := range []struct {
		name   string
		args   []string
		wantNS string
	}{
		{"flags only, sent", []string{"a", "--manifest", m, "--image", "i", "--", "run"}, "ml"},
		{"namespace from --from-job, saved", []string{"a", "--manifest", m, "--from-job", base, "--save", filepath.Join(t.TempDir(), "a.yaml")}, "elsewhere"},
		{"client dry run", []string{"a", "--manifest", m, "--image", "i", "--dry-run=client", "-o", "yaml"}, "ml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			io := cmdtest.NewIO("")
			o := NewOptions(io.Streams())
			o.Namespace = "ml" // as from the kubeconfig, not -n
			client := fake.NewClientset()
			o.Client = client
			cmd := newCmd(nil, o)
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			if err := o.Complete(nil, cmd, cmd.Flags().Args()); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if err := o.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if o.Namespace != tc.wantNS {
				t.Errorf("Complete resolved namespace %q, want %q", o.Namespace, tc.wantNS)
			}
			before := testutil.Snapshot(o)
			if err := o.Run(context.Background()); err != nil {
				t.Fatalf("Run: %v\n%s", err, io.ErrOut)
			}
			if changed := testutil.SnapshotDiff(before, testutil.Snapshot(o)); len(changed) > 0 {
				t.Errorf("Run changed the options:\n%s", strings.Join(changed, "\n"))
			}
			if o.DryRun == cmdutil.DryRunNone { // sent: the Job is where Complete said
				if _, err := client.BatchV1().Jobs(tc.wantNS).Get(context.Background(), "a", metav1.GetOptions{}); err != nil {
					t.Errorf("the Job was not created in %s: %v", tc.wantNS, err)
				}
			} else if !strings.Contains(io.Out.String(), "namespace: "+tc.wantNS) {
				t.Errorf("printed objects are not in %s:\n%s", tc.wantNS, io.Out)
			}
		})
	}
}
