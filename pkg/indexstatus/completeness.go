package indexstatus

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Whether the result can be used as complete, and what a finishing Job waits for.

// completeness says whether the result can be used as complete.
func (b *reportBuilder) completeness() Completeness {
	m := b.completions
	n := b.completed.Len()
	missing := b.completed.Complement(m)
	failed := b.phase == PhaseFailed || b.phase == PhaseFailing
	c := Completeness{Succeeded: n, Completions: int32(m), Complete: n == m && !failed, Missing: missing}
	switch {
	case failed:
		c.Verdict = fmt.Sprintf("NOT complete: the Job failed with %d of %d indexes succeeded; no result for %s", n, m, missing.Truncated(setWidth))
	case n == m:
		c.Verdict = fmt.Sprintf("complete: all %d indexes succeeded", m)
	case (b.phase == PhaseComplete || b.phase == PhaseCompleting) && b.r.Reason == batchv1.JobReasonSuccessPolicy:
		c.Verdict = fmt.Sprintf("NOT complete: the Job succeeded through its success policy with only %d of %d indexes succeeded; no result for %s", n, m, missing.Truncated(setWidth))
	case b.phase == PhaseComplete || b.phase == PhaseCompleting:
		c.Verdict = fmt.Sprintf("NOT complete: the Job is marked complete but only %d of %d indexes succeeded; no result for %s (its status contradicts itself)", n, m, missing.Truncated(setWidth))
	default:
		c.Verdict = fmt.Sprintf("incomplete so far: %d of %d indexes succeeded; no result yet for %s", n, m, missing.Truncated(setWidth))
	}
	return c
}

// waitingFor says what a Failing or Completing Job waits for.
func (b *reportBuilder) waitingFor() string {
	if b.phase != PhaseFailing && b.phase != PhaseCompleting {
		return ""
	}
	parts, final := b.waitParts()
	if len(parts) == 0 {
		return fmt.Sprintf("the controller's next sync to add the %s condition", final)
	}
	return fmt.Sprintf("%s; then the controller adds the %s condition (a pod stuck terminating, e.g. on a lost node, keeps the Job here and ttlSecondsAfterFinished does not start)",
		strings.Join(parts, " and "), final)
}

// waitParts lists what a finishing Job waits for, and the condition it then gets.
func (b *reportBuilder) waitParts() (parts []string, final string) {
	final = "Failed"
	if b.phase == PhaseCompleting {
		final = "Complete"
	}
	terminating := max(int(ptr.Deref(b.job.Status.Terminating, 0)), b.r.Pods.Terminating)
	if terminating > 0 {
		s := fmt.Sprintf("%d %s to finish terminating", terminating, textwrap.Plural(terminating, "pod", "pods"))
		if ix := b.terminatingIx.Set(); !ix.IsEmpty() {
			s += " (" + ix.Named(setWidth) + ")"
		}
		parts = append(parts, s)
	}
	if u := b.job.Status.UncountedTerminatedPods; u != nil && len(u.Failed)+len(u.Succeeded) > 0 {
		parts = append(parts, fmt.Sprintf("the controller to count %d finished pods", len(u.Failed)+len(u.Succeeded)))
	}
	return parts, final
}
