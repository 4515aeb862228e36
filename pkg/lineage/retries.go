package lineage

import (
	"cmp"
	"slices"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// RetriesOf says which of the indexes of job the other Jobs of its lineage re-ran: each Job
// of jobs (the Jobs labelled with the lineage's root, as retry labels them; their index maps
// resolved, see ReadResolved) that has the same root UID, a later attempt than job's and
// root indexes in common with job's, with those indexes as job's own completion indexes and
// which of them it succeeded or failed (from its status, mapped back through both index maps).
// Jobs whose lineage does not read, or is not resolved, are left out. The result is in attempt
// order, then name.
func RetriesOf(job *batchv1.Job, jobs []*batchv1.Job, resolved map[string]*Lineage) []indexstatus.RetryJob {
	own, _, err := Read(job)
	if err != nil || !own.Resolved() {
		return nil
	}
	run, attempt := RunOf(job), 0
	var pos map[int]int // a root index to job's completion index; nil for a root job: the same
	if own != nil {
		attempt = own.Attempt
		pos = make(map[int]int, own.Original.Len())
		for r := range own.Original.All() {
			pos[r] = len(pos)
		}
	}
	var out []indexstatus.RetryJob
	for _, r := range jobs {
		if r.UID == job.UID {
			continue
		}
		l := resolved[r.Name]
		if l == nil {
			var ok bool
			if l, ok, err = Read(r); !ok || err != nil {
				continue
			}
		}
		if l.RunID() != run || l.Attempt <= attempt || !l.Resolved() {
			continue
		}
		rj := indexstatus.RetryJob{Name: r.Name, Attempt: l.Attempt, Finished: jobpolicy.JobFinished(r)}
		var all, ok, bad indexes.Builder
		succeeded, failed := jobpolicy.StatusIndexes(r)
		k := 0
		for root := range l.Original.All() {
			i, mine := root, true
			if pos != nil {
				i, mine = pos[root]
			}
			if mine {
				all.Add(i)
				switch {
				case succeeded.Has(k):
					ok.Add(i)
				case failed.Has(k):
					bad.Add(i)
				}
			}
			k++
		}
		rj.Indexes, rj.Succeeded, rj.Failed = all.Set(), ok.Set(), bad.Set()
		if rj.Finished {
			// A finished Job runs nothing more: what it did not succeed, it failed.
			rj.Failed = rj.Indexes.Difference(rj.Succeeded)
		}
		if !rj.Indexes.IsEmpty() {
			out = append(out, rj)
		}
	}
	slices.SortFunc(out, func(a, b indexstatus.RetryJob) int {
		return cmp.Or(cmp.Compare(a.Attempt, b.Attempt), NaturalCompare(a.Name, b.Name))
	})
	return out
}
