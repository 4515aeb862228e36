package diff

import (
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// completeThenRun runs Complete and Validate, then Run, and returns the options and what Run
// changed in them (testutil.SnapshotDiff: nothing, as kubectl's Complete/Validate/Run wants).
func completeThenRun(t *testing.T, f *cmdtesting.TestFactory, client *fake.Clientset, stdin string, args ...string) (*Options, []string, *cmdtest.IO, error) {
	t.Helper()
	io := cmdtest.NewIO(stdin)
	o := testOptions(io, client)
	cmd := NewCmdDiffWithOptions(f, o)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(f, cmd, cmd.Flags().Args()); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if err := o.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	before := testutil.Snapshot(o)
	err := o.Run(context.Background())
	return o, testutil.SnapshotDiff(before, testutil.Snapshot(o)), io, err
}

// TestRunLeavesOptionsAlone: the namespace and the Job name that come from the inputs (the
// desired file's metadata, the live file's namespace) are resolved once, by Complete; Run only
// reads the options.
func TestRunLeavesOptionsAlone(t *testing.T) {
	m := manifestJob()
	m.Namespace = "elsewhere"
	desired := writeYAML(t, "job.yaml", m)
	live := stored(manifestJob())
	live.Namespace = "elsewhere"
	live.Spec.Parallelism = ptrTo(int32(3))

	t.Run("live, namespace and name from -f", func(t *testing.T) {
		f := cmdtesting.NewTestFactory() // no -n: the file's namespace is used
		defer f.Cleanup()
		o, changed, io, err := completeThenRun(t, f, fake.NewClientset(live.DeepCopy()), "", "-f", desired)
		if exitcode.Code(err) != exitcode.Findings || !strings.Contains(io.Out.String(), "spec.parallelism") {
			t.Fatalf("diff did not compare the Jobs: %v\n%s%s", err, io.Out, io.ErrOut)
		}
		if o.Namespace != "elsewhere" || o.JobName != "eval" {
			t.Errorf("Complete resolved namespace %q, name %q; want elsewhere, eval", o.Namespace, o.JobName)
		}
		if len(changed) > 0 {
			t.Errorf("Run changed the options:\n%s", strings.Join(changed, "\n"))
		}
	})
	t.Run("offline, namespace from --live-file", func(t *testing.T) {
		f := cmdtesting.NewTestFactory().WithNamespace("ns")
		defer f.Cleanup()
		mine := manifestJob()
		mine.Namespace = ""
		o, changed, io, err := completeThenRun(t, f, nil, "", "--live-file", writeYAML(t, "live.yaml", live), "-f", writeYAML(t, "mine.yaml", mine))
		if exitcode.Code(err) != exitcode.Findings {
			t.Fatalf("diff did not compare the Jobs: %v\n%s%s", err, io.Out, io.ErrOut)
		}
		if o.Namespace != "elsewhere" || o.JobName != "eval" {
			t.Errorf("Complete resolved namespace %q, name %q; want elsewhere, eval", o.Namespace, o.JobName)
		}
		if len(changed) > 0 {
			t.Errorf("Run changed the options:\n%s", strings.Join(changed, "\n"))
		}
	})
}

func ptrTo[T any](v T) *T { return &v }
