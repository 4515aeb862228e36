package simulate

import (
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Pods returns the pods still present at the end (Options.KeepPods), as the API server would
// list them after kwok played them (test/harness/stages.yaml): the annotations the controller
// sets, the tracking finalizer while it is kept, the phase, the container states with exit
// codes and restart counts, the injected condition. pkg/indexstatus reads them as it reads a
// real Job's pods.
func (r *Result) Pods() []corev1.Pod {
	out := make([]corev1.Pod, 0, len(r.pods))
	job := r.Job
	for _, p := range r.pods {
		if p.removed {
			continue
		}
		pod := corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: r.ns, UID: types.UID(p.name),
				CreationTimestamp: metav1.Time{Time: p.created},
				Labels:            map[string]string{batchv1.JobNameLabel: job.Name},
				Annotations:       map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(p.index)}},
			Spec: corev1.PodSpec{RestartPolicy: job.Spec.Template.Spec.RestartPolicy, Containers: job.Spec.Template.Spec.Containers},
		}
		if job.Spec.BackoffLimitPerIndex != nil {
			pod.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(int(p.failureCount))
			if p.ignoredCount > 0 {
				pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(int(p.ignoredCount))
			}
		}
		if p.tracked {
			pod.Finalizers = []string{batchv1.JobTrackingFinalizer}
		}
		if p.deleting {
			pod.DeletionTimestamp = &metav1.Time{Time: p.created}
		}
		pod.Status.Phase = p.phase
		pod.Status.StartTime = &metav1.Time{Time: p.created}
		running := p.phase == corev1.PodRunning
		for _, c := range job.Spec.Template.Spec.Containers {
			cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, RestartCount: p.restarts, Ready: running}
			switch {
			case running:
				cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.Time{Time: p.created}}
			default:
				code := int32(0)
				if r.container == "" || r.container == c.Name {
					code = p.lastExit
				}
				reason := "Completed"
				if code != 0 {
					reason = "Error"
				}
				cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason,
					StartedAt: metav1.Time{Time: p.created}, FinishedAt: metav1.Time{Time: p.finished}}
			}
			pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, cs)
		}
		ready := corev1.ConditionFalse
		if running {
			ready = corev1.ConditionTrue
		}
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: ready,
			LastTransitionTime: metav1.Time{Time: p.finished}})
		if p.condition != "" {
			c := corev1.PodCondition{Type: corev1.PodConditionType(p.condition), Status: corev1.ConditionTrue, Reason: "Scenario"}
			if c.Type == corev1.DisruptionTarget {
				c.Reason = "PreemptionByScheduler"
			}
			pod.Status.Conditions = append(pod.Status.Conditions, c)
		}
		out = append(out, pod)
	}
	return out
}
