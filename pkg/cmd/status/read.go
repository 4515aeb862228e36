package status

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podrecord"
)

// The read of one Job, live or from -f's files, into the state its report is made from: the
// Job, its pods, its shard IDs and the notes beside them, all read by gather (ReadJob).

func (o *Options) reportOptions(notes []string, sh ...gather.Shards) indexstatus.Options {
	opts := indexstatus.Options{Clock: o.Clock, Notes: notes, AllIndexes: o.PrintFlags.Format() != output.FormatText}
	if o.PrintFlags.Format() == output.FormatText {
		// The text view: only the rows it prints are kept.
		opts.ListLimit = indexstatus.TextViewRows
	}
	for _, s := range sh {
		opts.ShardIDs, opts.ShardsConfigMap = s.IDs, s.ConfigMap
	}
	return opts
}

// podRead says which pods a live read takes: every one with --all-pods (and --record); a
// one-shot read of a suspended Job with no pod takes none.
func (o *Options) podRead() gather.PodRead {
	return gather.PodRead{All: o.AllPods, Once: !o.Watch && !o.Wait}
}

// readOptions are those of the read of o.JobName (offline, the Job of -f): --record opens its
// record once the Job is read, before its pods are.
func (o *Options) readOptions() gather.ReadOptions {
	return gather.ReadOptions{Name: o.JobName, Pods: o.podRead(), Now: o.Clock.Now, Found: func(job *batchv1.Job) error {
		return o.openRecord(func() (*podrecord.Writer, error) { return podrecord.Open(o.Record, job, o.Clock.Now) })
	}}
}

// state is the state the report is made from, from what gather's ReadJob read, with its
// notes in the order the report says them; offline, the clock is the objects' (offline.go)
// and the report says when no pod was given.
func (o *Options) state(rd *gather.JobRead) (*liveState, error) {
	if o.recErr != nil {
		return nil, o.recErr
	}
	job := rd.Job
	st := &liveState{JobRead: rd}
	notes := rd.Notes
	if o.offline() {
		if !rd.PodsGiven {
			notes = append(notes, "No pods given (--pods-file, or in -f): the report rests on the Job's status alone (no attempts, exit codes or pods).")
		}
		clk, clockNote, err := o.offlineClock(rd.Captured)
		if err != nil {
			return nil, err
		}
		if clockNote != "" {
			notes = append(notes, clockNote)
		}
		st.clock = clk
	}
	o.warnShardsChanged(job, rd.Shards.Changed)
	notes = append(notes, rd.Shards.Notes...)
	notes = append(notes, o.failedCreateNotes(job, rd.Events, rd.EventsErr)...)
	notes = append(notes, sharedConfigMapNote(rd.Shards.ConfigMap, rd.Shared)...)
	notes = append(notes, rd.LineageNotes...)
	notes = append(notes, lineageNote(job, rd.Lineage, o.conn)...)
	st.notes = slices.Concat(notes, rd.RetryNotes)
	return st, nil
}

// liveState is what one read gathered (live, or offline for the report of -f), as a watch
// keeps it up to date (its Job and pods), with the report's notes; offline, clock is the time
// the objects were saved.
type liveState struct {
	*gather.JobRead
	notes []string
	clock indexstatus.Clock
}

// report is the report of s, with the options o gives (offline: the objects' clock).
func (s *liveState) report(o *Options) *indexstatus.IndexedJobStatus {
	opts := o.reportOptions(s.notes, s.Shards)
	opts.Retries = s.Retries
	opts.Queue = s.Queue
	if s.clock != nil {
		opts.Clock, opts.PodsNotGiven = s.clock, !s.PodsGiven
	}
	r := s.Pods.Report(opts)
	setOriginalIndexes(r, s.Lineage)
	s.Pods.AddCaseCounts(r)
	return r
}

// warnShardsChanged says on stderr that job's shard ConfigMap is not the one it was made with
// (changed, from scaffold.TrustedShards; "" says nothing): the report's notes say it too, but
// a reader of -o json or of the exit code alone would not see it there.
func (o *Options) warnShardsChanged(job *batchv1.Job, changed string) {
	if changed != "" {
		_, _ = fmt.Fprintf(o.ErrOut, "warning: job %q: its shard IDs are not shown: %s\n", job.Name, changed)
	}
}
