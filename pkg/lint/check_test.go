package lint

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// evaluationJob is the seed evaluation Job (the seed scenario).
func evaluationJob() *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "evaluation"},
		Spec: batchv1.JobSpec{
			CompletionMode:        ptr.To(batchv1.IndexedCompletion),
			Completions:           ptr.To[int32](6),
			Parallelism:           ptr.To[int32](2),
			BackoffLimitPerIndex:  ptr.To[int32](1),
			MaxFailedIndexes:      ptr.To[int32](2),
			ActiveDeadlineSeconds: ptr.To[int64](600),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}},
				{Action: batchv1.PodFailurePolicyActionFailIndex, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: ptr.To("worker"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}},
			}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "worker", Image: "busybox:1.36"}},
			}},
		},
	}
}

func rulesOf(fs []Finding, sev Severity) []string {
	var out []string
	for _, f := range fs {
		if f.Severity == sev {
			out = append(out, f.Rule)
		}
	}
	return out
}

func TestCheckJobEvaluationIsClean(t *testing.T) {
	fs := CheckJob(evaluationJob(), Options{})
	if HasErrors(fs) || CountAtLeast(fs, SeverityWarning) > 0 {
		t.Fatalf("want no errors or warnings, got %+v", fs)
	}
}

func TestCheckJobFailIndexWithoutPerIndex(t *testing.T) {
	j := evaluationJob()
	j.Spec.BackoffLimitPerIndex = nil
	j.Spec.MaxFailedIndexes = nil
	fs := CheckJob(j, Options{})
	if !HasErrors(fs) {
		t.Fatalf("want an error, got %+v", fs)
	}
	want := `spec.podFailurePolicy.rules[1].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set`
	found := false
	for _, f := range fs {
		if f.Severity == SeverityError && f.Message == want && f.Rule == "fail-index-requires-per-index" {
			found = true
		}
	}
	if !found {
		t.Errorf("want error %q, got %v", want, fs)
	}
	if got := strings.Join(rulesOf(fs, SeverityWarning), ","); !strings.Contains(got, RulePrepareDB) {
		t.Errorf("want the prepare-db warning too, got %s", got)
	}
}

// Case 3 of issue 10: with restartPolicy OnFailure and backoffLimit 0 the first container
// restart fails the Job (pastBackoffLimitOnFailure: result > 0 when backoffLimit is 0); with
// backoffLimit 3, three restarts (result >= backoffLimit).
func TestPrepareDBOnFailureRestarts(t *testing.T) {
	for limit, want := range map[int32]string{
		0: "the first restart of any container of a pending or running pod fails the Job",
		3: "3 restarts summed over the pending and running pods fail the Job",
	} {
		j := evaluationJob()
		j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.PodFailurePolicy = nil, nil, nil
		j.Spec.BackoffLimit = ptr.To(limit)
		j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
		var msg string
		for _, f := range CheckJob(j, Options{}) {
			if f.Rule == RulePrepareDB {
				msg = f.Message
			}
		}
		if !strings.Contains(msg, want) || strings.Contains(msg, " 0 restarts") {
			t.Errorf("backoffLimit %d: %q does not say %q", limit, msg, want)
		}
	}
}
