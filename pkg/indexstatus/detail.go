package indexstatus

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// An index's detail: what happened to it, in words, by its state.

// detail says in words what happened to the index.
func (b *reportBuilder) detail(f *indexFacts) string {
	current, term, lastFailed, succeeded := f.current, f.term, f.lastFailed, f.succeeded
	var d string
	switch f.state {
	case StateSucceeded:
		switch {
		case f.unread:
			// As with the pod read, without its name (--all-pods reads it).
			d = fmt.Sprintf("succeeded on attempt %d", f.attempts)
		case succeeded != nil && f.pol.NotYetRecorded:
			d = fmt.Sprintf("pod %s succeeded; not yet recorded in status.completedIndexes", succeeded.Name)
		case succeeded != nil:
			d = fmt.Sprintf("succeeded on attempt %d (pod %s)", f.attempts, succeeded.Name)
		case f.count == 0:
			d = "succeeded (" + b.podsGone("its pods are gone") + ")"
		default:
			d = "succeeded"
		}
	case StateFailed:
		if f.pol.NotYetRecorded {
			d = "not yet recorded in status.failedIndexes: "
		}
		d += b.failureWords(f)
	case StateRunning, StatePending:
		switch {
		case current != nil && current.Phase == corev1.PodRunning:
			d = fmt.Sprintf("attempt %d running for %s (pod %s)", f.attempts, b.age(current.startedAt(), current.Created()), current.Name)
			if !current.ready {
				d += ", not ready"
			}
			d += restartWords(current)
			if f.pol.LastAttempt {
				d += fmt.Sprintf("; last attempt: one more failure fails the index (backoffLimitPerIndex %d)", b.limit)
			}
		case current != nil:
			d = fmt.Sprintf("pod %s is %s", current.Name, strings.ToLower(string(current.Phase)))
			if current.r().waiting != "" {
				d += " (" + current.r().waiting + ")"
			}
			d += restartWords(current)
		case len(f.pol.Forgotten) > 0:
			d = b.forgottenWords(f)
		case b.phase == PhaseSuspended && lastFailed != nil:
			d = fmt.Sprintf("Job suspended; attempt %d failed (%s) and is retried after the Job resumes", f.attempts, exitWords(lastFailed))
		case b.phase == PhaseSuspended:
			d = "Job suspended: no pod runs until it resumes"
		case f.remaining > 0:
			d = fmt.Sprintf("not started yet; the global backoff holds every new pod for about %s more", FormatDuration(f.remaining))
		default:
			d = "not started yet"
		}
		if f.pol.FailureCount+f.pol.IgnoredCount > 0 && lastFailed != nil && current != nil {
			d += fmt.Sprintf("; the previous attempt failed (%s)", exitWords(lastFailed))
		}
	case StateRetrying:
		d = b.retryWords(f)
	case StateTerminating:
		d = b.terminatingWords(f) + restartWords(term)
	case StateUnfinished:
		switch {
		case lastFailed != nil && !lastFailed.Deleting && lastFailed.Match.Is(batchv1.PodFailurePolicyActionFailJob):
			d = fmt.Sprintf("no result: attempt %d failed (%s), which failed the whole Job", f.attempts, exitWords(lastFailed))
		case lastFailed != nil && !lastFailed.Deleting:
			d = fmt.Sprintf("no result: attempt %d failed (%s) and the Job %s before it was retried", f.attempts, exitWords(lastFailed), b.finishedVerb())
		case succeeded != nil:
			d = fmt.Sprintf("no result recorded: pod %s succeeded but the controller did not count it before the Job finished", succeeded.Name)
		case lastFailed != nil:
			d = fmt.Sprintf("no result: pod %s was killed when the Job %s", lastFailed.Name, b.finishedVerb())
		default:
			d = "no result and no pod left: " + b.goneWords()
			if b.opts.PodsNotGiven {
				d = "no result; " + notGiven
			}
		}
	}
	return d
}

// forgottenWords explains an index whose finished pods the controller no longer counts
// (calculateSucceededIndexes and calculateFailedIndexes only count pods with the tracking
// finalizer): it runs again.
func (b *reportBuilder) forgottenWords(f *indexFacts) string {
	names := strings.Join(f.pol.Forgotten, ", ")
	if f.succeeded != nil {
		return fmt.Sprintf("pod %s succeeded, but the index is not in status.completedIndexes and the pod lost its tracking finalizer (an elastic scale-down drops the index; scaling up again does not bring it back): the controller does not count it, and the index runs again", names)
	}
	// getPodsWithDelayedDeletionPerIndex hands counts on only from pods with the finalizer
	// (getValidPodsWithFilter, job_controller.go:2033); a failure counted before stays in
	// status.failed.
	return fmt.Sprintf("pod %s failed, and neither it (its tracking finalizer is gone) nor an active pod carries the index's failure count on (a replacement deleted by a suspension, or a finalizer removed by hand): the index runs again with its failure count back at 0", names)
}

func (b *reportBuilder) finishedVerb() string {
	if b.phase == PhaseComplete || b.phase == PhaseCompleting {
		return "met its success policy"
	}
	return "failed"
}

// goneWords explains, for a finished Job, why an index without a result has no pod.
func (b *reportBuilder) goneWords() string {
	if b.phase == PhaseComplete || b.phase == PhaseCompleting {
		return "pods still running when the success policy was met are deleted without being counted as failed, or it never started"
	}
	return "running pods are killed and deleted when a Job fails, or it never started"
}

// failureWords explains why an index failed.
func (b *reportBuilder) failureWords(f *indexFacts) string {
	lastFailed := f.lastFailed
	if t := f.term; t != nil && t.Failed && (lastFailed == nil || later(t, lastFailed)) {
		// The pod being deleted failed, a later attempt than lastFailed. TerminatingOrFailed: a
		// pod being deleted is failed at once (isPodFailed), and on the index's last attempt
		// fails the index (isIndexFailed).
		return fmt.Sprintf("failed: pod %s, attempt %d of %d, is being deleted; under podReplacementPolicy TerminatingOrFailed that counts as a failure at once, backoffLimitPerIndex %d is exhausted, and the index is never started again",
			t.Name, t.Attempt()+1, b.limit+1+t.IgnoredCount, b.limit)
	}
	if lastFailed == nil {
		if f.count == 0 {
			return "failed; " + b.podsGone("its pods are gone") + ", so the exit code and the reason are not known"
		}
		return "failed"
	}
	if lastFailed.Match.Is(batchv1.PodFailurePolicyActionFailIndex) {
		return fmt.Sprintf("failed at once: %s matched podFailurePolicy rule %d (FailIndex)", lastFailed.r().matchedBy, lastFailed.Match.Rule)
	}
	if b.perIndex {
		return fmt.Sprintf("failed after %d %s (%s), backoffLimitPerIndex %d exhausted",
			f.attempts, textwrap.Plural(f.attempts, "attempt", "attempts"), exitWords(lastFailed), b.limit)
	}
	return fmt.Sprintf("failed (%s)", exitWords(lastFailed))
}

// retryWords explains a Retrying index: the failed attempt and when the replacement comes.
func (b *reportBuilder) retryWords(f *indexFacts) string {
	lastFailed := f.lastFailed
	d := fmt.Sprintf("attempt %d failed (%s)", f.attempts, exitWords(lastFailed))
	if !lastFailed.Match.CountFailed() {
		d += "; ignored, not counted against the retry limits"
	}
	return d + b.replacementWords(f)
}

// replacementWords says when the replacement of a failed attempt is created: after the
// per-index backoff (getRemainingTimePerIndex) or the global one (backoffRecord.getRemainingTime).
func (b *reportBuilder) replacementWords(f *indexFacts) string {
	estimate := ""
	if !b.perIndex {
		estimate = "about "
	}
	next := b.nextAttemptWords(f)
	if b.job.DeletionTimestamp != nil && !b.phase.Finishing() {
		return "; no replacement: the Job is being deleted"
	}
	if f.waitsSlot {
		if f.remaining > 0 {
			return fmt.Sprintf("; the replacement waits for a free pod slot (lower pending indexes come first), and for its backoff for %s%s more%s", estimate, FormatDuration(f.remaining), next)
		}
		return "; the replacement waits for a free pod slot (lower pending indexes come first)" + next
	}
	if f.remaining > 0 {
		return fmt.Sprintf("; the replacement is created in %s%s (backoff %s)%s", estimate, FormatDuration(f.remaining), FormatDuration(f.pol.Backoff), next)
	}
	return fmt.Sprintf("; backoff %s over, the replacement is due now%s", FormatDuration(f.pol.Backoff), next)
}

// nextAttemptWords is ", attempt 2 of 2" under backoffLimitPerIndex.
func (b *reportBuilder) nextAttemptWords(f *indexFacts) string {
	if !b.perIndex {
		return fmt.Sprintf(", attempt %d", f.attempts+1)
	}
	maxAttempts := int(b.limit) + 1 + int(f.pol.IgnoredCount)
	return fmt.Sprintf(", attempt %d of %d", f.attempts+1, maxAttempts)
}

// terminatingWords explains a pod being deleted: who deleted it, whether it counts as a
// failure, and when the index runs again.
func (b *reportBuilder) terminatingWords(f *indexFacts) string {
	p := f.term
	age := FormatDuration(b.now.Sub(p.Finished()).Round(time.Second))
	switch b.phase {
	case PhaseFailing, PhaseFailed:
		return fmt.Sprintf("pod %s is being killed because the Job is failing (deleted %s ago)", p.Name, age)
	case PhaseCompleting, PhaseComplete:
		return fmt.Sprintf("pod %s is being deleted because the Job met its success policy (deleted %s ago)", p.Name, age)
	case PhaseSuspended:
		return fmt.Sprintf("pod %s is being deleted because the Job was suspended; not counted as a failure", p.Name)
	}
	if jobpolicy.OnlyReplaceFailedPods(b.job) {
		// firstPendingIndexes leaves out the index only while the pod is not terminal
		// (FilterTerminatingPods, indexed_job_utils.go:252-255); then the backoff counts from its
		// finish, and under backoffLimitPerIndex canRemoveFinalizer keeps its finalizer until the
		// replacement exists (job_controller.go:1461-1476).
		d := fmt.Sprintf("pod %s is being deleted; under podReplacementPolicy Failed its replacement is created once the pod has terminated (phase Failed) and the index's backoff has passed", p.Name)
		if b.perIndex {
			d += "; the controller keeps the pod's tracking finalizer until the replacement exists, which carries the index's failure count on (removing the finalizer by hand resets that count)"
		}
		return d
	}
	if !p.Tracked {
		// deleteJobPods removes the tracking finalizer before deleting, and such a pod is never
		// counted; a pod the controller already counted has lost the finalizer too.
		return fmt.Sprintf("pod %s is being deleted without its tracking finalizer: deleted by the controller itself (parallelism lowered, a duplicate index) it is not counted as failed, and the index is started again when parallelism allows", p.Name)
	}
	d := fmt.Sprintf("pod %s is being deleted; under podReplacementPolicy TerminatingOrFailed it counts as failed at once", p.Name)
	if !p.Match.CountFailed() {
		d = fmt.Sprintf("pod %s is being deleted; under podReplacementPolicy TerminatingOrFailed it is failed at once, but ignored by podFailurePolicy rule %d", p.Name, p.Match.Rule)
	}
	return d + b.replacementWords(f)
}
