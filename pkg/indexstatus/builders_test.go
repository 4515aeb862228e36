package indexstatus

import (
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// t0 is the reference time of the builders; fixedClock reports t0 + offset.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

func at(d time.Duration) fixedClock { return fixedClock(t0.Add(d)) }

// jobB builds an Indexed Job as the API server returns it (defaults applied).
type jobB struct{ j *batchv1.Job }

func newJob(name string, completions, parallelism int32) *jobB {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)},
		Spec: batchv1.JobSpec{
			Completions:          ptr.To(completions),
			Parallelism:          ptr.To(parallelism),
			CompletionMode:       ptr.To(batchv1.IndexedCompletion),
			BackoffLimit:         ptr.To[int32](6),
			PodReplacementPolicy: ptr.To(batchv1.TerminatingOrFailed),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "worker", Image: "w"}},
			}},
		},
		Status: batchv1.JobStatus{StartTime: &metav1.Time{Time: t0}, Ready: ptr.To[int32](0), Terminating: ptr.To[int32](0)},
	}
	return &jobB{j}
}

func (b *jobB) perIndex(limit int32, maxFailed *int32) *jobB {
	b.j.Spec.BackoffLimitPerIndex = ptr.To(limit)
	b.j.Spec.MaxFailedIndexes = maxFailed
	b.j.Spec.BackoffLimit = ptr.To[int32](2147483647)
	if b.j.Status.FailedIndexes == nil {
		b.j.Status.FailedIndexes = ptr.To("")
	}
	return b
}

func (b *jobB) backoffLimit(n int32) *jobB { b.j.Spec.BackoffLimit = ptr.To(n); return b }

func (b *jobB) rule(action batchv1.PodFailurePolicyAction, container string, op batchv1.PodFailurePolicyOnExitCodesOperator, codes ...int32) *jobB {
	if b.j.Spec.PodFailurePolicy == nil {
		b.j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{}
		b.j.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
	}
	r := batchv1.PodFailurePolicyRule{Action: action, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: codes}}
	if container != "" {
		r.OnExitCodes.ContainerName = ptr.To(container)
	}
	b.j.Spec.PodFailurePolicy.Rules = append(b.j.Spec.PodFailurePolicy.Rules, r)
	return b
}

func (b *jobB) conditionRule(action batchv1.PodFailurePolicyAction, t corev1.PodConditionType, status corev1.ConditionStatus) *jobB {
	if b.j.Spec.PodFailurePolicy == nil {
		b.j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{}
		b.j.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
	}
	b.j.Spec.PodFailurePolicy.Rules = append(b.j.Spec.PodFailurePolicy.Rules, batchv1.PodFailurePolicyRule{
		Action: action, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: t, Status: status}},
	})
	return b
}

func (b *jobB) status(completed string, failed *string, succeeded, failedCount, active int32) *jobB {
	b.j.Status.CompletedIndexes = completed
	if failed != nil {
		b.j.Status.FailedIndexes = failed
	}
	b.j.Status.Succeeded, b.j.Status.Failed, b.j.Status.Active = succeeded, failedCount, active
	return b
}

func (b *jobB) cond(t batchv1.JobConditionType, reason, msg string, after time.Duration) *jobB {
	b.j.Status.Conditions = append(b.j.Status.Conditions, batchv1.JobCondition{
		Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg,
		LastTransitionTime: metav1.Time{Time: t0.Add(after)},
	})
	return b
}

func (b *jobB) terminating(n int32) *jobB { b.j.Status.Terminating = ptr.To(n); return b }

func (b *jobB) suspend() *jobB {
	b.j.Spec.Suspend = ptr.To(true)
	b.j.Status.StartTime = nil
	return b.cond(batchv1.JobSuspended, "JobSuspended", "Job suspended", 0)
}

func (b *jobB) get() *batchv1.Job { return b.j }

// podB builds a pod of a Job as the controller and the kubelet leave it.
type podB struct{ p *corev1.Pod }

func newPod(job *batchv1.Job, index, attempt int, created time.Duration) *podB {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s-%d-a%d", job.Name, index, attempt),
			Namespace: job.Namespace,
			UID:       types.UID(fmt.Sprintf("%s-%d-%d", job.UID, index, attempt)),
			Labels: map[string]string{
				batchv1.ControllerUidLabel: string(job.UID), batchv1.JobNameLabel: job.Name,
				batchv1.JobCompletionIndexAnnotation: strconv.Itoa(index),
			},
			Annotations:       map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(index)},
			CreationTimestamp: metav1.Time{Time: t0.Add(created)},
			Finalizers:        []string{batchv1.JobTrackingFinalizer},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true),
			}},
		},
		Spec:   corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "worker"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if job.Spec.BackoffLimitPerIndex != nil {
		p.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(attempt)
	}
	return &podB{p}
}

func (b *podB) running(started time.Duration) *podB {
	b.p.Status.Phase = corev1.PodRunning
	b.p.Status.StartTime = &metav1.Time{Time: t0.Add(started)}
	b.p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	b.p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "worker", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	return b
}

// exited ends the pod: exit code 0 succeeds, anything else fails.
func (b *podB) exited(code int32, finished time.Duration) *podB {
	b.p.Status.Phase = corev1.PodSucceeded
	reason := "Completed"
	if code != 0 {
		b.p.Status.Phase = corev1.PodFailed
		reason = "Error"
	}
	b.p.Status.StartTime = &metav1.Time{Time: b.p.CreationTimestamp.Time}
	b.p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Time{Time: t0.Add(finished)}}}
	b.p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "worker", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: code, Reason: reason, FinishedAt: metav1.Time{Time: t0.Add(finished)},
	}}}}
	return b
}

func (b *podB) counted() *podB { b.p.Finalizers = nil; return b }

func (b *podB) deleting(at time.Duration) *podB {
	b.p.DeletionTimestamp = &metav1.Time{Time: t0.Add(at)}
	b.p.DeletionGracePeriodSeconds = ptr.To[int64](30)
	return b
}

func (b *podB) ignoredCount(n int) *podB {
	b.p.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(n)
	return b
}

func (b *podB) condition(t corev1.PodConditionType, reason string) *podB {
	b.p.Status.Conditions = append(b.p.Status.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason})
	return b
}

func (b *podB) get() corev1.Pod { return *b.p }
