package indexstatus

import (
	"fmt"

	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

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
