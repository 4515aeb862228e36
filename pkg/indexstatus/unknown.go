package indexstatus

import (
	"fmt"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Unknown: what cannot be known from what is left.

// unknown says what cannot be known from what is left.
func (b *reportBuilder) unknown() []Entry {
	var out []Entry
	if s := b.failedGone.Set(); !s.IsEmpty() {
		gone := b.podsGone(textwrap.Plural(s.Len(), "its", "their") + " pods are gone (pod garbage collection, TTL, or deleted by hand)")
		out = append(out, Entry{Kind: EntryFailureGone, Indexes: s, Text: fmt.Sprintf("Why %s failed (exit code, attempts): %s.", indexWords(s), gone)})
	}
	if s := b.noPodLeft.Set(); !s.IsEmpty() {
		gone := b.podsGone("no pod is left (" + b.goneWords() + ")")
		out = append(out, Entry{Kind: EntryRunUnknown, Indexes: s, Text: fmt.Sprintf("Whether %s ran at all, and how far: %s.", indexWords(s), gone)})
	}
	if !b.perIndex {
		seenFailed := b.countedFailed
		if int(b.job.Status.Failed) > seenFailed && b.phase != PhaseFailed && b.phase != PhaseFailing {
			out = append(out, Entry{Kind: EntryAttemptsUnknown, Text: fmt.Sprintf("status.failed counts %d failed pods but %d are left: attempts per index are counted from the pods still present.",
				b.job.Status.Failed, seenFailed)})
		} else if b.phase == PhaseFailed || b.phase == PhaseFailing {
			out = append(out, Entry{Kind: EntryAttemptsUnknown, Text: "Without backoffLimitPerIndex the attempts of an index are counted from its pods still present; killed and deleted pods are not seen."})
		}
		if len(b.retrying) > 0 || b.pol.Global != nil && b.phase == PhaseRunning && b.notStarted > 0 {
			out = append(out, Entry{Kind: EntryBackoffEstimate, Text: "Without backoffLimitPerIndex the retry delay is the controller's global backoff, which it keeps in memory (lost on restart); the times shown are estimates from the pods still present."})
		}
	}
	return out
}
