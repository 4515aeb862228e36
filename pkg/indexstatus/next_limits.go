package indexstatus

import (
	"fmt"

	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

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
