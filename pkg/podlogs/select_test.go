package podlogs

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Without backoffLimitPerIndex the controller writes no failure count: attempts are the pods
// present, in creation order.
func TestAttemptsWithoutPerIndexAreThePodsInCreationOrder(t *testing.T) {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u"},
		Spec: batchv1.JobSpec{
			Completions: ptr.To[int32](2), Parallelism: ptr.To[int32](2), CompletionMode: ptr.To(batchv1.IndexedCompletion),
			BackoffLimit: ptr.To[int32](6),
			Template:     corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}}},
		},
		Status: batchv1.JobStatus{StartTime: &metav1.Time{Time: t0}, Failed: 1, Active: 1},
	}
	mk := func(name string, at time.Duration, phase corev1.PodPhase) corev1.Pod {
		p := corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", CreationTimestamp: metav1.Time{Time: t0.Add(at)},
				Labels:      map[string]string{batchv1.ControllerUidLabel: "u"},
				Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: "1"}},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}},
			Status: corev1.PodStatus{Phase: phase},
		}
		if phase == corev1.PodFailed {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{
				{Name: "a", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}},
				{Name: "b", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}}},
			}
		}
		return p
	}
	// Listed newest first: the order of the list does not decide the attempt.
	pods := []corev1.Pod{mk("j-1-new", time.Minute, corev1.PodRunning), mk("j-1-old", 0, corev1.PodFailed)}
	report, err := indexstatus.Build(job, pods, indexstatus.Options{AllIndexes: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Select(job, pods, report, Selection{Index: 1, AllAttempts: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Pod != "j-1-old" || got[0].Attempt != 1 || got[1].Pod != "j-1-new" || got[1].Attempt != 2 {
		t.Fatalf("targets = %+v", got)
	}
	// Two containers, no default-container annotation: the one that failed, else the first.
	if got[0].Container != "b" || got[1].Container != "a" {
		t.Errorf("containers = %q, %q; want b (failed), a (first)", got[0].Container, got[1].Container)
	}
	// Index 0 never ran: named as such, not an error.
	got, err = Select(job, pods, report, Selection{Index: 0})
	if err != nil || len(got) != 1 || !got[0].Gone || !strings.Contains(got[0].Known, "no pod of this index exists (the index is Pending") {
		t.Fatalf("index 0: %+v, %v", got, err)
	}
	// No failed index yet: --failed says so.
	if _, err := Select(job, pods, report, Selection{Failed: true}); err == nil || !strings.Contains(err.Error(), `job "j" has no failed index`) {
		t.Errorf("--failed: %v", err)
	}
}

// A failed index whose pods are all gone (deleted, or garbage-collected): named as gone with
// what the status report knows.
func TestFailedIndexWithoutPods(t *testing.T) {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u"},
		Spec: batchv1.JobSpec{
			Completions: ptr.To[int32](2), Parallelism: ptr.To[int32](2), CompletionMode: ptr.To(batchv1.IndexedCompletion),
			BackoffLimit: ptr.To[int32](2147483647), BackoffLimitPerIndex: ptr.To[int32](0),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "a"}}}},
		},
		Status: batchv1.JobStatus{StartTime: &metav1.Time{Time: t0}, CompletedIndexes: "0", FailedIndexes: ptr.To("1"), Succeeded: 1, Failed: 1,
			Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "FailedIndexes"}}},
	}
	report, err := indexstatus.Build(job, nil, indexstatus.Options{AllIndexes: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Select(job, nil, report, Selection{Failed: true})
	if err != nil || len(got) != 1 || !got[0].Gone || got[0].Index != 1 || !strings.Contains(got[0].Known, "the index is Failed") {
		t.Fatalf("%+v, %v", got, err)
	}
}

// Facts is what a pod's status records about how a container ended, on one line.
func TestFacts(t *testing.T) {
	p := &corev1.Pod{Status: corev1.PodStatus{
		Reason: "Evicted", Message: "The node was low on resource: memory.",
		ContainerStatuses: []corev1.ContainerStatus{
			{Name: "sidecar", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}},
			{Name: "worker", LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 137, Reason: "OOMKilled", Signal: 9, Message: strings.Repeat("x", 400) + "\nend"}}},
		},
	}}
	got := Facts(p, "worker")
	want := `exit code 137 (OOMKilled), signal 9 in container worker; termination message "` + strings.Repeat("x", 300) + `…"; pod Evicted: The node was low on resource: memory.`
	if got != want {
		t.Errorf("Facts:\n%s\nwant:\n%s", got, want)
	}
	if got := Facts(&corev1.Pod{}, "worker"); got != "" {
		t.Errorf("no status: %q", got)
	}
}

// An index with no known attempt (its pods gone, nothing counted) is not "attempt 0":
// attempts count from 1 everywhere else (issue 36's re-run, logs --failed with pods deleted).
func TestLabelWithoutAKnownAttempt(t *testing.T) {
	if got := (Target{Index: 2}).Label(); got != "index 2" {
		t.Errorf("Label() = %q, want %q", got, "index 2")
	}
	if got := (Target{Index: 2, Attempt: 3}).Label(); got != "index 2 attempt 3" {
		t.Errorf("Label() = %q", got)
	}
}
