//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// logsJob: index 1 fails on both its attempts (backoffLimitPerIndex 1), index 2 runs until
// deleted, index 0 succeeds.
const logsJob = `apiVersion: batch/v1
kind: Job
metadata: {name: logs}
spec:
  completionMode: Indexed
  completions: 3
  parallelism: 3
  backoffLimitPerIndex: 1
  template:
    metadata:
      annotations:
        scenario.indexed.kubectl.io/exit-code.1: "3"
        scenario.indexed.kubectl.io/run-time.2: "never"
    spec:
      restartPolicy: Never
      containers: [{name: worker, image: shard-worker:1.0}]
`

// TestLogs runs `kubectl indexed logs` through kubectl on the local control plane. kwok plays
// the pods and serves the kubelet API: every container's log is the one line
// harness.ContainerLogLine (test/harness/kwok.go), fetched by the real API server from the
// node like any container log. What is checked here is which attempts are selected and how
// they are labelled (against the pods the controller made), that the API server's refusal is a
// clear cluster error (exit 4) naming the pod, and the gone-pod path.
func TestLogs(t *testing.T) {
	RequirePlugin(t)
	ns := NewNamespace(t)
	CreateJob(t, ns, logsJob)
	_, pods := WaitForJob(t, ns, "logs", 2*time.Minute, "index 1 failed, index 2 running", func(j *batchv1.Job, pods []corev1.Pod) bool {
		running := false
		for _, p := range pods {
			running = running || (PodIndex(p) == 2 && p.Status.Phase == corev1.PodRunning)
		}
		return j.Status.FailedIndexes != nil && *j.Status.FailedIndexes == "1" && strings.Contains(j.Status.CompletedIndexes, "0") && running
	})
	byIndex := PodsByIndex(pods)
	if len(byIndex[1]) != 2 {
		t.Fatalf("index 1 has %d pods, want 2:\n%s", len(byIndex[1]), DescribeState(GetJob(t, ns, "logs"), pods))
	}
	first, second := byIndex[1][0].Name, byIndex[1][1].Name
	line := harness.ContainerLogLine

	// The oracle: kubectl logs of a pod prints kwok's line through the API server.
	r := Kubectl(t, "logs", "-n", ns, first, "--request-timeout", "20s")
	if r.ExitCode != 0 || r.Stdout != line+"\n" {
		t.Fatalf("kubectl logs %s: want exit 0 and %q:\n%s", first, line, r)
	}

	// Both attempts of index 1, oldest first, each line labelled with its attempt.
	r = KubectlIndexed(t, "logs", "logs", "-n", ns, "--index", "1", "--all-attempts", "--request-timeout", "20s")
	t.Logf("%s", r)
	want := "[index 1 attempt 1] " + line + "\n[index 1 attempt 2] " + line + "\n"
	if r.ExitCode != 0 || r.Stdout != want {
		t.Fatalf("--index 1 --all-attempts: want exit 0 and\n%s\n%s", want, r)
	}

	// --failed: the last failed attempt of index 1 only, one attempt so no label.
	r = KubectlIndexed(t, "logs", "logs", "-n", ns, "--failed", "--request-timeout", "20s")
	if r.ExitCode != 0 || r.Stdout != line+"\n" {
		t.Errorf("--failed:\n%s", r)
	}
	// Which pod --failed chose: the API server's refusal of a container the pod lacks names it.
	r = KubectlIndexed(t, "logs", "logs", "-n", ns, "--failed", "-c", "nope", "--request-timeout", "20s")
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, fmt.Sprintf("cannot fetch the logs of pod %q (index 1 attempt 2, container \"nope\")", second)) || strings.Contains(r.Stderr, first) {
		t.Errorf("--failed -c nope: want exit 4 naming pod %s only:\n%s", second, r)
	}

	// The running attempt of index 2 is the default.
	r = KubectlIndexed(t, "logs", "logs", "-n", ns, "--index", "2", "-c", "nope", "--request-timeout", "20s")
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, fmt.Sprintf("pod %q (index 2 attempt 1", byIndex[2][0].Name)) {
		t.Errorf("--index 2 -c nope:\n%s", r)
	}
	r = KubectlIndexed(t, "logs", "logs", "-n", ns, "--index", "2", "--request-timeout", "20s")
	if r.ExitCode != 0 || r.Stdout != line+"\n" {
		t.Errorf("--index 2:\n%s", r)
	}

	// Delete attempt 1's pod: it is named as gone, with what attempt 2's pod still tells.
	if err := env.Client.CoreV1().Pods(ns).Delete(context.Background(), first, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	WaitForJob(t, ns, "logs", time.Minute, "attempt 1's pod gone", func(_ *batchv1.Job, pods []corev1.Pod) bool {
		for _, p := range pods {
			if p.Name == first {
				return false
			}
		}
		return true
	})
	r = KubectlIndexed(t, "logs", "logs", "-n", ns, "--index", "1", "--attempt", "1")
	want = fmt.Sprintf("index 1 attempt 1: its pod is gone; it failed: pod %s (attempt 2) counts 1 failure of this index before it", second)
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, want) || r.Stdout != "" {
		t.Errorf("gone attempt: want exit 1 and %q:\n%s", want, r)
	}

	// Usage errors.
	r = KubectlIndexed(t, "logs", "logs", "-n", ns, "--index", "3")
	if r.ExitCode != 2 || !strings.Contains(r.Stderr, "index 3 is out of range") {
		t.Errorf("--index 3:\n%s", r)
	}
	r = KubectlIndexed(t, "logs", "missing", "-n", ns, "--index", "0")
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, `job "missing" not found`) {
		t.Errorf("missing Job:\n%s", r)
	}
}
