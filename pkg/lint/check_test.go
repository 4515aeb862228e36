package lint

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// evaluationJob is the seed evaluation Job (the seed scenario) as a manifest holds it, with
// the podFailurePolicy rule that ignores disruptions first.
func evaluationJob() *batchv1.Job {
	return testutil.EvaluationJob(func(j *batchv1.Job) {
		j.TypeMeta = metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}
		j.Spec.PodFailurePolicy.Rules = append([]batchv1.PodFailurePolicyRule{
			{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}},
		}, j.Spec.PodFailurePolicy.Rules...)
	})
}

// CountAtLeast counts findings of severity sev or above.
func CountAtLeast(findings []Finding, sev Severity) int {
	n := 0
	for _, f := range findings {
		if f.Severity.Rank() >= sev.Rank() {
			n++
		}
	}
	return n
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
