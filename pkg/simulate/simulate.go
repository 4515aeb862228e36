// Package simulate is a deterministic discrete-event model of an Indexed Job under the mirrored Job
// controller (pkg/version): it plays the pods of a Job forward in time (created in index order up to
// parallelism, each ending as its Outcomes say) and, at every step, asks pkg/jobpolicy what the
// controller's next sync decides (index states, counted and ignored failures, backoffs, limits,
// the finishing condition). What jobpolicy leaves to the controller's actions (writing the
// status, removing finalizers, deleting active pods, creating pods, the in-memory global
// backoff record) is modelled here, each step naming the upstream function it follows
// (pkg/controller/job of the release in pkg/version).
//
// The package is pure: no client, no printing.
package simulate

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Timing chooses how events that race are ordered.
type Timing string

// Timings.
const (
	// Together: events at the same instant are seen by one sync (the controller batches what
	// its informers delivered).
	Together Timing = "together"
	// FailuresFirst: every failing pod ends Skew earlier and every succeeding one Skew later.
	FailuresFirst Timing = "failures-first"
	// SuccessesFirst: the other way round.
	SuccessesFirst Timing = "successes-first"
)

// crashLoopLimit: a restart limit above this is never reached in a simulation.
const crashLoopLimit = 1_000_000

// Skew is how far the timing variants move pod finishes: about one controller sync plus a
// kwok stage, the jitter seen on the local control plane.
const Skew = 500 * time.Millisecond

// Options tunes a simulation.
type Options struct {
	// Start is the simulated creation time of the Job (status times are absolute).
	Start time.Time
	// Horizon stops the simulation (the Job still running); default 24h.
	Horizon time.Duration
	// Timing orders racing events (default Together).
	Timing Timing
	// MaxEvents caps the timeline (default 200); the rest are counted in Result.MoreEvents.
	MaxEvents int
	// KeepPods keeps every pod for Result.Pods (memory grows with the pods created).
	KeepPods bool
	// Context, when set, stops the simulation once it is done (checked before every sync):
	// Simulate and Predict then return an error that wraps context.Cause (errors.Is
	// context.Canceled for a plain cancel).
	Context context.Context
}

// Event is one decisive step of the timeline.
type Event struct {
	// At is the time since the Job was created.
	At time.Duration `json:"at"`
	// Type: PodsCreated, PodFailed, PodSucceeded (only in small Jobs), ContainerRestarted,
	// IndexFailed, Backoff, FailureTarget, SuccessCriteriaMet, PodsKilled, Failed, Complete.
	Type string `json:"type"`
	// Index is the completion index the event is about, -1 for the whole Job.
	Index   int    `json:"index"`
	Message string `json:"message"`
	// Cause is, for an event about one index, its message with the index (and pod name) left
	// out, "{indexes}" where the index goes: events of one instant, type and cause are one line
	// of the grouped timeline (GroupEvents). Not in JSON, which lists every event.
	Cause string `json:"-"`
}

// eventJSON is an Event as JSON, At a Go duration ("31s").
type eventJSON struct {
	At      string `json:"at"`
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message string `json:"message"`
}

// MarshalJSON writes At as a Go duration ("31s").
func (e Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(eventJSON{At: e.At.String(), Type: e.Type, Index: e.Index, Message: e.Message})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *Event) UnmarshalJSON(b []byte) error {
	var plain eventJSON
	if err := json.Unmarshal(b, &plain); err != nil {
		return err
	}
	at, err := time.ParseDuration(plain.At)
	if err != nil {
		return fmt.Errorf("event time %q: %w", plain.At, err)
	}
	*e = Event{At: at, Type: plain.Type, Index: plain.Index, Message: plain.Message}
	return nil
}

// IndexResult is the per-index view at the end (Result.Indexes[i] is index i's).
type IndexResult struct {
	// State is jobpolicy's state of the index at the end.
	State jobpolicy.IndexState `json:"state"`
	// Pods: created for the index; Remaining: still present at the end (not deleted).
	Pods      int `json:"pods"`
	Remaining int `json:"remaining"`
	// Failures counted against the index (backoffLimitPerIndex) and ignored.
	Failures int32 `json:"failures"`
	Ignored  int32 `json:"ignored"`
	// Restarts of containers under restartPolicy OnFailure.
	Restarts int32 `json:"restarts,omitempty"`
	// ExitCodes of the attempts, in order (137: killed).
	ExitCodes []int32 `json:"exitCodes,omitempty"`
}

// Result is what one simulation predicts.
type Result struct {
	Job *batchv1.Job
	// Finished: Complete or Failed was reached before the horizon and before the pods stopped.
	Finished bool
	// Stuck: nothing more happens (pods run forever) although the Job did not finish.
	Stuck bool
	// End is the time of the last step since the Job's creation.
	End time.Duration
	// Events is the timeline, empty rather than nil without any (the report's JSON lists it).
	Events     []Event
	MoreEvents int
	Indexes    []IndexResult
	// Pods the simulation created.
	PodsCreated int
	// Syncs of the controller simulated.
	Syncs int

	pods      []*simPod // with Options.KeepPods
	ns        string
	container string
}

// PodsPerIndex counts the pods each index still has at the end, as `kubectl get pods` lists
// them (the controller deletes the pods it kills; finished pods stay).
func (r *Result) PodsPerIndex() map[string]int {
	out := map[string]int{}
	for i, ix := range r.Indexes {
		if ix.Remaining > 0 {
			out[strconv.Itoa(i)] = ix.Remaining
		}
	}
	return out
}

type simPod struct {
	name                       string
	index                      int
	failureCount, ignoredCount int32
	phase                      corev1.PodPhase
	deleting, removed, tracked bool
	created, finished          time.Time
	restarts                   int32
	run                        Attempt
	match                      *jobpolicy.Match
	finishSeen                 bool // seen by the backoff record
	lastExit                   int32
	condition                  string // set True by the run that failed the pod
}

func (p *simPod) active() bool {
	return !p.deleting && p.phase != corev1.PodSucceeded && p.phase != corev1.PodFailed
}

func (p *simPod) terminating() bool {
	return p.deleting && !p.removed && p.phase != corev1.PodSucceeded && p.phase != corev1.PodFailed
}

// actedOn: the controller still acts on p: with the finalizer, or not finished.
func (p *simPod) actedOn() bool { return !p.removed && (p.tracked || p.active() || p.terminating()) }

// podCounts counts the live pods that are active and those terminating (a removed pod is
// neither: only a deleted pod is removed).
func (s *sim) podCounts() (active, terminating int) {
	for _, p := range s.live {
		if p.active() {
			active++
		} else if p.terminating() {
			terminating++
		}
	}
	return active, terminating
}

type eventKind int

const (
	evFinish eventKind = iota
	evTerminated
)

type event struct {
	at    int64 // nanoseconds since the start
	order int   // 0 first, 1 second within an instant (timing variants)
	seq   int
	kind  eventKind
	pod   *simPod
	gen   int32 // restarts at scheduling: a stale finish is dropped
}

type queue []*event

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	a, b := q[i], q[j]
	return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.order, b.order), cmp.Compare(a.seq, b.seq)) < 0
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

type sim struct {
	job   *batchv1.Job
	spec  jobpolicy.Spec
	out   *Outcomes
	opts  Options
	start time.Time
	now   time.Time
	q     queue
	seq   int
	last  []*simPod // the last pod of each index
	live  []*simPod // pods the controller still sees with a finalizer or not finished
	runs  []int     // runs per index so far
	// res.Indexes counts, as the simulation goes, each index's pods (and those still
	// present), its failed pods whose failure counts or is ignored, its restarts and exits.
	res *Result
	// backoff record (backoffStore.newBackoffRecord)
	bFailures  int32
	bLast      time.Time
	onlyFailed bool
	ns         string
	finalCond  *batchv1.JobCondition
	changed    bool
	// wake is the work queue's one waiting entry for the Job (client-go's delaying queue keeps
	// the earliest time it was asked for); zero: none.
	wake time.Time
	// The instant and the last queue sequence of the pod events applied last, and whether no
	// sync ran since.
	lastAt  int64
	lastSeq int
	applied bool
	// The status counters the controller last wrote: a sync that changes them writes the
	// status, whose update event syncs the Job again a batch period later.
	stActive, stReady, stTerminating int
}

// wakeAt asks for a sync at t (AddAfter): the earlier of t and the entry already waiting.
func (s *sim) wakeAt(t time.Time) {
	if s.wake.IsZero() || t.Before(s.wake) {
		s.wake = t
	}
}

// wakeAfter is enqueueSyncJobWithDelay: never sooner than the batch period.
func (s *sim) wakeAfter(d time.Duration) {
	s.wakeAt(s.now.Add(max(d, jobpolicy.SyncJobBatchPeriod)))
}

// Simulate simulates job (already checked with Check) with the outcomes.
func Simulate(job *batchv1.Job, out *Outcomes, opts Options) (*Result, error) {
	if err := Check(job); err != nil {
		return nil, err
	}
	j := Defaulted(job)
	if opts.Horizon <= 0 {
		opts.Horizon = 24 * time.Hour
	}
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = 200
	}
	opts.Timing = cmp.Or(opts.Timing, Together)
	if out == nil {
		out = NewOutcomes()
	}
	out = out.WithAnnotations(j.Spec.Template.Annotations)
	s := &sim{job: j, spec: jobpolicy.SpecOf(j), out: out, opts: opts, start: opts.Start, now: opts.Start,
		res: &Result{Job: j, Events: []Event{}}, onlyFailed: jobpolicy.OnlyReplaceFailedPods(j), ns: cmp.Or(j.Namespace, "default")}
	n := int(s.spec.Completions)
	s.runs, s.last, s.res.Indexes = make([]int, n), make([]*simPod, n), make([]IndexResult, n)
	j.Status.StartTime = &metav1.Time{Time: s.start}
	if err := s.loop(); err != nil {
		return nil, err
	}
	s.finish()
	s.res.ns, s.res.container = s.ns, out.Container()
	return s.res, nil
}

// Check rejects what the simulator does not model, with a reason.
func Check(job *batchv1.Job) error {
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
		return fmt.Errorf("job %q is not an Indexed Job (spec.completionMode: Indexed): simulate models Indexed Jobs only", job.Name)
	}
	// What the API server rejects, in its own words (pkg/jobspec), before what the simulator
	// itself cannot model.
	if vs := jobspec.ValidateJob(job); len(vs) > 0 {
		msgs := make([]string, len(vs))
		for i, v := range vs {
			msgs[i] = v.Message()
		}
		return fmt.Errorf("job %q is invalid, the API server would reject it: %s", job.Name, strings.Join(msgs, "; "))
	}
	if job.Spec.Completions != nil && *job.Spec.Completions > 10_000_000 {
		return fmt.Errorf("job %q: spec.completions %d is more than the simulator models (10,000,000)", job.Name, *job.Spec.Completions)
	}
	return ValidateAnnotations(job.Spec.Template.Annotations)
}

// Defaulted returns a copy of job with the API server's defaults (SetDefaults_Job) and no status.
func Defaulted(job *batchv1.Job) *batchv1.Job {
	j := job.DeepCopy()
	j.Status = batchv1.JobStatus{}
	j.Spec.Parallelism = ptr.To(jobpolicy.DefaultedParallelism(&j.Spec))
	j.Spec.BackoffLimit = ptr.To(jobpolicy.DefaultedBackoffLimit(&j.Spec))
	j.Spec.PodReplacementPolicy = ptr.To(jobpolicy.DefaultedPodReplacementPolicy(&j.Spec))
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		// A suspended Job runs once resumed: the simulation starts at the resume.
		j.Spec.Suspend = nil
	}
	return j
}

func (s *sim) push(at time.Time, order int, kind eventKind, p *simPod) {
	s.seq++
	heap.Push(&s.q, &event{at: int64(at.Sub(s.start)), order: order, seq: s.seq, kind: kind, pod: p,
		gen: p.restarts})
}

func (s *sim) event(typ string, index int, format string, a ...any) {
	if len(s.res.Events) >= s.opts.MaxEvents {
		s.res.MoreEvents++
		return
	}
	s.res.Events = append(s.res.Events, Event{At: s.now.Sub(s.start), Type: typ, Index: index, Message: fmt.Sprintf(format, a...)})
}

// indexEvent records an event about index whose message is cause with "{indexes}" replaced
// by "index N" and "{pod}" by ": pod NAME" (pod's name); the events of one instant, type and
// cause group into one timeline line (GroupEvents).
func (s *sim) indexEvent(typ string, index int, pod, cause string, a ...any) {
	c := fmt.Sprintf(cause, a...)
	msg := strings.Replace(strings.Replace(c, "{indexes}", "index "+strconv.Itoa(index), 1), "{pod}", ": pod "+pod, 1)
	before := len(s.res.Events)
	s.event(typ, index, "%s", msg)
	if len(s.res.Events) > before {
		s.res.Events[before].Cause = c
	}
}

// loop runs syncs until the Job finishes, nothing more happens, or the horizon; or until
// Options.Context is done.
func (s *sim) loop() error {
	horizon := s.start.Add(s.opts.Horizon)
	ctx := cmp.Or(s.opts.Context, context.Background())
	if ctx.Err() != nil {
		return s.stopped(ctx)
	}
	// The Job's creation syncs it at once (addJob: enqueueSyncJobImmediately).
	s.sync()
	for !jobpolicy.JobFinished(s.job) {
		if ctx.Err() != nil {
			return s.stopped(ctx)
		}
		if s.q.Len() == 0 && s.wake.IsZero() {
			s.res.Stuck = true
			return nil
		}
		// The next sync is the queue's one waiting entry (s.wake); pod events due before it
		// reach the informer first. A pod event due at the same instant comes after it: a pod's
		// run starts a moment after the sync that created it (the API server's write, the
		// scheduler, the kubelet), so it ends a moment after that sync plus its run time. On the
		// control plane, five Jobs whose pods end on a sync's instant finished 1-3s later than
		// when such events came first (global and per-index backoff, an index in backoff
		// holding the queue, a success policy), and each at the second this rule gives.
		if s.q.Len() > 0 && s.q[0].at == s.lastAt && s.q[0].seq > s.lastSeq && s.applied {
			// Applying the last events queued more at the same instant (a container that fails
			// in no time under OnFailure restarts in place): a sync sees each restart first, or
			// such a pod restarted forever without one.
			s.applied = false
			s.wake = time.Time{}
			s.sync()
			continue
		}
		if s.q.Len() > 0 && (s.wake.IsZero() || s.start.Add(time.Duration(s.q[0].at)).Before(s.wake)) {
			at, order := s.q[0].at, s.q[0].order
			if s.now = s.start.Add(time.Duration(at)); s.now.After(horizon) {
				s.now = horizon
				return nil
			}
			// The events queued so far at this instant; what applying them queues at the same
			// instant (a container that fails in no time and restarts in place) is played at
			// the next step: without that, such a pod restarted forever without a sync in
			// between, and the simulation never ended.
			last := s.seq
			for s.q.Len() > 0 && s.q[0].at == at && s.q[0].order == order && s.q[0].seq <= last {
				s.apply(heap.Pop(&s.q).(*event))
			}
			s.lastAt, s.lastSeq, s.applied = at, last, true
			// Every pod event syncs the Job a batch period later (updatePod, deletePod:
			// enqueueSyncJobBatched), unless a sync is already due earlier.
			s.wakeAt(s.now.Add(jobpolicy.SyncJobBatchPeriod))
			continue
		}
		if s.wake.After(horizon) {
			s.now = horizon
			return nil
		}
		s.now, s.wake, s.applied = s.wake, time.Time{}, false
		s.sync()
	}
	s.res.Finished = true
	return nil
}

// stopped is the error of a simulation whose context is done: how far it got, and the cause.
func (s *sim) stopped(ctx context.Context) error {
	return fmt.Errorf("simulation stopped at %s of simulated time after %d syncs: %w", s.now.Sub(s.start), s.res.Syncs, context.Cause(ctx))
}

// apply plays what kwok does to a pod (test/harness/stages.yaml).
func (s *sim) apply(e *event) {
	p := e.pod
	switch e.kind {
	case evFinish:
		if p.removed || !p.active() || e.gen != p.restarts {
			return
		}
		r := p.run
		ix := &s.res.Indexes[p.index]
		ix.ExitCodes = append(ix.ExitCodes, r.ExitCode)
		if s.spec.RestartsCount() && r.ExitCode != 0 && r.Condition == "" {
			// scenario-pod-finish under OnFailure: the container restarts in place.
			p.restarts++
			ix.Restarts++
			s.runs[p.index]++
			next := s.out.Attempt(p.index, s.runs[p.index], s.kwAttempt(p))
			if next == r && s.spec.RestartsToFail() > crashLoopLimit {
				// Every further run ends the same way and no limit counts the restarts
				// (pastBackoffLimitOnFailure compares them with a backoffLimit of 2^31-1 under
				// backoffLimitPerIndex): the pod crash-loops until it is deleted, which changes
				// nothing but its restartCount, so it is left running.
				p.run = Attempt{Never: true}
				s.indexEvent("ContainerRestarted", p.index, "", "{indexes}: container exited %d and restarts in place forever (no limit counts the restarts)", r.ExitCode)
				return
			}
			p.run = next
			s.indexEvent("ContainerRestarted", p.index, "", "{indexes}: container exited %d, restarted in place (restartCount %d)", r.ExitCode, p.restarts)
			if !p.run.Never {
				d, order := s.skew(p.run)
				s.push(s.now.Add(d), order, evFinish, p)
			}
			s.changed = true
			return
		}
		p.finished = s.now
		p.lastExit = r.ExitCode
		if r.Failed() {
			s.fail(p, r)
			what := fmt.Sprintf("exit code %d", r.ExitCode)
			if r.Condition != "" {
				what = "condition " + r.Condition
			}
			rule := ""
			if p.match.Matched() {
				rule = fmt.Sprintf(": podFailurePolicy rule %d, %s", p.match.Rule, p.match.Action)
			}
			s.indexEvent("PodFailed", p.index, p.name, "{indexes}{pod} failed (%s)%s", what, rule)
		} else {
			p.phase = corev1.PodSucceeded
			if s.spec.Completions <= 50 {
				s.indexEvent("PodSucceeded", p.index, p.name, "{indexes}{pod} succeeded")
			}
		}
	case evTerminated:
		// scenario-pod-terminate: killed, exit 137, Failed.
		if p.phase == corev1.PodSucceeded || p.phase == corev1.PodFailed {
			return
		}
		p.finished = s.now
		p.lastExit = KilledExitCode
		s.res.Indexes[p.index].ExitCodes = append(s.res.Indexes[p.index].ExitCodes, KilledExitCode)
		s.fail(p, Attempt{ExitCode: KilledExitCode})
		// scenario-pod-delete: a stopped deleted pod goes once its finalizer is gone.
		if !p.tracked {
			s.remove(p)
		}
	}
}

// skew moves a run's end for the timing variants, and says where it comes among the events of
// its instant (event.order): the runs a variant puts first end Skew earlier, the others Skew
// later and second.
func (s *sim) skew(r Attempt) (time.Duration, int) {
	switch {
	case s.opts.Timing == Together:
		return r.Duration, 0
	case (s.opts.Timing == FailuresFirst) == r.Failed():
		return max(r.Duration-Skew, 0), 0
	}
	return r.Duration + Skew, 1
}

// kwAttempt is kwok's attempt: known from the pod's index-failure-count annotations, which only
// backoffLimitPerIndex sets.
func (s *sim) kwAttempt(p *simPod) int {
	if !s.spec.PerIndex() {
		return -1
	}
	return int(p.failureCount + p.ignoredCount)
}

// match runs jobpolicy.MatchPodFailurePolicy on the pod as kwok leaves it after a run
// (scenario-pod-finish / -terminate: podObject), its Ready condition left out as the model
// always has: nil when no rule matches.
func (s *sim) match(p *simPod) *jobpolicy.Match {
	if s.job.Spec.PodFailurePolicy == nil {
		return nil
	}
	pod := podObject(s.job, s.ns, s.out.Container(), p)
	pod.Status.Conditions = slices.DeleteFunc(pod.Status.Conditions,
		func(c corev1.PodCondition) bool { return c.Type == corev1.PodReady })
	if m := jobpolicy.MatchPodFailurePolicy(s.job.Spec.PodFailurePolicy, &pod); m.Matched() {
		return &m
	}
	return nil
}

// observe is jobpolicy.ObservePod for a simulated pod.
func (s *sim) observe(p *simPod) jobpolicy.Pod {
	o := jobpolicy.Pod{Name: p.name, UID: p.name, Index: p.index, Phase: p.phase, Deleting: p.deleting,
		Tracked: p.tracked, FailureCount: p.failureCount,
		IgnoredCount: p.ignoredCount, Failed: jobpolicy.PodFailed(p.phase, p.deleting, s.onlyFailed), Match: p.match, Restarts: p.restarts}
	o.SetTimes(p.created, p.finished)
	return o
}

// observeLive drops from live the pods the controller no longer acts on (actedOn) and observes
// the others, in live's order.
func (s *sim) observeLive() []jobpolicy.Pod {
	s.live = slices.DeleteFunc(s.live, func(p *simPod) bool { return !p.actedOn() })
	obs := make([]jobpolicy.Pod, len(s.live))
	for i, p := range s.live {
		obs[i] = s.observe(p)
	}
	return obs
}

// sync is one syncJob.
func (s *sim) sync() {
	s.changed = false
	s.res.Syncs++
	// The pods the controller still has to act on: with the finalizer, or not finished. A pod
	// without the finalizer that finished is accounted for and changes no decision (its
	// FailJob match was seen while it was tracked).
	s.backoffRecord()
	s.recordSucceeded()
	obs := s.observeLive()
	// countReadyPods of the pods at the start of the sync (kwok's pods are ready once running).
	ready, _ := s.podCounts()
	defer s.statusWritten(ready)
	// Sparse: the sync reads the facts of the indexes it acts on only (IndexAt).
	f := jobpolicy.EvaluateSparse(s.job, obs, s.now)

	switch f.Decision.Kind {
	case jobpolicy.Finished:
		return
	case jobpolicy.Fail, jobpolicy.Succeed:
		s.finishing(f, obs)
	default:
		s.track(f, obs)
		s.manage(f)
	}
	s.removeDeleted()
}

// statusWritten: a sync that changed the status (counters, sets, conditions, finalizers) or
// created or deleted pods syncs the Job again a batch period later (updateJob on the status
// update, addPod / updatePod on the pod writes: enqueueSyncJobBatched).
func (s *sim) statusWritten(ready int) {
	active, terminating := s.podCounts()
	if s.changed || active != s.stActive || ready != s.stReady || terminating != s.stTerminating {
		s.stActive, s.stReady, s.stTerminating = active, ready, terminating
		s.wakeAt(s.now.Add(jobpolicy.SyncJobBatchPeriod))
	}
}

// recordSucceeded does first what trackJobStatusAndRemoveFinalizers does in every sync with a
// succeeded pod that still has the finalizer: its index goes into status.completedIndexes and
// the finalizer is removed (canRemoveFinalizer: always for a succeeded pod). Every decision of
// the sync reads the union of the status set and the tracked succeeded pods
// (calculateSucceededIndexes), which this leaves as it is; jobpolicy then needs only the pods
// still undecided, which keeps a sync of a large Job cheap.
func (s *sim) recordSucceeded() {
	var b indexes.Builder
	for _, p := range s.live {
		if p.tracked && p.phase == corev1.PodSucceeded {
			b.Add(p.index)
			p.tracked = false
		}
	}
	added := b.Set()
	if added.IsEmpty() {
		return
	}
	set := jobpolicy.ReadIndexes(s.job.Status.CompletedIndexes, int(s.spec.Completions)).Union(added)
	s.job.Status.CompletedIndexes = set.String()
	s.job.Status.Succeeded = int32(set.Len())
	s.changed = true
}

// backoffRecord mirrors backoffStore.newBackoffRecord: failures after the last success, from
// the pods that finished since the previous sync (tracked, getNewFinishedPods).
func (s *sim) backoffRecord() {
	var lastSuccess time.Time
	var newFailed []*simPod
	for _, p := range s.live {
		if p.finishSeen || !p.tracked {
			continue
		}
		switch {
		case p.phase == corev1.PodSucceeded:
			p.finishSeen = true
			if p.finished.After(lastSuccess) {
				lastSuccess = p.finished
			}
		case jobpolicy.PodFailed(p.phase, p.deleting, s.onlyFailed):
			p.finishSeen = true
			newFailed = append(newFailed, p)
		}
	}
	if !lastSuccess.IsZero() {
		s.bFailures, s.bLast = 0, time.Time{}
	}
	for _, p := range newFailed {
		if lastSuccess.IsZero() || p.finished.After(lastSuccess) {
			s.bFailures++
			if p.finished.After(s.bLast) {
				s.bLast = p.finished
			}
		}
	}
}

// setCondition appends or updates a condition (ensureJobConditionStatus).
func (s *sim) setCondition(t batchv1.JobConditionType, reason, msg string) {
	if jobpolicy.ConditionTrue(s.job, t) != nil {
		return
	}
	now := metav1.Time{Time: s.now}
	s.job.Status.Conditions = append(s.job.Status.Conditions, batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue,
		Reason: reason, Message: msg, LastProbeTime: now, LastTransitionTime: now})
	s.changed = true
}

// failMessage is the condition message syncJob writes for a failure reason.
func (s *sim) failMessage(reason string, obs []jobpolicy.Pod) string {
	if reason != batchv1.JobReasonPodFailurePolicy {
		return jobpolicy.ConditionMessage(reason)
	}
	// getFailJobMessage: the first failed pod matching a FailJob rule.
	for i := range obs {
		if obs[i].Failed && obs[i].Match.Is(batchv1.PodFailurePolicyActionFailJob) {
			return jobpolicy.FailJobMessage(s.ns, obs[i].Name, obs[i].Match)
		}
	}
	return ""
}

// writeSets writes completedIndexes, succeeded and failedIndexes (trackJobStatusAndRemoveFinalizers).
func (s *sim) writeSets(f *jobpolicy.Facts) {
	st := &s.job.Status
	completed := f.Succeeded.String()
	s.changed = s.changed || completed != st.CompletedIndexes
	st.CompletedIndexes = completed
	st.Succeeded = int32(f.Succeeded.Len())
	if s.spec.PerIndex() {
		failed := f.Failed.String()
		if st.FailedIndexes == nil || *st.FailedIndexes != failed {
			// wasFailed: read once, not once per failed index.
			was := jobpolicy.ReadIndexes(ptr.Deref(st.FailedIndexes, ""), int(s.spec.Completions))
			// The indexes that were not failed before (all of them when the set is new).
			for i := range f.Failed.Difference(was).All() {
				s.indexEvent("IndexFailed", i, "", "{indexes} failed: %s", s.indexFailWords(f, i))
			}
			s.changed = true
		}
		st.FailedIndexes = &failed
	}
}

func (s *sim) indexFailWords(f *jobpolicy.Facts, i int) string {
	// The pod may have been counted (its finalizer removed) earlier in this sync: it is still
	// in live until the next one.
	for _, p := range s.live {
		if p.index == i && p.match.Is(batchv1.PodFailurePolicyActionFailIndex) {
			return fmt.Sprintf("podFailurePolicy rule %d (FailIndex)", p.match.Rule)
		}
	}
	return fmt.Sprintf("backoffLimitPerIndex %d used up", *s.spec.BackoffLimitPerIndex)
}

// count moves a tracked pod into the status (uncountedTerminatedPods then the counters, at
// once) and removes its finalizer; failed: it counts as a failure.
func (s *sim) count(p *simPod, failed bool) {
	if failed {
		s.job.Status.Failed++
	}
	p.tracked = false
	s.changed = true
}

// finishing handles a sync whose finishedCondition is set: FailureTarget or SuccessCriteriaMet
// first, deleteActivePods, every tracked pod counted (trackJobStatusAndRemoveFinalizers: when
// the Job is failing every non-terminated pod counts as failed; canRemoveFinalizer), then
// Failed or Complete once no pod is terminating (enactJobFinished).
func (s *sim) finishing(f *jobpolicy.Facts, obs []jobpolicy.Pod) {
	d := f.Decision
	failing := d.Kind == jobpolicy.Fail
	// The simulated Job starts without conditions: an existing one was set here, with finalCond.
	if !d.Existing {
		switch {
		case failing:
			msg := s.failMessage(d.Reason, obs)
			s.setCondition(batchv1.JobFailureTarget, d.Reason, msg)
			s.finalCond = &batchv1.JobCondition{Type: batchv1.JobFailed, Reason: d.Reason, Message: msg}
			s.event("FailureTarget", -1, "FailureTarget (%s): %s%s", d.Reason, msg, s.failWhy(f, d.Reason))
		case d.Reason == batchv1.JobReasonSuccessPolicy:
			// matchSuccessPolicy's message: the first rule met.
			msg := ""
			if i, ok := jobpolicy.MatchSuccessPolicy(s.job.Spec.SuccessPolicy, int(s.spec.Completions), f.Succeeded); ok {
				msg = jobpolicy.SuccessPolicyMessage(i)
			}
			s.setCondition(batchv1.JobSuccessCriteriaMet, d.Reason, msg)
			s.finalCond = &batchv1.JobCondition{Type: batchv1.JobComplete, Reason: d.Reason, Message: msg}
			s.event("SuccessCriteriaMet", -1, "SuccessCriteriaMet (%s): %s", d.Reason, msg)
		default:
			s.finalCond = &batchv1.JobCondition{Type: batchv1.JobComplete, Reason: d.Reason, Message: jobpolicy.ConditionMessage(batchv1.JobReasonCompletionsReached)}
		}
	}
	// deleteActivePods: the finalizers stay, the counting below removes them.
	var killed []int
	for i, p := range s.live {
		if obs[i].Active() {
			s.kill(p)
			killed = append(killed, p.index)
		}
	}
	if len(killed) > 0 {
		set := indexes.Of(killed...)
		// A failing Job counts every pod it kills as failed; a succeeding one counts none
		// (trackJobStatusAndRemoveFinalizers: only when the finished condition is a failure).
		words := textwrap.Plural(len(killed), "it counts", "they count") + " as failed"
		if !failing {
			words = textwrap.Plural(len(killed), "it is", "they are") + " not counted as failed"
		}
		s.event("PodsKilled", -1, "%s deleted (%s): %s", textwrap.Count(len(killed), "running pod", "running pods"), set.Named(0), words)
	}
	for i, p := range s.live {
		// The in-memory pods of this sync: a pod just deleted is not failed yet.
		if failed := p.phase != corev1.PodSucceeded && (obs[i].Failed || failing); p.tracked {
			s.count(p, failed && obs[i].Match.CountFailed())
		}
	}
	s.writeSets(f)
	if d.Reason == batchv1.JobReasonCompletionsReached && !d.Existing {
		s.setCondition(batchv1.JobSuccessCriteriaMet, d.Reason, s.finalCond.Message)
	}
	_, terminating := s.podCounts()
	if terminating == 0 {
		s.setCondition(s.finalCond.Type, s.finalCond.Reason, s.finalCond.Message)
		if s.finalCond.Type == batchv1.JobComplete {
			s.job.Status.CompletionTime = &metav1.Time{Time: s.now}
		}
		s.event(string(s.finalCond.Type), -1, "%s (%s)", s.finalCond.Type, s.finalCond.Reason)
	} else if len(killed) > 0 {
		s.event("Terminating", -1, "%s terminating: %s waits until they are gone", textwrap.Count(terminating, "pod", "pods"), s.finalCond.Type)
	}
	s.job.Status.Terminating = ptr.To(int32(terminating))
}

func (s *sim) kill(p *simPod) {
	p.deleting = true
	s.push(s.now.Add(s.out.Delay(p.index)), 0, evTerminated, p)
	s.changed = true
}

// remove: the pod object is gone.
func (s *sim) remove(p *simPod) {
	if !p.removed {
		p.removed = true
		s.res.Indexes[p.index].Remaining--
	}
}

// fail ends p's run r in failure: the podFailurePolicy rule it matches, and the count of the
// per-index view.
func (s *sim) fail(p *simPod, r Attempt) {
	p.phase, p.condition = corev1.PodFailed, r.Condition
	p.match = s.match(p)
	if p.match.CountFailed() {
		s.res.Indexes[p.index].Failures++
	} else {
		s.res.Indexes[p.index].Ignored++
	}
}

// removeDeleted: kwok removes a deleted pod once it stopped and its finalizer is gone.
func (s *sim) removeDeleted() {
	for _, p := range s.live {
		if p.deleting && !p.tracked && (p.phase == corev1.PodFailed || p.phase == corev1.PodSucceeded) {
			s.remove(p)
		}
	}
}

// track is trackJobStatusAndRemoveFinalizers without a finishing condition: finished pods are
// counted and lose their finalizer, except the failed pod whose counts an index's replacement
// needs (getPodsWithDelayedDeletionPerIndex, canRemoveFinalizer).
func (s *sim) track(f *jobpolicy.Facts, obs []jobpolicy.Pod) {
	for i, p := range s.live {
		if !p.tracked {
			continue
		}
		switch {
		case p.phase == corev1.PodSucceeded:
			s.count(p, false)
		case obs[i].Failed && f.KeptPod(p.index) != &obs[i]:
			s.count(p, obs[i].Match.CountFailed())
		}
	}
	s.writeSets(f)
	_, terminating := s.podCounts()
	s.job.Status.Terminating = ptr.To(int32(terminating))
}

// manage is manageJob for an Indexed Job that is not suspended.
func (s *sim) manage(f *jobpolicy.Facts) {
	if !f.DeadlineAt.IsZero() && f.DeadlineAt.After(s.now) {
		// syncJob requeues the Job for its deadline (queue.AddAfter, no batching).
		s.wakeAt(f.DeadlineAt)
	}
	active, terminating := s.podCounts()
	diff := f.FreeSlots(s.onlyFailed, active, terminating)
	if diff == 0 {
		return
	}
	if !s.spec.PerIndex() && s.bFailures > 0 {
		// newBackoffRecord.getRemainingTime: no pod is created until the global backoff passed.
		total, remaining := jobpolicy.Backoff(s.bFailures, s.bLast, s.now)
		if remaining > 0 {
			s.event("Backoff", -1, "%s since the last success: no pod created for %s (backoff %s)", textwrap.Count(int(s.bFailures), "failure", "failures"), remaining, total)
			s.wakeAfter(remaining)
			return
		}
	}
	cands := f.FirstPending(diff)
	var wake time.Time
	if s.spec.PerIndex() {
		// getPodCreationInfoForIndependentIndexes: indexes whose backoff passed; none: wait for
		// the earliest.
		now := cands[:0:0]
		for _, ix := range cands {
			if at := ix.NextAttemptAt; ix.State != jobpolicy.IndexBackoff || !at.After(s.now) {
				now = append(now, ix)
			} else if wake.IsZero() || at.Before(wake) {
				wake = at
			}
		}
		cands = now
	}
	if len(cands) == 0 {
		// enqueueSyncJobWithDelay for the earliest index in backoff; when some are created now,
		// their creation events sync the Job again, which then waits for the rest.
		if !wake.IsZero() {
			s.wakeAfter(wake.Sub(s.now))
		}
		return
	}
	var set indexes.Builder
	for _, ix := range cands {
		s.create(ix)
		set.Add(ix.Index)
	}
	s.event("PodsCreated", -1, "%s created (%s)", textwrap.Count(len(cands), "pod", "pods"), set.Set().Named(0))
	s.changed = true
}

func (s *sim) create(ix jobpolicy.Index) {
	i, res := ix.Index, &s.res.Indexes[ix.Index]
	res.Pods++
	res.Remaining++
	p := &simPod{name: s.job.Name + "-" + strconv.Itoa(i) + "-" + strconv.Itoa(res.Pods-1), index: i,
		phase: corev1.PodRunning, tracked: true, created: s.now}
	if s.spec.PerIndex() {
		// addIndexFailureCountAnnotation: getNewIndexFailureCounts of the replaced pod.
		p.failureCount, p.ignoredCount = ix.FailureCount, ix.IgnoredCount
		if ix.FailureCount > 0 || ix.IgnoredCount > 0 {
			s.indexEvent("Retry", i, "", "{indexes}: attempt %d (%d counted, %d ignored failures so far)", p.failureCount+p.ignoredCount, p.failureCount, p.ignoredCount)
		}
	}
	if res.Pods > 1 || s.runs[i] > 0 {
		s.runs[i]++
	}
	p.run = s.out.Attempt(i, s.runs[i], s.kwAttempt(p))
	s.last[i] = p
	if s.opts.KeepPods {
		s.res.pods = append(s.res.pods, p)
	}
	s.live = append(s.live, p)
	s.res.PodsCreated++
	if !p.run.Never {
		d, order := s.skew(p.run)
		s.push(s.now.Add(d), order, evFinish, p)
	}
}

// finish fills the per-index view.
func (s *sim) finish() {
	s.res.End = s.now.Sub(s.start)
	// The index states need the pods the controller still acts on only: the finished ones
	// are in the status sets.
	f := jobpolicy.Evaluate(s.job, s.observeLive(), s.now)
	for i := range s.res.Indexes {
		r := &s.res.Indexes[i]
		r.State = f.Indexes[i].State
		// Under backoffLimitPerIndex: the counts the last pod carries plus its own failure
		// (getNewIndexFailureCounts).
		if p := s.last[i]; p != nil && s.spec.PerIndex() {
			last := jobpolicy.Pod{FailureCount: p.failureCount, IgnoredCount: p.ignoredCount,
				Failed: p.phase == corev1.PodFailed, Match: p.match}
			r.Failures, r.Ignored = jobpolicy.NewIndexFailureCounts(&last)
		}
	}
	st := &s.job.Status
	active, _ := s.podCounts()
	st.Active, st.Ready = int32(active), ptr.To(int32(active))
	st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
}

// failWhy adds the numbers behind a failure reason (syncJob's comparisons).
func (s *sim) failWhy(f *jobpolicy.Facts, reason string) string {
	switch reason {
	case batchv1.JobReasonBackoffLimitExceeded:
		if f.Spec.RestartsCount() && f.RestartsLeft <= 0 {
			return fmt.Sprintf(" (%s of running pods, backoffLimit %d)", textwrap.Count(int(f.Restarts), "container restart", "container restarts"), f.Spec.BackoffLimit)
		}
		return fmt.Sprintf(" (%s counted > backoffLimit %d)", textwrap.Count(int(f.CountedFailures), "failure", "failures"), f.Spec.BackoffLimit)
	case batchv1.JobReasonMaxFailedIndexesExceeded:
		return fmt.Sprintf(" (%s > maxFailedIndexes %d)", textwrap.Count(f.Failed.Len(), "failed index", "failed indexes"), *f.Spec.MaxFailedIndexes)
	case batchv1.JobReasonFailedIndexes:
		return fmt.Sprintf(" (every index has a result, %s)", textwrap.Count(f.Failed.Len(), "failed", "failed"))
	case batchv1.JobReasonDeadlineExceeded:
		return fmt.Sprintf(" (activeDeadlineSeconds %d)", *s.job.Spec.ActiveDeadlineSeconds)
	}
	return ""
}

// Pods returns the pods still present at the end (Options.KeepPods), as the API server would
// list them after kwok played them (test/harness/stages.yaml): the annotations the controller
// sets, the tracking finalizer while it is kept, the phase, the container states with exit
// codes and restart counts, the injected condition. pkg/indexstatus reads them as it reads a
// real Job's pods.
func (r *Result) Pods() []corev1.Pod {
	out := make([]corev1.Pod, 0, len(r.pods))
	for _, p := range r.pods {
		if !p.removed {
			out = append(out, podObject(r.Job, r.ns, r.container, p))
		}
	}
	return out
}

// podObject is p as the API server lists it after kwok played it in namespace ns, carrier the
// container that carries the exit code ("" for every container).
func podObject(job *batchv1.Job, ns, carrier string, p *simPod) corev1.Pod {
	pod := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: ns, UID: types.UID(p.name),
			CreationTimestamp: metav1.Time{Time: p.created},
			Labels:            map[string]string{batchv1.JobNameLabel: job.Name},
			Annotations:       map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(p.index)}},
		Spec: corev1.PodSpec{RestartPolicy: job.Spec.Template.Spec.RestartPolicy, Containers: job.Spec.Template.Spec.Containers},
	}
	if job.Spec.BackoffLimitPerIndex != nil {
		pod.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(int(p.failureCount))
		if p.ignoredCount > 0 {
			pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(int(p.ignoredCount))
		}
	}
	if p.tracked {
		pod.Finalizers = []string{batchv1.JobTrackingFinalizer}
	}
	if p.deleting {
		pod.DeletionTimestamp = &metav1.Time{Time: p.created}
	}
	pod.Status.Phase = p.phase
	pod.Status.StartTime = &metav1.Time{Time: p.created}
	running := p.phase == corev1.PodRunning
	for _, c := range job.Spec.Template.Spec.Containers {
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, RestartCount: p.restarts, Ready: running}
		switch {
		case running:
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.Time{Time: p.created}}
		default:
			code := int32(0)
			if carrier == "" || carrier == c.Name {
				code = p.lastExit
			}
			reason := "Completed"
			if code != 0 {
				reason = "Error"
			}
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason,
				StartedAt: metav1.Time{Time: p.created}, FinishedAt: metav1.Time{Time: p.finished}}
		}
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, cs)
	}
	ready := corev1.ConditionFalse
	if running {
		ready = corev1.ConditionTrue
	}
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: ready,
		LastTransitionTime: metav1.Time{Time: p.finished}})
	if p.condition != "" {
		c := corev1.PodCondition{Type: corev1.PodConditionType(p.condition), Status: corev1.ConditionTrue, Reason: "Scenario"}
		if c.Type == corev1.DisruptionTarget {
			c.Reason = "PreemptionByScheduler"
		}
		pod.Status.Conditions = append(pod.Status.Conditions, c)
	}
	return pod
}
