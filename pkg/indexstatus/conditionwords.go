package indexstatus

import (
	"cmp"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// The words of a finishing condition's message. The controller's messages are built by
// jobpolicy (the same functions simulate writes them with); a message is read by building it
// again from the pods and rules at hand and comparing, never by parsing it.

// message is the deciding condition's message, "" without one.
func (b *reportBuilder) message() string {
	if b.cond == nil {
		return ""
	}
	return b.cond.Message
}

// failJobWords explains a PodFailurePolicy failure: the pod the condition's message names
// (jobpolicy.FailJobMessage), else the first pod in list order that matched a FailJob rule.
func (b *reportBuilder) failJobWords() string {
	msg := b.message()
	var first *podSummary
	for _, p := range b.acc.pods {
		if !p.Match.Is(batchv1.PodFailurePolicyActionFailJob) {
			continue
		}
		if msg == jobpolicy.FailJobMessage(b.job.Namespace, p.Name, p.Match) {
			return namedFailJobWords(p)
		}
		if first == nil || cmp.Or(cmp.Compare(p.Index, first.Index), comparePods(p, first)) < 0 {
			first = p
		}
	}
	if p := first; p != nil {
		return fmt.Sprintf("Pod %s (index %d): %s matches podFailurePolicy rule %d (FailJob): the whole Job fails at once, without retries.",
			p.Name, p.Index, p.r().matchedBy, p.Match.Rule)
	}
	return fmt.Sprintf("A pod matched a FailJob rule of the podFailurePolicy: %s.", msg)
}

// namedFailJobWords words the pod a FailJob condition names, as its message does: by the pod
// condition the rule matched, else by the container's exit code.
func namedFailJobWords(p *podSummary) string {
	m := p.Match
	if m.Condition != "" {
		return fmt.Sprintf("Pod %s (index %d) has condition %s, which matches podFailurePolicy rule %d (FailJob): the whole Job fails at once, without retries.",
			p.Name, p.Index, m.Condition, m.Rule)
	}
	return fmt.Sprintf("Container %s of pod %s (index %d) exited with code %d, which matches podFailurePolicy rule %d (FailJob): the whole Job fails at once, without retries.",
		m.Container, p.Name, p.Index, m.ExitCode, m.Rule)
}

// successRuleWords describes the success policy rule the condition's message names
// (jobpolicy.SuccessPolicyMessage), or quotes the message.
func (b *reportBuilder) successRuleWords() string {
	msg := b.message()
	var rules []batchv1.SuccessPolicyRule
	if sp := b.job.Spec.SuccessPolicy; sp != nil {
		rules = sp.Rules
	}
	for k, rule := range rules {
		if msg != jobpolicy.SuccessPolicyMessage(k) {
			continue
		}
		var parts []string
		if rule.SucceededIndexes != nil {
			parts = append(parts, fmt.Sprintf("succeededIndexes %q", *rule.SucceededIndexes))
		}
		if rule.SucceededCount != nil {
			parts = append(parts, fmt.Sprintf("succeededCount %d", *rule.SucceededCount))
		}
		return fmt.Sprintf("rule %d (%s)", k, strings.Join(parts, ", "))
	}
	return fmt.Sprintf("(%s)", msg)
}
