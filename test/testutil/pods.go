package testutil

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WithManagedFields returns copies of pods that carry the managedFields a server returns
// (kubectl get -o json leaves them out of the fixtures), so that a decoder meant to drop them
// has something to drop.
func WithManagedFields(pods []corev1.Pod) []corev1.Pod {
	out := make([]corev1.Pod, len(pods))
	for i := range pods {
		p := pods[i].DeepCopy()
		p.ManagedFields = []metav1.ManagedFieldsEntry{{
			Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{}}}`),
		}}
		out[i] = *p
	}
	return out
}
