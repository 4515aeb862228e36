package status

import (
	"context"
	"fmt"
	"maps"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podrecord"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// The read of one Job, live or from -f's files, into the state its report is made from: the
// Job, its pods (readPods), its shard IDs (loadShards) and the notes beside them (gatherNotes).

// shardState carries what the report needs about shard IDs.
type shardState struct {
	ids       []string
	configMap string
}

func (o *Options) reportOptions(notes []string, sh ...shardState) indexstatus.Options {
	opts := indexstatus.Options{Clock: o.Clock, Notes: notes, AllIndexes: o.PrintFlags.Format() != output.FormatText}
	if o.PrintFlags.Format() == output.FormatText {
		// The text view: only the rows it prints are kept.
		opts.ListLimit = indexstatus.TextViewRows
	}
	for _, s := range sh {
		opts.ShardIDs, opts.ShardsConfigMap = s.ids, s.configMap
	}
	return opts
}

// offlineReport makes the report of -f's Job from the files given, through the path of a live
// report (gatherNotes): only the clock, the pods' check and --shards-file are offline's own.
func (o *Options) offlineReport(ctx context.Context) (*indexstatus.IndexedJobStatus, error) {
	src, podsGiven, err := o.readOffline()
	if err != nil {
		return nil, err
	}
	job := src.JobList[0]
	acc, err := newAccumulator(job)
	if err != nil {
		return nil, err
	}
	captured := indexstatus.CaptureTime(job, nil)
	f := gather.ForeignPods{Job: job}
	if _, err := src.Pods(ctx, job, "", func(p *corev1.Pod) {
		f.Check(p)
		if t := indexstatus.PodTime(p); t.After(captured) {
			captured = t
		}
		acc.Add(p)
	}); err != nil {
		return nil, err
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	notes := slices.Clone(src.Notes)
	if !podsGiven {
		notes = append(notes, "No pods given (--pods-file, or in -f): the report rests on the Job's status alone (no attempts, exit codes or pods).")
	}
	clk, clockNote, err := o.offlineClock(captured)
	if err != nil {
		return nil, err
	}
	if clockNote != "" {
		notes = append(notes, clockNote)
	}
	st := &liveState{acc: acc, job: job}
	if o.ShardsFile != "" {
		if st.shards, notes, err = o.shardsFile(job, notes); err != nil {
			return nil, err
		}
	} else {
		// Saved with the Job (create --save, create --dry-run=client -o yaml, kubectl get
		// job,configmap): used as --shards-file would use it, decided as live.
		n, sh := o.loadShards(ctx, src, job)
		notes, st.shards = append(notes, n...), sh
	}
	st.notes = notes
	o.gatherNotes(ctx, src, st)
	return st.report(o, func(opts *indexstatus.Options) { opts.Clock, opts.PodsNotGiven = clk, !podsGiven }), nil
}

// shardsFile reads the shard IDs of --shards-file for job, adding to notes what does not match.
func (o *Options) shardsFile(job *batchv1.Job, notes []string) (shardState, []string, error) {
	f := &gather.File{Stdin: o.In}
	n, err := f.Read(o.ShardsFile, "the shard ConfigMap (kubectl get configmap -o json)", "ConfigMap")
	if err == nil && n != 1 {
		err = exitcode.UsageError("%s: holds %d ConfigMaps; give the Job's shard ConfigMap only", o.ShardsFile, n)
	}
	if err != nil {
		return shardState{}, nil, err
	}
	cm := slices.Collect(maps.Values(f.ConfigMaps))[0]
	ids, err := shards.IDsFromConfigMap(cm)
	if err != nil {
		return shardState{}, nil, exitcode.Wrap(exitcode.Usage, err)
	}
	if name, ok := shards.ConfigMapNameFromJob(job); ok && name != cm.Name {
		notes = append(notes, fmt.Sprintf("The Job names shard ConfigMap %q but --shards-file holds %q.", name, cm.Name))
	}
	if changed := scaffold.ShardsChanged(job, cm, ids); changed != "" {
		o.warnShardsChanged(job, changed)
		return shardState{}, append(notes, fmt.Sprintf("Shard IDs are not shown: %s.", changed)), nil
	}
	return shardState{ids: ids, configMap: cm.Name}, notes, nil
}

// liveState is what one read gathered (live, or offline for the report of -f).
type liveState struct {
	acc    *indexstatus.Accumulator
	job    *batchv1.Job
	notes  []string
	shards shardState
	// lin is the Job's lineage with its index map (nil for a root Job, or when unreadable).
	lin *lineage.Lineage
	// podsRV is the resourceVersion of the pod list, for a watch to start from.
	podsRV string
	// retries re-ran some of a failed Job's indexes (loadRetries).
	retries []indexstatus.RetryJob
	// queue is the Job's Kueue Workload, read (kueue.go); nil for a Job Kueue does not manage.
	queue *kueue.Queue
}

// report is the report of s, with the options o gives as changed by set (offline's clock).
func (s *liveState) report(o *Options, set ...func(*indexstatus.Options)) *indexstatus.IndexedJobStatus {
	opts := o.reportOptions(s.notes, s.shards)
	opts.Retries = s.retries
	opts.Queue = s.queue
	for _, f := range set {
		f(&opts)
	}
	r := s.acc.Report(opts)
	setOriginalIndexes(r, s.lin)
	s.acc.AddCaseCounts(r)
	return r
}

// load GETs the Job, LISTs its pods page by page (reducing each page into the accumulator
// before reading the next) and GETs its shard ConfigMap when the Job names one.
func (o *Options) load(ctx context.Context) (*liveState, error) {
	src := o.cluster
	job, err := src.Job(ctx, o.JobName)
	if err != nil {
		return nil, exitcode.APIError(err, "get", "jobs", o.JobName, src.Namespace)
	}
	if err := o.openRecord(func() (*podrecord.Writer, error) { return podrecord.Open(o.Record, job, o.Clock.Now) }); err != nil {
		return nil, err
	}
	acc, rv, err := o.readPods(ctx, src, job)
	if err == nil {
		err = o.recErr
	}
	if err != nil {
		return nil, err
	}
	st := &liveState{acc: acc, job: job, podsRV: rv}
	st.notes, st.shards = o.loadShards(ctx, src, job)
	o.gatherNotes(ctx, src, st)
	return st, nil
}

// gatherNotes adds to st, live or offline, what the report says besides the pods and the shard
// IDs: why pods are missing (FailedCreate events), the other Jobs sharing the shard ConfigMap,
// the Job's lineage and its retries.
func (o *Options) gatherNotes(ctx context.Context, src gather.Source, st *liveState) {
	job := st.job
	st.notes = append(st.notes, o.failedCreateNotes(ctx, src, job)...)
	st.notes = append(st.notes, sharedConfigMapNote(ctx, src, job, st.shards.configMap)...)
	lin, lnotes := jobLineage(job, indexMap(ctx, src, job))
	st.notes = append(st.notes, lnotes...)
	st.notes = append(st.notes, lineageNote(job, lin, o.conn)...)
	retries, rnotes := loadRetries(ctx, src, job)
	st.notes = append(st.notes, rnotes...)
	st.lin, st.retries = lin, retries
	st.queue = o.kueueQueue(ctx, src, job)
}

// newAccumulator is an accumulator of job's pods.
func newAccumulator(job *batchv1.Job) (*indexstatus.Accumulator, error) {
	acc, err := indexstatus.NewAccumulator(job)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return acc, nil
}

// readPods reads the Job's pods into a new accumulator:
// unless --all-pods or offline, only those that did not succeed
// (indexstatus.NotSucceededSelector), and then every pod into a fresh accumulator when
// indexstatus.SucceededPodsNeeded says the Job's status does not account for the succeeded
// ones (see pkg/indexstatus/unread.go: the report is then the one from every pod except the
// succeeded pods' own fields). A one-shot read of a suspended Job whose status counts no pod
// (indexstatus.NoPodsLeft) lists nothing. The resourceVersion is the last list's.
func (o *Options) readPods(ctx context.Context, src gather.Source, job *batchv1.Job) (*indexstatus.Accumulator, string, error) {
	if !o.AllPods && !o.offline() && !o.Watch && !o.Wait && indexstatus.NoPodsLeft(job) {
		acc, err := newAccumulator(job) // a suspended Job with no pod: nothing to LIST
		return acc, "", err
	}
	if !o.AllPods && !o.offline() {
		acc, err := newAccumulator(job)
		if err != nil {
			return nil, "", err
		}
		acc.LeaveOutSucceeded()
		rv, err := src.Pods(ctx, job, indexstatus.NotSucceededSelector, acc.Add)
		if err != nil || acc.SucceededPodsNeeded() == "" {
			return acc, rv, err
		}
	}
	acc, err := newAccumulator(job)
	if err != nil {
		return nil, "", err
	}
	rv, err := src.Pods(ctx, job, "", acc.Add)
	return acc, rv, err
}

// loadShards reads the shard IDs from the ConfigMap the Job names, if any
// (scaffold.TrustedShards). A missing or unreadable ConfigMap is a note, not a failure.
func (o *Options) loadShards(ctx context.Context, src gather.Source, job *batchv1.Job) ([]string, shardState) {
	ids, name, notes, changed := scaffold.TrustedShards(job, func(name string) (*corev1.ConfigMap, string) {
		cm, err := src.ConfigMap(ctx, name)
		if _, ok := gather.IsMissing(err); ok {
			return nil, fmt.Sprintf("The Job's shards are in ConfigMap %q; give it with --shards-file to see shard IDs.", name)
		}
		switch {
		case apierrors.IsNotFound(err):
			return nil, fmt.Sprintf("The Job names shard ConfigMap %q but it does not exist: shard IDs are not shown.", name)
		case apierrors.IsForbidden(err):
			return nil, fmt.Sprintf("Not allowed to get ConfigMap %q (ask for \"get\" on \"configmaps\"): shard IDs are not shown.", name)
		case err != nil:
			return nil, fmt.Sprintf("Cannot read shard ConfigMap %q: %v; shard IDs are not shown.", name, err)
		}
		return cm, ""
	})
	o.warnShardsChanged(job, changed)
	return notes, shardState{ids: ids, configMap: name}
}

// warnShardsChanged says on stderr that job's shard ConfigMap is not the one it was made with
// (changed, from scaffold.TrustedShards; "" says nothing): the report's notes say it too, but
// a reader of -o json or of the exit code alone would not see it there.
func (o *Options) warnShardsChanged(job *batchv1.Job, changed string) {
	if changed != "" {
		_, _ = fmt.Fprintf(o.ErrOut, "warning: job %q: its shard IDs are not shown: %s\n", job.Name, changed)
	}
}

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
	st.queue = o.kueueQueue(ctx, o.cluster, job)
}
