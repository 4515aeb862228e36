package indexstatus

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
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
