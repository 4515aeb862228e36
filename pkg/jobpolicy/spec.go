package jobpolicy

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Spec is the part of a Job's spec that decides retries and failure, with the API server's
// defaults applied (SetDefaults_Job), so that a manifest as written and a live Job read alike.
type Spec struct {
	Indexed bool
	// Completions is 0 when unset (a Job without completions is not Indexed).
	Completions int32
	Parallelism int32
	// BackoffLimit is the effective global limit (DefaultedBackoffLimit).
	BackoffLimit int32
	// BackoffLimitSet: the Job as given sets backoffLimit.
	BackoffLimitSet      bool
	BackoffLimitPerIndex *int32
	MaxFailedIndexes     *int32
	RestartPolicy        corev1.RestartPolicy
}

// SpecOf reads job's retry policy, applying SetDefaults_Job's defaults to unset fields.
func SpecOf(job *batchv1.Job) Spec {
	s := job.Spec
	out := Spec{
		Indexed:              s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion,
		BackoffLimitPerIndex: s.BackoffLimitPerIndex,
		MaxFailedIndexes:     s.MaxFailedIndexes,
		RestartPolicy:        s.Template.Spec.RestartPolicy,
		Parallelism:          DefaultedParallelism(&s),
	}
	if c := DefaultedCompletions(&s); c != nil {
		out.Completions = *c
	}
	out.BackoffLimit, out.BackoffLimitSet = DefaultedBackoffLimit(&s), s.BackoffLimit != nil
	return out
}

// PerIndex reports whether backoffLimitPerIndex is set (hasBackoffLimitPerIndex).
func (s Spec) PerIndex() bool { return s.BackoffLimitPerIndex != nil }

// SharedBudget is the "prepare-db" mode: an Indexed Job with more than one index and no
// backoffLimitPerIndex, whose indexes share the global backoffLimit; when it is exceeded
// (syncJob: exceedsBackoffLimit) the controller deletes every active pod (deleteActivePods).
func (s Spec) SharedBudget() bool {
	return s.Indexed && s.Completions > 1 && !s.PerIndex()
}

// FailuresToFail is how many counted pod failures fail the Job: syncJob fails it when
// failed > backoffLimit.
func (s Spec) FailuresToFail() int64 { return int64(s.BackoffLimit) + 1 }

// RestartsCount reports whether container restarts count against backoffLimit
// (pastBackoffLimitOnFailure: restartPolicy OnFailure only).
func (s Spec) RestartsCount() bool { return s.RestartPolicy == corev1.RestartPolicyOnFailure }

// RestartsToFail is how many container restarts, summed over pending and running pods, fail the
// Job under restartPolicy OnFailure (pastBackoffLimitOnFailure: > 0 when backoffLimit is 0,
// else >= backoffLimit).
func (s Spec) RestartsToFail() int64 {
	if s.BackoffLimit == 0 {
		return 1
	}
	return int64(s.BackoffLimit)
}

// PerIndexFailuresAtMost is the most counted failures the indexes can have between them
// before every index has failed on its own: completions × (backoffLimitPerIndex + 1)
// (isIndexFailed fails an index at its backoffLimitPerIndex+1-th counted failure).
func (s Spec) PerIndexFailuresAtMost() int64 {
	if !s.PerIndex() {
		return 0
	}
	return int64(s.Completions) * AttemptsPerIndex(*s.BackoffLimitPerIndex)
}

// GlobalLimitFiresFirst reports whether, next to backoffLimitPerIndex, a backoffLimit other
// than its default can fail the whole Job before the indexes used up their own retries:
// syncJob evaluates exceedsBackoffLimit before the per-index rules, so it fires when
// backoffLimit+1 counted failures happen, and they can happen when backoffLimit+1 is at most
// completions × (backoffLimitPerIndex+1).
func (s Spec) GlobalLimitFiresFirst() bool {
	if !s.PerIndex() || s.BackoffLimit == UnlimitedBackoffLimit || s.BackoffLimit < 0 || *s.BackoffLimitPerIndex < 0 {
		return false
	}
	return int64(s.BackoffLimit) < s.PerIndexFailuresAtMost()
}

// RunningAtOnce is how many indexes run at the same time at most: min(parallelism,
// completions) (manageJob's wantActive).
func (s Spec) RunningAtOnce() int64 {
	return min(int64(s.Parallelism), int64(s.Completions))
}

// FailedIndexesToFail is how many failed indexes fail the Job: syncJob fails it when
// failedIndexes.total() > maxFailedIndexes; 0 without maxFailedIndexes.
func (s Spec) FailedIndexesToFail() int64 {
	if !s.PerIndex() || s.MaxFailedIndexes == nil {
		return 0
	}
	return int64(*s.MaxFailedIndexes) + 1
}
