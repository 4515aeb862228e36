package joblist

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// Group is a row of the default table: one Job, or the Jobs of one retry of a Job that create
// did not make (a Job per index, under one parent with one retry set), summed.
type Group struct {
	Row
	// Jobs is how many Jobs the row stands for (1 for a Job of its own).
	Jobs int
}

// GroupRetries folds, in rows as BuildWithMaps orders them, each run of sibling Jobs of one
// retry (same namespace, parent, attempt and retry set) into one row named by their common prefix
// and "*": counts summed, complete when every Job is, the phase Running while one runs, else
// Failed when one failed, else the first's; created is the earliest. -o wide and -o json list
// every Job.
func GroupRetries(rows []Row) []Group {
	var out []Group
	for _, r := range rows {
		if n := len(out); n > 0 && r.RetrySet != "" && sameRetry(out[n-1].Row, r) {
			g := &out[n-1]
			g.Jobs++
			g.Name = commonPrefix(g.Name, r.Name)
			g.Succeeded += r.Succeeded
			g.Failed += r.Failed
			g.Running += r.Running
			g.Total += r.Total
			g.Complete = g.Complete && r.Complete
			g.Missing = g.Missing.Union(r.Missing)
			g.Attempts = addPtr(g.Attempts, r.Attempts)
			g.Pods = addPtr(g.Pods, r.Pods)
			if r.Created.Before(g.Created) {
				g.Created = r.Created
			}
			switch {
			case g.Phase == indexstatus.PhaseRunning || r.Phase == indexstatus.PhaseRunning:
				g.Phase = indexstatus.PhaseRunning
			case r.Phase == indexstatus.PhaseFailed:
				g.Phase = indexstatus.PhaseFailed
			}
			g.Error = cmp.Or(g.Error, r.Error)
			continue
		}
		out = append(out, Group{Row: r, Jobs: 1})
	}
	for i := range out {
		if out[i].Jobs > 1 {
			out[i].Name = strings.TrimRight(out[i].Name, "0123456789") + fmt.Sprintf("* (%d Jobs)", out[i].Jobs)
		}
	}
	return out
}

func sameRetry(a, b Row) bool {
	return a.RetrySet == b.RetrySet && a.Namespace == b.Namespace && a.Parent == b.Parent && a.RetryAttempt == b.RetryAttempt && a.Depth == b.Depth
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

func addPtr(a, b *int) *int {
	if a == nil || b == nil {
		return nil
	}
	s := *a + *b
	return &s
}
