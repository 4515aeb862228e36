package indexstatus

import (
	"fmt"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

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
	failed := b.states[StateFailed].Set()
	if failed.IsEmpty() {
		return nil
	}
	return []Entry{{Kind: EntryCannotSucceed, Indexes: failed, Text: fmt.Sprintf("%s %s failed (backoffLimitPerIndex exhausted, counted while the Job is suspended): %s never started again.",
		textwrap.Plural(failed.Len(), "Index", "Indexes"), failed.Truncated(setWidth), textwrap.Plural(failed.Len(), "it is", "they are"))}}
}
