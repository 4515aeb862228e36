package gather

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// Run is the lineage of a Job as read from a Source: the one read of status --lineage
// (--wait), reconcile and reconcile --wait. Its run is the Job's (lineage.RunOf): the root by
// name and UID, and the Jobs labelled as the root's retries.
type Run struct {
	// Job is the Job asked about.
	Job *batchv1.Job
	// ID is Job's run.
	ID lineage.RunID
	// Root is the run's root; nil when it is gone, or when the Job of its name is another run
	// (Replaced).
	Root *batchv1.Job
	// Replaced is a Job of the root's name with another UID: the root was deleted and a Job
	// of its name made again; it and its retries are another run.
	Replaced *batchv1.Job
	// Retries are the Jobs labelled as retries of the root's name that record the root's UID,
	// in the order listed; Others are those labelled so that record another UID.
	Retries, Others []*batchv1.Job
}

// ReadRun GETs the Job name and, for a retry, its root, and LISTs the root's retries by label
// (indexed.kubectl.io/root-job): two or three requests. Errors are the API's, worded by
// exitcode.APIError (a root that is gone is not an error).
func ReadRun(ctx context.Context, src Source, name, namespace string) (*Run, error) {
	job, err := src.Job(ctx, name)
	if err != nil {
		return nil, exitcode.APIError(err, "get", "jobs", name, namespace)
	}
	r := &Run{Job: job, ID: lineage.RunOf(job)}
	if r.ID.Root == "" {
		// A retry label without the root's annotations: read as a run of its own.
		r.ID = lineage.RunID{Root: job.Name, RootUID: string(job.UID)}
	}
	if r.ID.Root == job.Name && r.ID.RootUID == string(job.UID) {
		r.Root = job
	} else {
		root, err := src.Job(ctx, r.ID.Root)
		switch {
		case apierrors.IsNotFound(err): // gone (a File's Missing says NotFound too)
		case err != nil:
			return nil, exitcode.APIError(err, "get", "jobs", r.ID.Root, namespace)
		case lineage.InRun(root, r.ID):
			r.Root = root
		default:
			r.Replaced = root
		}
	}
	list, err := src.Jobs(ctx, labels.Set{shards.LabelRootJob: r.ID.Root}.String())
	if err != nil {
		return nil, exitcode.APIError(err, "list", "jobs", "", namespace)
	}
	for i := range list {
		if j := &list[i]; lineage.InRun(j, r.ID) {
			r.Retries = append(r.Retries, j)
		} else {
			r.Others = append(r.Others, j)
		}
	}
	return r, nil
}
