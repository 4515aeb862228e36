package jobspec

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// Rules of the warnings the API server itself returns on create (the object is accepted).
const (
	RuleNameNotDNSLabel = "name-not-dns-label"
	RuleLargeIndexedJob = "large-indexed-job"
)

// ServerWarning is a warning the mirrored API server (pkg/version) returns when the object is created, worded as
// the server words it (kubectl prints it as "Warning: <Message>").
type ServerWarning struct {
	Rule    string
	Path    string
	Message string
}

// WarningsOnCreateDefaulted mirrors pkg/registry/batch/job/strategy.go: WarningsOnCreate and
// pkg/api/job/warnings.go: WarningsForJobSpec for a Job that Default already returned
// (pod-template warnings are not mirrored).
func WarningsOnCreateDefaulted(j *batchv1.Job) []ServerWarning {
	return append(nameWarnings(j.Name), WarningsForJobSpec(field.NewPath("spec"), &j.Spec)...)
}

// nameWarnings is the warning both strategies' WarningsOnCreate give about a name that is not
// a DNS label.
func nameWarnings(name string) []ServerWarning {
	if msgs := utilvalidation.IsDNS1123Label(name); len(msgs) != 0 {
		return []ServerWarning{{Rule: RuleNameNotDNSLabel, Path: "metadata.name",
			Message: fmt.Sprintf("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: %v", msgs)}}
	}
	return nil
}

// WarningsForJobSpec mirrors pkg/api/job/warnings.go: WarningsForJobSpec (without the pod
// template part).
func WarningsForJobSpec(path *field.Path, spec *batchv1.JobSpec) []ServerWarning {
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		return nil
	}
	completions := ptr.Deref(spec.Completions, 0)
	parallelism := ptr.Deref(spec.Parallelism, 0)
	if completions > CompletionsSoftLimit && parallelism > parallelismLimitForHighCompletions {
		return []ServerWarning{{Rule: RuleLargeIndexedJob, Path: path.String(),
			Message: fmt.Sprintf("%s: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail", path)}}
	}
	return nil
}

// CronJobWarningsOnCreate mirrors pkg/registry/batch/cronjob/strategy.go: WarningsOnCreate.
func CronJobWarningsOnCreate(cj *batchv1.CronJob) []ServerWarning {
	c := DefaultCronJob(cj)
	spec := WarningsForJobSpec(field.NewPath("spec", "jobTemplate", "spec"), &c.Spec.JobTemplate.Spec)
	return append(nameWarnings(c.Name), spec...)
}
