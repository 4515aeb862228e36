package gather

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// PodsOfJobs reads the pods of many Jobs (list --with-pods) with PodsMatching: one paged LIST
// of the pods that carry a controller-uid label (those of every Job whose selector the API
// server made), and one of each Job's own selector when it was set by hand (manualSelector:
// its pods carry no such label). Each pod goes to add with the Job that owns it
// (indexstatus.OwnerUID); pods of Jobs not given are dropped. Each Job is read in its own
// namespace, so l.Namespace may be all of them ("").
func (l *Live) PodsOfJobs(ctx context.Context, jobs []batchv1.Job, add func(*batchv1.Job, *corev1.Pod)) error {
	byUID := map[string]*batchv1.Job{}
	var manual []*batchv1.Job
	for i := range jobs {
		j := &jobs[i]
		if ptr.Deref(j.Spec.ManualSelector, false) {
			manual = append(manual, j)
		}
		byUID[string(j.UID)] = j
	}
	give := func(p *corev1.Pod) {
		if j := byUID[indexstatus.OwnerUID(p)]; j != nil && indexstatus.Owns(j, p) {
			add(j, p)
		}
	}
	if len(manual) < len(jobs) {
		// The selector of a label's key alone: the pods that carry it. A pod of a Job with a
		// manual selector is read below, by that selector, not here.
		if _, err := l.PodsMatching(ctx, batchv1.ControllerUidLabel, "", func(p *corev1.Pod) {
			if j := byUID[indexstatus.OwnerUID(p)]; j == nil || !ptr.Deref(j.Spec.ManualSelector, false) {
				give(p)
			}
		}); err != nil {
			return err
		}
	}
	for _, j := range manual {
		in := *l
		in.Namespace = j.Namespace
		if _, err := in.Pods(ctx, j, "", give); err != nil {
			return err
		}
	}
	return nil
}
