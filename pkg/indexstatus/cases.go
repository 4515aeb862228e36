package indexstatus

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
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

// caseCounts reads the receipt summary from a finished pod's termination message, or returns
// nil when there is none.
func caseCounts(pod *corev1.Pod) *CaseCounts {
	if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
		return nil
	}
	msg, _, ok := receipt.TerminationMessage(pod, "")
	if !ok || msg == "" {
		return nil
	}
	s, err := receipt.Decode("pod/"+pod.Name, msg)
	if errors.Is(err, receipt.ErrNotSummary) {
		return nil
	}
	c := &CaseCounts{Pod: pod.Name}
	if err != nil {
		var re *receipt.Error
		if errors.As(err, &re) {
			c.Problem = strings.Join(re.Problems, "; ")
			if re.Truncated {
				c.Problem = "truncated: " + c.Problem
			}
		} else {
			c.Problem = err.Error()
		}
		c.Text = "unreadable receipt summary"
		return c
	}
	c.ShardID, c.Assigned, c.Completed, c.ModelFailures, c.Infrastructure = s.ShardID, s.Assigned.Count, s.Completed, s.Failed.Model, s.Failed.Infrastructure
	c.Evaluated = s.Evaluated()
	c.Missing = max(0, c.Assigned-c.Evaluated-c.Infrastructure)
	c.Text = fmt.Sprintf("%d/%d cases", c.Evaluated, c.Assigned)
	if c.ModelFailures > 0 {
		c.Text += fmt.Sprintf(", %d model %s", c.ModelFailures, plural(c.ModelFailures, "failure", "failures"))
	}
	if c.Infrastructure > 0 {
		c.Text += fmt.Sprintf(", %d infrastructure", c.Infrastructure)
	}
	if c.Missing > 0 {
		c.Text += fmt.Sprintf(", %d missing", c.Missing)
	}
	return c
}

// incomplete reports whether the summary shows cases not evaluated (or could not be read).
func (c *CaseCounts) incomplete() bool {
	return c.Problem != "" || c.Evaluated < c.Assigned
}

// AddCaseCounts fills, for every index listed in r, the case counts of the receipt summary left
// by its latest attempt that left one, and notes every index whose summary shows cases not
// evaluated (whether or not the index is listed), so that an index that exited 0 with missing
// cases is visible.
func (a *Accumulator) AddCaseCounts(r *IndexedJobStatus) {
	type left struct {
		attempt int32
		created time.Time
		name    string
		cases   *CaseCounts
	}
	// The latest attempt, by attempt then creation; on a tie the first in list order (the lower
	// name), whatever order the pods are considered in.
	latest := map[int]left{}
	consider := func(i int, attempt int32, created time.Time, name string, c *CaseCounts) {
		q, ok := latest[i]
		if d := cmp.Or(cmp.Compare(attempt, q.attempt), created.Compare(q.created)); !ok || d > 0 || d == 0 && name < q.name {
			latest[i] = left{attempt, created, name, c}
		}
	}
	for key := range a.pods {
		if p := a.pods[key]; p.cases != nil {
			consider(p.Index, p.Attempt(), p.Created, p.Name, p.cases)
		}
	}
	if fo := a.fold; fo != nil {
		a.sealForReport()
		fo.eachCases(consider)
	}
	if len(latest) == 0 {
		return
	}
	listed := map[int]bool{}
	for k := range r.Indexes {
		st := &r.Indexes[k]
		listed[st.Index] = true
		if p, ok := latest[st.Index]; ok {
			st.Cases = p.cases
		}
	}
	if !r.omitted.IsEmpty() {
		for i := range latest {
			if r.omitted.Has(i) {
				r.omittedCases = true
				break
			}
		}
	}
	var short []string
	n := 0
	for i := range r.Completions {
		p, ok := latest[int(i)]
		if !ok || !p.cases.incomplete() {
			continue
		}
		n++
		if len(short) < 10 {
			short = append(short, fmt.Sprintf("%d (%s)", i, p.cases.Text))
		}
	}
	if n > 0 {
		more := ""
		if n > len(short) {
			more = fmt.Sprintf(" and %d more", n-len(short))
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%d %s left a receipt summary with cases not evaluated: %s%s; run kubectl indexed reconcile before computing a score.",
			n, plural(n, "index", "indexes"), strings.Join(short, ", "), more))
	}
}
