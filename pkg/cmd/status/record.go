package status

import (
	"cmp"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podrecord"
)

// openRecord opens --record, once, with open: podrecord.Open for a Job (a record of another Job,
// another UID, or a file that is not a record is refused before anything is written), or
// podrecord.OpenLineage for a lineage (every Job of the run records its terminal pods in it).
func (o *Options) openRecord(open func() (*podrecord.Writer, error)) error {
	if o.Record == "" || o.rec != nil {
		return nil
	}
	w, err := open()
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
	if o.recErr == nil {
		o.recErr = o.addRecord(p)
	}
}

// addRecord appends p to the record, when one is open and p is terminal, under recMu: the
// lineage's pod watch adds too (lineagerecord.go).
func (o *Options) addRecord(p *corev1.Pod) error {
	o.recMu.Lock()
	defer o.recMu.Unlock()
	if o.rec == nil {
		return nil
	}
	if err := o.rec.Add(p); err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("--record: %w: the pods seen before are in it", err))
	}
	return nil
}

// closeRecord flushes and closes the record once the watch ended (with watchErr, which comes
// first, then recErr: a write that failed while a read saw the pods, such as the lineage
// report's last read), and says on standard error what it holds.
func (o *Options) closeRecord(watchErr error) error {
	watchErr = cmp.Or(watchErr, o.recErr)
	if o.rec == nil {
		return watchErr
	}
	o.recMu.Lock()
	w := o.rec
	o.rec = nil
	o.recMu.Unlock()
	if err := w.Close(); err != nil {
		return cmp.Or(watchErr, exitcode.Wrap(exitcode.Usage, fmt.Errorf("--record: %w", err)))
	}
	_, _ = fmt.Fprintf(o.ErrOut, "recorded %d terminal pods in %s (%d were in it already)\n", w.Written, o.Record, w.Kept)
	return watchErr
}

// splitRecords sorts -f's files: the records of terminal pods (status --record, known by their
// first line) read as --pods-file reads one, and the others, which hold the Job. Records alone,
// with no Job, are a usage error: the report needs the Job they ran for.
func (o *Options) splitRecords() error {
	o.jobFiles, o.records = gather.SplitRecords(o.Filenames, o.In)
	if len(o.jobFiles) == 0 && len(o.records) > 0 {
		return gather.RecordWithoutJob(o.records[0], o.In)
	}
	return nil
}
