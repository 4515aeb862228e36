package indexstatus

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestPodSelector(t *testing.T) {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u-1"}}
	if got, err := PodSelector(job); err != nil || got != "batch.kubernetes.io/controller-uid=u-1" {
		t.Errorf("generated selector: %q, %v", got, err)
	}
	// A selector without manualSelector is the generated one (the API server put it there).
	job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	if got, _ := PodSelector(job); got != "batch.kubernetes.io/controller-uid=u-1" {
		t.Errorf("selector without manualSelector: %q", got)
	}
	job.Spec.ManualSelector = ptr.To(true)
	if got, err := PodSelector(job); err != nil || got != "app=x" {
		t.Errorf("manual selector: %q, %v", got, err)
	}
	job.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Bogus"}}
	if _, err := PodSelector(job); err == nil || !strings.Contains(err.Error(), `job "j" in namespace "ns" has an invalid selector`) {
		t.Errorf("invalid selector: %v", err)
	}
}
