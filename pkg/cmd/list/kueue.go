package list

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/joblist"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
)

// addQueues sets the queue and admission state of the rows of Jobs Kueue manages: one LIST of
// the Workloads that carry a job-uid label, in the namespace listed (or all), only when a
// listed Job is Kueue's. Workloads that cannot be read leave "unknown" and one warning.
func (o *Options) addQueues(ctx context.Context, jobs []batchv1.Job, l *joblist.List) {
	byName := map[string]*batchv1.Job{}
	for i := range jobs {
		if kueue.Managed(&jobs[i]) {
			byName[jobs[i].Namespace+"/"+jobs[i].Name] = &jobs[i]
		}
	}
	if len(byName) == 0 {
		return
	}
	src := &gather.Live{Client: o.Client, Namespace: o.Namespace}
	// A selector of the key alone selects the objects that carry the label, whatever its value.
	objs, err := src.Workloads(ctx, kueue.JobUIDLabel)
	byUID := map[string]*kueue.Workload{}
	unread := ""
	if err == nil {
		for _, obj := range objs {
			if w, derr := kueue.FromObject(obj); derr == nil {
				byUID[w.Labels[kueue.JobUIDLabel]] = w
			}
		}
	} else {
		what := err.Error()
		if apierrors.IsForbidden(err) {
			what = "not allowed to list workloads.kueue.x-k8s.io"
		}
		_, _ = fmt.Fprintf(o.ErrOut, "warning: the admission state of Kueue Jobs is unknown: %s\n", what)
		unread = "unknown"
	}
	now := o.Clock.Now()
	for i := range l.Items {
		r := &l.Items[i]
		j := byName[r.Namespace+"/"+r.Name]
		if j == nil {
			continue
		}
		q := kueue.Interpret(kueue.Input{Job: j, Workload: byUID[string(j.UID)], Now: now, WorkloadUnread: unread})
		r.Queue, r.Admission = q.LocalQueue, admission(q)
	}
}

// admission is the ADMISSION cell: the state, with the admitted pods of a partial admission
// and the eviction's reason.
func admission(q *kueue.Queue) string {
	switch {
	case q.State == "Unknown":
		return "unknown"
	case q.AdmittedParallelism != nil:
		return fmt.Sprintf("%s %d/%d", q.State, *q.AdmittedParallelism, *q.RequestedParallelism)
	case q.PreemptedBy != nil && (q.State == "Evicted" || q.State == "Pending"):
		return q.State + " (Preempted)"
	}
	return q.State
}
