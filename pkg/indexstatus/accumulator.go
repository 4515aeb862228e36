package indexstatus

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
)

// Clock gives the time the report is made at (k8s.io/utils/clock.PassiveClock satisfies it).
type Clock interface {
	Now() time.Time
}

// FixedClock always says the same time (an offline report's, a simulation's end).
type FixedClock time.Time

func (c FixedClock) Now() time.Time { return time.Time(c) }

// Options controls a report.
type Options struct {
	// Clock gives "now" (backoff remaining, ages); the real clock when nil.
	Clock Clock
	// ShardIDs are the shard IDs in completion-index order (element i is index i's shard),
	// from the ConfigMap named by the Job's indexed.kubectl.io/shards-configmap annotation.
	ShardIDs []string
	// ShardsConfigMap names where ShardIDs came from.
	ShardsConfigMap string
	// Notes are added to the report's notes as given (e.g. why shard IDs are missing).
	Notes []string
	// AllIndexes lists every index in Indexes (json, yaml, wide); otherwise only the indexes
	// that need attention are listed (the grid still covers every index).
	AllIndexes bool
	// ListLimit, when AllIndexes is false and it is above 0, keeps at most that many of the
	// indexes that need attention in Indexes, in index order, and only counts the others: the
	// text view prints TextViewRows of them and says how many more there are, so a report made
	// for it holds a few rows, not one per index. Reports for -o json, yaml, wide or templates
	// list every index and set AllIndexes instead.
	ListLimit int
	// PodsNotGiven says the report was made without the Job's pods (offline, no --pods-file):
	// where pods are missing the words say they were not given, not that they are gone.
	PodsNotGiven bool
	// Retries are the Jobs that re-ran some of this Job's indexes (kubectl indexed retry), as
	// lineage.RetriesOf reads them: the retry advice leaves out what they settled or still run.
	Retries []RetryJob
	// Queue is the Job's Kueue Workload as pkg/kueue reads it (nil: not a Kueue Job, or not
	// read): the report carries it, and its Next words the Kueue entry of a suspended Job.
	Queue *kueue.Queue
}

func (o *Options) now() time.Time {
	if o.Clock == nil {
		return time.Now()
	}
	return o.Clock.Now()
}

// NotIndexedError is returned for a Job that is not an Indexed Job.
type NotIndexedError struct {
	Name, Namespace string
	Reason          string
}

func (e *NotIndexedError) Error() string {
	return fmt.Sprintf("job %q%s is not an Indexed Job: %s", e.Name, inNamespace(e.Namespace), e.Reason)
}

func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return fmt.Sprintf(" in namespace %q", ns)
}

// MaxCompletions is the most completion indexes a report is made for. The API server bounds an
// Indexed Job's completions only by int32 (validateJobSpec: not negative; above 100,000 it
// warns, WarningsForJobSpec, that completedIndexes may not be tracked when many indexes
// fail), while a report holds the facts of every index, about 0.25 KB each: 10,000,000
// indexes take 2.7 GB and 22 s for the text view (a runtime out-of-memory crash under a 4 GB
// limit), 2^31-1 over 500 GB. At this bound, ten times the server's soft limit, a report
// takes about 0.3 GB and 1 s (text), 0.6 GB and 7 s (-o json).
const MaxCompletions = 1_000_000

// TooManyCompletionsError is returned for a Job with more than MaxCompletions completions.
type TooManyCompletionsError struct {
	Name, Namespace string
	Completions     int32
}

func (e *TooManyCompletionsError) Error() string {
	return fmt.Sprintf("job %q%s has spec.completions %d: more indexes than a report is made for (at most %d; each index's facts are held); its counters are in kubectl get job %s%s -o yaml (status.completedIndexes, status.failedIndexes)",
		e.Name, inNamespace(e.Namespace), e.Completions, MaxCompletions, e.Name, namespaceFlag(e.Namespace))
}

func namespaceFlag(ns string) string {
	if ns == "" {
		return ""
	}
	return " -n " + ns
}

// CheckIndexed returns a *NotIndexedError unless job is an Indexed Job with completions set,
// and a *TooManyCompletionsError when it has more than MaxCompletions.
func CheckIndexed(job *batchv1.Job) error {
	switch {
	case job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion:
		mode := ptr.Deref(job.Spec.CompletionMode, batchv1.NonIndexedCompletion)
		return &NotIndexedError{job.Name, job.Namespace, fmt.Sprintf("its completionMode is %s; status explains Indexed Jobs only", mode)}
	case job.Spec.Completions == nil:
		return &NotIndexedError{job.Name, job.Namespace, "spec.completions is not set"}
	case *job.Spec.Completions < 0:
		return &NotIndexedError{job.Name, job.Namespace, fmt.Sprintf("spec.completions is %d", *job.Spec.Completions)}
	case *job.Spec.Completions > MaxCompletions:
		return &TooManyCompletionsError{job.Name, job.Namespace, *job.Spec.Completions}
	}
	return nil
}

// Accumulator collects compact summaries of a Job's pods, one pod at a time, so that a caller
// reading a paginated list can drop each page after Add. Pods of other Jobs are counted as
// ignored. Add replaces an earlier summary of the same pod (by UID, else namespace/name), so a
// watch can feed updates; Remove forgets a deleted pod. An Accumulator is not safe for
// concurrent use.
type Accumulator struct {
	job     *batchv1.Job
	pods    map[string]*podSummary // by pointer: the report reads them in place, never copies them
	ignored map[string]struct{}
	in      interner // the summaries' shared exits and rare words
	// succeededNotRead: the pods added are those that did not succeed (LeaveOutSucceeded).
	succeededNotRead bool
}

// NewAccumulator starts a report for job, which must be an Indexed Job.
func NewAccumulator(job *batchv1.Job) (*Accumulator, error) {
	if err := CheckIndexed(job); err != nil {
		return nil, err
	}
	return &Accumulator{job: job.DeepCopy(), pods: map[string]*podSummary{}, ignored: map[string]struct{}{}}, nil
}

// SetJob replaces the Job (a newer version of the same Job, from a watch). Pod summaries are
// kept; the podFailurePolicy they were evaluated against is immutable.
func (a *Accumulator) SetJob(job *batchv1.Job) error {
	if err := CheckIndexed(job); err != nil {
		return err
	}
	a.job = job.DeepCopy()
	return nil
}

// Add records pod (or replaces what was recorded for it).
func (a *Accumulator) Add(pod *corev1.Pod) {
	key := podKey(pod)
	if !Owns(a.job, pod) {
		a.ignore(key)
		return
	}
	s := summarize(a.job, pod, &a.in)
	if s.Index < 0 {
		a.ignore(key)
		return
	}
	delete(a.ignored, key)
	a.pods[key] = &s
}

// ignore records the pod of key as ignored, in place of its summary.
func (a *Accumulator) ignore(key string) {
	delete(a.pods, key)
	a.ignored[key] = struct{}{}
}

// Remove forgets pod.
func (a *Accumulator) Remove(pod *corev1.Pod) {
	key := podKey(pod)
	delete(a.pods, key)
	delete(a.ignored, key)
}

// Len is the number of pods of the Job recorded.
func (a *Accumulator) Len() int { return len(a.pods) }

func podKey(pod *corev1.Pod) string {
	if pod.UID != "" {
		return string(pod.UID)
	}
	return pod.Namespace + "/" + pod.Name
}

// Build makes the report from job and all its pods at once (for a caller that holds the whole
// list: the offline status, logs, simulate, the lineage's reports). It is
// NewAccumulator, Add for every pod, then Report.
func Build(job *batchv1.Job, pods []corev1.Pod, opts Options) (*IndexedJobStatus, error) {
	a, err := NewAccumulator(job)
	if err != nil {
		return nil, err
	}
	for i := range pods {
		a.Add(&pods[i])
	}
	r := a.Report(opts)
	a.AddCaseCounts(r)
	return r, nil
}
