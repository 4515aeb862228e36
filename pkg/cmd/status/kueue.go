package status

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
)

// kueueQueue is the Queue of a Job Kueue manages, read through src as kueue.ReadQueue plans it:
// from the cluster, or offline from -f's files. Nothing is read for a Job Kueue does not manage;
// a Workload that cannot be read leaves one line in the report, it never fails the command.
func (o *Options) kueueQueue(ctx context.Context, src gather.Source, job *batchv1.Job) *kueue.Queue {
	ws, ok := src.(kueue.Reader)
	if !ok {
		return nil
	}
	savedIn := ""
	if o.offline() {
		savedIn = o.Filename
	}
	return kueue.ReadQueue(ctx, ws, job, o.Clock.Now(), savedIn)
}

// refreshQueue reads the Workload again when a watched Kueue Job's spec.suspend flips: Kueue
// admitted it (false) or evicted it (true), and the Queue block would tell the old story.
func (o *Options) refreshQueue(ctx context.Context, st *liveState, job *batchv1.Job) {
	if st.queue == nil || jobpolicy.Suspended(st.job) == jobpolicy.Suspended(job) {
		return
	}
	st.queue = o.kueueQueue(ctx, o.live(), job)
}
