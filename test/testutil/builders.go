package testutil

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
)

// EvaluationJob is the seed evaluation Job as a user writes it (the seed scenario, which the
// API server accepts): Indexed, 6 completions, parallelism 2, backoffLimitPerIndex 1,
// maxFailedIndexes 2, a 600s deadline, FailIndex on exit code 42 of the worker container.
// Each mut changes it before it is returned.
func EvaluationJob(mut ...func(*batchv1.Job)) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "evaluation"},
		Spec: batchv1.JobSpec{
			CompletionMode:        ptr.To(batchv1.IndexedCompletion),
			Completions:           ptr.To[int32](6),
			Parallelism:           ptr.To[int32](2),
			BackoffLimitPerIndex:  ptr.To[int32](1),
			MaxFailedIndexes:      ptr.To[int32](2),
			ActiveDeadlineSeconds: ptr.To[int64](600),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionFailIndex,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: ptr.To("worker"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
			}}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "worker", Image: "busybox:1.36"}},
			}},
		},
	}
	for _, m := range mut {
		m(j)
	}
	return j
}

// StartedJob is an Indexed Job as the API server returns it once the controller started it:
// UID "uid-NAME", parallelism 2, backoffLimitPerIndex 1 with the global backoffLimit at its
// per-index default (MaxInt32), one container "worker", restartPolicy Never, status.startTime
// start and no failed index yet.
func StartedJob(namespace, name string, completions int32, start time.Time) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, UID: types.UID("uid-" + name)},
		Spec: batchv1.JobSpec{
			Completions: ptr.To(completions), Parallelism: ptr.To[int32](2),
			CompletionMode:       ptr.To(batchv1.IndexedCompletion),
			BackoffLimit:         ptr.To[int32](math.MaxInt32),
			BackoffLimitPerIndex: ptr.To[int32](1),
			Template:             corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "worker"}}}},
		},
		Status: batchv1.JobStatus{StartTime: &metav1.Time{Time: start}, FailedIndexes: ptr.To("")},
	}
}

// IndexPod is a running pod of job j for completion index, after failures failed pods of that
// index: named JOB-INDEX-FAILURES, in j's namespace, with the controller-uid label, the
// completion-index and index-failure-count annotations and j as its controller, as the Job
// controller creates it.
func IndexPod(j *batchv1.Job, index, failures int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%d-%d", j.Name, index, failures), Namespace: j.Namespace,
			Labels:          map[string]string{batchv1.ControllerUidLabel: string(j.UID)},
			Annotations:     map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(index), batchv1.JobIndexFailureCountAnnotation: strconv.Itoa(failures)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID, Controller: ptr.To(true)}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

// Terminate ends p's container "worker" with exit at finished (reason Error) and sets the
// phase that follows: Succeeded for 0, Failed otherwise. It returns p.
func Terminate(p *corev1.Pod, exit int32, finished time.Time) *corev1.Pod {
	p.Status.Phase = corev1.PodSucceeded
	if exit != 0 {
		p.Status.Phase = corev1.PodFailed
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "worker", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: exit, Reason: "Error", FinishedAt: metav1.Time{Time: finished},
	}}}}
	return p
}

// WriteFile writes content to name in a fresh temporary directory of t and returns its path.
func WriteFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// SixShards is a shard manifest of six shards of one case each (eval-six, revision 1).
const SixShards = `apiVersion: ` + contract.APIVersion + `
kind: ` + contract.ShardManifest + `
metadata: {name: eval-six}
revision: "1"
shards:
- {id: s0, cases: [c0]}
- {id: s1, cases: [c1]}
- {id: s2, cases: [c2]}
- {id: s3, cases: [c3]}
- {id: s4, cases: [c4]}
- {id: s5, cases: [c5]}
`
