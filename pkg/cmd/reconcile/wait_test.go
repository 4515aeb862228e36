package reconcile

import (
	"context"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

// waitRun is a root that failed with index 3, and its retry demo-r1 (root index 3) still
// running with its pod succeeded: a lineage reconcile --wait must wait for.
func waitRun(t *testing.T) *fake.Clientset {
	t.Helper()
	m, objs := exampleRun(t)
	root := objs.Job.DeepCopy()
	root.UID = "root-uid"
	root.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue}}
	l := &lineage.Lineage{RootJob: root.Name, RootJobUID: string(root.UID), ParentJob: root.Name, ParentJobUID: string(root.UID), Attempt: 1, Original: indexes.Of(3)}
	ro, err := scaffold.BuildRetry(scaffold.RetryOptions{Parent: root, ParentConfigMaps: objs.ConfigMaps(), Indexes: indexes.Of(3), Lineage: l, JobName: "demo-r1", Namespace: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	retry := ro.Job
	retry.UID = "retry-uid"
	pod := finishedPod(retry, 0, "demo-r1-0-a", corev1.PodSucceeded, 0, runWorker(t, m, ro, 0, t.TempDir(), "demo-r1-0-a"))
	return fake.NewClientset(objs.ConfigMap.DeepCopy(), root, ro.ConfigMap.DeepCopy(), retry, pod)
}

func runWith(client *fake.Clientset, clk *clocktesting.FakeClock, args ...string) result {
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.Client = client
	if clk != nil {
		o.Clock = clk
	}
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	r := io.Run(NewCmdReconcileWithOptions(f, o), args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

// TestWaitUntilTheRetryFinishes: --wait reads the lineage, says which Job still runs, and
// reconciles only once the retry finished, exiting by coverage (root shards 0-2 have no
// results: 1).
func TestWaitUntilTheRetryFinishes(t *testing.T) {
	client := waitRun(t)
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	done := make(chan result, 1)
	go func() { done <- runWith(client, clk, "demo", "--wait") }()
	for !clk.HasWaiters() {
		select {
		case r := <-done:
			t.Fatalf("returned before the retry finished: exit %d\n%s%s", r.code, r.out, r.errOut)
		case <-time.After(time.Millisecond):
		}
	}
	// Another poll of a still-running lineage changes nothing.
	clk.Step(waitPoll)
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	retry, err := client.BatchV1().Jobs("ns").Get(context.Background(), "demo-r1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	retry.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	if _, err := client.BatchV1().Jobs("ns").UpdateStatus(context.Background(), retry, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	clk.Step(waitPoll)
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("--wait did not return after the retry finished")
	}
	if r.code != exitcode.Findings {
		t.Errorf("exit %d, want %d (root shards 0-2 have no results)\n%s%s", r.code, exitcode.Findings, r.out, r.errOut)
	}
	want := `+0s waiting for the lineage of job "demo": still running: demo-r1
+4s waiting for the lineage of job "demo": every Job finished
`
	if r.errOut != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.errOut, want)
	}
	if !strings.Contains(r.out, "Verdict:") {
		t.Errorf("no report:\n%s", r.out)
	}
}

// TestWaitTimeoutPrintsWhatIsIn: --timeout 0 looks once; the lineage still runs, so the report
// of the results in so far is printed and the exit is 5. From the retry's name, the root's
// lineage is waited for.
func TestWaitTimeoutPrintsWhatIsIn(t *testing.T) {
	for _, name := range []string{"demo", "demo-r1"} {
		r := runWith(waitRun(t), nil, name, "--wait", "--timeout", "0")
		if r.code != exitcode.Timeout || !strings.Contains(r.errOut, `timed out after 0s waiting for the lineage of job "`+name+`" to finish (still running: demo-r1)`) || !strings.Contains(r.out, "Verdict:") {
			t.Errorf("%s: exit %d\n%s%s", name, r.code, r.out, r.errOut)
		}
	}
}

func TestWaitUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "--timeout", "1m"}, "--timeout needs --wait"},
		{[]string{"--manifest", examples + "/manifest.yaml", "--receipts", ".", "--wait"}, "--wait needs a live Job"},
	} {
		if r := runWith(fake.NewClientset(), nil, c.args...); r.code != exitcode.Usage || !strings.Contains(r.errOut, c.want) {
			t.Errorf("%q: exit %d\n%s", c.args, r.code, r.errOut)
		}
	}
}
