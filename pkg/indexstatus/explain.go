package indexstatus

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// The Why line (explanation): why the Job is in its phase.

// explainEntry is the explanation as a typed entry.
func (b *reportBuilder) explainEntry() Entry {
	e := Entry{Text: b.explain()}
	switch b.phase {
	case PhaseRunning:
		e.Kind = EntryRunning
		if b.job.Status.StartTime == nil && b.acc.Len() == 0 {
			e.Kind = EntryNotStarted
		}
	case PhaseSuspended:
		e.Kind, e.Command = EntrySuspended, b.resumeCommand()
	default:
		e.Kind, e.Reason = EntryReason, b.r.Reason
		switch {
		case !b.failed.IsEmpty():
			e.Indexes = b.failed
		case b.states[StateUnfinished].Set().Len() > 0:
			e.Indexes = b.states[StateUnfinished].Set()
		}
	}
	return e
}

// explain says why the Job is in its phase.
func (b *reportBuilder) explain() string {
	r := b.r
	m := b.completions
	succeeded := b.completed.Len()
	switch b.phase {
	case PhaseRunning:
		if b.job.Status.StartTime == nil && b.acc.Len() == 0 {
			return "The Job has not started yet: no pod exists."
		}
		// The count the Completeness line gives (status.completedIndexes); succeeded pods the
		// controller has not recorded yet are said apart, so the two lines agree.
		s := fmt.Sprintf("The Job is running: %d of %d indexes succeeded", succeeded, m)
		if n := b.notRecorded.Set().Len(); n > 0 {
			s += fmt.Sprintf(" (%d more whose %s succeeded, not yet recorded by the controller)", n, textwrap.Plural(n, "pod", "pods"))
		}
		for _, st := range []State{StateFailed, StateRunning, StatePending, StateRetrying, StateTerminating} {
			if n := r.Summary.Count(st); n > 0 {
				s += fmt.Sprintf(", %d %s", n, strings.ToLower(string(st)))
			}
		}
		s += "."
		if d, ok := b.pendingDecision(); ok {
			switch d.Kind {
			case jobpolicy.Fail:
				s += fmt.Sprintf(" No condition says so yet, but the next sync fails it (%s).", d.Reason)
			case jobpolicy.Succeed:
				s += fmt.Sprintf(" No condition says so yet, but the next sync completes it (%s).", d.Reason)
			}
		}
		return s
	case PhaseSuspended:
		return fmt.Sprintf("The Job is suspended (spec.suspend is true): the controller runs no pods, deletes running ones without counting them as failed, and stops the activeDeadlineSeconds clock. %d of %d indexes succeeded so far.", succeeded, m)
	}
	reason := ""
	if b.cond != nil {
		reason = b.cond.Reason
	}
	if b.phase == PhaseComplete && r.Reason != "" {
		reason = r.Reason
	}
	switch reason {
	case batchv1.JobReasonCompletionsReached:
		if missing := b.completed.Complement(m); !missing.IsEmpty() {
			return b.contradiction(missing)
		}
		return fmt.Sprintf("All %d indexes succeeded.", m)
	case batchv1.JobReasonSuccessPolicy:
		return fmt.Sprintf("Success policy %s was met, so the Job counts as succeeded although only %d of %d indexes succeeded; pods still running were deleted without being counted as failed.",
			b.successRuleWords(), succeeded, m)
	case batchv1.JobReasonFailedIndexes:
		return fmt.Sprintf("Every index has a result and %d failed: %s. With backoffLimitPerIndex a failed index does not stop the others; the Job fails once every index has a result and not all succeeded.",
			b.failed.Len(), b.failedIndexList())
	case batchv1.JobReasonMaxFailedIndexesExceeded:
		return fmt.Sprintf("%d indexes failed (%s), more than maxFailedIndexes %d allows, so the whole Job fails: %s. %s",
			b.failed.Len(), b.failed.Truncated(setWidth), ptr.Deref(b.job.Spec.MaxFailedIndexes, 0), b.failedIndexList(), b.killedWords())
	case batchv1.JobReasonBackoffLimitExceeded:
		if b.job.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyOnFailure && b.ownFailedPods == 0 {
			return fmt.Sprintf("Container restarts reached backoffLimit %d, so the whole Job fails: restartPolicy OnFailure counts the restarts of the containers of pending and running pods (%s). %s",
				jobpolicy.DefaultedBackoffLimit(&b.job.Spec), b.restartList(), b.killedWords())
		}
		s := fmt.Sprintf("More than backoffLimit %d pod failures were counted, so the whole Job fails", jobpolicy.DefaultedBackoffLimit(&b.job.Spec))
		if b.ownFailedPods > 0 {
			s += fmt.Sprintf(" (%d %s failed on %s own: %s)", b.ownFailedPods, textwrap.Plural(b.ownFailedPods, "pod", "pods"), textwrap.Plural(b.ownFailedPods, "its", "their"), b.ownFailureList())
		}
		return s + ". " + b.killedWords()
	case batchv1.JobReasonDeadlineExceeded:
		start := "its start"
		if b.job.Status.StartTime != nil {
			start = b.job.Status.StartTime.UTC().Format(time.RFC3339)
		}
		return fmt.Sprintf("The Job ran longer than activeDeadlineSeconds %d (started %s), so it fails whatever its indexes were doing. %s",
			ptr.Deref(b.job.Spec.ActiveDeadlineSeconds, 0), start, b.killedWords())
	case batchv1.JobReasonPodFailurePolicy:
		return b.failJobWords() + " " + b.killedWords()
	}
	if b.cond != nil {
		return fmt.Sprintf("Condition %s is True with reason %q: %s.", b.cond.Type, b.cond.Reason, b.cond.Message)
	}
	return ""
}

func (b *reportBuilder) resumeCommand() string {
	return fmt.Sprintf("kubectl patch job %s -n %s --type=merge -p '{\"spec\":{\"suspend\":false}}'", b.job.Name, b.job.Namespace)
}

// contradiction explains a Job marked Complete (CompletionsReached) whose completedIndexes
// lacks some indexes: the built-in controller never writes that (it sets Complete only once
// every index is in completedIndexes, job_controller.go: syncJob / enactJobFinished), so the
// status was written by another controller (spec.managedBy) or by hand.
func (b *reportBuilder) contradiction(missing indexes.Set) string {
	who := "by something other than the built-in Job controller"
	if mb := b.job.Spec.ManagedBy; mb != nil && *mb != batchv1.JobControllerName {
		who = fmt.Sprintf("by %q (spec.managedBy)", *mb)
	}
	return fmt.Sprintf("The Job's status contradicts itself: the Complete condition says all %d completions were reached (CompletionsReached), but status.completedIndexes records only %d of them (no result for %s). The built-in Job controller never writes this; the status was written %s. Do not take the result as complete.",
		b.completions, b.completed.Len(), missing.Truncated(setWidth), who)
}

// killedWords says what the controller did to the other indexes when the Job failed.
func (b *reportBuilder) killedWords() string {
	unfinished := b.states[StateUnfinished].Set()
	terminating := b.terminatingIx.Set()
	if b.phase == PhaseFailing {
		s := fmt.Sprintf("The controller is killing the running pods: %d %s terminating", terminating.Len(), textwrap.Plural(terminating.Len(), "index is", "indexes are"))
		if !terminating.IsEmpty() {
			s += " (" + terminating.Truncated(setWidth) + ")"
		}
		return s + "; they are counted as failed and their indexes get no result."
	}
	// status.failed holds no ignored failure (trackJobStatusAndRemoveFinalizers), so the pods
	// killed are what it counts beyond the counted failed pods left.
	killed := int(b.job.Status.Failed) - b.countedFailed
	s := ""
	if killed > 0 {
		s = fmt.Sprintf("The controller killed the running pods: status.failed counts %d failed %s of which %d %s left, so %d %s killed. ",
			b.job.Status.Failed, textwrap.Plural(int(b.job.Status.Failed), "pod", "pods"), b.countedFailed, textwrap.Plural(b.countedFailed, "is", "are"), killed, textwrap.Plural(killed, "was", "were"))
	}
	if unfinished.IsEmpty() {
		return s + "No index was left without a result."
	}
	return s + fmt.Sprintf("%d %s no result (%s).", unfinished.Len(), textwrap.Plural(unfinished.Len(), "index has", "indexes have"), unfinished.Truncated(setWidth))
}

// failedIndexList names the failed indexes with why they failed, one clause per cause
// (CauseClauses): "indexes 1,4,7 failed after 2 attempts (exit code 1 in container worker),
// backoffLimitPerIndex 1 exhausted".
func (b *reportBuilder) failedIndexList() string {
	var c CauseClauses
	for i := range b.failed.All() {
		if i >= len(b.facts) || b.facts[i].state != StateFailed {
			c.Add(i, "", 1)
			continue
		}
		f := &b.facts[i]
		st := IndexStatus{Attempts: f.attempts, Pods: make([]string, f.count)}
		c.Add(i, b.failureWords(&st, f), 1)
	}
	return c.Join(func(ix indexes.Set, _ int, words string) string {
		if words == "" {
			return indexWords(ix)
		}
		return indexWords(ix) + " " + words
	})
}
