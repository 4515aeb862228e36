package indexstatus

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// The small words every part of the report shares: how many indexes a sentence names, how a
// duration, an age, a failed attempt's exit and a pod's restarts read.

// listLimit is how many indexes a sentence names before it says "and N more".
const listLimit = 5

// setWidth is how many bytes of an interval string a sentence shows.
const setWidth = 60

// FormatDuration rounds to seconds, a negative d to 0s: "20s", "1m40s", "2h0m0s".
func FormatDuration(d time.Duration) string {
	return max(d, 0).Round(time.Second).String()
}

func (b *reportBuilder) age(started, created time.Time) string {
	t := cmp.Or(started, created)
	if t.IsZero() {
		return "an unknown time"
	}
	return FormatDuration(b.now.Sub(t))
}

// exitWords describes how a failed attempt ended: "exit code 1 in container worker".
func exitWords(p *podSummary) string {
	var parts []string
	if e := p.exit; e != nil {
		s := fmt.Sprintf("exit code %d in container %s", e.code, e.container)
		if e.cause != "" && e.cause != "Error" && e.cause != "Completed" {
			s += ", " + e.cause
		}
		parts = append(parts, s)
	}
	if p.r().podReason != "" {
		parts = append(parts, "pod "+p.r().podReason)
	}
	if p.r().condition != "" {
		parts = append(parts, p.r().condition)
	}
	if p.Match.Matched() {
		parts = append(parts, fmt.Sprintf("podFailurePolicy rule %d (%s)", p.Match.Rule, p.Match.Action))
	}
	if len(parts) == 0 {
		return "no exit code recorded"
	}
	return strings.Join(parts, "; ")
}

// restartWords says how often a pod's containers were restarted in place (restartPolicy
// OnFailure); the controller counts these restarts against backoffLimit while the pod is pending
// or running (pastBackoffLimitOnFailure).
func restartWords(p *podSummary) string {
	if p == nil || p.Restarts == 0 {
		return ""
	}
	s := fmt.Sprintf("; containers restarted %d %s", p.Restarts, textwrap.Plural(int(p.Restarts), "time", "times"))
	if e := p.exit; e != nil && e.code != 0 {
		s += fmt.Sprintf(" (last exit code %d in container %s)", e.code, e.container)
	}
	return s
}

func timePtr(t time.Time) *time.Time {
	u := t.UTC().Truncate(time.Second)
	return &u
}

// CauseClauses groups what a sentence says about indexes by cause, as the text view's tables
// group their rows: one clause per distinct wording, naming its indexes as a range set, in the
// order of each cause's first index. At 2,000 indexes a cause shared by 40 of them is one
// clause, not 40 (nor one per pod). The lineage verdict groups its failed shards with it.
type CauseClauses struct{ ordered[string, causeClause] }

// causeClause is the indexes of one cause and the pods (or other things) counted for them.
type causeClause struct {
	words string
	ix    indexes.Builder
	n     int
}

// Add records that index i has the cause words, counting n things (pods, restarts) for it.
func (c *CauseClauses) Add(i int, words string, n int) {
	cl := c.get(words, func() *causeClause { return &causeClause{words: words} })
	cl.ix.Add(i)
	cl.n += n
}

// ordered keeps groups by key in the order of their first key (the text view's rows, the
// clauses of a sentence).
type ordered[K comparable, G any] struct {
	by    map[K]*G
	order []*G
}

// get returns the group of k, made by newGroup the first time k is seen.
func (o *ordered[K, G]) get(k K, newGroup func() *G) *G {
	g := o.by[k]
	if g == nil {
		if o.by == nil {
			o.by = map[K]*G{}
		}
		g = newGroup()
		o.by[k] = g
		o.order = append(o.order, g)
	}
	return g
}

// Join words the clauses (at most listLimit, then "and N more causes"), joined by "; ".
func (c *CauseClauses) Join(clause func(ix indexes.Set, n int, words string) string) string {
	var parts []string
	for k, cl := range c.order {
		if k == listLimit {
			parts = append(parts, fmt.Sprintf("and %d more %s", len(c.order)-k, textwrap.Plural(len(c.order)-k, "cause", "causes")))
			break
		}
		parts = append(parts, clause(cl.ix.Set(), cl.n, cl.words))
	}
	return strings.Join(parts, "; ")
}
