package status

import (
	"cmp"
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// loadRetries reads the Jobs that re-ran some of a failed Job's indexes (kubectl indexed
// retry), so that its advice names them and does not offer their shards again: one Job LIST
// on the lineage's root label, and a GET per retry whose index map is in a ConfigMap. Only a
// failed Job is asked about (the advice to retry is given for no other); a LIST that is not
// allowed, or fails, is a note and the advice stands as if there were no retries.
func loadRetries(ctx context.Context, src gather.Source, job *batchv1.Job) ([]indexstatus.RetryJob, []string) {
	if jobpolicy.ConditionTrue(job, batchv1.JobFailed) == nil {
		return nil, nil
	}
	root := cmp.Or(job.Annotations[shards.AnnotationRootJob], job.Name)
	list, err := src.Jobs(ctx, labels.Set{shards.LabelRootJob: root}.String())
	switch {
	case apierrors.IsForbidden(err):
		return nil, []string{fmt.Sprintf("Its retries are not known: not allowed to list jobs in namespace %q (ask for \"list\" on \"jobs\"), so Next cannot tell whether they re-ran its shards.", src.InNamespace())}
	case err != nil:
		return nil, []string{fmt.Sprintf("Its retries are not known (listing Jobs failed: %v), so Next cannot tell whether they re-ran its shards.", err)}
	}
	jobs := make([]*batchv1.Job, 0, len(list))
	resolved := map[string]*lineage.Lineage{}
	var notes []string
	for i := range list {
		j := &list[i]
		jobs = append(jobs, j)
		l, ok, err := lineage.ReadResolved(j, indexMap(ctx, src, j))
		switch {
		case ok && err != nil:
			notes = append(notes, fmt.Sprintf("Retry %q is left out: its index map cannot be read (%v).", j.Name, err))
		case ok:
			resolved[j.Name] = l
		}
	}
	return lineage.RetriesOf(job, jobs, resolved), notes
}
