//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/joblist"
	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// manualJob sets its own selector (manualSelector): the API server adds no controller-uid
// label to its pods, so they are found by the Job's selector and kept by their owner reference.
const manualJob = `apiVersion: batch/v1
kind: Job
metadata: {name: manual}
spec:
  completionMode: Indexed
  completions: 3
  parallelism: 3
  backoffLimitPerIndex: 1
  manualSelector: true
  selector: {matchLabels: {app: manual-list}}
  template:
    metadata:
      labels: {app: manual-list}
      annotations:
        scenario.indexed.kubectl.io/exit-code.1: "3"
        scenario.indexed.kubectl.io/run-time.2: "never"
    spec:
      restartPolicy: Never
      containers: [{name: worker, image: shard-worker:1.0}]
`

// TestListAndLogsOfAManualSelectorJob: list --with-pods counts the pods of a Job with a manual
// selector (before, its pods carried no controller-uid label and were not read: PODS 0), and
// logs picks its attempts, both through pkg/cmd/gather's paged pod read.
func TestListAndLogsOfAManualSelectorJob(t *testing.T) {
	t.Parallel()
	RequirePlugin(t)
	ns := NewNamespace(t)
	CreateJob(t, ns, manualJob)
	WaitForJob(t, ns, "manual", 2*time.Minute, "index 1 failed, index 0 done, index 2 running", func(j *batchv1.Job, _ []corev1.Pod) bool {
		return j.Status.FailedIndexes != nil && *j.Status.FailedIndexes == "1" && j.Status.CompletedIndexes == "0" && j.Status.Active == 1
	})
	pods := DecodePods(t, []byte(MustKubectl(t, "get", "pods", "-n", ns, "-l", "app=manual-list", "-o", "json").Stdout))
	if len(pods) != 4 {
		t.Fatalf("%d pods labelled app=manual-list, want 4 (index 0 once, index 1 twice, index 2 once)", len(pods))
	}
	for _, p := range pods {
		if _, ok := p.Labels[batchv1.ControllerUidLabel]; ok {
			t.Fatalf("pod %s carries the controller-uid label: the Job's selector is not manual", p.Name)
		}
	}

	r := KubectlIndexed(t, "list", "-n", ns, "--with-pods", "-o", "json")
	var l joblist.List
	if r.ExitCode != 0 || json.Unmarshal([]byte(r.Stdout), &l) != nil || len(l.Items) != 1 {
		t.Fatalf("list --with-pods -o json:\n%s", r)
	}
	row := l.Items[0]
	if row.Name != "manual" || row.Pods == nil || *row.Pods != 4 || row.Attempts == nil || *row.Attempts != 4 ||
		row.Succeeded != 1 || row.Failed != 1 || row.Running != 1 {
		t.Errorf("row %+v (pods %v attempts %v), want 4 pods, 4 attempts, 1/1/1", row, row.Pods, row.Attempts)
	}
	r = KubectlIndexed(t, "list", "-n", ns, "--with-pods")
	if lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n"); r.ExitCode != 0 || len(lines) != 2 ||
		!strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "manual Running 1/1/1/3 no 4 4 ") {
		t.Errorf("list --with-pods:\n%s", r)
	}

	lg := KubectlIndexed(t, "logs", "manual", "-n", ns, "--index", "1", "--all-attempts", "--request-timeout", "20s")
	if want := "[index 1 attempt 1] " + harness.ContainerLogLine + "\n[index 1 attempt 2] " + harness.ContainerLogLine + "\n"; lg.ExitCode != 0 || lg.Stdout != want {
		t.Errorf("logs --index 1 --all-attempts:\n%s", lg)
	}
}
