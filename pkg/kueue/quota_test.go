package kueue

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilptr "k8s.io/utils/ptr"
)

const cqYAML = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  %[1]s
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: small
      resources:
      - {name: cpu, nominalQuota: 2%[2]s}
      - {name: memory, nominalQuota: 4Gi%[2]s}
    - name: big
      resources:
      - {name: cpu, nominalQuota: 8%[2]s}
      - {name: memory, nominalQuota: 1Gi%[2]s}
`

func queues(t *testing.T, cohort, borrow string) *Queues {
	t.Helper()
	qs := &Queues{}
	for _, doc := range []string{
		fmt.Sprintf(cqYAML, cohort, borrow),
		"apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: ns}\nspec: {clusterQueue: cq}\n",
	} {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		if ok, err := qs.AddObject(obj); !ok || err != nil {
			t.Fatalf("AddObject: %v %v", ok, err)
		}
	}
	return qs
}

func queuedJobOf(n int32, cpu, mem string, limitsOnly bool, ann map[string]string) *batchv1.Job {
	rl := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
	res := corev1.ResourceRequirements{Requests: rl}
	if limitsOnly {
		res = corev1.ResourceRequirements{Limits: rl}
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", Labels: map[string]string{QueueLabel: "lq"}, Annotations: ann},
		Spec: batchv1.JobSpec{Parallelism: utilptr.To(n), Completions: utilptr.To(n), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "main", Resources: res}}}}},
	}
}

// TestNeverAdmits: each flavor of the group is tried (Kueue assigns one flavor per resource
// group); a flavor fits when every covered resource fits its maximum capacity.
func TestNeverAdmits(t *testing.T) {
	for _, tc := range []struct {
		name, cohort, borrow string
		job                  *batchv1.Job
		want                 string
	}{
		{"fits the small flavor", "", "", queuedJobOf(2, "1", "1Gi", false, nil), ""},
		{"cpu too much for small, memory for big", "", "", queuedJobOf(3, "1", "1Gi", false, nil),
			"ClusterQueue cq can never admit its 3 pods (flavor small: 3 of cpu > maximum capacity 2; flavor big: 3Gi of memory > maximum capacity 1Gi)"},
		{"limits stand in for requests", "", "", queuedJobOf(3, "1", "1Gi", true, nil), "can never admit its 3 pods"},
		{"partial admission down to 2", "", "", queuedJobOf(3, "1", "1Gi", false, map[string]string{MinParallelismAnnotation: "2"}), ""},
		{"a cohort without a borrowing limit may lend", "cohortName: team", "", queuedJobOf(3, "1", "1Gi", false, nil), ""},
		{"a cohort with a borrowing limit too small", "cohortName: team", ", borrowingLimit: 0", queuedJobOf(3, "1", "1Gi", false, nil), "can never admit"},
		{"the borrowing limit makes room", "cohortName: team", ", borrowingLimit: 1", queuedJobOf(3, "1", "1Gi", false, nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qs := queues(t, tc.cohort, tc.borrow)
			cq := qs.ClusterQueueFor(tc.job)
			if cq == nil {
				t.Fatal("no ClusterQueue for the Job's LocalQueue")
			}
			got := NeverAdmits(cq, tc.job)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("NeverAdmits = %q, want %q", got, tc.want)
			}
		})
	}
	// No namespace in the manifest: the only LocalQueue of that name.
	j := queuedJobOf(3, "1", "1Gi", false, nil)
	j.Namespace = ""
	if queues(t, "", "").ClusterQueueFor(j) == nil {
		t.Error("a Job without a namespace does not find the only LocalQueue lq")
	}
}
