package status

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podrecord"
)

// openRecord opens --record for job, once: a record of another Job (another UID) or a file
// that is not a record is refused before anything is written.
func (o *Options) openRecord(job *batchv1.Job) error {
	if o.Record == "" || o.rec != nil {
		return nil
	}
	w, err := podrecord.Open(o.Record, job, o.Clock.Now)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("--record %s: %w", o.Record, err))
	}
	for _, n := range w.Notes {
		_, _ = fmt.Fprintf(o.ErrOut, "warning: --record: %s\n", n)
	}
	o.rec = w
	return nil
}

// recordPod appends p to the record when it is terminal (gather.Live's Seen, and every pod
// event of the watch); the first error is kept in recErr and ends the watch.
func (o *Options) recordPod(p *corev1.Pod) {
	if o.rec == nil || o.recErr != nil {
		return
	}
	if err := o.rec.Add(p); err != nil {
		o.recErr = exitcode.Wrap(exitcode.Usage, fmt.Errorf("--record: %w: the pods seen before are in it", err))
	}
}

// closeRecord flushes and closes the record, and says on standard error what it holds.
func (o *Options) closeRecord() error {
	if o.rec == nil {
		return nil
	}
	w := o.rec
	o.rec = nil
	if err := w.Close(); err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("--record: %w", err))
	}
	_, _ = fmt.Fprintf(o.ErrOut, "recorded %d terminal pods in %s (%d were in it already)\n", w.Written, o.Record, w.Kept)
	return nil
}
