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
		e := Entry{Kind: EntryFailureGone, Indexes: s, Text: fmt.Sprintf("Why %s %s failed (exit code, attempts): %s pods are gone (pod garbage collection, TTL, or deleted by hand).",
			textwrap.Plural(s.Len(), "index", "indexes"), s.Truncated(setWidth), textwrap.Plural(s.Len(), "its", "their"))}
		if b.opts.PodsNotGiven {
			e.Text = fmt.Sprintf("Why %s %s failed (exit code, attempts): %s.", textwrap.Plural(s.Len(), "index", "indexes"), s.Truncated(setWidth), notGiven)
		}
		out = append(out, e)
	}
	if s := b.noPodLeft.Set(); !s.IsEmpty() {
		e := Entry{Kind: EntryRunUnknown, Indexes: s, Text: fmt.Sprintf("Whether %s %s ran at all, and how far: no pod is left (%s).",
			textwrap.Plural(s.Len(), "index", "indexes"), s.Truncated(setWidth), b.goneWords())}
		if b.opts.PodsNotGiven {
			e.Text = fmt.Sprintf("Whether %s %s ran at all, and how far: %s.", textwrap.Plural(s.Len(), "index", "indexes"), s.Truncated(setWidth), notGiven)
		}
		out = append(out, e)
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
