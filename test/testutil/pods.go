package testutil

import (
	"bytes"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
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

// EncodeList encodes a PodList as the API server writes it for Accept
// application/vnd.kubernetes.protobuf (apimachinery's protobuf serializer: its magic, then a
// runtime.Unknown holding the list): for tests and benchmarks that serve pods to
// pkg/podstream's decoder.
func EncodeList(pods []corev1.Pod, meta metav1.ListMeta) ([]byte, error) {
	var b bytes.Buffer
	list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: meta, Items: pods}
	err := protobuf.NewSerializer(nil, nil).Encode(list, &b)
	return b.Bytes(), err
}
