package jobpolicy

import (
	"math"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// The rules of the Job API that several packages apply, each stated once here.

// UnlimitedBackoffLimit is backoffLimit's default with backoffLimitPerIndex (SetDefaults_Job):
// math.MaxInt32, which the controller never reaches, so the Job-wide limit is off and each
// index counts its own failures.
const UnlimitedBackoffLimit int32 = math.MaxInt32

// DefaultedBackoffLimit is spec.backoffLimit as SetDefaults_Job leaves it: as written, else
// UnlimitedBackoffLimit with backoffLimitPerIndex and DefaultBackoffLimit (6) without.
func DefaultedBackoffLimit(spec *batchv1.JobSpec) int32 {
	switch {
	case spec.BackoffLimit != nil:
		return *spec.BackoffLimit
	case spec.BackoffLimitPerIndex != nil:
		return UnlimitedBackoffLimit
	}
	return DefaultBackoffLimit
}

// DefaultedParallelism is spec.parallelism as SetDefaults_Job leaves it: as written, else 1.
func DefaultedParallelism(spec *batchv1.JobSpec) int32 { return ptr.Deref(spec.Parallelism, 1) }

// DefaultedCompletions is spec.completions as SetDefaults_Job leaves it: as written, else 1
// when parallelism is unset too, else unset (nil: a Job that ends at its first success).
func DefaultedCompletions(spec *batchv1.JobSpec) *int32 {
	if spec.Completions == nil && spec.Parallelism == nil {
		return ptr.To[int32](1)
	}
	return spec.Completions
}

// DefaultPodReplacementPolicy is the podReplacementPolicy SetDefaults_Job gives a Job that
// leaves it out: Failed with a podFailurePolicy, TerminatingOrFailed without.
func DefaultPodReplacementPolicy(spec *batchv1.JobSpec) batchv1.PodReplacementPolicy {
	if spec.PodFailurePolicy != nil {
		return batchv1.Failed
	}
	return batchv1.TerminatingOrFailed
}

// DefaultedPodReplacementPolicy is spec.podReplacementPolicy as SetDefaults_Job leaves it: as
// written, else DefaultPodReplacementPolicy.
func DefaultedPodReplacementPolicy(spec *batchv1.JobSpec) batchv1.PodReplacementPolicy {
	return ptr.Deref(spec.PodReplacementPolicy, DefaultPodReplacementPolicy(spec))
}

// ReadIndexes reads an index list the controller reads (status.completedIndexes,
// status.failedIndexes, a successPolicy rule's succeededIndexes) as it reads it
// (parseIndexesFromString): indexes below completions, malformed parts skipped
// (indexes.ParseLenient). It is the one policy for these lists: a well-formed list is read
// exactly, a malformed one as far as the controller reads it, never refused.
func ReadIndexes(s string, completions int) indexes.Set {
	set, _, _ := ReadIndexesNoting(s, completions)
	return set
}

// ReadIndexesNoting is ReadIndexes that also says why s is malformed, for a report that notes
// it: the API server's error and the parts the controller skips (nil and none when s is
// well-formed).
func ReadIndexesNoting(s string, completions int) (set indexes.Set, problems []string, err error) {
	set, err = indexes.Parse(s, completions)
	if err == nil {
		return set, nil, nil
	}
	set, problems = indexes.ParseLenient(s, completions)
	return set, problems, err
}

// StatusIndexes is job's status.completedIndexes and status.failedIndexes read by ReadIndexes
// below spec.completions (none without completions).
func StatusIndexes(job *batchv1.Job) (completed, failed indexes.Set) {
	n := int(ptr.Deref(job.Spec.Completions, 0))
	return ReadIndexes(job.Status.CompletedIndexes, n), ReadIndexes(ptr.Deref(job.Status.FailedIndexes, ""), n)
}

// AttemptsPerIndex is how many pods an index runs at most under backoffLimitPerIndex:
// backoffLimitPerIndex+1 (isIndexFailed fails an index at its backoffLimitPerIndex+1-th
// counted failure).
func AttemptsPerIndex(backoffLimitPerIndex int32) int64 {
	return int64(backoffLimitPerIndex) + 1
}

// ConditionTrue is the controller's findConditionByType with status True: the job's condition
// of type t when it is True, else nil.
func ConditionTrue(job *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		c := &job.Status.Conditions[i]
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// FinishingCondition is the True condition that says the Job has finished or is finishing, as
// syncJob looks for them: Complete or Failed, then SuccessCriteriaMet, then FailureTarget (the
// API server refuses two of them True at once, but for Complete with SuccessCriteriaMet and
// Failed with FailureTarget); nil while none is.
func FinishingCondition(job *batchv1.Job) *batchv1.JobCondition {
	for _, t := range []batchv1.JobConditionType{batchv1.JobComplete, batchv1.JobFailed, batchv1.JobSuccessCriteriaMet, batchv1.JobFailureTarget} {
		if c := ConditionTrue(job, t); c != nil {
			return c
		}
	}
	return nil
}

// JobFinished is IsJobFinished: a Complete or Failed condition of job is True.
func JobFinished(job *batchv1.Job) bool {
	c := FinishingCondition(job)
	return c != nil && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed)
}

// Suspended is jobSuspended: spec.suspend is true, so the controller creates no pod and deletes
// the active ones without counting them as failed.
func Suspended(job *batchv1.Job) bool { return job.Spec.Suspend != nil && *job.Spec.Suspend }
