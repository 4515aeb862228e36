package indexstatus

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// The report's fields read straight from the Job: its policy, its counters, and the index
// sets of its status as the report reads them.

func policyOf(job *batchv1.Job) Policy {
	p := Policy{
		BackoffLimit:          job.Spec.BackoffLimit,
		BackoffLimitPerIndex:  job.Spec.BackoffLimitPerIndex,
		MaxFailedIndexes:      job.Spec.MaxFailedIndexes,
		ActiveDeadlineSeconds: job.Spec.ActiveDeadlineSeconds,
		Suspend:               jobpolicy.Suspended(job),
		RestartPolicy:         string(job.Spec.Template.Spec.RestartPolicy),
	}
	if job.Spec.PodReplacementPolicy != nil {
		p.PodReplacementPolicy = string(*job.Spec.PodReplacementPolicy)
	}
	if job.Spec.PodFailurePolicy != nil {
		p.PodFailurePolicyRules = len(job.Spec.PodFailurePolicy.Rules)
	}
	if job.Spec.SuccessPolicy != nil {
		p.SuccessPolicyRules = len(job.Spec.SuccessPolicy.Rules)
	}
	if job.Spec.ManagedBy != nil {
		p.ManagedBy = *job.Spec.ManagedBy
	}
	return p
}

func countersOf(job *batchv1.Job) Counters {
	st := job.Status
	c := Counters{
		Active:           st.Active,
		Ready:            ptr.Deref(st.Ready, 0),
		Terminating:      ptr.Deref(st.Terminating, 0),
		Succeeded:        st.Succeeded,
		Failed:           st.Failed,
		CompletedIndexes: st.CompletedIndexes,
		FailedIndexes:    st.FailedIndexes,
	}
	if st.StartTime != nil {
		t := st.StartTime.UTC()
		c.StartTime = &t
	}
	if st.CompletionTime != nil {
		t := st.CompletionTime.UTC()
		c.CompletionTime = &t
	}
	return c
}

// readSets parses completedIndexes and failedIndexes: in the API server's grammar, or, when
// malformed, as the controller reads them.
func (b *reportBuilder) readSets() {
	read := func(field, s string) indexes.Set {
		set, problems, err := jobpolicy.ReadIndexesNoting(s, b.completions)
		if err == nil {
			return set
		}
		b.r.Notes = append(b.r.Notes, fmt.Sprintf("status.%s %q is malformed (%v); read as the Job controller reads it: %s",
			field, textwrap.Truncate(s, 80, "…"), err, strings.Join(problems, "; ")))
		return set
	}
	b.completed = read("completedIndexes", b.job.Status.CompletedIndexes)
	if b.job.Status.FailedIndexes != nil {
		b.failed = read("failedIndexes", *b.job.Status.FailedIndexes)
	}
	if both := b.completed.Intersect(b.failed); !both.IsEmpty() {
		b.r.Notes = append(b.r.Notes, fmt.Sprintf("indexes %s are in both completedIndexes and failedIndexes (the API server rejects this); they are shown as Succeeded", both.Truncated(setWidth)))
		b.failed = b.failed.Difference(both)
	}
}
