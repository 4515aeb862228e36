package indexstatus

// Next: what happens next, jobpolicy's facts as entries with their words. Each decision is one
// function named by the entry it makes (next<EntryKind>), nil when it does not apply; the
// files next_*.go hold them by the state of the Job they speak of.

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
	var out []Entry
	for _, entries := range [][]Entry{unsched, b.nextRetries(), b.nextRetryWaits(), b.nextLastAttempt(),
		b.nextRunsAgain(), b.nextMaxFailed(), b.nextSucceedOrNot(), b.nextBackoffLimit(unsched),
		b.nextDeadline(), b.nextNotStartedYet()} {
		out = append(out, entries...)
	}
	return out
}
