package indexstatus

import (
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Next: what happens next, jobpolicy's facts as entries with their words. Each decision is one
// function named by the entry it makes (next<EntryKind>), nil when it does not apply; below
// next, they are grouped by the state of the Job they speak of.

// next lists the decisions in the report's order. The first that applies ends the list when
// the built-in controller leaves the Job alone, the Job is being deleted, has finished, is
// finishing or is suspended, or its next sync finishes it; a running Job's decisions add up.
func (b *reportBuilder) next() []Entry {
	for _, only := range []func() []Entry{b.nextExternalController, b.nextBeingDeleted, b.nextFinished,
		b.nextFinishing, b.nextSuspended, b.nextSyncFinishes} {
		if out := only(); out != nil {
			return out
		}
	}
	unsched := b.unschedulable()
	return slices.Concat(unsched, b.nextRetries(), b.nextRetryWaits(), b.nextLastAttempt(), b.nextRunsAgain(),
		b.nextMaxFailed(), b.nextSucceedOrNot(), b.nextBackoffLimit(unsched), b.nextDeadline(), b.nextNotStartedYet())
}

// Next when the built-in controller will not run the Job's indexes any more: another controller
// manages it, it is being deleted, it finished, or it is finishing.

// nextExternalController: syncJob returns before acting on a Job another controller manages
// (managedByExternalController): no built-in retry, pod creation, counting or finishing.
func (b *reportBuilder) nextExternalController() []Entry {
	mb := b.job.Spec.ManagedBy
	if mb == nil || *mb == batchv1.JobControllerName || b.phase == PhaseFailed || b.phase == PhaseComplete {
		return nil
	}
	return []Entry{{Kind: EntryExternalController, Text: fmt.Sprintf("spec.managedBy is %q: the built-in Job controller does not act on this Job (it creates, retries, counts and finishes nothing); what runs next is up to that controller.", *mb)}}
}

// nextBeingDeleted: syncJob runs manageJob only when job.DeletionTimestamp == nil
// (job_controller.go:1139), and canRemoveFinalizer lets every pod's finalizer go (1462).
func (b *reportBuilder) nextBeingDeleted() []Entry {
	if b.job.DeletionTimestamp == nil || (b.phase != PhaseRunning && b.phase != PhaseSuspended) {
		return nil
	}
	return []Entry{{Kind: EntryBeingDeleted, Text: "The Job is being deleted (metadata.deletionTimestamp is set): the controller creates and retries no pod any more, and removes the tracking finalizers of its pods (counting the ones that finished); with foreground deletion the Job goes once its pods are gone."}}
}

// nextFinished: nothing more runs; ttlSecondsAfterFinished deletes the Job, and the actions
// follow (actions.go).
func (b *reportBuilder) nextFinished() []Entry {
	if b.phase != PhaseFailed && b.phase != PhaseComplete {
		return nil
	}
	e := Entry{Kind: EntryFinished, Text: "Nothing more will run: the Job is finished."}
	if ttl := b.job.Spec.TTLSecondsAfterFinished; ttl != nil {
		if c := b.cond; c != nil && !c.LastTransitionTime.IsZero() {
			at := c.LastTransitionTime.Add(time.Duration(*ttl) * time.Second)
			e.DueAt = timePtr(at)
			if at.After(b.now) {
				e.Text += fmt.Sprintf(" The Job and its pods are deleted in %s (ttlSecondsAfterFinished %d).", FormatDuration(at.Sub(b.now)), *ttl)
			} else {
				e.Text += fmt.Sprintf(" The Job and its pods are due for deletion (ttlSecondsAfterFinished %d).", *ttl)
			}
		}
	}
	return append([]Entry{e}, b.finishedActions()...)
}

// nextFinishing: a Failing or Completing Job gets its final condition once its pods are gone
// and counted (waitParts).
func (b *reportBuilder) nextFinishing() []Entry {
	if b.phase != PhaseFailing && b.phase != PhaseCompleting {
		return nil
	}
	parts, final := b.waitParts()
	e := Entry{Kind: EntryFinishing, Indexes: b.terminatingIx.Set()}
	if len(parts) == 0 {
		e.Text = fmt.Sprintf("The controller adds the %s condition at its next sync.", final)
	} else {
		e.Text = fmt.Sprintf("The Job becomes %s after waiting for %s.", final, strings.Join(parts, " and "))
	}
	return []Entry{e}
}

// Next for a suspended Job: Kueue admits it, or someone resumes it.

// nextSuspended is what a suspended Job waits for: Kueue's admission, or a resume; and the
// indexes that failed while it was suspended.
func (b *reportBuilder) nextSuspended() []Entry {
	if b.phase != PhaseSuspended {
		return nil
	}
	left := b.completions - b.completed.Len() - b.pol.Failed.Difference(b.completed).Len()
	if q := b.job.Labels[kueue.QueueLabel]; q != "" {
		return []Entry{b.nextAwaitingAdmission(q, left)}
	}
	return append([]Entry{b.nextResume(left)}, b.nextFailedWhileSuspended()...)
}

// nextAwaitingAdmission: Kueue owns spec.suspend; it un-suspends the Job once its Workload is
// admitted.
func (b *reportBuilder) nextAwaitingAdmission(queue string, left int) Entry {
	job := b.job
	e := Entry{Kind: EntryAwaitingAdmission,
		Command: fmt.Sprintf("kubectl get workloads.kueue.x-k8s.io -n %s -l kueue.x-k8s.io/job-uid=%s", job.Namespace, job.UID),
		Text: fmt.Sprintf("The Job is waiting for admission by Kueue (LocalQueue %s): Kueue sets spec.suspend to false once its Workload is admitted, then the controller starts the %d %s without a result. Leave spec.suspend to Kueue.",
			queue, left, textwrap.Plural(left, "index", "indexes"))}
	if kq := b.opts.Queue; kq != nil && kq.Next != "" {
		e.Text = fmt.Sprintf("%s Once admitted, the controller starts the %d %s without a result.", kq.Next, left, textwrap.Plural(left, "index", "indexes"))
	}
	return e
}

// nextResume: nothing runs until spec.suspend is false. The command ends the text, as every
// entry's does, so that the text output prints it.
func (b *reportBuilder) nextResume(left int) Entry {
	return Entry{Kind: EntryResume, Command: b.resumeCommand(), Text: fmt.Sprintf("Nothing runs until spec.suspend is set to false; then the controller starts the %d %s without a result (startTime is reset, so activeDeadlineSeconds counts from the resume). Resume it: %s",
		left, textwrap.Plural(left, "index", "indexes"), b.resumeCommand())}
}

// nextFailedWhileSuspended: indexes that failed (counted while suspended) never start again.
func (b *reportBuilder) nextFailedWhileSuspended() []Entry {
	failed := b.failedIx.Set()
	if failed.IsEmpty() {
		return nil
	}
	return []Entry{{Kind: EntryCannotSucceed, Indexes: failed, Text: fmt.Sprintf("%s %s failed (backoffLimitPerIndex exhausted, counted while the Job is suspended): %s never started again.",
		textwrap.Plural(failed.Len(), "Index", "Indexes"), failed.Truncated(setWidth), textwrap.Plural(failed.Len(), "it is", "they are"))}}
}

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
		if first := b.firstFailJobPod(); first != nil {
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

// Next for a running Job's indexes whose next attempt is coming: retried after their backoff,
// waiting for a pod slot first, or running their last attempt.

// nextRetries: when each retrying index that the next pod creation considers (slots) gets its
// next attempt, the first listLimit one by one.
func (b *reportBuilder) nextRetries() []Entry {
	retrying := slices.DeleteFunc(slices.Clone(b.retrying), func(i int) bool { return b.facts[i].waitsSlot })
	var out []Entry
	for k, i := range retrying {
		if k == listLimit {
			return append(out, Entry{Kind: EntryRetry, Indexes: indexes.Of(retrying[k:]...),
				Text: fmt.Sprintf("%d more retrying indexes are retried after their backoff.", len(retrying)-k)})
		}
		out = append(out, b.retryEntry(i))
	}
	return out
}

// retryEntry says when index i is retried: after its own backoff under backoffLimitPerIndex,
// else after the controller's global one.
func (b *reportBuilder) retryEntry(i int) Entry {
	f := &b.facts[i]
	attempt := strings.TrimPrefix(b.nextAttemptWords(f), ", ")
	e := Entry{Kind: EntryRetry, Indexes: indexes.Of(i), DueAt: timePtr(b.now.Add(f.remaining))}
	switch {
	case b.perIndex && f.remaining > 0:
		e.Text = fmt.Sprintf("Index %d will be retried after %s (%s).", i, FormatDuration(f.remaining), attempt)
	case b.perIndex:
		e.Text = fmt.Sprintf("Index %d is due to be retried now (%s).", i, attempt)
	default:
		n := ptr.Deref(b.pol.Global, jobpolicy.GlobalBackoff{}).Failures
		e.Text = fmt.Sprintf("Index %d will be retried after about %s (global backoff after %d %s since the last success; %s).",
			i, FormatDuration(f.remaining), n, textwrap.Plural(int(n), "failure", "failures"), attempt)
	}
	return e
}

// nextRetryWaits: retrying indexes the next pod creation leaves out wait for a free pod slot
// before their backoff matters.
func (b *reportBuilder) nextRetryWaits() []Entry {
	waiting := slices.DeleteFunc(slices.Clone(b.retrying), func(i int) bool { return !b.facts[i].waitsSlot })
	if len(waiting) == 0 {
		return nil
	}
	ix := indexes.Of(waiting...)
	why := fmt.Sprintf("no pod slot is free now (parallelism %d)", b.r.Parallelism)
	if b.free > 0 {
		why = fmt.Sprintf("parallelism %d leaves %d free %s, which the controller fills with the lowest pending indexes first (%s)",
			b.r.Parallelism, b.free, textwrap.Plural(b.free, "slot", "slots"), b.considered.Named(setWidth))
	}
	return []Entry{{Kind: EntryRetryWaits, Indexes: ix, Text: fmt.Sprintf("%s %s %s for a free pod slot: %s. %s retried once a slot is free for %s and %s backoff has passed, not at a time known now.",
		textwrap.Plural(ix.Len(), "Index", "Indexes"), ix.Truncated(setWidth), textwrap.Plural(ix.Len(), "waits", "wait"), why,
		textwrap.Plural(ix.Len(), "It is", "They are"), textwrap.Plural(ix.Len(), "it", "them"), textwrap.Plural(ix.Len(), "its", "their"))}}
}

// nextLastAttempt: running indexes on their last attempt under backoffLimitPerIndex, the first
// listLimit one by one.
func (b *reportBuilder) nextLastAttempt() []Entry {
	var out []Entry
	for k, i := range b.lastAttempt {
		if k == listLimit {
			return append(out, Entry{Kind: EntryLastAttempt, Indexes: indexes.Of(b.lastAttempt[k:]...),
				Text: fmt.Sprintf("%d more running indexes are on their last attempt.", len(b.lastAttempt)-k)})
		}
		out = append(out, Entry{Kind: EntryLastAttempt, Indexes: indexes.Of(i),
			Text: fmt.Sprintf("Index %d is on its last attempt: one more failure fails the index (backoffLimitPerIndex %d).", i, b.limit)})
	}
	return out
}

// Next for a running Job's indexes that start (again) when a pod slot is free: those the
// controller forgot, and those not started yet.

// nextRunsAgain: indexes whose finished pods lost their tracking finalizer without a result
// are not counted, and run again.
func (b *reportBuilder) nextRunsAgain() []Entry {
	s := b.forgotten.Set()
	if s.IsEmpty() {
		return nil
	}
	text := fmt.Sprintf("%s %s finished pods without their tracking finalizer and no result in status.completedIndexes or status.failedIndexes: the controller does not take them into account for the %s, and the %s again",
		textwrap.Plural(s.Len(), "Index", "Indexes"), s.Truncated(setWidth)+textwrap.Plural(s.Len(), " has", " have"), textwrap.Plural(s.Len(), "index", "indexes"), textwrap.Plural(s.Len(), "index runs", "indexes run"))
	if b.forgottenFailed {
		// getValidPodsWithFilter (job_controller.go:2033) reads only pods with the
		// finalizer: no failure count is handed on, but status.failed keeps what it counted.
		text += "; a failed one hands no failure count on (the index runs with its failure count back at 0), but stays in status.failed if the controller counted it"
	}
	return []Entry{{Kind: EntryRunsAgain, Indexes: s, Text: text + "."}}
}

// nextNotStartedYet: indexes without a pod start, lowest first, as parallelism's slots free up.
// The slots are held by the indexes with an active pod (running or pending) and by those
// waiting out a backoff, which the controller starts first (lowest first).
func (b *reportBuilder) nextNotStartedYet() []Entry {
	pending := b.notStarted - b.forgotten.Set().Len()
	if pending <= 0 {
		return nil
	}
	active := b.r.Summary.Running + b.r.Summary.Pending - b.notStarted
	held := fmt.Sprintf("%d active", active)
	if r := b.r.Summary.Retrying; r > 0 {
		held += fmt.Sprintf(", %d retrying", r)
	}
	them := textwrap.Plural(pending, "it", "them")
	text := fmt.Sprintf("%d %s not started yet; the controller starts %s, lowest first, as active pods finish (parallelism %d: %s).",
		pending, textwrap.Plural(pending, "index is", "indexes are"), them, b.r.Parallelism, held)
	if active+b.r.Summary.Retrying < int(b.r.Parallelism) {
		// A slot is free: nothing waits for an active pod to finish.
		text = fmt.Sprintf("%d %s not started yet although parallelism %d leaves room (%s); the controller starts %s, lowest first, at a next sync, unless a quota or an admission webhook holds %s back.",
			pending, textwrap.Plural(pending, "index is", "indexes are"), b.r.Parallelism, held, them, them)
	}
	return []Entry{{Kind: EntryNotStartedYet, Count: ptr.To(int64(pending)), Text: text}}
}

// Next for a running Job's limits: how far each is from failing it (maxFailedIndexes,
// backoffLimit, container restarts, activeDeadlineSeconds), and whether failed indexes still
// let it succeed.

// nextMaxFailed: how many more failed indexes fail the Job under maxFailedIndexes.
func (b *reportBuilder) nextMaxFailed() []Entry {
	left := b.pol.FailedIndexesLeft
	if !b.perIndex || left == nil {
		return nil
	}
	k := max(*left, 1)
	return []Entry{{Kind: EntryMaxFailed, Count: ptr.To(k), Indexes: b.pol.Failed, Text: fmt.Sprintf("%d more failed %s the Job (maxFailedIndexes %d, %d failed so far), killing its running pods.",
		k, textwrap.Plural(int(k), "index aborts", "indexes abort"), *b.job.Spec.MaxFailedIndexes, b.pol.Failed.Len())}}
}

// nextSucceedOrNot: with failed indexes, whether the success policy can still make the Job
// succeed (CanStillSucceed) or it ends Failed (CannotSucceed).
func (b *reportBuilder) nextSucceedOrNot() []Entry {
	failed := b.pol.Failed
	switch {
	case !b.perIndex || failed.Len() == 0:
		return nil
	case b.pol.CanSucceed:
		return []Entry{{Kind: EntryCanStillSucceed, Indexes: failed, Text: fmt.Sprintf("Indexes %s failed, but the Job can still succeed: the controller fails it for failed indexes only once every index has a result, and the success policy is checked before that; if the policy is not met by then, it ends Failed (FailedIndexes).",
			failed.Truncated(setWidth))}}
	}
	return []Entry{{Kind: EntryCannotSucceed, Indexes: failed, Text: fmt.Sprintf("The Job cannot succeed any more (indexes %s failed): it ends Failed (FailedIndexes) once every other index has a result.", failed.Truncated(setWidth))}}
}

// nextBackoffLimit: how many counted failures (and, under restartPolicy OnFailure, container
// restarts) are left before backoffLimit fails the Job. With nothing running and pods the
// scheduler cannot place (unsched), no budget is being spent.
func (b *reportBuilder) nextBackoffLimit(unsched []Entry) []Entry {
	running := b.r.Summary.Running + b.r.Summary.Pending - b.notStarted // indexes with an active pod
	for _, e := range unsched {
		running -= e.Indexes.Len()
	}
	pol, spec := b.pol, b.pol.Spec
	if (b.perIndex && spec.BackoffLimit == jobpolicy.UnlimitedBackoffLimit) || (running == 0 && len(unsched) > 0) {
		return nil
	}
	k := max(pol.FailuresLeft, 1)
	out := []Entry{{Kind: EntryBackoffLimit, Count: ptr.To(k), Text: fmt.Sprintf("The global backoffLimit %d is %d %s away from failing the Job and killing its %d running %s.",
		spec.BackoffLimit, k, textwrap.Plural(int(k), "failure", "failures"), running, textwrap.Plural(running, "index", "indexes"))}}
	if !spec.RestartsCount() {
		return out
	}
	k = max(pol.RestartsLeft, 1)
	words := fmt.Sprintf("%d more container %s", k, textwrap.Plural(int(k), "restart", "restarts"))
	if k == 1 {
		words = "The next container restart"
	}
	return append(out, Entry{Kind: EntryRestartLimit, Count: ptr.To(k), Text: fmt.Sprintf("%s in a pending or running pod %s the Job (restartPolicy OnFailure: %d %s so far against backoffLimit %d).",
		words, textwrap.Plural(int(k), "fails", "fail"), pol.Restarts, textwrap.Plural(int(pol.Restarts), "restart", "restarts"), spec.BackoffLimit)})
}

// nextDeadline: when activeDeadlineSeconds fails the Job.
func (b *reportBuilder) nextDeadline() []Entry {
	ads, at := b.job.Spec.ActiveDeadlineSeconds, b.pol.DeadlineAt
	if ads == nil || at.IsZero() {
		return nil
	}
	e := Entry{Kind: EntryDeadline, DueAt: timePtr(at)}
	if at.After(b.now) {
		e.Text = fmt.Sprintf("activeDeadlineSeconds %d fails the Job in %s if it has not finished by then.", *ads, FormatDuration(at.Sub(b.now)))
	} else {
		e.Text = fmt.Sprintf("activeDeadlineSeconds %d has passed: the controller fails the Job at its next sync.", *ads)
	}
	return []Entry{e}
}
