package indexstatus

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// EntryFailedByPolicy: the Job's own podFailurePolicy failed Indexes for good (a FailIndex or
// FailJob rule: the user declared that failure final, such as exit code 42 for invalid
// input), so a plain re-run is not offered for them; Command re-runs them deliberately, with
// the others, once their input is fixed.
const EntryFailedByPolicy EntryKind = "FailedByPolicy"

// FinalAction reports whether a podFailurePolicy rule with action ends an index's retries by
// the user's own declaration (FailIndex, FailJob), rather than by its retries running out:
// re-running the same input fails the same way. The rule retry and status both use.
func FinalAction(action string) bool {
	return action == string(batchv1.PodFailurePolicyActionFailIndex) || action == string(batchv1.PodFailurePolicyActionFailJob)
}

// FailedByPolicy are the indexes of r without a success whose latest failed attempt matched a
// FailIndex or FailJob rule (FinalAction), and the rules in words ("rule 0 (FailIndex: exit
// code 42 in container worker)"): what a retry leaves out unless named, and status does not
// offer for a plain re-run.
func (r *IndexedJobStatus) FailedByPolicy() (indexes.Set, string) {
	return r.failedByPolicy, r.policyRules
}

func ruleWords(index int, action, on string) string {
	if on == "" {
		return fmt.Sprintf("rule %d (%s)", index, action)
	}
	return fmt.Sprintf("rule %d (%s: %s)", index, action, on)
}

// failedByPolicy is FailedByPolicy, from the builder's facts (every index, listed or not).
func (b *reportBuilder) failedByPolicy() (indexes.Set, string) {
	var bl indexes.Builder
	var rules []string
	seen := map[string]bool{}
	for i := range b.facts {
		f := &b.facts[i]
		lf := f.lastFailed
		if f.state == StateSucceeded || lf == nil || !lf.Match.Matched() || !FinalAction(string(lf.Match.Action)) {
			continue
		}
		bl.Add(f.index)
		if w := ruleWords(lf.Match.Rule, string(lf.Match.Action), lf.r().matchedBy); !seen[w] {
			seen[w] = true
			rules = append(rules, w)
		}
	}
	return bl.Set(), strings.Join(rules, ", ")
}
