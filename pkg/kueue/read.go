package kueue

import (
	"cmp"
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// Reader answers the reads ReadQueue plans, from a cluster or from saved objects (pkg/cmd/gather's
// Live and File): this package decides what to read, the reader reads it.
type Reader interface {
	// Workloads are the Workloads (as object maps) whose labels match labelSelector.
	Workloads(ctx context.Context, labelSelector string) ([]map[string]any, error)
	// LocalQueueClusterQueue is the spec.clusterQueue of LocalQueue name.
	LocalQueueClusterQueue(ctx context.Context, name string) (string, error)
	// PendingPosition is the position of Workload workload in LocalQueue lq from Kueue's
	// visibility API (nil when it is not among the pending Workloads).
	PendingPosition(ctx context.Context, lq, workload string) (*int32, error)
}

// ReadQueue reads the Workload of a Job Kueue manages (Managed) through r and interprets it; nil
// for a Job Kueue does not manage. A running Job costs one LIST of the namespace's Workloads by
// the kueue.x-k8s.io/job-uid label. A suspended one (waiting for admission, or evicted) costs one
// LIST of every Workload of the namespace instead, which also names those holding its
// ClusterQueue's quota; when its Workload holds no admission, the ClusterQueue is read from
// another Workload of the same LocalQueue that is admitted, or else with a GET of the
// LocalQueue, and its position with a GET of Kueue's visibility API. savedIn names the files r
// reads when it reads no cluster ("" for a cluster): then only the Workloads are read. A
// Workload that cannot be read (forbidden, Kueue not installed) leaves one line in the Queue.
func ReadQueue(ctx context.Context, r Reader, job *batchv1.Job, now time.Time, savedIn string) *Queue {
	if !Managed(job) {
		return nil
	}
	in := Input{Job: job, Now: now}
	namespaceWide := jobpolicy.Suspended(job)
	list := readWorkloads(ctx, r, &in, namespaceWide, savedIn)
	if savedIn != "" {
		in.PositionUnknown = "not in saved files"
		return Interpret(in)
	}
	w := in.Workload
	if w == nil || (w.Status.Admission != nil && w.Status.Admission.ClusterQueue != "") {
		return Interpret(in)
	}
	lq := cmp.Or(job.Labels[QueueLabel], w.Spec.QueueName)
	if lq == "" {
		return Interpret(in)
	}
	if namespaceWide {
		in.Namespace = list
		in.ClusterQueue = ClusterQueueOf(lq, list)
	}
	if in.ClusterQueue == "" {
		if cq, err := r.LocalQueueClusterQueue(ctx, lq); err == nil {
			in.ClusterQueue = cq
		}
	}
	pos, err := r.PendingPosition(ctx, lq, w.Name)
	in.PositionUnknown = positionUnknown(pos, err)
	q := Interpret(in)
	q.Position = pos
	return q
}

// readWorkloads lists the Job's Workload, or with namespaceWide every Workload of the namespace,
// and sets in.Workload (or in.WorkloadUnread); it returns the Workloads read.
func readWorkloads(ctx context.Context, r Reader, in *Input, namespaceWide bool, savedIn string) []*Workload {
	job := in.Job
	selector := labels.Set{JobUIDLabel: string(job.UID)}.String()
	if namespaceWide {
		selector = ""
	}
	objs, err := r.Workloads(ctx, selector)
	if err != nil {
		in.WorkloadUnread = workloadError(err, job.Namespace)
		return nil
	}
	var list []*Workload
	for _, obj := range objs {
		wl, derr := FromObject(obj)
		if derr != nil {
			in.WorkloadUnread = derr.Error()
			continue
		}
		list = append(list, wl)
	}
	in.Workload = OwnedBy(job, list)
	if in.Workload == nil && savedIn != "" {
		in.WorkloadUnread = fmt.Sprintf("not in %s (save it with kubectl get workloads.kueue.x-k8s.io -n %s -l %s=%s -o json)", savedIn, job.Namespace, JobUIDLabel, job.UID)
	}
	return list
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

// positionUnknown says why the visibility API gave no position ("" when it gave one).
func positionUnknown(pos *int32, err error) string {
	switch {
	case err != nil && (apierrors.IsNotFound(err) || apierrors.IsServiceUnavailable(err)):
		return "Kueue's visibility API (visibility.kueue.x-k8s.io) is not served by this cluster"
	case apierrors.IsForbidden(err):
		return "not allowed to read Kueue's visibility API (pendingworkloads)"
	case err != nil:
		return fmt.Sprintf("Kueue's visibility API: %v", err)
	case pos == nil:
		return "the Workload is not among the LocalQueue's pending Workloads"
	}
	return ""
}
