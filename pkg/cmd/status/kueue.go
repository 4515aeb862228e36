package status

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
)

// kueueQueue reads the Workload of a Job Kueue manages (pkg/kueue.Managed) and interprets it.
// A running Job costs one LIST of the namespace's Workloads by the kueue.x-k8s.io/job-uid label.
// A suspended one (waiting for admission, or evicted) costs one LIST of every Workload of the
// namespace instead, which also names those holding its ClusterQueue's quota; when its Workload
// holds no admission, the ClusterQueue is read from another Workload of the same LocalQueue that
// is admitted, or else with a GET of the LocalQueue, and its position with a GET of Kueue's
// visibility API. Offline, the Workloads come from -f. Nothing is read for a Job Kueue does not
// manage. A Workload that cannot be read (forbidden, Kueue not installed) leaves one line in
// the report; it never fails the command.
func (o *Options) kueueQueue(ctx context.Context, src gather.Source, job *batchv1.Job) *kueue.Queue {
	if !kueue.Managed(job) {
		return nil
	}
	ws, ok := src.(gather.WorkloadSource)
	if !ok {
		return nil
	}
	in := kueue.Input{Job: job, Now: o.Clock.Now()}
	selector := labels.Set{kueue.JobUIDLabel: string(job.UID)}.String()
	if suspended(job) {
		selector = ""
	}
	objs, err := ws.Workloads(ctx, selector)
	var w *kueue.Workload
	var list []*kueue.Workload
	switch {
	case err != nil:
		in.WorkloadUnread = workloadError(err, job.Namespace)
	default:
		for _, obj := range objs {
			wl, derr := kueue.FromObject(obj)
			if derr != nil {
				in.WorkloadUnread = derr.Error()
				continue
			}
			list = append(list, wl)
		}
		w = kueue.OwnedBy(job, list)
		if w == nil && o.offline() {
			in.WorkloadUnread = fmt.Sprintf("not in %s (save it with kubectl get workloads.kueue.x-k8s.io -n %s -l %s=%s -o json)", o.Filename, job.Namespace, kueue.JobUIDLabel, job.UID)
		}
	}
	in.Workload = w
	if o.offline() {
		in.PositionUnknown = "not in saved files"
		return kueue.Interpret(in)
	}
	if w == nil || (w.Status.Admission != nil && w.Status.Admission.ClusterQueue != "") {
		return kueue.Interpret(in)
	}
	lq := job.Labels[kueue.QueueLabel]
	if lq == "" {
		lq = w.Spec.QueueName
	}
	if lq == "" {
		return kueue.Interpret(in)
	}
	if selector == "" {
		in.Namespace = list
		in.ClusterQueue = kueue.ClusterQueueOf(lq, list)
	}
	if in.ClusterQueue == "" {
		if cq, err := ws.LocalQueueClusterQueue(ctx, lq); err == nil {
			in.ClusterQueue = cq
		}
	}
	pos, err := ws.PendingPosition(ctx, lq, w.Name)
	switch {
	case err != nil && (apierrors.IsNotFound(err) || apierrors.IsServiceUnavailable(err)):
		in.PositionUnknown = "Kueue's visibility API (visibility.kueue.x-k8s.io) is not served by this cluster"
	case apierrors.IsForbidden(err):
		in.PositionUnknown = "not allowed to read Kueue's visibility API (pendingworkloads)"
	case err != nil:
		in.PositionUnknown = fmt.Sprintf("Kueue's visibility API: %v", err)
	case pos == nil:
		in.PositionUnknown = "the Workload is not among the LocalQueue's pending Workloads"
	}
	q := kueue.Interpret(in)
	q.Position = pos
	return q
}

// workloadError is the one line a Workload that cannot be read leaves in the report.
func workloadError(err error, ns string) string {
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Sprintf("not allowed to list workloads.kueue.x-k8s.io in namespace %s (ask for \"list\" on \"workloads\" in API group kueue.x-k8s.io): the queue state is not shown", ns)
	case apierrors.IsNotFound(err):
		return "this cluster does not serve workloads.kueue.x-k8s.io/v1beta2 (Kueue is not installed, or older than v0.15): the queue state is not shown"
	default:
		return fmt.Sprintf("cannot list workloads.kueue.x-k8s.io: %v", err)
	}
}

// refreshQueue reads the Workload again when a watched Kueue Job's spec.suspend flips: Kueue
// admitted it (false) or evicted it (true), and the Queue block would tell the old story.
func (o *Options) refreshQueue(ctx context.Context, st *liveState, job *batchv1.Job) {
	if st.queue == nil || suspended(st.job) == suspended(job) {
		return
	}
	st.queue = o.kueueQueue(ctx, o.live(), job)
}

func suspended(job *batchv1.Job) bool { return job.Spec.Suspend != nil && *job.Spec.Suspend }
