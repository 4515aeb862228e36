package jobpolicy

import (
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

type jobB struct{ *batchv1.Job }

func indexedJob(completions, parallelism int32) jobB {
	return jobB{&batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "default", UID: "job-uid"},
		Spec: batchv1.JobSpec{
			Completions:    ptr.To(completions),
			Parallelism:    ptr.To(parallelism),
			CompletionMode: ptr.To(batchv1.IndexedCompletion),
			Template:       corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever}},
		},
	}}
}

func (j jobB) backoff(n int32) jobB  { j.Spec.BackoffLimit = ptr.To(n); return j }
func (j jobB) perIndex(n int32) jobB { j.Spec.BackoffLimitPerIndex = ptr.To(n); return j }
func (j jobB) maxFailed(n int32) jobB {
	j.Spec.MaxFailedIndexes = ptr.To(n)
	return j
}
func (j jobB) replacement(p batchv1.PodReplacementPolicy) jobB {
	j.Spec.PodReplacementPolicy = ptr.To(p)
	return j
}
func (j jobB) onFailure() jobB {
	j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	return j
}
func (j jobB) suspend() jobB { j.Spec.Suspend = ptr.To(true); return j }
func (j jobB) rules(rs ...batchv1.PodFailurePolicyRule) jobB {
	j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: rs}
	return j
}
func (j jobB) success(rs ...batchv1.SuccessPolicyRule) jobB {
	j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: rs}
	return j
}
func (j jobB) status(completed string, failed *string, nfailed int32) jobB {
	j.Status.CompletedIndexes, j.Status.FailedIndexes, j.Status.Failed = completed, failed, nfailed
	return j
}
func (j jobB) cond(t batchv1.JobConditionType, reason string) jobB {
	j.Status.Conditions = append(j.Status.Conditions, batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason})
	return j
}

func exitRule(action batchv1.PodFailurePolicyAction, op batchv1.PodFailurePolicyOnExitCodesOperator, codes ...int32) batchv1.PodFailurePolicyRule {
	return batchv1.PodFailurePolicyRule{Action: action, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: codes}}
}

type podB struct{ *corev1.Pod }

func pod(name string, index int) podB {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: "default", UID: types.UID(name),
		Annotations:       map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(index)},
		CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour)),
	}}
	return podB{p}
}

func (p podB) phase(ph corev1.PodPhase) podB { p.Status.Phase = ph; return p }
func (p podB) tracked() podB {
	p.Finalizers = append(p.Finalizers, batchv1.JobTrackingFinalizer)
	return p
}
func (p podB) count(n int) podB {
	p.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(n)
	return p
}
func (p podB) ignored(n int) podB {
	p.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(n)
	return p
}
func (p podB) exit(code int32, at time.Time) podB {
	p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: "worker",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, FinishedAt: metav1.NewTime(at)}}})
	return p
}
func (p podB) deleted(at time.Time, grace int64) podB {
	p.DeletionTimestamp = ptr.To(metav1.NewTime(at))
	p.DeletionGracePeriodSeconds = ptr.To(grace)
	return p
}
func (p podB) restarts(n int32) podB {
	p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: "worker", RestartCount: n})
	return p
}

func observe(job jobB, pods ...podB) []Pod {
	out := make([]Pod, len(pods))
	for i, p := range pods {
		out[i] = ObservePod(job.Job, p.Pod)
	}
	return out
}

func eval(job jobB, pods ...podB) *Facts {
	return Evaluate(job.Job, observe(job, pods...), t0)
}
