package status

import (
	"cmp"
	"context"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podrecord"
)

// lineageRecorder keeps, for status --lineage --watch|--wait --record, the terminal pods of
// every Job of a run as they finish: the lineage is polled every 2 s (lineagePoll), and the pod
// garbage collector or the Job controller may delete a pod within that time, so the pods are
// watched, as --watch --record watches one Job's: one watch of the namespace's Job pods
// (those with the job-name label), each terminal pod recorded when its controller is a Job of
// the run. A Job first seen is read once (GET) to know whether it is of the run. The watch
// runs beside the poll; the writer (podrecord.Writer) is shared under o.recMu.
type lineageRecorder struct {
	o      *Options
	run    lineage.RunID
	ofRun  map[types.UID]bool
	cancel context.CancelFunc
	done   chan struct{}
	err    error // under o.recMu
}

// startLineageRecorder opens --record for run and starts watching its pods (nothing without
// --record); stop ends the watch and says its first error.
func (o *Options) startLineageRecorder(ctx context.Context, run lineage.RunID) (*lineageRecorder, error) {
	if o.Record == "" {
		return nil, nil
	}
	if err := o.openRecord(func() (*podrecord.Writer, error) {
		return podrecord.OpenLineage(o.Record, contract.JobRef{Name: run.Root, Namespace: o.src.InNamespace(), UID: run.RootUID}, o.Clock.Now)
	}); err != nil {
		return nil, err
	}
	live := o.src.(*gather.Live) // --watch is live only
	ctx, cancel := context.WithCancel(ctx)
	r := &lineageRecorder{o: o, run: run, ofRun: map[types.UID]bool{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for ctx.Err() == nil {
			began := time.Now()
			if err := live.WatchPods(ctx, batchv1.JobNameLabel, func(p *corev1.Pod) error { return r.add(ctx, p) }); err != nil && ctx.Err() == nil {
				r.o.recMu.Lock()
				r.err = err
				r.o.recMu.Unlock()
				return
			}
			// A watch the server ended at once (an error event each time) is not listed
			// again in a tight loop; one that ran a while (the server's watch timeout) is.
			if time.Since(began) < time.Second {
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}
	}()
	return r, nil
}

// failed is the first error of the record: the recorder's (the record cannot be written, or
// the pods read), or one of a write while the poll read the pods (recErr).
func (r *lineageRecorder) failed() error {
	if r == nil {
		return nil
	}
	r.o.recMu.Lock()
	defer r.o.recMu.Unlock()
	return cmp.Or(r.err, r.o.recErr)
}

// stop ends the watch, and waits for it.
func (r *lineageRecorder) stop() {
	if r == nil {
		return
	}
	r.cancel()
	<-r.done
}

// add records p when it is terminal and its Job is of the run.
func (r *lineageRecorder) add(ctx context.Context, p *corev1.Pod) error {
	if !podrecord.Terminal(p) {
		return nil
	}
	ref := indexstatus.OwnerJob(p)
	if ref == nil {
		return nil
	}
	in, known := r.ofRun[ref.UID]
	if !known {
		job, err := r.o.src.Job(ctx, ref.Name)
		switch {
		case err == nil || apierrors.IsNotFound(err):
			// A Job gone, or made again under its name, is not known to be of the run: its
			// pods are left out (the lineage report does not count it either).
			in = err == nil && job.UID == ref.UID && lineage.InRun(job, r.run)
			r.ofRun[ref.UID] = in
		default:
			// Not known now (the GET failed): the pod is kept rather than lost, and its Job
			// asked again for the next one; readers take each Job's own pods from a record.
			in = true
		}
	}
	if !in {
		return nil
	}
	return r.o.addRecord(p)
}
