package jobpolicy

import (
	"cmp"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// IndexState is what the controller does with one completion index at its next sync. Every
// index is in exactly one state.
type IndexState string

// Index states.
const (
	// IndexSucceeded: in the succeeded indexes the controller computes (calculateSucceededIndexes).
	IndexSucceeded IndexState = "Succeeded"
	// IndexFailed: in the failed indexes it computes (calculateFailedIndexes): never started again
	// (firstPendingIndexes skips it).
	IndexFailed IndexState = "Failed"
	// IndexActive: a pod of the index is active (controller.IsPodActive).
	IndexActive IndexState = "Active"
	// IndexNoResult: the Job is finishing or finished: the index never runs again.
	IndexNoResult IndexState = "NoResult"
	// IndexTerminating: podReplacementPolicy Failed and a pod of the index is being deleted: no
	// replacement until it is gone (firstPendingIndexes counts terminating pods as non-pending).
	IndexTerminating IndexState = "Terminating"
	// IndexSuspended: the Job is suspended: no pod is created (manageJob).
	IndexSuspended IndexState = "Suspended"
	// IndexBackoff: a pod is created once NextAttemptAt has passed (the per-index or the global
	// backoff, getRemainingTimePerIndex / backoffRecord.getRemainingTime).
	IndexBackoff IndexState = "Backoff"
	// IndexPending: a pod is created as soon as parallelism allows.
	IndexPending IndexState = "Pending"
)

// Index is what the controller knows and decides about one completion index (a report holds
// one per index: its fields are ordered so that the bools share one word).
type Index struct {
	Index int
	State IndexState
	// FailureCount and IgnoredCount are the counted and ignored failures of the index so far,
	// as the next pod of the index would carry them (getNewIndexFailureCounts); under
	// backoffLimitPerIndex only. Without it FailureCount counts the failed pods still present.
	FailureCount int32
	IgnoredCount int32
	// RetriesLeft is backoffLimitPerIndex − FailureCount, never negative, 0 for a Failed index;
	// nil without backoffLimitPerIndex.
	RetriesLeft *int32
	// NextAttemptAt is when the next pod of a Backoff index may be created; Backoff the whole delay.
	NextAttemptAt time.Time
	Backoff       time.Duration
	// NotYetRecorded: Succeeded or Failed from a pod the controller has not written into
	// status.completedIndexes / status.failedIndexes yet.
	NotYetRecorded bool
	// Forgotten are pods of the index that finished but no longer carry the tracking finalizer
	// and whose result is in neither status set: the controller does not count them, so the
	// index runs again (calculateSucceededIndexes / calculateFailedIndexes need the finalizer).
	Forgotten []string
	// LastAttempt: under backoffLimitPerIndex, the next counted failure fails the index.
	LastAttempt bool
}

// DecisionKind is what the next sync decides about the whole Job.
type DecisionKind string

// Decisions.
const (
	// Continue: no finishing condition.
	Continue DecisionKind = "Continue"
	// Fail: the Job gets (or has) FailureTarget, then Failed.
	Fail DecisionKind = "Fail"
	// Succeed: the Job gets (or has) SuccessCriteriaMet or Complete.
	Succeed DecisionKind = "Succeed"
	// Finished: Complete or Failed is already True.
	Finished DecisionKind = "Finished"
)

// Decision is the finishing condition syncJob adds, in its order of evaluation.
type Decision struct {
	Kind   DecisionKind
	Reason string
	// Existing: the condition is already on the Job (FailureTarget or SuccessCriteriaMet).
	Existing bool
}

// GlobalBackoff is the controller's in-memory backoff record (backoffStore.newBackoffRecord),
// estimated from the pods still present: failures after the last success.
type GlobalBackoff struct {
	Failures    int32
	LastFailure time.Time
	Due         time.Time
	Delay       time.Duration
}

// Facts is everything the next sync of the controller decides about a Job and its pods.
type Facts struct {
	Spec Spec
	Now  time.Time
	// Suspended is jobSuspended.
	Suspended bool
	// Succeeded and Failed are the indexes the next sync computes (calculateSucceededIndexes,
	// calculateFailedIndexes): the status sets plus tracked pods that finished.
	Succeeded indexes.Set
	Failed    indexes.Set
	// CountedFailures is jobCtx.failed: status.failed, the uncounted failed pods and the new
	// non-ignored failed pods.
	CountedFailures int64
	// FailuresLeft: this many more counted failures fail the Job (backoffLimit); <= 0 when
	// already exceeded.
	FailuresLeft int64
	// Restarts sums container restarts of pending and running pods; RestartsLeft: this many
	// more fail the Job (restartPolicy OnFailure only, else 0 and RestartsCount false).
	Restarts     int64
	RestartsLeft int64
	// FailedIndexesLeft: this many more failed indexes fail the Job (maxFailedIndexes); nil
	// without maxFailedIndexes.
	FailedIndexesLeft *int64
	// DeadlineAt is startTime + activeDeadlineSeconds; zero when it does not apply.
	DeadlineAt time.Time
	// CanSucceed: the Job can still end Complete.
	CanSucceed bool
	// Decision is the finishing condition the next sync adds.
	Decision Decision
	// Global is the estimated global backoff (no backoffLimitPerIndex) when failures follow
	// the last success.
	Global *GlobalBackoff
	// Indexes has one entry per completion index; nil from EvaluateSparse (see IndexAt).
	Indexes []Index
	// Duplicates counts the extra active pods of an index (deleted, never counted).
	Duplicates int

	// recordedSucceeded and recordedFailed are the status sets as written.
	recordedSucceeded, recordedFailed indexes.Set
	// job and sparse (the pods by index) are what IndexAt reads (EvaluateSparse).
	job    *batchv1.Job
	sparse map[int][]*Pod
}

// countsNext says whether the next sync adds p's failure to status.failed (getNewFinishedPods,
// nonIgnoredFailedPodsCount): p failed, no Ignore rule matched, it is not in
// status.uncountedTerminatedPods (being counted now) and it still has the tracking finalizer.
// Without the finalizer the controller counted it already, or deleted it itself (lower
// parallelism, suspension, duplicate or out-of-range index: deleteJobPods removes the finalizer
// first) and never counts it; deleteActivePods, used when the Job fails, keeps the finalizer.
func countsNext(job *batchv1.Job, p *Pod) bool {
	u := job.Status.UncountedTerminatedPods
	return p.CountFailed() && p.Tracked && (u == nil || !slices.Contains(u.Failed, types.UID(p.UID)))
}

// IsIndexFailed mirrors isIndexFailed (indexed_job_utils.go) for a Job with
// backoffLimitPerIndex: a failed pod fails its index when a FailIndex rule matched or when its
// failure counts and the index had backoffLimitPerIndex counted failures before it.
func IsIndexFailed(spec Spec, p *Pod) bool {
	if !spec.PerIndex() || !p.Failed {
		return false
	}
	if p.Match.Is(batchv1.PodFailurePolicyActionFailIndex) {
		return true
	}
	return p.Match.CountFailed() && p.FailureCount >= *spec.BackoffLimitPerIndex
}

// Evaluate computes the facts of the controller's next sync of job with pods at now. Pods of
// other Jobs must have been left out; pods without a usable index are ignored.
func Evaluate(job *batchv1.Job, pods []Pod, now time.Time) *Facts {
	return EvaluatePods(job, pointers(pods), now)
}

func pointers(pods []Pod) []*Pod {
	ptrs := make([]*Pod, len(pods))
	for k := range pods {
		ptrs[k] = &pods[k]
	}
	return ptrs
}

// EvaluatePods is Evaluate over pointers to the pods, which it only reads.
func EvaluatePods(job *batchv1.Job, pods []*Pod, now time.Time) *Facts {
	return evaluate(job, pods, now, true)
}

// EvaluateSparse is Evaluate without Facts.Indexes: the facts of one index come from
// Facts.IndexAt when asked. A sync of a Job with many indexes and few pods then costs what its
// pods and status sets cost, not one entry per index. pods is only read, and must not change
// while the Facts are used.
func EvaluateSparse(job *batchv1.Job, pods []Pod, now time.Time) *Facts {
	return evaluate(job, pointers(pods), now, false)
}

// IndexAt returns the facts of index i: Indexes[i] when Evaluate computed every index, else
// computed now from the pods of i (EvaluateSparse). i must be below completions.
func (f *Facts) IndexAt(i int) Index {
	if f.Indexes != nil {
		return f.Indexes[i]
	}
	return f.index(f.job, i, f.sparse[i])
}

func evaluate(job *batchv1.Job, pods []*Pod, now time.Time, all bool) *Facts {
	spec := SpecOf(job)
	completions := int(spec.Completions)
	f := &Facts{Spec: spec, Now: now, Suspended: Suspended(job)}
	// calculateSucceededIndexes and calculateFailedIndexes: the status sets plus tracked
	// succeeded pods and tracked pods that fail their index (under backoffLimitPerIndex only).
	var succ, failed indexes.Builder
	f.recordedSucceeded = ReadIndexes(job.Status.CompletedIndexes, completions)
	if spec.PerIndex() && job.Status.FailedIndexes != nil {
		f.recordedFailed = ReadIndexes(*job.Status.FailedIndexes, completions)
	}
	visit := func(ix int, ps []*Pod) {
		active := 0
		for _, p := range ps {
			if p.Active() {
				active++
			}
			if p.Phase == corev1.PodSucceeded && p.Tracked {
				succ.Add(ix)
			}
			if p.Tracked && IsIndexFailed(spec, p) {
				failed.Add(ix)
			}
		}
		f.Duplicates += max(active-1, 0)
	}
	// The pods of each index, in input order: one slot per index (GroupByIndex) when every
	// index is computed, else only the indexes that have pods.
	var byIndex [][]*Pod
	if all {
		byIndex = GroupByIndex(completions, pods, func(p *Pod) int { return p.Index })
		for ix, ps := range byIndex {
			visit(ix, ps)
		}
	} else {
		f.sparse = map[int][]*Pod{}
		for _, p := range pods {
			if p.Index >= 0 && p.Index < completions {
				f.sparse[p.Index] = append(f.sparse[p.Index], p)
			}
		}
		for ix, ps := range f.sparse {
			visit(ix, ps)
		}
	}
	f.Succeeded, f.Failed = f.recordedSucceeded.Union(succ.Set()), f.recordedFailed.Union(failed.Set())

	// jobCtx.failed: status.failed + new non-ignored failed pods + uncounted failed pods.
	f.CountedFailures = int64(job.Status.Failed)
	if u := job.Status.UncountedTerminatedPods; u != nil {
		f.CountedFailures += int64(len(u.Failed))
	}
	for _, p := range pods {
		if (!spec.Indexed || (p.Index != NoIndex && p.Index < completions)) && countsNext(job, p) {
			f.CountedFailures++
		}
	}
	f.FailuresLeft = spec.FailuresToFail() - f.CountedFailures
	// pastBackoffLimitOnFailure: restarts of pending and running pods, every pod of the Job.
	if spec.RestartsCount() {
		for _, p := range pods {
			if p.Phase == corev1.PodPending || p.Phase == corev1.PodRunning {
				f.Restarts += int64(p.Restarts)
			}
		}
		f.RestartsLeft = spec.RestartsToFail() - f.Restarts
	}
	if spec.PerIndex() && spec.MaxFailedIndexes != nil {
		left := int64(*spec.MaxFailedIndexes) - int64(f.Failed.Len()) + 1
		f.FailedIndexesLeft = &left
	}
	if ads := job.Spec.ActiveDeadlineSeconds; ads != nil && job.Status.StartTime != nil && !f.Suspended {
		f.DeadlineAt = job.Status.StartTime.Add(time.Duration(*ads) * time.Second)
	}
	f.Decision = decide(job, f, pods)
	f.CanSucceed = canSucceed(job, f)
	f.Global = globalBackoff(spec, pods, now)

	if !all {
		f.job = job
		return f
	}
	f.Indexes = make([]Index, completions)
	for i := range completions {
		// GroupByIndex has a slot per index.
		f.Indexes[i] = f.index(job, i, byIndex[i])
	}
	return f
}

// MaxPodCreateDeletePerSync is how many pods one manageJob creates or deletes at most
// (job_controller.go: MaxPodCreateDeletePerSync).
const MaxPodCreateDeletePerSync = 500

// FreeSlots mirrors how many pods manageJob may create before its backoff checks: wantActive,
// min(parallelism, completions − succeeded) (job_controller.go:1774-1791), less the active pods
// and, under podReplacementPolicy Failed (onlyFailed), the terminating ones (1815-1822); never
// negative.
func (f *Facts) FreeSlots(onlyFailed bool, active, terminating int) int {
	if !onlyFailed {
		terminating = 0
	}
	return max(min(int(f.Spec.Parallelism), int(f.Spec.Completions)-f.Succeeded.Len())-terminating-active, 0)
}

// FirstPending mirrors firstPendingIndexes (indexed_job_utils.go): the n lowest indexes that
// are neither succeeded, failed, active nor (under podReplacementPolicy Failed) terminating,
// that is Pending or Backoff. Only the indexes outside the succeeded and failed sets are looked
// at: the scan passes the active and terminating ones (at most the pods present) and stops at
// n, so that it costs no entry per index of a sparse Facts.
func (f *Facts) FirstPending(n int) []Index {
	out := make([]Index, 0, min(n, 1024))
	for i := range f.Succeeded.Union(f.Failed).Complement(int(f.Spec.Completions)).All() {
		if len(out) >= n {
			break
		}
		if ix := f.IndexAt(i); ix.State == IndexPending || ix.State == IndexBackoff {
			out = append(out, ix)
		}
	}
	return out
}

// decide mirrors syncJob's order of evaluation of the finishing conditions.
func decide(job *batchv1.Job, f *Facts, pods []*Pod) Decision {
	// syncJob: a finished Job, then hasSuccessCriteriaMetCondition, then the FailureTarget set.
	switch c := FinishingCondition(job); {
	case c == nil:
	case c.Type == batchv1.JobSuccessCriteriaMet:
		return Decision{Kind: Succeed, Reason: c.Reason, Existing: true}
	case c.Type == batchv1.JobFailureTarget:
		return Decision{Kind: Fail, Reason: c.Reason, Existing: true}
	default:
		return Decision{Kind: Finished, Reason: c.Reason, Existing: true}
	}
	// getFailJobMessage: any failed pod (tracked or not) matching a FailJob rule.
	if job.Spec.PodFailurePolicy != nil && slices.ContainsFunc(pods, func(p *Pod) bool {
		return p.Failed && p.Match.Is(batchv1.PodFailurePolicyActionFailJob)
	}) {
		return Decision{Kind: Fail, Reason: batchv1.JobReasonPodFailurePolicy}
	}
	// syncJob: exceedsBackoffLimit || pastBackoffLimitOnFailure.
	if f.FailuresLeft <= 0 || (f.Spec.RestartsCount() && f.RestartsLeft <= 0) {
		return Decision{Kind: Fail, Reason: batchv1.JobReasonBackoffLimitExceeded}
	}
	// pastActiveDeadline: duration >= allowed, never while suspended.
	if !f.DeadlineAt.IsZero() && !f.Now.Before(f.DeadlineAt) {
		return Decision{Kind: Fail, Reason: batchv1.JobReasonDeadlineExceeded}
	}
	completions := int(f.Spec.Completions)
	if f.Spec.Indexed {
		if f.Spec.PerIndex() {
			if f.FailedIndexesLeft != nil && *f.FailedIndexesLeft <= 0 {
				return Decision{Kind: Fail, Reason: batchv1.JobReasonMaxFailedIndexesExceeded}
			}
			if f.Failed.Len() > 0 && f.Failed.Len()+f.Succeeded.Len() >= completions {
				return Decision{Kind: Fail, Reason: batchv1.JobReasonFailedIndexes}
			}
		}
		if _, ok := MatchSuccessPolicy(job.Spec.SuccessPolicy, completions, f.Succeeded); ok {
			return Decision{Kind: Succeed, Reason: batchv1.JobReasonSuccessPolicy}
		}
	}
	// syncJob: complete = succeeded >= completions && active == 0 (completions 0, which the API
	// server accepts, completes the Job at its first sync). active is what manageJob leaves:
	// with every index succeeded its wantActive is 0 and it deletes every active pod (pods above
	// completions after a scale-down, extra pods of an index), at most
	// MaxPodCreateDeletePerSync of them (job_controller.go:1781-1806); it does not run for a
	// Job being deleted (1139).
	if job.Spec.Completions != nil && f.Succeeded.Len() >= completions {
		active := 0
		for _, p := range pods {
			if p.Active() {
				active++
			}
		}
		if active > 0 && (job.DeletionTimestamp != nil || active > MaxPodCreateDeletePerSync) {
			return Decision{Kind: Continue}
		}
		return Decision{Kind: Succeed, Reason: batchv1.JobReasonCompletionsReached}
	}
	return Decision{Kind: Continue}
}

// MatchSuccessPolicy mirrors matchSuccessPolicy and matchSucceededIndexesRule
// (success_policy.go): the first rule (its index in sp.Rules) met by the succeeded indexes;
// ok is false when none is.
func MatchSuccessPolicy(sp *batchv1.SuccessPolicy, completions int, succeeded indexes.Set) (rule int, ok bool) {
	if sp == nil || succeeded.IsEmpty() {
		return 0, false
	}
	for i, rule := range sp.Rules {
		if rule.SucceededIndexes != nil {
			required := ReadIndexes(*rule.SucceededIndexes, completions)
			if required.IsEmpty() {
				continue
			}
			have := required.Intersect(succeeded).Len()
			if have == required.Len() || (rule.SucceededCount != nil && have >= int(*rule.SucceededCount)) {
				return i, true
			}
		} else if rule.SucceededCount != nil && succeeded.Len() >= int(*rule.SucceededCount) {
			return i, true
		}
	}
	return 0, false
}

// canSucceed reports whether the Job can still end Complete. Failed indexes alone do not rule it
// out: syncJob fails the Job for them only once failed + succeeded indexes reach completions
// (or maxFailedIndexes is exceeded), and evaluates the success policy before that happens.
func canSucceed(job *batchv1.Job, f *Facts) bool {
	switch f.Decision.Kind {
	case Succeed:
		return true
	case Fail:
		return false
	case Finished:
		return ConditionTrue(job, batchv1.JobComplete) != nil
	}
	if f.Failed.IsEmpty() {
		return true
	}
	completions := int(f.Spec.Completions)
	// The success policy must be met while succeeded < completions − failed: at that count the
	// FailedIndexes check, which comes first, fails the Job.
	most := completions - f.Failed.Len() - 1
	sp := job.Spec.SuccessPolicy
	if sp == nil || most < 1 {
		return false
	}
	for _, rule := range sp.Rules {
		if rule.SucceededIndexes != nil {
			required := ReadIndexes(*rule.SucceededIndexes, completions)
			if required.IsEmpty() {
				continue
			}
			// matchSucceededIndexesRule: every rule index, or succeededCount of them.
			open := required.Difference(f.Failed).Len()
			if open == required.Len() && open <= most {
				return true
			}
			if c := rule.SucceededCount; c != nil && int(*c) <= open && int(*c) <= most {
				return true
			}
		} else if rule.SucceededCount != nil && int(*rule.SucceededCount) <= most {
			return true
		}
	}
	return false
}

// globalBackoff estimates backoffStore.newBackoffRecord from the pods still present: failed
// pods that finished after the last success, and the latest of their finish times.
func globalBackoff(spec Spec, pods []*Pod, now time.Time) *GlobalBackoff {
	if spec.PerIndex() {
		return nil
	}
	var lastSuccess time.Time
	for _, p := range pods {
		if p.Phase == corev1.PodSucceeded && p.Finished().After(lastSuccess) {
			lastSuccess = p.Finished()
		}
	}
	g := &GlobalBackoff{}
	for _, p := range pods {
		// newBackoffRecord sees the failed pods getNewFinishedPods returns, tracked ones: a pod
		// deleted by deleteJobPods lost its finalizer before it was deleted and never enters it.
		if p.Failed && (p.Tracked || p.Phase == corev1.PodFailed) && p.Finished().After(lastSuccess) {
			g.Failures++
			if p.Finished().After(g.LastFailure) {
				g.LastFailure = p.Finished()
			}
		}
	}
	if g.Failures == 0 {
		return nil
	}
	total, remaining := Backoff(g.Failures, g.LastFailure, now)
	g.Delay, g.Due = total, now.Add(remaining)
	return g
}

// KeptPod is, of a Facts from EvaluateSparse, the pod of index i whose tracking finalizer
// canRemoveFinalizer keeps: under backoffLimitPerIndex, its delayedPod while the index has
// neither a result nor an active pod (getPodsWithDelayedDeletionPerIndex); else nil.
func (f *Facts) KeptPod(i int) *Pod {
	if !f.Spec.PerIndex() {
		return nil
	}
	switch f.IndexAt(i).State {
	case IndexSucceeded, IndexFailed, IndexActive:
		return nil
	}
	return delayedPod(f.sparse[i])
}

// delayedPod mirrors getPodsWithDelayedDeletionPerIndex (indexed_job_utils.go) for one index:
// the tracked failed pod whose finalizer the controller keeps until the replacement exists;
// its counts go to the replacement and its finish time starts the per-index backoff.
func delayedPod(pods []*Pod) *Pod {
	var last *Pod
	for _, p := range pods {
		if !p.Failed || !p.Tracked {
			continue
		}
		if last == nil || (last.Attempt() <= p.Attempt() && !p.Finished().Before(last.Finished())) {
			last = p
		}
	}
	return last
}

// ListOrder is the one order an index's pods are listed in: by attempt, then creation, then
// name (-1, 0 or +1, as cmp.Compare). The report and Evaluate both use it, so that which pod
// is first on a tie does not depend on the order the pods were read in.
func ListOrder(p, q *Pod) int {
	return cmp.Or(cmp.Compare(p.Attempt(), q.Attempt()), cmp.Compare(p.created, q.created), strings.Compare(p.Name, q.Name))
}

// Later says whether p is a later attempt of its index than q: by attempt, then creation, then
// finish time (ListOrder's tie on creation is broken by the name, to list the pods in a fixed
// order; which of two pods created in the same second ran last is told by their finish).
func Later(p, q *Pod) bool {
	return cmp.Or(cmp.Compare(p.Attempt(), q.Attempt()), cmp.Compare(p.created, q.created),
		cmp.Compare(p.finished, q.finished)) > 0
}

// NewIndexFailureCounts mirrors getNewIndexFailureCounts: the counted and ignored failures the
// next pod of p's index carries, p's own plus its own failure.
func NewIndexFailureCounts(p *Pod) (failures, ignored int32) {
	failures, ignored = p.FailureCount, p.IgnoredCount
	if p.Failed && p.Match.CountFailed() {
		failures++
	} else if p.Failed {
		ignored++
	}
	return failures, ignored
}

// Latest says whether p rather than q is the latest attempt of their index: by attempt, then
// creation; on a tie of both, the first in list order (ListOrder: the lower name), whichever
// order the pods arrive in.
func Latest(p, q *Pod) bool {
	return cmp.Or(cmp.Compare(p.Attempt(), q.Attempt()), cmp.Compare(p.created, q.created), strings.Compare(q.Name, p.Name)) > 0
}

// AttemptNumber is the attempt (from 1) of p, the k-th (from 0) of its index's pods in
// ListOrder: with backoffLimitPerIndex, the failures of its index the controller counted
// before it plus one (getIndexAbsoluteFailureCount), so that a deleted pod leaves a gap;
// without, the controller keeps no count, and attempts are the pods present in order.
func AttemptNumber(perIndex bool, p *Pod, k int) int {
	if perIndex {
		return int(p.Attempt()) + 1
	}
	return k + 1
}

// index computes one index's facts.
func (f *Facts) index(job *batchv1.Job, i int, pods []*Pod) Index {
	spec := f.Spec
	ix := Index{Index: i}
	var active, terminating *Pod
	for _, p := range pods {
		switch {
		case p.Active():
			if active == nil || p.Attempt() >= active.Attempt() {
				active = p
			}
		case p.Terminating():
			terminating = p
		}
	}
	delayed := delayedPod(pods)
	// forgotten: under backoffLimitPerIndex, a failed pod without the finalizer of an index with
	// no active and no tracked failed pod hands no count on (getPodsWithDelayedDeletionPerIndex).
	// forgetFailed is that test on the index.
	forgetFailed := spec.PerIndex() && active == nil && delayed == nil && !f.Failed.Has(i)
	forgotten := func(p *Pod) bool { return forgetFailed && p.Failed && !p.Tracked }
	switch {
	case !spec.PerIndex():
		// The failed pods still present whose failure is or will be counted: a pod being
		// deleted without its finalizer may never be (deleteJobPods, or a success policy met).
		for _, p := range pods {
			if !p.Failed || (!p.Tracked && p.Phase != corev1.PodFailed) {
				continue
			}
			if p.Match.CountFailed() {
				ix.FailureCount++
			} else {
				ix.IgnoredCount++
			}
		}
	case active != nil:
		ix.FailureCount, ix.IgnoredCount = active.FailureCount, active.IgnoredCount
	case delayed != nil:
		ix.FailureCount, ix.IgnoredCount = NewIndexFailureCounts(delayed)
	default:
		// The latest attempt that still counts (a failed index's last pod, a succeeded pod).
		var latest *Pod
		for _, p := range pods {
			if !forgotten(p) && (latest == nil || Latest(p, latest)) {
				latest = p
			}
		}
		if latest != nil {
			ix.FailureCount, ix.IgnoredCount = NewIndexFailureCounts(latest)
		}
	}
	switch {
	case f.Succeeded.Has(i):
		ix.State = IndexSucceeded
		ix.NotYetRecorded = !f.recordedSucceeded.Has(i)
	case f.Failed.Has(i):
		ix.State = IndexFailed
		ix.NotYetRecorded = !f.recordedFailed.Has(i)
	case active != nil:
		ix.State = IndexActive
	case f.Decision.Kind != Continue:
		ix.State = IndexNoResult
	case terminating != nil && OnlyReplaceFailedPods(job):
		ix.State = IndexTerminating
	case f.Suspended:
		ix.State = IndexSuspended
	default:
		ix.State = IndexPending
		var remaining time.Duration
		switch {
		case spec.PerIndex() && delayed != nil:
			// getRemainingTimePerIndex: absolute failure count + 1, from the pod's finish time.
			ix.Backoff, remaining = Backoff(delayed.Attempt()+1, delayed.Finished(), f.Now)
		case !spec.PerIndex() && f.Global != nil:
			ix.Backoff, remaining = f.Global.Delay, f.Global.Due.Sub(f.Now)
		}
		if remaining > 0 {
			ix.State, ix.NextAttemptAt = IndexBackoff, f.Now.Add(remaining)
		}
	}
	if ix.State != IndexSucceeded && ix.State != IndexFailed {
		// A succeeded pod counts only with its finalizer; under backoffLimitPerIndex a failed
		// pod hands its count on only while tracked and no pod of the index is active.
		for _, p := range pods {
			if (p.Phase == corev1.PodSucceeded && !p.Tracked) || forgotten(p) {
				ix.Forgotten = append(ix.Forgotten, p.Name)
			}
		}
	}
	if spec.PerIndex() {
		left := *spec.BackoffLimitPerIndex - ix.FailureCount
		if left < 0 || ix.State == IndexFailed {
			left = 0
		}
		ix.RetriesLeft = &left
		ix.LastAttempt = ix.State != IndexFailed && ix.State != IndexSucceeded && left == 0
	}
	return ix
}
