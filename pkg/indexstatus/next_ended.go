package indexstatus

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
)

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
