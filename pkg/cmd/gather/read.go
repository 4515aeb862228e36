package gather

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// The reads of one Job's report (status), live or from files: the Job (ReadJob), its pods
// (JobPods), its shard IDs (readShards) and what the report says beside them (readFacts).
// Live and File answer alike; where files cannot know something, the answer says so.

// PodRead says which of a Job's pods JobPods reads live (offline, every pod given). All: every
// pod (status --all-pods); otherwise those that did not succeed
// (indexstatus.NotSucceededSelector), then every pod when indexstatus.SucceededPodsNeeded says
// the Job's status does not account for the succeeded ones. Once: a read no watch follows,
// which lists nothing for a suspended Job whose status counts no pod (indexstatus.NoPodsLeft).
type PodRead struct{ All, Once bool }

// ReadOptions say what ReadJob reads: Job Name (offline: the files'), its pods, and the time
// the Kueue Queue is read at (Now). Found, when set, is called with the Job before its pods
// are read (status --record opens its record then); its error ends the read.
type ReadOptions struct {
	Name  string
	Pods  PodRead
	Now   func() time.Time
	Found func(*batchv1.Job) error
}

// JobRead is what ReadJob gathered for the report of one Job: PodsRV is the pod list's
// resourceVersion, for a watch to start from. Offline, Captured is the newest time written in
// the Job and its pods (indexstatus.CaptureTime), PodsGiven whether any pod was given, Notes
// what reading the files found (a record's torn last line); live, PodsGiven is true.
type JobRead struct {
	Job       *batchv1.Job
	Pods      *indexstatus.Accumulator
	PodsRV    string
	Captured  time.Time
	PodsGiven bool
	Notes     []string
	Shards    Shards
	Facts
}

// Shards are a Job's shard IDs, from the ConfigMap it names (scaffold.TrustedShards) or,
// offline, --shards-file's; Notes say what could not be read, Changed (also a note) that the
// ConfigMap is not the one the Job was made with: callers warn about it.
type Shards struct {
	IDs       []string
	ConfigMap string
	Notes     []string
	Changed   string
}

// Facts are what a report says besides the pods and the shard IDs: the FailedCreate Events
// of a Job that runs fewer pods than it should (PodsWanted; EventsErr, a *Missing offline), the
// other Jobs Shared its shard ConfigMap with, its Lineage with its index map (nil for a root,
// or when it cannot be read), the Retries that re-ran its indexes, and the Queue of a Job
// Kueue manages; the notes say what could not be read.
type Facts struct {
	Events                   []corev1.Event
	EventsErr                error
	Shared                   []string
	Lineage                  *lineage.Lineage
	LineageNotes, RetryNotes []string
	Retries                  []indexstatus.RetryJob
	Queue                    *kueue.Queue
}

// ReadJob GETs the Job, reads its pods (JobPods), its shard IDs and its Facts.
func (l *Live) ReadJob(ctx context.Context, opts ReadOptions) (*JobRead, error) {
	job, err := l.Job(ctx, opts.Name)
	if err != nil {
		return nil, exitcode.APIError(err, "get", "jobs", opts.Name, l.Namespace)
	}
	if opts.Found != nil {
		if err := opts.Found(job); err != nil {
			return nil, err
		}
	}
	acc, rv, err := l.JobPods(ctx, job, opts.Pods)
	if err != nil {
		return nil, err
	}
	rd := &JobRead{Job: job, Pods: acc, PodsRV: rv, PodsGiven: true, Shards: readShards(ctx, l, job)}
	rd.Facts = readFacts(ctx, l, job, rd.Shards.ConfigMap, opts.Now())
	return rd, nil
}

// ReadJob reads the Job of the files with every pod given, checking that none is another Job's
// (ForeignPods); the shard IDs are --shards-file's when given (ShardsConfigMap).
func (f *File) ReadJob(ctx context.Context, opts ReadOptions) (*JobRead, error) {
	job, err := f.Job(ctx, opts.Name)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	acc, err := newAccumulator(job)
	if err != nil {
		return nil, err
	}
	rd := &JobRead{Job: job, Pods: acc, Captured: indexstatus.CaptureTime(job, nil), PodsGiven: f.PodsFile != "" || len(f.PodList) > 0}
	foreign := ForeignPods{Job: job}
	if _, err := f.Pods(ctx, job, "", func(p *corev1.Pod) {
		foreign.Check(p)
		if t := indexstatus.PodTime(p); t.After(rd.Captured) {
			rd.Captured = t
		}
		acc.Add(p)
	}); err != nil {
		return nil, err
	}
	if err := foreign.Err(); err != nil {
		return nil, err
	}
	rd.Notes = append([]string(nil), f.Notes...)
	if f.ShardsConfigMap != nil {
		if rd.Shards, err = f.shardsGiven(job); err != nil {
			return nil, err
		}
	} else {
		rd.Shards = readShards(ctx, f, job)
	}
	rd.Facts = readFacts(ctx, f, job, rd.Shards.ConfigMap, opts.Now())
	return rd, nil
}

// shardsGiven are the shard IDs of --shards-file (ShardsConfigMap) for job.
func (f *File) shardsGiven(job *batchv1.Job) (Shards, error) {
	cm := f.ShardsConfigMap
	ids, err := shards.IDsFromConfigMap(cm)
	if err != nil {
		return Shards{}, exitcode.Wrap(exitcode.Usage, err)
	}
	var notes []string
	if name, ok := shards.ConfigMapNameFromJob(job); ok && name != cm.Name {
		notes = append(notes, fmt.Sprintf("The Job names shard ConfigMap %q but --shards-file holds %q.", name, cm.Name))
	}
	if changed := scaffold.ShardsChanged(job, cm, ids); changed != "" {
		return Shards{Notes: append(notes, fmt.Sprintf("Shard IDs are not shown: %s.", changed)), Changed: changed}, nil
	}
	return Shards{IDs: ids, ConfigMap: cm.Name, Notes: notes}, nil
}

func newAccumulator(job *batchv1.Job) (*indexstatus.Accumulator, error) {
	acc, err := indexstatus.NewAccumulator(job)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return acc, nil
}

// JobPods reads job's pods into a new accumulator, as want says; the resourceVersion is the
// last list's.
func (l *Live) JobPods(ctx context.Context, job *batchv1.Job, want PodRead) (*indexstatus.Accumulator, string, error) {
	if !want.All {
		acc, err := newAccumulator(job)
		if err != nil || want.Once && indexstatus.NoPodsLeft(job) {
			return acc, "", err // a suspended Job with no pod: nothing to LIST
		}
		acc.LeaveOutSucceeded()
		rv, err := l.Pods(ctx, job, indexstatus.NotSucceededSelector, acc.Add)
		if err != nil || acc.SucceededPodsNeeded() == "" {
			return acc, rv, err
		}
	}
	return allPods(ctx, l, job)
}

// JobPods reads every pod given into a new accumulator.
func (f *File) JobPods(ctx context.Context, job *batchv1.Job, _ PodRead) (*indexstatus.Accumulator, string, error) {
	return allPods(ctx, f, job)
}

func allPods(ctx context.Context, src Source, job *batchv1.Job) (*indexstatus.Accumulator, string, error) {
	acc, err := newAccumulator(job)
	if err != nil {
		return nil, "", err
	}
	rv, err := src.Pods(ctx, job, "", acc.Add)
	return acc, rv, err
}

// readShards reads the shard IDs from the ConfigMap the Job names, if any
// (scaffold.TrustedShards). A missing or unreadable ConfigMap is a note, not a failure.
func readShards(ctx context.Context, src Source, job *batchv1.Job) Shards {
	ids, name, notes, changed := scaffold.TrustedShards(job, func(name string) (*corev1.ConfigMap, string) {
		cm, err := src.ConfigMap(ctx, name)
		if _, ok := IsMissing(err); ok {
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
	return Shards{IDs: ids, ConfigMap: name, Notes: notes, Changed: changed}
}

// readFacts reads, in this order, the FailedCreate events, the other Jobs of the shard
// ConfigMap, the lineage, the retries and the Kueue Queue of job.
func readFacts(ctx context.Context, src Source, job *batchv1.Job, configMap string, now time.Time) Facts {
	var fs Facts
	if want := PodsWanted(job); want > 0 && job.Status.Active < want {
		sel := fields.Set{"involvedObject.uid": string(job.UID), "reason": "FailedCreate"}.String()
		fs.Events, fs.EventsErr = src.Events(ctx, sel)
	}
	fs.Shared = sharingJobs(ctx, src, job, configMap)
	fs.Lineage, fs.LineageNotes = jobLineage(job, IndexMap(ctx, src, job))
	fs.Retries, fs.RetryNotes = readRetries(ctx, src, job)
	fs.Queue = src.Queue(ctx, job, now)
	return fs
}

func (l *Live) Queue(ctx context.Context, job *batchv1.Job, now time.Time) *kueue.Queue {
	return kueue.ReadQueue(ctx, l, job, now, "")
}

func (f *File) Queue(ctx context.Context, job *batchv1.Job, now time.Time) *kueue.Queue {
	return kueue.ReadQueue(ctx, f, job, now, f.Files)
}

// PodsWanted is how many pods a running Job should be running now (0 when suspended,
// finishing or finished): its FailedCreate events say why it runs fewer.
func PodsWanted(job *batchv1.Job) int32 {
	if phase, _ := indexstatus.DecidePhase(job); phase != indexstatus.PhaseRunning {
		return 0
	}
	want := ptr.Deref(job.Spec.Parallelism, 1)
	if job.Spec.Completions != nil {
		want = min(want, *job.Spec.Completions-job.Status.Succeeded)
	}
	return max(want, 0)
}

// sharingJobs names the other Jobs in the namespace that mount the same shard ConfigMap
// (every Job and retry of the same manifest does: the ConfigMap is named from the manifest's
// hash), sorted. Jobs are found by the manifest-hash label and kept when their
// shards-configmap annotation names the same ConfigMap. None when they cannot be listed.
func sharingJobs(ctx context.Context, src Source, job *batchv1.Job, cm string) []string {
	hash := job.Labels[shards.LabelManifestHash]
	if hash == "" || cm == "" {
		return nil
	}
	jobs, err := src.Jobs(ctx, labels.Set{shards.LabelManifestHash: hash}.String())
	if err != nil {
		return nil
	}
	var others []string
	for i := range jobs {
		j := &jobs[i]
		if name, ok := shards.ConfigMapNameFromJob(j); ok && name == cm && j.UID != job.UID {
			others = append(others, j.Name)
		}
	}
	sort.Strings(others)
	return others
}

// jobLineage reads job's lineage, and the index map from the ConfigMap get returns when the
// Job keeps it in one. l is nil for a root Job; notes say what could not be read (l is then
// nil too: its root indexes are not shown rather than shown wrong).
func jobLineage(job *batchv1.Job, get func(name string) (*corev1.ConfigMap, error)) (*lineage.Lineage, []string) {
	l, ok, err := lineage.ReadResolved(job, get)
	switch {
	case !ok:
		return nil, nil
	case err != nil && l != nil && l.OriginalFrom != nil:
		return nil, []string{fmt.Sprintf("The root index of each index is not shown: %v.", err)}
	case err != nil:
		return nil, []string{fmt.Sprintf("Lineage annotations cannot be read: %v.", err)}
	}
	return l, nil
}

// IndexMap reads the ConfigMap of an index map of job's lineage (lineage.ReadResolved), saying
// in the error what is missing.
func IndexMap(ctx context.Context, src Source, job *batchv1.Job) func(string) (*corev1.ConfigMap, error) {
	return func(name string) (*corev1.ConfigMap, error) {
		cm, err := src.ConfigMap(ctx, name)
		if m, ok := IsMissing(err); ok {
			return nil, fmt.Errorf("%s does not hold it: save it with the Job (kubectl get job %s configmap %s -o json)", m.Files, job.Name, name)
		}
		switch {
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("it does not exist in namespace %q: the original index of each index is not shown", src.InNamespace())
		case apierrors.IsForbidden(err):
			return nil, fmt.Errorf("not allowed to get it (ask for \"get\" on \"configmaps\")")
		}
		return cm, err
	}
}

// readRetries reads the Jobs that re-ran some of a failed Job's indexes (kubectl indexed
// retry), so that its advice names them and does not offer their shards again: one Job LIST
// on the lineage's root label, and a GET per retry whose index map is in a ConfigMap. Only a
// failed Job is asked about (the advice to retry is given for no other); a LIST that is not
// allowed, or fails, is a note and the advice stands as if there were no retries.
func readRetries(ctx context.Context, src Source, job *batchv1.Job) ([]indexstatus.RetryJob, []string) {
	if jobpolicy.ConditionTrue(job, batchv1.JobFailed) == nil {
		return nil, nil
	}
	root := cmp.Or(job.Annotations[shards.AnnotationRootJob], job.Name)
	list, err := src.Jobs(ctx, labels.Set{shards.LabelRootJob: root}.String())
	switch {
	case apierrors.IsForbidden(err):
		return nil, []string{fmt.Sprintf("Its retries are not known: not allowed to list jobs in namespace %q (ask for \"list\" on \"jobs\"), so Next cannot tell whether they re-ran its shards.", src.InNamespace())}
	case err != nil:
		return nil, []string{fmt.Sprintf("Its retries are not known (listing Jobs failed: %v), so Next cannot tell whether they re-ran its shards.", err)}
	}
	jobs := make([]*batchv1.Job, 0, len(list))
	resolved := map[string]*lineage.Lineage{}
	var notes []string
	for i := range list {
		j := &list[i]
		jobs = append(jobs, j)
		l, ok, err := lineage.ReadResolved(j, IndexMap(ctx, src, j))
		switch {
		case ok && err != nil:
			notes = append(notes, fmt.Sprintf("Retry %q is left out: its index map cannot be read (%v).", j.Name, err))
		case ok:
			resolved[j.Name] = l
		}
	}
	return lineage.RetriesOf(job, jobs, resolved), notes
}
