package jobpolicy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
)

// The messages ConditionMessage and SuccessPolicyMessage build are the ones the real Job
// controller wrote in test/fixtures, captured from the local control plane (make fixtures):
// every condition of every captured Job whose reason they cover.
func TestConditionMessagesMatchTheCaptures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "test", "fixtures", "*", "job.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captured Jobs (%v)", err)
	}
	checked := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var job batchv1.Job
		if err := json.Unmarshal(b, &job); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range job.Status.Conditions {
			want := ConditionMessage(c.Reason)
			if c.Reason == batchv1.JobReasonSuccessPolicy && job.Spec.SuccessPolicy != nil {
				for i := range job.Spec.SuccessPolicy.Rules {
					if SuccessPolicyMessage(i) == c.Message {
						want = c.Message
					}
				}
				if want == "" {
					want = "Matched rules at index <a rule of the Job>"
				}
			}
			if want == "" {
				continue
			}
			if c.Message != want {
				t.Errorf("%s: condition %s/%s: captured %q, built %q", f, c.Type, c.Reason, c.Message, want)
			}
			checked[c.Reason]++
		}
	}
	for _, reason := range []string{batchv1.JobReasonBackoffLimitExceeded, batchv1.JobReasonDeadlineExceeded,
		batchv1.JobReasonMaxFailedIndexesExceeded, batchv1.JobReasonFailedIndexes, batchv1.JobReasonCompletionsReached,
		batchv1.JobReasonSuccessPolicy} {
		if checked[reason] == 0 {
			t.Errorf("no captured condition with reason %s: the check of its message ran on nothing", reason)
		}
	}
	t.Logf("captured conditions checked: %v", checked)
}
