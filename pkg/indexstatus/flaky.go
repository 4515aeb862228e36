package indexstatus

import (
	"cmp"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Flaky shards: indexes that succeeded, but only after more than one attempt. What is known
// when (docs/status.md, "Flaky indexes"): the number of attempts is the index's (Attempts:
// the failure-count annotations under backoffLimitPerIndex, which survive the failed pods;
// else the pods present), and the exits of the failed attempts are those of the failed pods
// still present. Live status without --all-pods does not read succeeded pods but does read
// failed ones, so an index's earlier failures are known as long as their pods exist.

// isFlaky: the index succeeded after more than one attempt.
func isFlaky(f *indexFacts) bool { return f.state == StateSucceeded && f.attempts > 1 }

// attemptHistory lists the index's attempts read, oldest first, at most MaxAttemptHistory (the
// latest), and how many of its Attempts it leaves out; nothing for an index of one attempt
// unless that attempt ended or is ending without success (historyWanted).
func (b *reportBuilder) attemptHistory(f *indexFacts) ([]Attempt, int) {
	pods := b.byIndex[f.index]
	if !historyWanted(f.state, f.attempts, len(pods)) {
		return nil, 0
	}
	var out []Attempt
	for k, p := range pods {
		a := Attempt{Attempt: jobpolicy.AttemptNumber(b.perIndex, &p.Pod, k), Pod: p.Name, Phase: string(p.Phase), Node: p.node}
		if t := p.startedAt(); !t.IsZero() {
			a.StartedAt = &t
		}
		if t := p.Finished(); !t.IsZero() && (p.Phase == corev1.PodSucceeded || p.Phase == corev1.PodFailed) {
			a.FinishedAt = &t
		}
		if p.Terminating() {
			a.Phase = "Terminating"
		}
		if e := p.exit; e != nil && (p.Phase == corev1.PodSucceeded || p.Phase == corev1.PodFailed || e.code != 0) {
			a.ExitCode, a.Reason, a.Container = ptr.To(e.code), e.cause, e.container
		}
		a.Reason = cmp.Or(a.Reason, p.r().podReason)
		out = append(out, a)
	}
	if f.unread {
		// The succeeded pod not read: its index is in status.completedIndexes.
		out = append(out, Attempt{Attempt: f.attempts, Phase: string(corev1.PodSucceeded), ExitCode: ptr.To[int32](0)})
	}
	if len(out) > MaxAttemptHistory {
		out = out[len(out)-MaxAttemptHistory:]
	}
	return out, max(f.attempts-len(out), 0)
}

// historyWanted says whether an index's attempts are listed: every index of more than one
// attempt, and one of one attempt whose pod was read and that attempt ended or is ending
// without success, where where and when it ran is what a reader asks. Running, pending and
// succeeded indexes of one attempt (most of a large Job) list none: their row says enough.
func historyWanted(state State, attempts, podsRead int) bool {
	if attempts > 1 {
		return true
	}
	switch state {
	case StateFailed, StateRetrying, StateTerminating, StateUnfinished:
		return podsRead > 0
	}
	return false
}

// flaky gathers the flaky indexes and words them for the text view, grouped by the exits of
// their failed attempts (CauseClauses): "2 indexes needed a second attempt: 21 (exit 1), 38
// (exit 137)".
func (b *reportBuilder) flaky() (indexes.Set, string) {
	var set indexes.Builder
	var c CauseClauses
	most := 0
	for k := range b.facts {
		f := &b.facts[k]
		if !isFlaky(f) {
			continue
		}
		set.Add(f.index)
		most = max(most, f.attempts)
		c.Add(f.index, b.failedAttemptWords(f), 1)
	}
	s := set.Set()
	if s.IsEmpty() {
		return s, ""
	}
	what := "a second attempt"
	if most > 2 {
		what = "more than one attempt"
	}
	list := c.Join(func(ix indexes.Set, _ int, words string) string {
		return ix.Truncated(setWidth) + " (" + words + ")"
	})
	return s, fmt.Sprintf("%s needed %s: %s", textwrap.Count(s.Len(), "index", "indexes"), what, strings.ReplaceAll(list, "; ", ", "))
}

// failedAttemptWords says how the earlier attempts of a flaky index ended: "exit 137", "exit
// 137, exit 1", "exit 1; 1 more, its pod gone".
func (b *reportBuilder) failedAttemptWords(f *indexFacts) string {
	var parts []string
	for _, p := range b.byIndex[f.index] {
		if p.Phase == corev1.PodSucceeded {
			continue
		}
		parts = append(parts, attemptWord(p))
	}
	s := strings.Join(parts, ", ")
	if gone := f.attempts - 1 - len(parts); gone > 0 {
		what := fmt.Sprintf("%d earlier %s, %s gone", gone, textwrap.Plural(gone, "attempt", "attempts"), textwrap.Plural(gone, "its pod", "their pods"))
		if b.opts.PodsNotGiven {
			what = fmt.Sprintf("%d earlier %s, pods not given", gone, textwrap.Plural(gone, "attempt", "attempts"))
		}
		if s == "" {
			return what
		}
		s += "; " + strings.Replace(what, "earlier", "more", 1)
	}
	return s
}

// attemptWord is how one attempt ended, in a word or two: "exit 1", "exit 137 OOMKilled",
// "exit 137 with DisruptionTarget", "Evicted".
func attemptWord(p *podSummary) string {
	if e := p.exit; e != nil {
		s := fmt.Sprintf("exit %d", e.code)
		if e.cause != "" && e.cause != "Error" && e.cause != "Completed" {
			s += " " + e.cause
		}
		if c := p.r().condition; c != "" {
			// "DisruptionTarget (PreemptionByScheduler)": the type says it.
			s += " with " + strings.SplitN(c, " (", 2)[0]
		}
		return s
	}
	if r := p.r().podReason; r != "" {
		return r
	}
	if c := p.r().condition; c != "" {
		return c
	}
	if p.Active() {
		return "running"
	}
	return "no exit code"
}
