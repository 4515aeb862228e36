package indexstatus

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// The pods the Why line names when backoffLimit failed the Job: those that failed on their own
// and those whose containers restarted, one clause per cause.

// ownFailureList names the pods that failed on their own (not killed), one clause per cause:
// "exit code 1 in container embed: index 4 (3 pods)".
func (b *reportBuilder) ownFailureList() string {
	return b.podClauses(ownFailed, func(p *podSummary) (string, int) { return exitWords(p), 1 },
		func(ix indexes.Set, n int, words string) string {
			s := words + ": " + indexWords(ix)
			if n != ix.Len() {
				s += fmt.Sprintf(" (%d pods)", n)
			}
			return s
		})
}

// ownFailed: the pod failed on its own (not killed: not being deleted).
func ownFailed(p *podSummary) bool { return p.Failed && !p.Deleting }

// restarting: a pending or running pod whose containers restarted.
func restarting(p *podSummary) bool {
	return p.Restarts > 0 && (p.Phase == corev1.PodPending || p.Phase == corev1.PodRunning)
}

// restartList names the pending or running pods whose containers restarted, one clause per
// last exit: "index 1: 2 restarts, last exit code 1 in container worker".
func (b *reportBuilder) restartList() string {
	list := b.podClauses(restarting, func(p *podSummary) (string, int) {
		w := ""
		if e := p.exit; e != nil && e.code != 0 {
			w = fmt.Sprintf(", last exit code %d in container %s", e.code, e.container)
		}
		return w, int(p.Restarts)
	}, func(ix indexes.Set, n int, words string) string {
		return fmt.Sprintf("%s: %d %s%s", indexWords(ix), n, textwrap.Plural(n, "restart", "restarts"), words)
	})
	if list == "" {
		return "no pod left shows a restart"
	}
	return list
}

// podClauses words the pods below completions that keep selects, grouped by the words cause
// gives each (CauseClauses, counting what it returns), in index order.
func (b *reportBuilder) podClauses(keep func(*podSummary) bool, cause func(*podSummary) (string, int), clause func(ix indexes.Set, n int, words string) string) string {
	var pods []*podSummary
	for k := range b.acc.pods {
		p := b.acc.pods[k]
		if p.Index < b.completions && keep(p) {
			pods = append(pods, p)
		}
	}
	// By index then creation; a tie in both goes to list order (attempt, then name), so that
	// the words do not follow the map's order.
	slices.SortFunc(pods, func(p, q *podSummary) int {
		return cmp.Or(cmp.Compare(p.Index, q.Index), p.Created().Compare(q.Created()), comparePods(p, q))
	})
	var c CauseClauses
	for _, p := range pods {
		w, n := cause(p)
		c.Add(p.Index, w, n)
	}
	return c.Join(clause)
}
