package indexstatus

import (
	"cmp"
	"fmt"
	"slices"
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
	if b.phase == PhaseRunning && b.job.Status.StartTime == nil && b.acc.Len() == 0 {
		return Entry{Kind: EntryNotStarted, Text: "The Job has not started yet: no pod exists."}
	}
	e := Entry{Text: b.explain()}
	switch b.phase {
	case PhaseRunning:
		e.Kind = EntryRunning
	case PhaseSuspended:
		e.Kind, e.Command = EntrySuspended, b.resumeCommand()
	default:
		e.Kind, e.Reason, e.Indexes = EntryReason, b.r.Reason, b.failed
		if b.failed.IsEmpty() {
			e.Indexes = b.unfinishedIx.Set()
		}
	}
	return e
}

// explain says why the Job is in its phase (explainEntry, of a Job that started).
func (b *reportBuilder) explain() string {
	r := b.r
	m := b.completions
	succeeded := b.completed.Len()
	switch b.phase {
	case PhaseRunning:
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
		if d, ok := b.pendingDecision(); ok { // a Fail or a Succeed
			does := "completes"
			if d.Kind == jobpolicy.Fail {
				does = "fails"
			}
			s += fmt.Sprintf(" No condition says so yet, but the next sync %s it (%s).", does, d.Reason)
		}
		return s
	case PhaseSuspended:
		return fmt.Sprintf("The Job is suspended (spec.suspend is true): the controller runs no pods, deletes running ones without counting them as failed, and stops the activeDeadlineSeconds clock. %d of %d indexes succeeded so far.", succeeded, m)
	}
	// The deciding condition's reason (build: Complete's, else SuccessCriteriaMet's).
	switch r.Reason {
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
	unfinished := b.unfinishedIx.Set()
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
		c.Add(i, b.failureWords(&b.facts[i]), 1)
	}
	return c.Join(func(ix indexes.Set, _ int, words string) string {
		if words == "" {
			return ix.Named(setWidth)
		}
		return ix.Named(setWidth) + " " + words
	})
}

// The pods the Why line names when backoffLimit failed the Job: those that failed on their own
// and those whose containers restarted, one clause per cause.

// ownFailureList names the pods that failed on their own (not killed), one clause per cause:
// "exit code 1 in container embed: index 4 (3 pods)".
func (b *reportBuilder) ownFailureList() string {
	return b.podClauses(ownFailed, func(p *podSummary) (string, int) { return exitWords(p), 1 },
		func(ix indexes.Set, n int, words string) string {
			s := words + ": " + ix.Named(setWidth)
			if n != ix.Len() {
				s += fmt.Sprintf(" (%d pods)", n)
			}
			return s
		})
}

// ownFailed: the pod failed on its own (not killed: not being deleted).
func ownFailed(p *podSummary) bool { return p.Failed && !p.Deleting }

// restarting: a pending or running pod whose containers restarted.
func restarting(p *podSummary) bool {
	return p.Restarts > 0 && (p.Phase == corev1.PodPending || p.Phase == corev1.PodRunning)
}

// restartList names the pending or running pods whose containers restarted, one clause per
// last exit: "index 1: 2 restarts, last exit code 1 in container worker".
func (b *reportBuilder) restartList() string {
	list := b.podClauses(restarting, func(p *podSummary) (string, int) {
		w := ""
		if e := p.exit; e != nil && e.code != 0 {
			w = fmt.Sprintf(", last exit code %d in container %s", e.code, e.container)
		}
		return w, int(p.Restarts)
	}, func(ix indexes.Set, n int, words string) string {
		return fmt.Sprintf("%s: %d %s%s", ix.Named(setWidth), n, textwrap.Plural(n, "restart", "restarts"), words)
	})
	if list == "" {
		return "no pod left shows a restart"
	}
	return list
}

// podClauses words the pods below completions that keep selects, grouped by the words cause
// gives each (CauseClauses, counting what it returns), in index order.
func (b *reportBuilder) podClauses(keep func(*podSummary) bool, cause func(*podSummary) (string, int), clause func(ix indexes.Set, n int, words string) string) string {
	var pods []*podSummary
	for _, p := range b.acc.pods {
		if p.Index < b.completions && keep(p) {
			pods = append(pods, p)
		}
	}
	// By index then creation; a tie in both goes to list order (attempt, then name), so that
	// the words do not follow the map's order.
	slices.SortFunc(pods, func(p, q *podSummary) int {
		return cmp.Or(cmp.Compare(p.Index, q.Index), p.Created().Compare(q.Created()), comparePods(p, q))
	})
	var c CauseClauses
	for _, p := range pods {
		w, n := cause(p)
		c.Add(p.Index, w, n)
	}
	return c.Join(clause)
}

// The words of a finishing condition's message. The controller's messages are built by
// jobpolicy (the same functions simulate writes them with); a message is read by building it
// again from the pods and rules at hand and comparing, never by parsing it.

// failJobWords explains a PodFailurePolicy failure: the pod the condition's message names
// (jobpolicy.FailJobMessage), else the first pod in list order that matched a FailJob rule.
func (b *reportBuilder) failJobWords() string {
	msg := b.cond.Message
	for _, p := range b.acc.pods {
		if p.Match.Is(batchv1.PodFailurePolicyActionFailJob) &&
			msg == jobpolicy.FailJobMessage(b.job.Namespace, p.Name, p.Match) {
			return namedFailJobWords(p)
		}
	}
	if p := b.firstFailJobPod(); p != nil {
		return fmt.Sprintf("Pod %s (index %d): %s matches podFailurePolicy rule %d (FailJob): the whole Job fails at once, without retries.",
			p.Name, p.Index, p.r().matchedBy, p.Match.Rule)
	}
	return fmt.Sprintf("A pod matched a FailJob rule of the podFailurePolicy: %s.", msg)
}

// firstFailJobPod is the first pod in list order (by index, then ListOrder) whose failure matched
// a FailJob rule (only a failed pod has a Match), nil when none did.
func (b *reportBuilder) firstFailJobPod() *podSummary {
	var first *podSummary
	for _, p := range b.acc.pods {
		if p.Match.Is(batchv1.PodFailurePolicyActionFailJob) && (first == nil || cmp.Or(cmp.Compare(p.Index, first.Index), comparePods(p, first)) < 0) {
			first = p
		}
	}
	return first
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
	msg := b.cond.Message
	for k, rule := range ptr.Deref(b.job.Spec.SuccessPolicy, batchv1.SuccessPolicy{}).Rules {
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
