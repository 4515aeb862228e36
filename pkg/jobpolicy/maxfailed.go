package jobpolicy

// MaxFailedIndexesPercent is the share of an Indexed Job's indexes that may fail (after their
// per-index retries) before the Job is failed and its running indexes are stopped: the
// maxFailedIndexes that kubectl indexed create sets by default, that lint advises when it is
// unset, and that simulate's prepare-db hint writes. One rule, in one place.
//
// Half is a choice. maxFailedIndexes is a circuit breaker: once more than half of the shards
// failed, the cause is almost surely shared (a bad image, command or dataset) and the run
// cannot be used anyway, so stopping it saves the rest of the budget. Fewer failures never
// stop the healthy shards, which keep running to their end; kubectl indexed retry then
// re-runs just the failed ones. A lower share stops a broken run sooner, but kills healthy
// shards of a run that a few bad inputs would not have spoiled, the harm the prepare-db mode
// does.
const MaxFailedIndexesPercent = 50

// PercentOf is percent of total indexes, rounded down (as create's --max-failed-indexes reads
// a percentage).
func PercentOf(total int, percent int32) int32 {
	if total <= 0 || percent <= 0 {
		return 0
	}
	return int32(int64(total) * int64(percent) / 100)
}

// SuggestedMaxFailedIndexes is MaxFailedIndexesPercent of completions, rounded down.
func SuggestedMaxFailedIndexes(completions int) int32 {
	return PercentOf(completions, MaxFailedIndexesPercent)
}
