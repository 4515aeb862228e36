package indexstatus

import (
	"encoding/json"
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// Reading the pods that did not succeed.
//
// A finished Job records which indexes succeeded (status.completedIndexes); what it lacks is in
// the pods that did not succeed: failed attempts, exit codes, reasons, running and pending pods.
// Live status therefore LISTs the Job's pods with fieldSelector status.phase!=Succeeded, feeds
// them to an Accumulator marked with LeaveOutSucceeded, and asks SucceededPodsNeeded whether that
// read is enough; when it is not, it LISTs every pod into a fresh Accumulator.
//
// When SucceededPodsNeeded returns "", the report equals the one made from every pod except in
// what only a succeeded pod holds, for the indexes whose succeeded pod was not read:
//   - its name (IndexStatus.Pods, the words "(pod NAME)");
//   - its exit (lastExitCode, lastReason, lastContainer are null/empty: a succeeded pod's exit is
//     not always 0, a sidecar killed at the end exits 137);
//   - the receipt in its termination message (IndexStatus.Cases);
//   - the pod counts: PodCounts.NotRead counts one succeeded pod per such index.
//
// A Job made by kubectl indexed create (it names a shard ConfigMap) is always read whole: its
// workers' receipt summaries, the case counts, are in the succeeded pods.
//
// Everything else is the same, because:
//   - The index's state is Succeeded from status.completedIndexes either way (jobpolicy).
//   - Its attempts: without backoffLimitPerIndex they are the pods present, and the succeeded
//     pod is counted as one (facts.go). With it, the succeeded pod is the index's latest attempt
//     and its failure-count annotations are what the controller computed from the index's last
//     failed pod (getNewIndexFailureCounts), which is what jobpolicy counts over the pods read,
//     as long as no failed pod is gone: checked here against status.failed for the counted
//     ones; ignored failures are counted nowhere, so a Job with an Ignore rule is read whole.
//   - A succeeded pod the controller has not counted yet is in status.uncountedTerminatedPods,
//     or, before the controller saw it finish, still in status.active: checked here. A pod that
//     succeeded after the Job finished is never counted; its index is then in neither set:
//     checked here (an index of a finishing or finished Job with no result and no pod read).
//
// Two cases the Job's status cannot reveal are left: a second succeeded pod of one index (two
// pods of an index that both succeeded; the controller counts the index once), which without
// backoffLimitPerIndex adds an attempt to the every-pod report, and a succeeded pod beyond
// spec.completions after completions was lowered. --all-pods reads them.

// LeaveOutSucceeded marks the accumulator as fed the pods that did not succeed only: an index in
// status.completedIndexes without a succeeded pod added is reported as above. Call it before
// Report.
func (a *Accumulator) LeaveOutSucceeded() { a.succeededNotRead = true }

// SucceededPodsNeeded says why a report from the pods added (those that did not succeed) would
// differ from the report from every pod in more than the succeeded pods' own fields, or "" when it
// would not. See the comment at the top of this file.
func (a *Accumulator) SucceededPodsNeeded() string {
	job := a.job
	if _, ok := job.Annotations[shards.AnnotationShardsConfigMap]; ok {
		// A Job made by kubectl indexed create: its workers leave a receipt summary in their
		// termination message, the case counts of every index (cases.go), which only the
		// succeeded pods hold.
		return "the Job was made by kubectl indexed create: its succeeded pods carry the receipt summaries (case counts)"
	}
	if u := job.Status.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
		return fmt.Sprintf("the controller has not counted %d finished pods yet (status.uncountedTerminatedPods)", len(u.Succeeded)+len(u.Failed))
	}
	active, countedFailed := 0, 0
	completions := int(*job.Spec.Completions)
	var withPods indexes.Builder
	for _, p := range a.pods {
		if p.Active() {
			active++
		}
		if p.CountFailed() {
			countedFailed++
		}
		if p.Index < completions {
			withPods.Add(p.Index)
		}
	}
	if job.Generation > 1 && job.Spec.Parallelism != nil && *job.Spec.Parallelism == *job.Spec.Completions && completionsMayHaveChanged(job) {
		// An elastic Job (completions changed with parallelism) may have been scaled down: a
		// succeeded pod beyond completions, or one whose index was dropped and runs again,
		// is not in the Job's status.
		return fmt.Sprintf("the Job's spec changed (generation %d) and completions equals parallelism: it may have been scaled, leaving succeeded pods its status does not count", job.Generation)
	}
	if active != int(job.Status.Active) {
		return fmt.Sprintf("status.active is %d but %d active pods were read", job.Status.Active, active)
	}
	if job.Spec.BackoffLimitPerIndex != nil && countedFailed < int(job.Status.Failed) {
		return fmt.Sprintf("status.failed is %d but %d counted failed pods were read: a succeeded pod's failure count is then the only record of its index's attempts", job.Status.Failed, countedFailed)
	}
	if job.Spec.BackoffLimitPerIndex != nil && hasIgnoreRule(job) {
		// Ignored failures are counted nowhere in the Job's status: a succeeded pod's
		// ignored-failure count is the only record once such a failed pod is gone.
		return "the Job has backoffLimitPerIndex and an Ignore rule: a succeeded pod's ignored-failure count may be the only record of its index's attempts"
	}
	if phase, _ := DecidePhase(job); !phase.Finishing() {
		return ""
	}
	completed, failed := jobpolicy.StatusIndexes(job)
	if none := completed.Union(failed).Union(withPods.Set()).Complement(completions); !none.IsEmpty() {
		return fmt.Sprintf("index %d of the finished Job has no result and no pod was read: a pod that succeeded after the Job finished may be all that is left of it", none.Intervals()[0].First)
	}
	return ""
}

// NoPodsLeft says whether the Job's status shows that none of its pods is left, so that a pod
// LIST would read nothing: a Job that is suspended (a Kueue Job waiting for admission, or one
// evicted) and whose status counts no pod at all. From the controller (job-semantics.md §1.2,
// §2): a suspended Job's controller creates no pod; it deletes the active ones with their
// finalizer removed first (not counted as failed), and they are in status.terminating until they
// are gone; every pod that finished was counted in succeeded or failed, or is in
// uncountedTerminatedPods, except a failure an Ignore rule matched, which is counted nowhere (so
// such a Job is read). Between the controller creating pods and writing status.active, a read
// sees no pod either way: the Job and its pods are never read at one instant.
func NoPodsLeft(job *batchv1.Job) bool {
	st := job.Status
	u := st.UncountedTerminatedPods
	return jobpolicy.Suspended(job) &&
		st.Active == 0 && st.Succeeded == 0 && st.Failed == 0 && st.Terminating != nil && *st.Terminating == 0 &&
		(st.Ready == nil || *st.Ready == 0) && (u == nil || len(u.Succeeded)+len(u.Failed) == 0) && !hasIgnoreRule(job)
}

func hasIgnoreRule(job *batchv1.Job) bool {
	pfp := job.Spec.PodFailurePolicy
	return pfp != nil && slices.ContainsFunc(pfp.Rules, func(r batchv1.PodFailurePolicyRule) bool { return r.Action == batchv1.PodFailurePolicyActionIgnore })
}

// NotSucceededSelector is the field selector of the pods LeaveOutSucceeded wants: phase is a
// field selector the API server supports for pods.
const NotSucceededSelector = "status.phase!=" + string(corev1.PodSucceeded)

// completionsMayHaveChanged says whether spec.completions may have changed since the Job was
// made, from its managedFields: the field manager that last set a field owns it, and its entry's
// time is that of its last change. A spec change that is not a scale (Kueue admitting or evicting
// the Job flips spec.suspend and bumps the generation) leaves spec.completions owned by entries
// no later than the Job's creation, to the second; a scale within the second the Job was made
// leaves no succeeded pod to miss. Without managedFields (a saved Job: kubectl get hides them)
// it may have.
func completionsMayHaveChanged(job *batchv1.Job) bool {
	if len(job.ManagedFields) == 0 {
		return true
	}
	for _, e := range job.ManagedFields {
		if e.FieldsV1 == nil || !ownsCompletions(e.FieldsV1.GetRawBytes()) {
			continue
		}
		if e.Time == nil || e.Time.After(job.CreationTimestamp.Time) {
			return true
		}
	}
	return false
}

// ownsCompletions says whether a managedFields entry's fieldsV1 holds f:spec.f:completions. An
// entry that cannot be read is taken to own it.
func ownsCompletions(raw []byte) bool {
	var f struct {
		Spec map[string]json.RawMessage `json:"f:spec"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return true
	}
	_, ok := f.Spec["f:completions"]
	return ok
}
