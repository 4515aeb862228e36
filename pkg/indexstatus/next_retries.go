package indexstatus

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Next for a running Job's indexes whose next attempt is coming: retried after their backoff,
// waiting for a pod slot first, or running their last attempt.

// nextRetries: when each retrying index that the next pod creation considers (slots) gets its
// next attempt, the first listLimit one by one.
func (b *reportBuilder) nextRetries() []Entry {
	retrying := slices.DeleteFunc(slices.Clone(b.retrying), b.waitsForSlot)
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
	st := IndexStatus{Attempts: f.attempts, IgnoredFailureCount: f.pol.IgnoredCount}
	attempt := strings.TrimPrefix(b.nextAttemptWords(&st), ", ")
	e := Entry{Kind: EntryRetry, Indexes: indexes.Of(i), DueAt: timePtr(b.now.Add(f.remaining))}
	switch {
	case b.perIndex && f.remaining > 0:
		e.Text = fmt.Sprintf("Index %d will be retried after %s (%s).", i, FormatDuration(f.remaining), attempt)
	case b.perIndex:
		e.Text = fmt.Sprintf("Index %d is due to be retried now (%s).", i, attempt)
	default:
		n := int32(0)
		if b.pol.Global != nil {
			n = b.pol.Global.Failures
		}
		e.Text = fmt.Sprintf("Index %d will be retried after about %s (global backoff after %d %s since the last success; %s).",
			i, FormatDuration(f.remaining), n, textwrap.Plural(int(n), "failure", "failures"), attempt)
	}
	return e
}

// nextRetryWaits: retrying indexes the next pod creation leaves out wait for a free pod slot
// before their backoff matters.
func (b *reportBuilder) nextRetryWaits() []Entry {
	waiting := slices.DeleteFunc(slices.Clone(b.retrying), func(i int) bool { return !b.waitsForSlot(i) })
	if len(waiting) == 0 {
		return nil
	}
	ix := indexes.Of(waiting...)
	var ahead []int
	for i := range b.considered {
		ahead = append(ahead, i)
	}
	slices.Sort(ahead)
	why := fmt.Sprintf("no pod slot is free now (parallelism %d)", b.r.Parallelism)
	if b.free > 0 {
		why = fmt.Sprintf("parallelism %d leaves %d free %s, which the controller fills with the lowest pending indexes first (%s %s)",
			b.r.Parallelism, b.free, textwrap.Plural(b.free, "slot", "slots"), textwrap.Plural(len(ahead), "index", "indexes"), indexes.Of(ahead...).Truncated(setWidth))
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
