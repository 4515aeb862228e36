package indexstatus

import (
	"cmp"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Next for a running Job whose next sync finishes it: jobpolicy's decision, not yet a condition.

// nextSyncFinishes is, for a Running Job without a finishing condition yet, what its next
// sync decides (jobpolicy's decision, syncJob's order): it sets FailureTarget or
// SuccessCriteriaMet and deletes the active pods (deleteActivePods, job_controller.go:1125),
// or, with every index succeeded, manageJob deletes the active pods (wantActive 0, 1781-1806)
// and the Job completes in the same sync (1154).
func (b *reportBuilder) nextSyncFinishes() []Entry {
	d, ok := b.pendingDecision()
	if !ok {
		return nil
	}
	n := b.r.Pods.Active
	pods := fmt.Sprintf("%d running %s", n, textwrap.Plural(n, "pod", "pods"))
	e := Entry{Kind: EntryNextSyncFinishes, Reason: d.Reason}
	switch d.Reason {
	case batchv1.JobReasonCompletionsReached:
		e.Text = "Every index succeeded: the next sync completes the Job (CompletionsReached)"
		if n > 0 {
			e.Text += fmt.Sprintf(", after it deletes the %d %s still running (at or above completions after a scale-down, or extra pods of an index) without counting %s as failed",
				n, textwrap.Plural(n, "pod", "pods"), textwrap.Plural(n, "it", "them"))
		}
		e.Text += "."
	case batchv1.JobReasonSuccessPolicy:
		e.Text = fmt.Sprintf("The success policy is met: the next sync marks the Job succeeded (SuccessCriteriaMet, SuccessPolicy), deletes the %s without counting them as failed, and adds Complete once they are gone.", pods)
	default:
		e.Text = fmt.Sprintf("The next sync fails the Job (%s: %s): the controller adds the FailureTarget condition, deletes the %s and creates and retries nothing; Failed follows once the pods are gone.",
			d.Reason, b.failureCause(d.Reason), pods)
	}
	return []Entry{e}
}

// pendingDecision is the finishing condition the built-in controller's next sync sets on a
// Running Job that has none yet; not for a Job being deleted, one another controller manages,
// or a report made without the pods (whether pods still run is not known).
func (b *reportBuilder) pendingDecision() (jobpolicy.Decision, bool) {
	d := b.pol.Decision
	if d.Existing || (d.Kind != jobpolicy.Fail && d.Kind != jobpolicy.Succeed) || b.phase != PhaseRunning || b.opts.PodsNotGiven || b.job.DeletionTimestamp != nil {
		return d, false
	}
	if mb := b.job.Spec.ManagedBy; mb != nil && *mb != batchv1.JobControllerName {
		return d, false
	}
	return d, true
}

// failureCause says in a few words why the next sync fails the Job.
func (b *reportBuilder) failureCause(reason string) string {
	pol := b.pol
	switch reason {
	case batchv1.JobReasonPodFailurePolicy:
		var first *podSummary
		for _, p := range b.acc.pods {
			if p.Failed && p.Match.Is(batchv1.PodFailurePolicyActionFailJob) && (first == nil || cmp.Or(cmp.Compare(p.Index, first.Index), comparePods(p, first)) < 0) {
				first = p
			}
		}
		if first != nil {
			return fmt.Sprintf("pod %s (index %d) failed with %s, a FailJob rule", first.Name, first.Index, first.r().matchedBy)
		}
		return "a failed pod matches a FailJob rule of the podFailurePolicy"
	case batchv1.JobReasonBackoffLimitExceeded:
		if pol.Spec.RestartsCount() && pol.RestartsLeft <= 0 {
			return fmt.Sprintf("%d container restarts reach backoffLimit %d", pol.Restarts, pol.Spec.BackoffLimit)
		}
		return fmt.Sprintf("%d counted failures exceed backoffLimit %d", pol.CountedFailures, pol.Spec.BackoffLimit)
	case batchv1.JobReasonDeadlineExceeded:
		return fmt.Sprintf("activeDeadlineSeconds %d has passed", ptr.Deref(b.job.Spec.ActiveDeadlineSeconds, 0))
	case batchv1.JobReasonMaxFailedIndexesExceeded:
		return fmt.Sprintf("%d indexes failed, more than maxFailedIndexes %d", pol.Failed.Len(), ptr.Deref(b.job.Spec.MaxFailedIndexes, 0))
	case batchv1.JobReasonFailedIndexes:
		return fmt.Sprintf("every index has a result and %d failed", pol.Failed.Len())
	}
	return reason
}
