package jobdiff

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// finishingPhase is the phase each of jobpolicy.FinishingCondition's conditions decides.
var finishingPhase = map[batchv1.JobConditionType]Phase{
	batchv1.JobComplete: PhaseComplete, batchv1.JobFailed: PhaseFailed,
	batchv1.JobSuccessCriteriaMet: PhaseSucceeding, batchv1.JobFailureTarget: PhaseFailing,
}

// StateOf reads the live Job's spec and status into a LiveState.
func StateOf(job *batchv1.Job) LiveState {
	s := LiveState{
		Suspend:   job.Spec.Suspend != nil && *job.Spec.Suspend,
		Active:    job.Status.Active,
		Succeeded: job.Status.Succeeded,
		Failed:    job.Status.Failed,
	}
	if st := job.Status.StartTime; st != nil {
		s.StartTime = ptr.To(st.Time)
	}
	// strategy.go: shouldAllowMutablePodTemplate.
	s.TemplateMutable = s.Suspend && job.Status.Active == 0 &&
		(job.Status.StartTime == nil || jobpolicy.ConditionTrue(job, batchv1.JobSuspended) != nil)

	if cond := jobpolicy.FinishingCondition(job); cond != nil {
		s.Phase, s.Reason = finishingPhase[cond.Type], cond.Reason
		if s.Finished() && !cond.LastTransitionTime.IsZero() {
			s.FinishTime = ptr.To(cond.LastTransitionTime.Time)
		}
		return s
	}
	switch {
	case s.Suspend && s.TemplateMutable:
		s.Phase = PhaseSuspended
	case s.Suspend:
		s.Phase = PhaseSuspending
	case job.Status.StartTime == nil:
		s.Phase = PhaseNotStarted
	default:
		s.Phase = PhaseRunning
	}
	return s
}

// Finished reports whether the Job has its terminal condition, Complete or Failed.
func (s LiveState) Finished() bool { return s.Phase == PhaseComplete || s.Phase == PhaseFailed }

// Ending reports whether the Job is finished or about to be: FailureTarget or
// SuccessCriteriaMet set, so that no spec change can make it run pods again.
func (s LiveState) Ending() bool {
	return s.Finished() || s.Phase == PhaseFailing || s.Phase == PhaseSucceeding
}

// runningSince returns how long the Job has been active when it counts against
// activeDeadlineSeconds: started, not suspended, not ending.
func (s LiveState) runningSince(now time.Time) (time.Duration, bool) {
	if s.StartTime == nil || s.Suspend || s.Ending() {
		return 0, false
	}
	return now.Sub(*s.StartTime), true
}
