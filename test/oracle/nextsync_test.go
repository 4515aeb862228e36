package oracle

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/simulate"
	"github.com/kubectl-indexed/kubectl-indexed/test/oracle/job"
)

// Question (b): a saved Job and its pods, one syncJob of the controller's own code at a given
// time, and what status says about that next sync on the same snapshot. Each TestNextSync*
// case is a disagreement issue 25 found (items 2, 4, 5, 6 and 9); pkg/indexstatus holds the
// same cases as unit tests (next_sync_test.go).

// snapshot is a Job with its status and pods, held in a box whose clock is at now.
type snapshot struct {
	t    *testing.T
	box  *job.Box
	pods map[string]*corev1.Pod
}

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

func newSnapshot(t *testing.T, spec batchv1.JobSpec, setStatus func(*batchv1.Job)) *snapshot {
	t.Helper()
	c := &Case{Name: "snap", Spec: spec}
	never := func(int, int) job.Attempt { return job.Attempt{Never: true} }
	b, err := job.New(simulate.Defaulted(c.job()), never, t0, job.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	j := b.Job()
	j.Status.StartTime = &metav1.Time{Time: t0}
	if j.Spec.BackoffLimitPerIndex != nil {
		s := ""
		j.Status.FailedIndexes = &s
	}
	if setStatus != nil {
		setStatus(j)
	}
	if err := b.SetJob(j); err != nil {
		t.Fatal(err)
	}
	return &snapshot{t: t, box: b, pods: map[string]*corev1.Pod{}}
}

func (s *snapshot) at(d time.Duration) { s.box.Clock().SetTime(t0.Add(d)) }
func (s *snapshot) now() time.Time     { return s.box.Clock().Now() }

// pod is attempt of index as the controller creates it (tracking finalizer, failure count
// annotation under backoffLimitPerIndex), created at created; edit says how it stands.
func (s *snapshot) pod(index, attempt int, created time.Duration, edit ...func(*corev1.Pod)) *corev1.Pod {
	j := s.box.Job()
	name := j.Name + "-" + strconv.Itoa(index) + "-a" + strconv.Itoa(attempt)
	labels := map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(index)}
	for k, v := range j.Spec.Template.Labels {
		labels[k] = v
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: j.Namespace, UID: types.UID(name), Labels: labels,
			Annotations:       map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(index)},
			CreationTimestamp: metav1.Time{Time: t0.Add(created)},
			Finalizers:        []string{batchv1.JobTrackingFinalizer},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, UID: j.UID,
				Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true)}}},
		Spec:   *j.Spec.Template.Spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if j.Spec.BackoffLimitPerIndex != nil {
		p.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(attempt)
	}
	for _, e := range edit {
		e(p)
	}
	s.put(p)
	return p
}

func (s *snapshot) put(p *corev1.Pod) {
	s.t.Helper()
	s.pods[p.Name] = p
	if err := s.box.AddPod(p); err != nil {
		s.t.Fatal(err)
	}
}

func ptrTo[T any](v T) *T { return &v }

func running(p *corev1.Pod) {
	p.Status.Phase = corev1.PodRunning
	p.Status.StartTime = &p.CreationTimestamp
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: p.CreationTimestamp}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", Ready: true,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: p.CreationTimestamp}}}}
}

func exited(code int32, at time.Duration) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		fin := metav1.Time{Time: t0.Add(at)}
		p.Status.Phase, p.Status.StartTime = corev1.PodSucceeded, &p.CreationTimestamp
		reason := "Completed"
		if code != 0 {
			p.Status.Phase, reason = corev1.PodFailed, "Error"
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: fin}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: code, Reason: reason, StartedAt: p.CreationTimestamp, FinishedAt: fin}}}}
	}
}

// counted: the controller counted the pod and removed its tracking finalizer.
func counted(p *corev1.Pod) { p.Finalizers = nil }

func deleting(at time.Duration) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.DeletionTimestamp = &metav1.Time{Time: t0.Add(at)}
		p.DeletionGracePeriodSeconds = ptrTo[int64](30)
	}
}

// status is what status says on the snapshot, now.
func (s *snapshot) status() *indexstatus.IndexedJobStatus {
	s.t.Helper()
	var pods []corev1.Pod
	for _, p := range s.pods {
		pods = append(pods, *p.DeepCopy())
	}
	r, err := indexstatus.Build(s.box.Job(), pods, indexstatus.Options{Clock: fixedClock(s.now()), AllIndexes: true})
	if err != nil {
		s.t.Fatal(err)
	}
	return r
}

// synced is what one syncJob did.
type synced struct {
	Created  []int
	Deleted  []string
	Released []string
	// Requeue: when the queue asks for the next sync (-1: not at all, 0: at once).
	Requeue time.Duration
	Job     *batchv1.Job
}

func (s *snapshot) sync() synced {
	s.t.Helper()
	rq, err := s.box.SyncNow()
	if err != nil {
		s.t.Fatal(err)
	}
	out := synced{Created: slices.Clone(s.box.Created), Deleted: slices.Clone(s.box.Deleted), Released: slices.Clone(s.box.Released), Requeue: rq, Job: s.box.Job()}
	slices.Sort(out.Created)
	// The box's pods are now the pods of the snapshot (created, deleted, patched ones).
	s.pods = map[string]*corev1.Pod{}
	for _, p := range s.box.Pods() {
		s.pods[p.Name] = p
	}
	s.t.Logf("sync at +%s: created %v, deleted %v, finalizers removed %v, requeue %s", s.now().Sub(t0), out.Created, out.Deleted, out.Released, out.Requeue)
	return out
}

func entries(r *indexstatus.IndexedJobStatus, kind indexstatus.EntryKind) []indexstatus.Entry {
	var out []indexstatus.Entry
	for _, e := range r.NextEntries {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func hasCondition(j *batchv1.Job, typ batchv1.JobConditionType, reason string) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == typ && c.Status == corev1.ConditionTrue && c.Reason == reason {
			return true
		}
	}
	return false
}

// Item 2: parallelism 1, index 0 in a 20 s backoff and index 1 in a 10 s one. The
// controller creates nothing and requeues for index 0 (17 s); status promises index 0 at
// that time and index 1 none. With parallelism 2 it requeues for index 1 (5 s).
func TestNextSyncRetryWaitsBehindLowerIndex(t *testing.T) {
	for _, par := range []int32{1, 2} {
		t.Run("parallelism"+strconv.Itoa(int(par)), func(t *testing.T) {
			s := newSnapshot(t, batchv1.JobSpec{Completions: p32(3), Parallelism: p32(par), BackoffLimitPerIndex: p32(3)},
				func(j *batchv1.Job) { j.Status.Failed = 1 })
			s.pod(0, 0, 0, exited(1, 2*time.Second), counted)
			s.pod(0, 1, 2*time.Second, exited(1, 12*time.Second))
			s.pod(1, 0, 0, exited(1, 10*time.Second))
			s.pod(2, 0, 0, exited(0, 3*time.Second))
			s.at(15 * time.Second)
			r := s.status()
			got := s.sync()
			if len(got.Created) != 0 {
				t.Fatalf("the controller created %v", got.Created)
			}
			retries := entries(r, indexstatus.EntryRetry)
			var first *time.Time
			for _, e := range retries {
				if e.DueAt != nil && (first == nil || e.DueAt.Before(*first)) {
					first = e.DueAt
				}
			}
			if first == nil || first.Sub(s.now()) != got.Requeue {
				t.Errorf("status's first retry at %v, the controller syncs again in %s; entries %+v", first, got.Requeue, r.NextEntries)
			}
			waits := entries(r, indexstatus.EntryRetryWaits)
			switch par {
			case 1:
				if len(retries) != 1 || retries[0].Indexes.String() != "0" || len(waits) != 1 || waits[0].Indexes.String() != "1" {
					t.Errorf("want a retry of index 0 and index 1 waiting: %+v", r.NextEntries)
				}
			case 2:
				if len(retries) != 2 || len(waits) != 0 {
					t.Errorf("want retries of indexes 0 and 1: %+v", r.NextEntries)
				}
			}
		})
	}
}

// Item 4: podReplacementPolicy Failed. While the deleted pod runs, nothing is created; once
// it is Failed (still there, finalizer kept), the replacement waits for the per-index
// backoff only, and is created while the old pod still has its finalizer.
func TestNextSyncFailedPolicyReplacesTerminalPodAfterBackoff(t *testing.T) {
	rp := batchv1.Failed
	s := newSnapshot(t, batchv1.JobSpec{Completions: p32(2), Parallelism: p32(2), BackoffLimitPerIndex: p32(2), PodReplacementPolicy: &rp},
		func(j *batchv1.Job) { j.Status.Active = 2 })
	old := s.pod(0, 0, 0, running, deleting(5*time.Second))
	s.pod(1, 0, 0, running)
	s.at(6 * time.Second)
	r := s.status()
	if got := s.sync(); len(got.Created) != 0 {
		t.Fatalf("created %v while the pod runs", got.Created)
	}
	if d := indexOfStatus(r, 0).Detail; !contains(d, "once the pod has terminated") {
		t.Errorf("detail %q", d)
	}
	// The kubelet ends the pod at +7s: Failed, still being deleted, finalizer on.
	old = s.pods[old.Name]
	exited(137, 7*time.Second)(old)
	s.put(old)
	s.at(7 * time.Second)
	r = s.status()
	got := s.sync()
	if len(got.Created) != 0 || got.Requeue != 10*time.Second || slices.Contains(got.Released, old.Name) {
		t.Fatalf("at +7s: %+v", got)
	}
	if e := entries(r, indexstatus.EntryRetry); len(e) != 1 || e[0].DueAt == nil || !e[0].DueAt.Equal(t0.Add(17*time.Second)) {
		t.Errorf("status's retry %+v, want index 0 at +17s", e)
	}
	s.at(17 * time.Second)
	got = s.sync()
	if !slices.Equal(got.Created, []int{0}) {
		t.Fatalf("at +17s created %v, want [0]", got.Created)
	}
	if p := s.pods[old.Name]; p == nil || !slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
		t.Errorf("the old pod lost its finalizer in the sync that created its replacement: %+v", p)
	}
}

// Item 5: a Job being deleted in the foreground: nothing is created, the failed pod's
// finalizer is removed; status promises no retry.
func TestNextSyncNoRetryWhileJobBeingDeleted(t *testing.T) {
	s := newSnapshot(t, batchv1.JobSpec{Completions: p32(2), Parallelism: p32(2), BackoffLimitPerIndex: p32(2)},
		func(j *batchv1.Job) {
			j.Status.Active = 1
			j.DeletionTimestamp = &metav1.Time{Time: t0.Add(12 * time.Second)}
			j.Finalizers = []string{metav1.FinalizerDeleteDependents}
		})
	failed := s.pod(0, 0, 0, exited(1, 10*time.Second))
	s.pod(1, 0, 0, running)
	s.at(25 * time.Second) // index 0's backoff (10 s) has passed
	r := s.status()
	got := s.sync()
	if len(got.Created) != 0 || !slices.Contains(got.Released, failed.Name) {
		t.Fatalf("the controller: %+v", got)
	}
	if e := entries(r, indexstatus.EntryRetry); len(e) > 0 {
		t.Errorf("status promises retries: %+v", e)
	}
	if len(entries(r, indexstatus.EntryBeingDeleted)) != 1 {
		t.Errorf("no %s entry: %+v", indexstatus.EntryBeingDeleted, r.NextEntries)
	}
}

// Item 6: a FailJob pod the controller has not processed: the next sync sets FailureTarget
// (PodFailurePolicy) and deletes the running pod, as status now says.
func TestNextSyncFailJobPodNotYetProcessed(t *testing.T) {
	s := newSnapshot(t, batchv1.JobSpec{Completions: p32(2), Parallelism: p32(2), PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}}}}},
		func(j *batchv1.Job) { j.Status.Active = 2 })
	s.pod(0, 0, 0, exited(42, 3*time.Second))
	run := s.pod(1, 0, 0, running)
	s.at(4 * time.Second)
	r := s.status()
	got := s.sync()
	if !slices.Equal(got.Deleted, []string{run.Name}) || !hasCondition(got.Job, batchv1.JobFailureTarget, batchv1.JobReasonPodFailurePolicy) {
		t.Fatalf("the controller: %+v, conditions %+v", got, got.Job.Status.Conditions)
	}
	if e := entries(r, indexstatus.EntryNextSyncFinishes); len(e) != 1 || e[0].Reason != batchv1.JobReasonPodFailurePolicy {
		t.Errorf("status: %+v", r.NextEntries)
	}
}

// Item 6: every index succeeded after an elastic scale-down and pods of indexes above
// completions run: the next sync deletes them and marks success, as status now says.
func TestNextSyncCompletesAfterScaleDown(t *testing.T) {
	s := newSnapshot(t, batchv1.JobSpec{Completions: p32(2), Parallelism: p32(2)},
		func(j *batchv1.Job) { j.Status.CompletedIndexes, j.Status.Succeeded, j.Status.Active = "0,1", 2, 2 })
	a := s.pod(2, 0, 0, running)
	b := s.pod(3, 0, 0, running)
	s.at(10 * time.Second)
	r := s.status()
	got := s.sync()
	slices.Sort(got.Deleted)
	if !slices.Equal(got.Deleted, []string{a.Name, b.Name}) ||
		!(hasCondition(got.Job, batchv1.JobSuccessCriteriaMet, batchv1.JobReasonCompletionsReached) || hasCondition(got.Job, batchv1.JobComplete, batchv1.JobReasonCompletionsReached)) {
		t.Fatalf("the controller: %+v, conditions %+v", got, got.Job.Status.Conditions)
	}
	if e := entries(r, indexstatus.EntryNextSyncFinishes); len(e) != 1 || e[0].Reason != batchv1.JobReasonCompletionsReached {
		t.Errorf("status: %+v", r.NextEntries)
	}
}

// Item 9: after a suspend and resume, index 0's counted failure stays in status.failed, and
// its replacement starts with the failure count at 0.
func TestNextSyncRunsAgainAfterResume(t *testing.T) {
	s := newSnapshot(t, batchv1.JobSpec{Completions: p32(2), Parallelism: p32(2), BackoffLimitPerIndex: p32(1)},
		func(j *batchv1.Job) {
			j.Status.Failed, j.Status.Succeeded, j.Status.CompletedIndexes = 1, 1, "1"
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionFalse, Reason: "JobResumed",
				LastTransitionTime: metav1.Time{Time: t0.Add(20 * time.Second)}}}
		})
	s.pod(0, 0, 0, exited(1, 3*time.Second), counted)
	s.pod(1, 0, 0, exited(0, 4*time.Second), counted)
	s.at(21 * time.Second)
	r := s.status()
	got := s.sync()
	if !slices.Equal(got.Created, []int{0}) || got.Job.Status.Failed != 1 {
		t.Fatalf("the controller: %+v, failed %d", got, got.Job.Status.Failed)
	}
	for _, p := range s.pods {
		if p.Annotations[batchv1.JobCompletionIndexAnnotation] == "0" && p.Status.Phase == corev1.PodRunning {
			if c := p.Annotations[batchv1.JobIndexFailureCountAnnotation]; c != "0" {
				t.Errorf("the replacement's failure count %q, want 0", c)
			}
		}
	}
	e := entries(r, indexstatus.EntryRunsAgain)
	if len(e) != 1 || !contains(e[0].Text, "failure count back at 0") || contains(e[0].Text, "not counted") {
		t.Errorf("status: %+v", e)
	}
}

func indexOfStatus(r *indexstatus.IndexedJobStatus, i int) indexstatus.IndexStatus {
	for _, st := range r.Indexes {
		if st.Index == i {
			return st
		}
	}
	return indexstatus.IndexStatus{}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// Item 3: a Job managed by another controller (spec.managedBy, as MultiKueue sets it): one
// syncJob of the built-in controller does nothing with it, although an index's backoff has
// passed; status predicts no retry and says who acts.
func TestNextSyncExternalManagedByActsNot(t *testing.T) {
	s := newSnapshot(t, batchv1.JobSpec{Completions: p32(2), Parallelism: p32(2), BackoffLimitPerIndex: p32(2),
		ManagedBy: ptrTo("kueue.x-k8s.io/multikueue")}, func(j *batchv1.Job) { j.Status.Active = 1 })
	s.pod(0, 0, 0, exited(1, 10*time.Second))
	s.pod(1, 0, 0, running)
	s.at(25 * time.Second) // index 0's backoff (10 s) has passed
	r := s.status()
	got := s.sync()
	if len(got.Created) != 0 || len(got.Deleted) != 0 || len(got.Released) != 0 {
		t.Fatalf("the built-in controller acted on an external Job: %+v", got)
	}
	if e := entries(r, indexstatus.EntryRetry); len(e) > 0 {
		t.Errorf("status promises retries: %+v", e)
	}
	if len(entries(r, indexstatus.EntryExternalController)) != 1 {
		t.Errorf("no %s entry: %+v", indexstatus.EntryExternalController, r.NextEntries)
	}
}

// Kueue: a suspended Job labelled with a Kueue queue: the controller creates nothing while it
// is suspended, and status says it waits for admission, never to un-suspend it.
func TestNextSyncKueueSuspendedWaits(t *testing.T) {
	s := newSnapshot(t, batchv1.JobSpec{Completions: p32(2), Parallelism: p32(2), BackoffLimitPerIndex: p32(1)},
		func(j *batchv1.Job) {
			// Suspended after the box made the Job (simulate.Defaulted plays a Job from its start).
			j.Spec.Suspend = ptrTo(true)
			j.Labels = map[string]string{"kueue.x-k8s.io/queue-name": "team-a"}
			j.Status.StartTime = nil
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue, Reason: "JobSuspended"}}
		})
	s.at(5 * time.Second)
	r := s.status()
	got := s.sync()
	if len(got.Created) != 0 {
		t.Fatalf("the controller created pods of a suspended Job: %+v", got)
	}
	if len(entries(r, indexstatus.EntryAwaitingAdmission)) != 1 || len(entries(r, indexstatus.EntryResume)) != 0 {
		t.Errorf("status: %+v", r.NextEntries)
	}
}
