package indexstatus

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// PodSelector is the label selector of the Job's pods, for the verbs that list them (status,
// logs): the controller-uid label the API server puts on the template, or the Job's own
// selector when it was set by hand (manualSelector).
func PodSelector(job *batchv1.Job) (string, error) {
	if job.Spec.ManualSelector != nil && *job.Spec.ManualSelector && job.Spec.Selector != nil {
		sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
		if err != nil {
			return "", fmt.Errorf("job %q in namespace %q has an invalid selector: %w", job.Name, job.Namespace, err)
		}
		return sel.String(), nil
	}
	return labels.Set{batchv1.ControllerUidLabel: string(job.UID)}.String(), nil
}

// Pod ownership is one rule, for every verb that reads a Job's pods (status, logs, list, retry,
// reconcile): the pods are read by the Job's selector (PodSelector), and of those a pod is the
// Job's when its controller owner reference names the Job's UID, as the Job controller decides
// (it adopts and releases pods through their owner reference). A pod saved without owner
// references falls back to its controller-uid label; against a Job without a UID (a
// hand-written manifest), to its job-name label.

// The labels older Job controllers wrote where batchv1.ControllerUidLabel and JobNameLabel are.
const (
	labelLegacyControllerUID = "controller-uid"
	labelLegacyJobName       = "job-name"
)

// OwnerUID is the UID of the Job pod belongs to: its controller owner reference's, else its
// controller-uid label; "" when it has neither.
func OwnerUID(pod *corev1.Pod) string {
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		return string(ref.UID)
	}
	for _, l := range []string{batchv1.ControllerUidLabel, labelLegacyControllerUID} {
		if v, ok := pod.Labels[l]; ok {
			return v
		}
	}
	return ""
}

// OwnerJob is pod's controller owner reference when it names a Job, else nil.
func OwnerJob(pod *corev1.Pod) *metav1.OwnerReference {
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil && ref.Kind == "Job" {
		return ref
	}
	return nil
}

// OwnerName names the owner of pod (OwnerUID's) for a message: its controller ("Job \"x\""),
// else the Job its job-name label names, with the UID, else the UID alone.
func OwnerName(pod *corev1.Pod) string {
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		return fmt.Sprintf("%s %q", ref.Kind, ref.Name)
	}
	if n := pod.Labels[batchv1.JobNameLabel]; n != "" {
		return fmt.Sprintf("Job %q (uid %s)", n, OwnerUID(pod))
	}
	return fmt.Sprintf("the Job of uid %s", OwnerUID(pod))
}

// Owns reports whether pod belongs to job (see OwnerUID; pods of another namespace never do).
func Owns(job *batchv1.Job, pod *corev1.Pod) bool {
	if pod.Namespace != "" && job.Namespace != "" && pod.Namespace != job.Namespace {
		return false
	}
	if job.UID != "" {
		return OwnerUID(pod) == string(job.UID)
	}
	for _, l := range []string{batchv1.JobNameLabel, labelLegacyJobName} {
		if v, ok := pod.Labels[l]; ok {
			return v == job.Name
		}
	}
	return false
}
