package jobpolicy

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
)

// The messages of the finishing conditions the Job controller writes (job-semantics.md §2.3,
// verbatim). simulate writes them; status reads a condition by building the message again from
// the pods and rules it has and comparing, never by parsing it.

// ConditionMessage is the message syncJob writes beside a finishing reason other than
// PodFailurePolicy and SuccessPolicy (FailJobMessage, SuccessPolicyMessage), "" for those.
func ConditionMessage(reason string) string {
	switch reason {
	case batchv1.JobReasonBackoffLimitExceeded:
		return "Job has reached the specified backoff limit"
	case batchv1.JobReasonDeadlineExceeded:
		return "Job was active longer than specified deadline"
	case batchv1.JobReasonMaxFailedIndexesExceeded:
		return "Job has exceeded the specified maximal number of failed indexes"
	case batchv1.JobReasonFailedIndexes:
		return "Job has failed indexes"
	case batchv1.JobReasonCompletionsReached:
		return "Reached expected number of succeeded pods"
	}
	return ""
}

// FailJobMessage is getFailJobMessage's message for the failed pod of namespace whose failure
// matched a FailJob rule: by the pod condition the rule matched, else by the container's exit code.
func FailJobMessage(namespace, pod string, m *Match) string {
	if m.Condition != "" {
		return fmt.Sprintf("Pod %s/%s has condition %v matching %v rule at index %d", namespace, pod, m.Condition, m.Action, m.Rule)
	}
	return fmt.Sprintf("Container %s for pod %s/%s failed with exit code %v matching %v rule at index %d", m.Container, namespace, pod, m.ExitCode, m.Action, m.Rule)
}

// SuccessPolicyMessage is matchSuccessPolicy's message when spec.successPolicy.rules[rule] is
// the first rule met.
func SuccessPolicyMessage(rule int) string { return fmt.Sprintf("Matched rules at index %d", rule) }
