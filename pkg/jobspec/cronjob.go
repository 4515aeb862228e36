package jobspec

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"time"
	// The API server resolves timeZone with the Go time zone database; embed it so that lint
	// answers the same on machines without one (Windows, minimal images).
	_ "time/tzdata"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// maxCronJobNameLength: the CronJob controller appends an 11-character suffix to the name of
// each Job it creates (validation.go: ValidateCronJobCreate).
const maxCronJobNameLength = 52

// JobOf is the Job the CronJob controller makes of cj (getJobFromTemplate2), as far as a
// manifest says: copies of its jobTemplate's metadata and spec. The name, which the controller
// derives from the scheduled time, and the namespace are the caller's to set.
func JobOf(cj *batchv1.CronJob) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: *cj.Spec.JobTemplate.ObjectMeta.DeepCopy(), Spec: *cj.Spec.JobTemplate.Spec.DeepCopy()}
}

// DefaultCronJob returns a copy of cj as the API server stores it before validation
// (SetDefaults_CronJob and the defaults of the nested types; a jobTemplate gets no Job-level
// defaults such as completions or parallelism).
func DefaultCronJob(cj *batchv1.CronJob) *batchv1.CronJob {
	c := cj.DeepCopy()
	if c.Name == "" && c.GenerateName != "" {
		c.Name = GenerateName(c.GenerateName)
	}
	spec := &c.Spec
	spec.ConcurrencyPolicy = cmp.Or(spec.ConcurrencyPolicy, batchv1.AllowConcurrent)
	spec.Suspend = cmp.Or(spec.Suspend, ptr.To(false))
	spec.SuccessfulJobsHistoryLimit = cmp.Or(spec.SuccessfulJobsHistoryLimit, ptr.To[int32](3))
	spec.FailedJobsHistoryLimit = cmp.Or(spec.FailedJobsHistoryLimit, ptr.To[int32](1))
	SetDefaultsJobSpecNested(&spec.JobTemplate.Spec)
	c.Status = batchv1.CronJobStatus{}
	return c
}

// ValidateCronJob returns what the create validation of the mirrored API server (pkg/version) returns for cj (as read
// from a manifest), each tagged with its rule. The jobTemplate's errors have paths under
// spec.jobTemplate.spec.
func ValidateCronJob(cj *batchv1.CronJob) []Violation {
	c := DefaultCronJob(cj)
	var vs violations
	vs.add(RuleObjectMetadata, validateObjectMeta(&c.ObjectMeta, field.NewPath("metadata"))...)
	spec := &c.Spec
	path := field.NewPath("spec")
	if spec.Schedule == "" {
		vs.add(RuleCronJob, field.Required(path.Child("schedule"), ""))
	} else {
		vs.add(RuleCronJob, validateScheduleFormat(spec.Schedule, path.Child("schedule"))...)
	}
	nonNegative(&vs, spec.StartingDeadlineSeconds, path.Child("startingDeadlineSeconds"))
	vs.add(RuleCronJob, validateTimeZone(spec.TimeZone, path.Child("timeZone"))...)
	// validateConcurrencyPolicy ("" is defaulted to Allow above).
	vs.add(RuleCronJob, requiredOneOf(spec.ConcurrencyPolicy, path.Child("concurrencyPolicy"),
		batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent)...)
	vs = append(vs, validateJobTemplateSpec(&spec.JobTemplate, path.Child("jobTemplate"))...)
	nonNegative(&vs, spec.SuccessfulJobsHistoryLimit, path.Child("successfulJobsHistoryLimit"))
	nonNegative(&vs, spec.FailedJobsHistoryLimit, path.Child("failedJobsHistoryLimit"))
	if len(c.Name) > maxCronJobNameLength {
		vs.add(RuleCronJob, field.Invalid(field.NewPath("metadata").Child("name"), c.Name, fmt.Sprintf("must be no more than %d characters", maxCronJobNameLength)))
	}
	return vs
}

// validateJobTemplateSpec mirrors validation.go: ValidateJobTemplateSpec (the jobTemplate's
// metadata is not validated by the server).
func validateJobTemplateSpec(t *batchv1.JobTemplateSpec, path *field.Path) []Violation {
	vs := violations(validateJobSpec(&t.Spec, path.Child("spec")))
	if t.Spec.Selector != nil {
		vs.add(RuleSelector, field.Invalid(path.Child("spec", "selector"), t.Spec.Selector, "`selector` will be auto-generated"))
	}
	if t.Spec.ManualSelector != nil && *t.Spec.ManualSelector {
		vs.add(RuleSelector, field.NotSupported(path.Child("spec", "manualSelector"), t.Spec.ManualSelector, []string{"nil", "false"}))
	}
	return vs
}

func validateScheduleFormat(schedule string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if _, err := parseCronSchedule(schedule); err != nil {
		errs = append(errs, field.Invalid(path, schedule, err.Error()))
	}
	if strings.Contains(schedule, "TZ") {
		errs = append(errs, field.Invalid(path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	}
	return errs
}

// parseCronSchedule mirrors pkg/util/parsers: ParseCronScheduleWithPanicRecovery.
func parseCronSchedule(schedule string) (sched cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			sched = nil
			err = fmt.Errorf("invalid schedule format: %v", r)
		}
	}()
	return cron.ParseStandard(schedule)
}

var validTimeZoneCharacters = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// validateTimeZone mirrors validation.go: validateTimeZone. The time zone database is the Go
// runtime's, as in the API server.
func validateTimeZone(timeZone *string, path *field.Path) field.ErrorList {
	if timeZone == nil {
		return nil
	}
	if *timeZone == "" {
		return field.ErrorList{field.Invalid(path, timeZone, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(*timeZone, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !validTimeZoneCharacters.MatchString(part) {
			return field.ErrorList{field.Invalid(path, timeZone, fmt.Sprintf("unknown time zone %s", *timeZone))}
		}
	}
	var errs field.ErrorList
	if strings.EqualFold(*timeZone, "Local") {
		errs = append(errs, field.Invalid(path, timeZone, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(*timeZone); err != nil {
		errs = append(errs, field.Invalid(path, timeZone, err.Error()))
	}
	return errs
}
