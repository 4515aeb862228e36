package simulate

import (
	"fmt"
	"path/filepath"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// Hint is the `simulate --compare` command that shows what the prepare-db mode (an Indexed Job
// whose indexes share the global backoffLimit, jobpolicy.Spec.SharedBudget) does, next to lint's
// fix (backoffLimitPerIndex and maxFailedIndexes, backoffLimit unset), on the same outcomes:
// backoffLimit+1 transient failures (each index fails once and then succeeds) while the other
// indexes run 10 minutes.
type Hint struct {
	// Fix is the shell command that writes the fixed Job (kubectl patch --local, no cluster).
	Fix string
	// Simulate is the simulate --compare command.
	Simulate string
}

// maxHintIndexes bounds the --outcome flags of a hint.
const maxHintIndexes = 10

// PrepareDBHint returns the commands for the Job of file (a Job or a CronJob's jobTemplate), or
// false when the Job is not in the prepare-db mode, its backoffLimit is too large to show in
// a few flags, or simulate would refuse the Job or its fix (Check: a Job the server rejects).
// cron says the file holds a CronJob; file must hold no other object, since kubectl patch
// --local patches every object of a file (and prints them as one broken YAML document).
//
// The fix is lint's (prepare-db-mode): backoffLimitPerIndex and maxFailedIndexes set,
// backoffLimit unset and, when the Job has no podFailurePolicy, one that ignores
// DisruptionTarget. That policy needs restartPolicy Never (OnFailure restarts containers in
// place, so per-index retries would never count them: per-index-with-on-failure) and
// podReplacementPolicy Failed, its default (TerminatingOrFailed, the default without a policy,
// counts a deleted pod as a failure of its index at once: terminating-or-failed-per-index).
func PrepareDBHint(file string, job *batchv1.Job, cron bool) (Hint, bool) {
	flags, perIndex, ok := PrepareDBOutcomes(job)
	if !ok || file == "-" {
		return Hint{}, false
	}
	maxFailed := jobpolicy.SuggestedMaxFailedIndexes(int(jobpolicy.SpecOf(job).Completions))
	fixedJob := job.DeepCopy()
	fixedJob.Spec.BackoffLimit = nil
	fixedJob.Spec.BackoffLimitPerIndex = ptr.To(int32(perIndex))
	fixedJob.Spec.MaxFailedIndexes = ptr.To(maxFailed)
	patch := fmt.Sprintf(`"backoffLimit":null,"backoffLimitPerIndex":%d,"maxFailedIndexes":%d`, perIndex, maxFailed)
	if job.Spec.PodFailurePolicy == nil {
		fixedJob.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
			Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}}}}
		patch += `,"podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget","status":"True"}]}]}`
		if job.Spec.PodReplacementPolicy != nil {
			fixedJob.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
			patch += `,"podReplacementPolicy":"Failed"`
		}
		if job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
			fixedJob.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
			patch += `,"template":{"spec":{"restartPolicy":"Never"}}`
		}
	}
	if Check(job) != nil || Check(fixedJob) != nil {
		return Hint{}, false
	}
	// The fixed Job goes to /tmp, not next to the input: in a tree that lint -R or kubectl
	// apply -f reads, a second manifest of the same Job would be picked up.
	fixed := "/tmp/" + strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".yaml"), ".yml"), ".json") + "-per-index.yaml"
	patch = "{" + patch + "}"
	if cron {
		patch = `{"spec":{"jobTemplate":{"spec":` + patch + `}}}`
	} else {
		patch = `{"spec":` + patch + `}`
	}
	return Hint{
		Fix:      fmt.Sprintf("kubectl patch --local -f %s --type merge -o yaml -p '%s' > %s", textwrap.ShellQuote(file), patch, textwrap.ShellQuote(fixed)),
		Simulate: fmt.Sprintf("kubectl indexed simulate %s --compare %s %s", textwrap.ShellQuote(file), textwrap.ShellQuote(fixed), flags),
	}, true
}

// PrepareDBOutcomes returns the outcome flags that show the prepare-db mode of job: backoffLimit+1
// failures spread over up to 10 indexes, each index failing perIndex times (after 30s) and then
// succeeding, while every other index runs 10 minutes. ok is false when job is not in the
// prepare-db mode or its backoffLimit needs too many flags.
func PrepareDBOutcomes(job *batchv1.Job) (flags string, perIndex int, ok bool) {
	spec := jobpolicy.SpecOf(job)
	if !spec.SharedBudget() || spec.BackoffLimit < 0 {
		return "", 0, false
	}
	completions := int(spec.Completions)
	failures := int(spec.BackoffLimit) + 1
	n := min(failures, completions, maxHintIndexes)
	perIndex = (failures + n - 1) / n
	if perIndex > 6 {
		return "", 0, false
	}
	codes := strings.Repeat("1,", perIndex) + "0"
	durations := strings.Repeat("30s,", perIndex) + "10m"
	args := []string{"--default-duration 10m"}
	for j := 0; j < n; j++ {
		i := j * completions / n
		args = append(args, fmt.Sprintf("--outcome %d=%s --duration %d=%s", i, codes, i, durations))
	}
	return strings.Join(args, " "), perIndex, true
}
