package jobpolicy

import (
	"math"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
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

// Suspended is jobSuspended: spec.suspend is true, so the controller creates no pod and deletes
// the active ones without counting them as failed.
func Suspended(job *batchv1.Job) bool { return job.Spec.Suspend != nil && *job.Spec.Suspend }
