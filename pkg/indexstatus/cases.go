package indexstatus

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// CaseCounts is what the receipt summary in a pod's termination message says of its shard
// (docs/reconcile.md): the index's latest attempt that left one.
type CaseCounts struct {
	// Pod is the pod whose termination message held the summary.
	Pod     string `json:"pod"`
	ShardID string `json:"shardID,omitempty"`
	// Assigned cases; Evaluated = Completed + ModelFailures; Infrastructure were not evaluated;
	// Missing = Assigned − Evaluated − Infrastructure (results reported nowhere).
	Assigned       int `json:"assigned"`
	Evaluated      int `json:"evaluated"`
	Completed      int `json:"completed"`
	ModelFailures  int `json:"modelFailures"`
	Infrastructure int `json:"infrastructure"`
	Missing        int `json:"missing"`
	// Problem says why the summary could not be read (truncated or malformed); the counts are
	// then zero and mean nothing.
	Problem string `json:"problem,omitempty"`
	// Text is "198/200 cases, 2 infrastructure".
	Text string `json:"text"`
}

// receiptCounts is what the report keeps of a receipt summary: its counts, without the words
// (Text, Evaluated, Missing) that follow from them or the pod's name, so that a report over
// 100,000 finished pods keeps a few dozen bytes for each summary (caseCounts makes the rest).
type receiptCounts struct {
	shardID string
	// problem says why the summary could not be read; unreadable is set then (and the
	// counts are zero).
	problem    string
	unreadable bool

	assigned, evaluated, completed, model, infra int
}

// readReceipt reads the receipt summary from a finished pod's termination message; ok is
// false when there is none.
func readReceipt(pod *corev1.Pod) (rc receiptCounts, ok bool) {
	if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
		return rc, false
	}
	msg, _, found := receipt.TerminationMessage(pod, "")
	if !found || msg == "" {
		return rc, false
	}
	s, err := receipt.Decode("pod/"+pod.Name, msg)
	if errors.Is(err, receipt.ErrNotSummary) {
		return rc, false
	}
	if err != nil {
		var re *receipt.Error
		if errors.As(err, &re) {
			rc.problem = strings.Join(re.Problems, "; ")
			if re.Truncated {
				rc.problem = "truncated: " + rc.problem
			}
		} else {
			rc.problem = err.Error()
		}
		rc.unreadable = true
		return rc, true
	}
	rc.shardID, rc.assigned, rc.completed, rc.model, rc.infra = s.ShardID, s.Assigned.Count, s.Completed, s.Failed.Model, s.Failed.Infrastructure
	rc.evaluated = s.Evaluated()
	return rc, true
}

// caseCounts is the report's CaseCounts of the summary rc that pod left.
func (rc *receiptCounts) caseCounts(pod string) *CaseCounts {
	c := &CaseCounts{Pod: pod}
	if rc.unreadable {
		c.Problem, c.Text = rc.problem, "unreadable receipt summary"
		return c
	}
	c.ShardID, c.Assigned, c.Completed, c.ModelFailures, c.Infrastructure = rc.shardID, rc.assigned, rc.completed, rc.model, rc.infra
	c.Evaluated = rc.evaluated
	c.Missing = max(0, c.Assigned-c.Evaluated-c.Infrastructure)
	c.Text = fmt.Sprintf("%d/%d cases", c.Evaluated, c.Assigned)
	if c.ModelFailures > 0 {
		c.Text += fmt.Sprintf(", %d model %s", c.ModelFailures, textwrap.Plural(c.ModelFailures, "failure", "failures"))
	}
	if c.Infrastructure > 0 {
		c.Text += fmt.Sprintf(", %d infrastructure", c.Infrastructure)
	}
	if c.Missing > 0 {
		c.Text += fmt.Sprintf(", %d missing", c.Missing)
	}
	return c
}

// AddCaseCounts fills, for every index listed in r, the case counts of the receipt summary left
// by its latest attempt that left one, and notes every index whose summary shows cases not
// evaluated (whether or not the index is listed), so that an index that exited 0 with missing
// cases is visible.
func (a *Accumulator) AddCaseCounts(r *IndexedJobStatus) {
	// The latest attempt that left one (jobpolicy.Latest).
	latest := map[int]*podSummary{}
	for _, p := range a.pods {
		if q := latest[p.Index]; p.cases != nil && (q == nil || jobpolicy.Latest(&p.Pod, &q.Pod)) {
			latest[p.Index] = p
		}
	}
	// The latest attempt of an index whose succeeded pod was not read is that pod: an older
	// attempt's receipt is not its.
	maps.DeleteFunc(latest, func(i int, _ *podSummary) bool { return r.unread.Has(i) })
	if len(latest) == 0 {
		return
	}
	for k := range r.Indexes {
		if p, ok := latest[r.Indexes[k].Index]; ok {
			r.Indexes[k].Cases = p.cases.caseCounts(p.Name)
		}
	}
	for i := range latest {
		r.omittedCases = r.omittedCases || r.omitted.Has(i)
	}
	var short []string
	n := 0
	for _, i := range slices.Sorted(maps.Keys(latest)) {
		// Cases not evaluated, or a summary that could not be read, below completions.
		c := latest[i].cases.caseCounts(latest[i].Name)
		if i >= int(r.Completions) || (c.Problem == "" && c.Evaluated >= c.Assigned) {
			continue
		}
		n++
		if len(short) < 10 {
			short = append(short, fmt.Sprintf("%d (%s)", i, c.Text))
		}
	}
	if n > 0 {
		more := ""
		if n > len(short) {
			more = fmt.Sprintf(" and %d more", n-len(short))
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%d %s left a receipt summary with cases not evaluated: %s%s; run kubectl indexed reconcile before computing a score.",
			n, textwrap.Plural(n, "index", "indexes"), strings.Join(short, ", "), more))
	}
}
