// This file is the only one of package job that the project commits: the rest are the v1.37.2
// Job controller's own files, copied unchanged from the Go module cache by ../copy.sh. Living in
// the controller's package lets the box call syncJob and the event handlers themselves.

package job

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	batch "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"

	"k8s.io/kubernetes/pkg/controller"
)

// Attempt is how one pod of an index ends, as kwok plays it (test/harness/stages.yaml): the
// container runs Duration from the pod's creation, then exits with Code; a Condition is set True
// on the pod as it fails (Code 0 with a condition exits 137). Never runs until deleted.
type Attempt struct {
	Code      int32
	Condition string
	Duration  time.Duration
	Never     bool
}

// Plan says how attempt (0 for the first pod of the index) of index ends.
type Plan func(index, attempt int) Attempt

// Options tunes a box.
type Options struct {
	// TerminationDelay: how long a deleted pod keeps running before it is killed (exit 137).
	TerminationDelay time.Duration
	// Horizon stops Play (default 24h).
	Horizon time.Duration
}

// Condition is one condition as the controller wrote it, At since the Job's creation.
type Condition struct {
	Type   string        `json:"type"`
	Reason string        `json:"reason"`
	At     time.Duration `json:"at"`
}

// Outcome is what Play observed.
type Outcome struct {
	Conditions       []Condition   `json:"conditions"`
	CompletedIndexes string        `json:"completedIndexes"`
	FailedIndexes    *string       `json:"failedIndexes,omitempty"`
	Succeeded        int32         `json:"succeeded"`
	Failed           int32         `json:"failed"`
	Finished         bool          `json:"finished"`
	End              time.Duration `json:"end"`
	Syncs            int           `json:"syncs"`
	PodsCreated      int           `json:"podsCreated"`
}

// Box runs the controller's syncJob against an in-memory pod store with a fake clock.
type Box struct {
	ctx     context.Context
	cancel  context.CancelFunc
	logger  klog.Logger
	start   time.Time
	clock   *clocktesting.FakeClock
	jm      *Controller
	q       *fakeQueue
	podIdx  podStore
	jobIdx  cache.Indexer
	jobKey  string
	job     *batch.Job
	plan    Plan
	opts    Options
	rv      int
	created map[int]int // pods created per index
	timers  []timer
	seq     int
	syncs   int
	pods    int
	conds   map[string]Condition

	// What the last Sync did (question b).
	Created  []int    // indexes of the pods created
	Deleted  []string // names of the pods deleted
	Released []string // names of the pods whose tracking finalizer was removed
}

type podStore struct {
	m map[string]*v1.Pod
}

type timer struct {
	at   time.Time
	seq  int
	pod  string
	kill bool
}

// New builds a box for job (name, namespace and spec as a user wrote them; the API server's
// defaults must already be applied) at start.
func New(job *batch.Job, plan Plan, start time.Time, opts Options) (*Box, error) {
	if opts.Horizon <= 0 {
		opts.Horizon = 24 * time.Hour
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Box{ctx: ctx, cancel: cancel, logger: klog.FromContext(ctx), start: start,
		clock: clocktesting.NewFakeClock(start), plan: plan, opts: opts, created: map[int]int{},
		podIdx: podStore{m: map[string]*v1.Pod{}}, conds: map[string]Condition{}}
	j := job.DeepCopy()
	if j.Namespace == "" {
		j.Namespace = "default"
	}
	if j.UID == "" {
		j.UID = types.UID("job-" + j.Name)
	}
	j.CreationTimestamp = metav1.Time{Time: start}
	if j.Spec.Selector == nil {
		j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batch.ControllerUidLabel: string(j.UID)}}
	}
	if j.Spec.Template.Labels == nil {
		j.Spec.Template.Labels = map[string]string{}
	}
	j.Spec.Template.Labels[batch.ControllerUidLabel] = string(j.UID)
	j.Spec.Template.Labels[batch.JobNameLabel] = j.Name
	j.Generation = 1
	b.job = b.stamp(j)

	client := fake.NewClientset(j.DeepCopy())
	factory := informers.NewSharedInformerFactory(client, 0)
	jm, err := newControllerWithClock(ctx, client, b.clock, factory.Core().V1().Pods(), factory.Batch().V1().Jobs(), nil, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	jm.queue.ShutDown()
	b.q = &fakeQueue{clock: b.clock}
	jm.queue = b.q
	jm.podControl = &boxPodControl{b: b}
	jm.podStoreSynced = func() bool { return true }
	jm.jobStoreSynced = func() bool { return true }
	jm.updateStatusHandler = b.updateStatus
	b.jm = jm
	b.jobIdx = factory.Batch().V1().Jobs().Informer().GetIndexer()
	if err := b.jobIdx.Add(b.job); err != nil {
		cancel()
		return nil, err
	}
	b.jobKey = j.Namespace + "/" + j.Name
	jm.addJob(b.logger, b.job)
	return b, nil
}

// Close stops the controller's queues.
func (b *Box) Close() {
	b.jm.orphanQueue.ShutDown()
	b.jm.broadcaster.Shutdown()
	b.cancel()
}

func (b *Box) stamp(o metav1.Object) *batch.Job {
	b.rv++
	o.SetResourceVersion(strconv.Itoa(b.rv))
	return o.(*batch.Job)
}

func (b *Box) nextRV() string {
	b.rv++
	return strconv.Itoa(b.rv)
}

func (b *Box) since() time.Duration { return b.clock.Now().Sub(b.start) }

// Job is the Job as the controller last wrote it.
func (b *Box) Job() *batch.Job { return b.job.DeepCopy() }

// Pods are the pods present, by name.
func (b *Box) Pods() []*v1.Pod {
	out := make([]*v1.Pod, 0, len(b.podIdx.m))
	for _, p := range b.podIdx.m {
		out = append(out, p.DeepCopy())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (b *Box) podIndexer() cache.Indexer { return b.jm.podIndexer }

func (b *Box) jobFinished() bool {
	for _, c := range b.job.Status.Conditions {
		if (c.Type == batch.JobComplete || c.Type == batch.JobFailed) && c.Status == v1.ConditionTrue {
			return true
		}
	}
	return false
}

// Play runs the Job forward until it finishes, nothing more happens, or the horizon.
func (b *Box) Play() (*Outcome, error) {
	horizon := b.start.Add(b.opts.Horizon)
	for !b.jobFinished() {
		if b.q.queued {
			if err := b.sync(); err != nil {
				return nil, err
			}
			continue
		}
		next, ok := b.nextTime()
		if !ok || next.After(horizon) {
			break
		}
		b.advance(next)
	}
	return b.outcome(), nil
}

// PlayUntil runs the Job forward as Play does, up to at since its creation, and stops with the
// clock at at: what the pods did by then is in the store, and a sync the queue holds for later
// (the 1 s batching, a backoff) has not run. It is a mid-run snapshot for question (b).
func (b *Box) PlayUntil(at time.Duration) error {
	until := b.start.Add(at)
	for !b.jobFinished() {
		if b.q.queued {
			if err := b.sync(); err != nil {
				return err
			}
			continue
		}
		next, ok := b.nextTime()
		if !ok || next.After(until) {
			break
		}
		b.advance(next)
	}
	if b.clock.Now().Before(until) {
		b.clock.SetTime(until)
	}
	return nil
}

// Finished says whether the Job has its Complete or Failed condition.
func (b *Box) Finished() bool { return b.jobFinished() }

// nextTime is the earliest of the queue's waiting item and the pod timers.
func (b *Box) nextTime() (time.Time, bool) {
	var next time.Time
	ok := false
	if b.q.waiting != nil {
		next, ok = *b.q.waiting, true
	}
	for _, t := range b.timers {
		if !ok || t.at.Before(next) {
			next, ok = t.at, true
		}
	}
	return next, ok
}

// advance moves the clock to t. A sync the queue holds for t runs first (advance returns with
// it ready, and is called again at t for the pods): a pod's run starts a moment after the sync
// that created it (the API server's write, the scheduler, the kubelet), so what it does at its
// run time comes a moment after a sync due at that same instant, as measured on the local
// control plane (pkg/simulate's loop follows the same rule). Then what the pods do at t (the
// informers deliver it), then the queue's waiting item becomes ready.
func (b *Box) advance(t time.Time) {
	b.clock.SetTime(t)
	if b.q.waiting != nil && !b.q.waiting.After(t) {
		b.q.tick()
		return
	}
	for {
		sort.SliceStable(b.timers, func(i, j int) bool {
			if !b.timers[i].at.Equal(b.timers[j].at) {
				return b.timers[i].at.Before(b.timers[j].at)
			}
			return b.timers[i].seq < b.timers[j].seq
		})
		if len(b.timers) == 0 || b.timers[0].at.After(t) {
			break
		}
		tm := b.timers[0]
		b.timers = b.timers[1:]
		b.fire(tm)
	}
	b.q.tick()
}

// Sync runs one syncJob now, if the queue holds the Job (question b); it reports whether it ran.
func (b *Box) sync() error {
	b.Created, b.Deleted, b.Released = nil, nil, nil
	b.syncs++
	b.q.queued = false
	b.q.processing = true
	err := b.jm.syncHandler(b.ctx, b.jobKey)
	b.q.processing = false
	if err == nil {
		b.q.Forget(b.jobKey)
	} else {
		b.q.AddRateLimited(b.jobKey)
	}
	return nil
}

// SyncNow runs one syncJob at the current time regardless of the queue, and says when syncJob
// itself asked for the next one (queue.AddAfter: the backoff, the deadline; requeue < 0: it
// did not ask). The syncs the event handlers ask for, as the sync's own writes come back
// through the informers (a status update, a finalizer removed: 1 s batching), are left out.
func (b *Box) SyncNow() (requeue time.Duration, err error) {
	b.q.waiting, b.q.queued, b.q.own = nil, false, nil
	if err := b.sync(); err != nil {
		return 0, err
	}
	if len(b.q.own) == 0 {
		return -1, nil
	}
	return slices.Min(b.q.own), nil
}

func (b *Box) outcome() *Outcome {
	st := b.job.Status
	o := &Outcome{CompletedIndexes: st.CompletedIndexes, Succeeded: st.Succeeded, Failed: st.Failed,
		Finished: b.jobFinished(), End: b.since(), Syncs: b.syncs, PodsCreated: b.pods}
	if st.FailedIndexes != nil {
		s := *st.FailedIndexes
		o.FailedIndexes = &s
	}
	for _, c := range st.Conditions {
		if c.Status != v1.ConditionTrue {
			continue
		}
		o.Conditions = append(o.Conditions, Condition{Type: string(c.Type), Reason: c.Reason, At: c.LastTransitionTime.Sub(b.start)})
	}
	return o
}

func (b *Box) updateStatus(_ context.Context, job *batch.Job) (*batch.Job, error) {
	old := b.job
	cur := job.DeepCopy()
	cur.SetResourceVersion(b.nextRV())
	// The API server keeps the status' times at second precision (metav1.Time).
	for i := range cur.Status.Conditions {
		c := &cur.Status.Conditions[i]
		c.LastProbeTime = metav1.Time{Time: c.LastProbeTime.Rfc3339Copy().Time}
		c.LastTransitionTime = metav1.Time{Time: c.LastTransitionTime.Rfc3339Copy().Time}
	}
	b.job = cur
	if err := b.jobIdx.Update(cur); err != nil {
		return nil, err
	}
	b.q.handler++
	defer func() { b.q.handler-- }()
	b.jm.updateJob(b.logger, old, cur)
	return cur.DeepCopy(), nil
}

// fire plays one pod timer.
func (b *Box) fire(t timer) {
	p, ok := b.podIdx.m[t.pod]
	if !ok {
		return
	}
	if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
		return
	}
	if !t.kill && p.DeletionTimestamp != nil {
		return
	}
	old := p
	cur := p.DeepCopy()
	now := metav1.NewTime(b.clock.Now())
	var a Attempt
	if t.kill {
		a = Attempt{Code: 137}
	} else {
		a = b.attemptOf(cur)
	}
	code := a.Code
	if a.Condition != "" && code == 0 {
		code = 137
	}
	cur.Status.Phase = v1.PodSucceeded
	reason := "Completed"
	if code != 0 || a.Condition != "" {
		cur.Status.Phase = v1.PodFailed
		reason = "Error"
	}
	for i := range cur.Status.ContainerStatuses {
		cs := &cur.Status.ContainerStatuses[i]
		cs.Ready = false
		cs.State = v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: code, Reason: reason,
			StartedAt: cur.CreationTimestamp, FinishedAt: now}}
	}
	cur.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionFalse, LastTransitionTime: now}}
	if a.Condition != "" {
		cur.Status.Conditions = append(cur.Status.Conditions, v1.PodCondition{Type: v1.PodConditionType(a.Condition),
			Status: v1.ConditionTrue, Reason: "Scenario", LastTransitionTime: now})
	}
	b.update(old, cur)
}

// attemptOf is the attempt the pod plays: its index and the pods of the index before it.
func (b *Box) attemptOf(p *v1.Pod) Attempt {
	i, _ := strconv.Atoi(p.Annotations[batch.JobCompletionIndexAnnotation])
	n, _ := strconv.Atoi(p.Annotations[attemptAnnotation])
	return b.plan(i, n)
}

const attemptAnnotation = "oracle.indexed.kubectl.io/attempt"

// update stores cur and delivers the update; a deleted, stopped pod without finalizers goes.
func (b *Box) update(old, cur *v1.Pod) {
	cur.ResourceVersion = b.nextRV()
	b.podIdx.m[cur.Name] = cur
	_ = b.podIndexer().Update(cur)
	b.q.handler++
	defer func() { b.q.handler-- }()
	b.jm.updatePod(b.logger, old, cur)
	b.maybeRemove(cur)
}

func (b *Box) maybeRemove(p *v1.Pod) {
	if p.DeletionTimestamp == nil || len(p.Finalizers) > 0 {
		return
	}
	if p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
		return
	}
	delete(b.podIdx.m, p.Name)
	_ = b.podIndexer().Delete(p)
	b.q.handler++
	defer func() { b.q.handler-- }()
	b.jm.deletePod(b.logger, p, true)
}

func (b *Box) addTimer(at time.Time, pod string, kill bool) {
	b.seq++
	b.timers = append(b.timers, timer{at: at, seq: b.seq, pod: pod, kill: kill})
}

// AddPod puts a pod into the store as the informer would deliver it (question b snapshots);
// running pods get no timer.
func (b *Box) AddPod(p *v1.Pod) error {
	p = p.DeepCopy()
	p.ResourceVersion = b.nextRV()
	b.podIdx.m[p.Name] = p
	return b.podIndexer().Add(p)
}

// SetJob replaces the Job (question b snapshots: a saved Job with its status).
func (b *Box) SetJob(j *batch.Job) error {
	j = j.DeepCopy()
	j.ResourceVersion = b.nextRV()
	b.job = j
	return b.jobIdx.Update(j)
}

// Clock is the box's clock.
func (b *Box) Clock() *clocktesting.FakeClock { return b.clock }

// boxPodControl applies the controller's pod writes to the store and delivers the events, one
// at a time (manageJob creates and deletes pods from several goroutines).
type boxPodControl struct {
	mu sync.Mutex
	b  *Box
}

func (c *boxPodControl) CreatePods(ctx context.Context, namespace string, template *v1.PodTemplateSpec, object runtime.Object, controllerRef *metav1.OwnerReference) error {
	return c.CreatePodsWithGenerateName(ctx, namespace, template, object, controllerRef, "")
}

func (c *boxPodControl) CreatePodsWithGenerateName(_ context.Context, namespace string, template *v1.PodTemplateSpec, _ runtime.Object, controllerRef *metav1.OwnerReference, generateName string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.b
	pod, err := controller.GetPodFromTemplate(template, b.job, controllerRef)
	if err != nil {
		return err
	}
	index, _ := strconv.Atoi(pod.Annotations[batch.JobCompletionIndexAnnotation])
	attempt := b.created[index]
	b.created[index]++
	b.pods++
	pod.Namespace = namespace
	pod.Name = fmt.Sprintf("%s%d", generateName, attempt)
	if generateName == "" {
		pod.Name = fmt.Sprintf("%s-%d-%d", b.job.Name, index, attempt)
	}
	pod.UID = types.UID(pod.Name)
	pod.Annotations[attemptAnnotation] = strconv.Itoa(attempt)
	now := metav1.NewTime(b.clock.Now())
	pod.CreationTimestamp = now
	pod.Status = v1.PodStatus{Phase: v1.PodRunning, StartTime: &now,
		Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: now}}}
	for _, ctr := range pod.Spec.Containers {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, v1.ContainerStatus{Name: ctr.Name, Ready: true,
			State: v1.ContainerState{Running: &v1.ContainerStateRunning{StartedAt: now}}})
	}
	pod.ResourceVersion = b.nextRV()
	b.podIdx.m[pod.Name] = pod
	if err := b.podIndexer().Add(pod); err != nil {
		return err
	}
	b.Created = append(b.Created, index)
	if a := b.plan(index, attempt); !a.Never {
		b.addTimer(now.Add(a.Duration), pod.Name, false)
	}
	b.q.handler++
	defer func() { b.q.handler-- }()
	b.jm.addPod(b.logger, pod)
	return nil
}

func (c *boxPodControl) DeletePod(_ context.Context, _ string, podID string, _ runtime.Object) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.b
	p, ok := b.podIdx.m[podID]
	if !ok {
		return nil
	}
	b.Deleted = append(b.Deleted, podID)
	if p.DeletionTimestamp != nil {
		return nil
	}
	cur := p.DeepCopy()
	now := metav1.NewTime(b.clock.Now())
	cur.DeletionTimestamp = &now
	b.addTimer(now.Add(b.opts.TerminationDelay), cur.Name, true)
	b.update(p, cur)
	return nil
}

func (c *boxPodControl) PatchPod(_ context.Context, _, name string, data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.b
	p, ok := b.podIdx.m[name]
	if !ok {
		return nil
	}
	orig, err := json.Marshal(p)
	if err != nil {
		return err
	}
	patched, err := strategicpatch.StrategicMergePatch(orig, data, v1.Pod{})
	if err != nil {
		return err
	}
	cur := &v1.Pod{}
	if err := json.Unmarshal(patched, cur); err != nil {
		return err
	}
	if hasJobTrackingFinalizer(p) && !hasJobTrackingFinalizer(cur) {
		b.Released = append(b.Released, name)
	}
	b.update(p, cur)
	return nil
}

// fakeQueue is client-go's rate-limited delaying queue for the one Job, on the box's clock:
// one waiting entry (AddAfter keeps the earlier time), moved to the queue once due; an item
// added while it is processed is processed again after.
type fakeQueue struct {
	clock      *clocktesting.FakeClock
	queued     bool
	processing bool
	waiting    *time.Time
	failures   int
	// handler > 0 while an event handler runs; own are the delays syncJob itself asked for
	// (AddAfter while processing, outside a handler), for SyncNow.
	handler int
	own     []time.Duration
}

var _ workqueue.TypedRateLimitingInterface[string] = &fakeQueue{}

func (q *fakeQueue) tick() {
	if q.waiting != nil && !q.waiting.After(q.clock.Now()) {
		q.waiting = nil
		q.queued = true
	}
}

func (q *fakeQueue) Add(string) {
	q.queued = true
	if q.processing && q.handler == 0 {
		q.own = append(q.own, 0)
	}
}
func (q *fakeQueue) Len() int {
	if q.queued {
		return 1
	}
	return 0
}
func (q *fakeQueue) Get() (string, bool)    { panic("the box runs syncJob itself") }
func (q *fakeQueue) Done(string)            {}
func (q *fakeQueue) ShutDown()              {}
func (q *fakeQueue) ShutDownWithDrain()     {}
func (q *fakeQueue) ShuttingDown() bool     { return false }
func (q *fakeQueue) Forget(string)          { q.failures = 0 }
func (q *fakeQueue) NumRequeues(string) int { return q.failures }
func (q *fakeQueue) AddAfter(item string, d time.Duration) {
	if d <= 0 {
		q.Add(item)
		return
	}
	if q.processing && q.handler == 0 {
		q.own = append(q.own, d)
	}
	at := q.clock.Now().Add(d)
	if q.waiting == nil || at.Before(*q.waiting) {
		q.waiting = &at
	}
}
func (q *fakeQueue) AddRateLimited(item string) {
	d := time.Duration(1<<min(q.failures, 6)) * DefaultJobApiBackOff
	q.failures++
	q.AddAfter(item, min(d, MaxJobApiBackOff))
}
