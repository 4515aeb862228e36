package indexstatus

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Notes: the other observations.

// notes are other observations.
func (b *reportBuilder) notes() []string {
	var out []string
	job := b.job
	if job.DeletionTimestamp != nil {
		out = append(out, "The Job is being deleted.")
	}
	if mb := job.Spec.ManagedBy; mb != nil && *mb != batchv1.JobControllerName {
		out = append(out, fmt.Sprintf("spec.managedBy is %q: the built-in Job controller ignores this Job; its status is written by that controller.", *mb))
	}
	if job.Spec.Suspend != nil && !*job.Spec.Suspend && jobpolicy.ConditionTrue(job, batchv1.JobSuspended) != nil && !b.phase.Finishing() {
		out = append(out, "spec.suspend is false but the Suspended condition is still True: the controller has not resumed the Job yet.")
	}
	if s := b.notRecorded.Set(); !s.IsEmpty() {
		out = append(out, fmt.Sprintf("%s %s a succeeded pod that the controller has not recorded in completedIndexes yet; shown as Succeeded.",
			textwrap.Plural(s.Len(), "Index", "Indexes"), s.Truncated(setWidth)+textwrap.Plural(s.Len(), " has", " have")))
	}
	if s := b.duplicates.Set(); !s.IsEmpty() {
		out = append(out, fmt.Sprintf("%s %s more than one active pod; the controller deletes the extra ones.",
			textwrap.Plural(s.Len(), "Index", "Indexes"), s.Truncated(setWidth)+textwrap.Plural(s.Len(), " has", " have")))
	}
	if n := b.beyond.Seen; n > 0 {
		var kinds []string
		if n := b.beyond.Active; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d active, which the controller deletes without counting %s as failed", n, textwrap.Plural(n, "it", "them")))
		}
		if n := b.beyond.Terminating; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d being deleted", n))
		}
		if n := b.beyond.Succeeded; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d succeeded, whose %s no longer counted in completedIndexes and succeeded", n, textwrap.Plural(n, "index is", "indexes are")))
		}
		if n := b.beyond.Failed; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d failed, still counted in status.failed", n))
		}
		out = append(out, fmt.Sprintf("%d %s an index at or above completions %d (left from a scale-down) and %s not shown: %s.",
			n, textwrap.Plural(n, "pod has", "pods have"), b.completions, textwrap.Plural(n, "is", "are"), strings.Join(kinds, "; ")))
	}
	if n := len(b.acc.ignored); n > 0 {
		out = append(out, fmt.Sprintf("%d %s given %s ignored: they belong to another Job or carry no completion index.",
			n, textwrap.Plural(n, "pod", "pods"), textwrap.Plural(n, "was", "were")))
	}
	if ids := b.opts.ShardIDs; len(ids) > 0 && len(ids) != b.completions {
		out = append(out, fmt.Sprintf("The shard list has %d IDs but completions is %d: indexes without an entry show no shard ID.", len(ids), b.completions))
	}
	return out
}

// Unknown: what cannot be known from what is left.

// unknown says what cannot be known from what is left.
func (b *reportBuilder) unknown() []Entry {
	var out []Entry
	if s := b.failedGone.Set(); !s.IsEmpty() {
		gone := b.podsGone(textwrap.Plural(s.Len(), "its", "their") + " pods are gone (pod garbage collection, TTL, or deleted by hand)")
		out = append(out, Entry{Kind: EntryFailureGone, Indexes: s, Text: fmt.Sprintf("Why %s failed (exit code, attempts): %s.", s.Named(setWidth), gone)})
	}
	if s := b.noPodLeft.Set(); !s.IsEmpty() {
		gone := b.podsGone("no pod is left (" + b.goneWords() + ")")
		out = append(out, Entry{Kind: EntryRunUnknown, Indexes: s, Text: fmt.Sprintf("Whether %s ran at all, and how far: %s.", s.Named(setWidth), gone)})
	}
	if !b.perIndex {
		if int(b.job.Status.Failed) > b.countedFailed && b.phase != PhaseFailed && b.phase != PhaseFailing {
			out = append(out, Entry{Kind: EntryAttemptsUnknown, Text: fmt.Sprintf("status.failed counts %d failed pods but %d are left: attempts per index are counted from the pods still present.",
				b.job.Status.Failed, b.countedFailed)})
		} else if b.phase == PhaseFailed || b.phase == PhaseFailing {
			out = append(out, Entry{Kind: EntryAttemptsUnknown, Text: "Without backoffLimitPerIndex the attempts of an index are counted from its pods still present; killed and deleted pods are not seen."})
		}
		if len(b.retrying) > 0 || b.pol.Global != nil && b.phase == PhaseRunning && b.notStarted > 0 {
			out = append(out, Entry{Kind: EntryBackoffEstimate, Text: "Without backoffLimitPerIndex the retry delay is the controller's global backoff, which it keeps in memory (lost on restart); the times shown are estimates from the pods still present."})
		}
	}
	return out
}
