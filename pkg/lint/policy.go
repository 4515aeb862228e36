package lint

import (
	"fmt"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// The retry-policy findings put pkg/jobpolicy's facts into words; lint and diff both print
// these messages, so the two commands say the same thing about the same Job.

// PrepareDBMessage words jobpolicy.Spec.SharedBudget: the indexes of the Job share the global
// backoffLimit, whose excess fails the whole Job and deletes every running pod.
func PrepareDBMessage(s jobpolicy.Spec) string {
	failures := s.FailuresToFail()
	running := s.RunningAtOnce()
	var b strings.Builder
	what := fmt.Sprintf("backoffLimit %d", s.BackoffLimit)
	if !s.BackoffLimitSet {
		what = fmt.Sprintf("backoffLimit (not set, so %d)", s.BackoffLimit)
	}
	fmt.Fprintf(&b, "%s is shared by all %d indexes (no backoffLimitPerIndex): %d pod %s anywhere fail the whole Job and the controller deletes every running pod",
		what, s.Completions, failures, textwrap.Plural(int(failures), "failure", "failures"))
	switch together := running - failures; {
	case s.BackoffLimit == jobpolicy.UnlimitedBackoffLimit:
	case running <= 1:
		fmt.Fprintf(&b, "; with parallelism %d no other shard runs at that moment, but every index not yet finished never runs", running)
	case together > 0:
		other := textwrap.Plural(int(together), "other healthy shard", "other healthy shards")
		fmt.Fprintf(&b, ". With %d indexes running at once, %d transient failures close together kill the %d %s (up to %d if replacements were already running), and indexes not yet started never run",
			running, failures, together, other, running-1)
	default:
		fmt.Fprintf(&b, ". With %d indexes running at once, that kills up to %s running at that moment, and indexes not yet started never run", running, textwrap.Count(int(running-1), "healthy shard", "healthy shards"))
	}
	if s.RestartsCount() {
		if n := s.RestartsToFail(); n == 1 {
			b.WriteString("; with restartPolicy OnFailure container restarts count too: the first restart of any container of a pending or running pod fails the Job")
		} else {
			fmt.Fprintf(&b, "; with restartPolicy OnFailure container restarts count too: %d restarts summed over the pending and running pods fail the Job", n)
		}
	}
	return b.String()
}

// BackoffBesidePerIndexMessage words jobpolicy.Spec.GlobalLimitFiresFirst: a backoffLimit next
// to backoffLimitPerIndex that can fail the whole Job before the indexes use up their retries.
func BackoffBesidePerIndexMessage(s jobpolicy.Spec) string {
	return fmt.Sprintf("backoffLimit %d is enforced before the per-index limits: %d counted pod failures across all %d indexes fail the whole Job and kill every running index, although each index may fail %d times (backoffLimitPerIndex %d); remove backoffLimit or raise it to at least %d",
		s.BackoffLimit, s.FailuresToFail(), s.Completions, jobpolicy.AttemptsPerIndex(*s.BackoffLimitPerIndex), *s.BackoffLimitPerIndex, s.PerIndexFailuresAtMost())
}
