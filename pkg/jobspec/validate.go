package jobspec

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/version"
)

// CompletionsSoftLimit is validation.go's completionsSoftLimit (100,000): above it, an Indexed
// Job with backoffLimitPerIndex needs maxFailedIndexes; it is also the most parallelism and
// maxFailedIndexes of any Indexed Job (maxParallelismForIndexedJob,
// maxFailedIndexesForIndexedJob, both 100,000).
const CompletionsSoftLimit = 100_000

// Limits from pkg/apis/batch/validation/validation.go.
const (
	maxParallelismForIndexedJob             = CompletionsSoftLimit
	maxFailedIndexesForIndexedJob           = CompletionsSoftLimit
	parallelismLimitForHighCompletions      = 10_000
	maxFailedIndexesLimitForHighCompletions = 10_000
	maxPodFailurePolicyRules                = 20
	maxPodFailurePolicyOnExitCodesValues    = 255
	maxPodFailurePolicyOnPodConditions      = 20
	maxManagedByLength                      = 63
	maxSucceededIndexesLength               = 64 * 1024
	maxSuccessPolicyRules                   = 20
)

var (
	supportedPodFailurePolicyActions = []string{"Count", "FailIndex", "FailJob", "Ignore"}
	supportedOnExitCodesOperators    = []string{"In", "NotIn"}
	supportedConditionStatuses       = []string{"False", "True", "Unknown"}
)

// Violation is one reason the API server rejects an object: the server's own field error and
// the lint rule it belongs to.
type Violation struct {
	Rule string
	Err  *field.Error
}

// Message is the error as the API server renders it: `<path>: <type>: <value>: <detail>`.
func (v Violation) Message() string { return v.Err.Error() }

type violations []Violation

func (vs *violations) add(rule string, errs ...*field.Error) {
	for _, e := range errs {
		*vs = append(*vs, Violation{Rule: rule, Err: e})
	}
}

// ValidateJob returns what the create validation of the mirrored API server (pkg/version) returns for job (as read
// from a manifest, before defaulting), each tagged with its rule. An empty result means the
// server accepts the Job, as far as this mirror reaches (the pod template is checked in part;
// see ValidatePodTemplate).
func ValidateJob(job *batchv1.Job) []Violation {
	return ValidateDefaulted(Default(job))
}

// ValidateDefaulted is ValidateJob for a Job that Default already returned (it is not changed).
func ValidateDefaulted(j *batchv1.Job) []Violation {
	var vs violations
	vs.add(RuleObjectMetadata, validateObjectMeta(&j.ObjectMeta, field.NewPath("metadata"))...)
	vs = append(vs, validateGeneratedSelector(j)...)
	vs = append(vs, validateJobSpecWithSelector(&j.Spec, field.NewPath("spec"))...)
	vs.add(RuleIndexHostname, validateNameAllowsCompletions(j)...)
	// The name becomes the value of the job-name template labels; a label value longer than 63
	// characters is reported on spec.template.labels. Give that error its own rule.
	for i := range vs {
		e := vs[i].Err
		if e.Field == "spec.template.labels" && e.BadValue == j.Name && len(j.Name) > 63 {
			vs[i].Rule = RuleJobNameTooLong
		}
	}
	return vs
}

// validateObjectMeta mirrors ValidateObjectMeta(meta, true, NameIsDNSSubdomain, path) of
// pkg/apis/core/validation (the namespace comes from the request, so it is not required here).
func validateObjectMeta(meta *metav1.ObjectMeta, path *field.Path) field.ErrorList {
	m := meta.DeepCopy()
	m.Namespace = cmp.Or(m.Namespace, "default")
	// Fields the server fills in or drops before validation.
	m.ManagedFields = nil
	m.CreationTimestamp = metav1.Time{}
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	m.Generation = 0
	m.ResourceVersion = ""
	return apimachineryvalidation.ValidateObjectMeta(m, true, apimachineryvalidation.NameIsDNSSubdomain, path)
}

// validateGeneratedSelector mirrors validation.go: validateGeneratedSelector with
// RequirePrefixedLabels (always true on create).
func validateGeneratedSelector(obj *batchv1.Job) []Violation {
	var vs violations
	if (obj.Spec.ManualSelector != nil && *obj.Spec.ManualSelector) || obj.Spec.Selector == nil {
		return nil
	}
	tmpl := field.NewPath("spec").Child("template").Child("metadata")
	expected := labels.Set{}
	for _, l := range []struct{ key, value string }{
		{LegacyControllerUIDLabel, string(obj.UID)},
		{LegacyJobNameLabel, obj.Name},
		{batchv1.ControllerUidLabel, string(obj.UID)},
		{batchv1.JobNameLabel, obj.Name},
	} {
		vs.add(RuleSelector, validateHasLabel(obj.Spec.Template.ObjectMeta, tmpl, l.key, l.value)...)
		expected[l.key] = l.value
	}
	if selector, err := metav1.LabelSelectorAsSelector(obj.Spec.Selector); err == nil {
		if !selector.Matches(expected) {
			vs.add(RuleSelector, field.Invalid(field.NewPath("spec").Child("selector"), obj.Spec.Selector, "`selector` not auto-generated"))
		}
	}
	return vs
}

// validateHasLabel mirrors pkg/apis/core/validation: ValidateHasLabel.
func validateHasLabel(meta metav1.ObjectMeta, fldPath *field.Path, key, expectedValue string) field.ErrorList {
	actual, found := meta.Labels[key]
	if !found {
		return field.ErrorList{field.Required(fldPath.Child("labels").Key(key), fmt.Sprintf("must be '%s'", expectedValue))}
	}
	if actual != expectedValue {
		return field.ErrorList{field.Invalid(fldPath.Child("labels").Key(key), meta.Labels, fmt.Sprintf("must be '%s'", expectedValue))}
	}
	return nil
}

// validateJobSpecWithSelector mirrors ValidateJobSpec: validateJobSpec, then the selector.
func validateJobSpecWithSelector(spec *batchv1.JobSpec, fldPath *field.Path) []Violation {
	vs := violations(validateJobSpec(spec, fldPath))
	if spec.Selector == nil {
		vs.add(RuleSelector, field.Required(fldPath.Child("selector"), ""))
	} else {
		vs.add(RuleSelector, metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("selector"))...)
	}
	if selector, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil {
		if !selector.Matches(labels.Set(spec.Template.Labels)) {
			vs.add(RuleSelector, field.Invalid(fldPath.Child("template", "metadata", "labels"), spec.Template.Labels, "`selector` does not match template `labels`"))
		}
	}
	return vs
}

// validateNameAllowsCompletions mirrors validation.go: validateNameAllowsCompletions.
func validateNameAllowsCompletions(job *batchv1.Job) field.ErrorList {
	if job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion && job.Spec.Completions != nil && *job.Spec.Completions > 0 {
		maximumPodHostname := fmt.Sprintf("%s-%d", job.Name, *job.Spec.Completions-1)
		if errs := utilvalidation.IsDNS1123Label(maximumPodHostname); len(errs) > 0 {
			return field.ErrorList{field.Invalid(field.NewPath("metadata").Child("name"), job.Name, fmt.Sprintf("will not able to create pod with invalid DNS label: %s", maximumPodHostname))}
		}
	}
	return nil
}

func nonNegative[T int32 | int64](vs *violations, v *T, path *field.Path) {
	if v != nil {
		vs.add(RuleNegativeValue, apimachineryvalidation.ValidateNonnegativeField(int64(*v), path)...)
	}
}

// validateJobSpec mirrors validation.go: validateJobSpec on create (no old spec). spec must be
// defaulted.
func validateJobSpec(spec *batchv1.JobSpec, fldPath *field.Path) []Violation {
	var vs violations
	nonNegative(&vs, spec.Parallelism, fldPath.Child("parallelism"))
	nonNegative(&vs, spec.Completions, fldPath.Child("completions"))
	nonNegative(&vs, spec.ActiveDeadlineSeconds, fldPath.Child("activeDeadlineSeconds"))
	nonNegative(&vs, spec.BackoffLimit, fldPath.Child("backoffLimit"))
	nonNegative(&vs, spec.TTLSecondsAfterFinished, fldPath.Child("ttlSecondsAfterFinished"))
	nonNegative(&vs, spec.BackoffLimitPerIndex, fldPath.Child("backoffLimitPerIndex"))
	if spec.MaxFailedIndexes != nil {
		nonNegative(&vs, spec.MaxFailedIndexes, fldPath.Child("maxFailedIndexes"))
		if spec.BackoffLimitPerIndex == nil {
			vs.add(RuleMaxFailedIndexes, field.Required(fldPath.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
		}
	}
	if spec.ManagedBy != nil {
		vs.add(RuleManagedBy, utilvalidation.IsDomainPrefixedPath(fldPath.Child("managedBy"), *spec.ManagedBy)...)
		if len(*spec.ManagedBy) > maxManagedByLength {
			vs.add(RuleManagedBy, field.TooLong(fldPath.Child("managedBy"), "", maxManagedByLength))
		}
	}
	indexed := spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion
	if spec.CompletionMode != nil && *spec.CompletionMode != batchv1.NonIndexedCompletion && !indexed {
		vs.add(RuleCompletionMode, field.NotSupported(fldPath.Child("completionMode"), spec.CompletionMode, []batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion}))
	}
	if indexed {
		if spec.Completions == nil {
			vs.add(RuleIndexedCompletions, field.Required(fldPath.Child("completions"), fmt.Sprintf("when completion mode is %s", batchv1.IndexedCompletion)))
		}
		if spec.Parallelism != nil && *spec.Parallelism > maxParallelismForIndexedJob {
			vs.add(RuleIndexedLimits, field.Invalid(fldPath.Child("parallelism"), *spec.Parallelism, fmt.Sprintf("must be less than or equal to %d when completion mode is %s", maxParallelismForIndexedJob, batchv1.IndexedCompletion)))
		}
		if spec.Completions != nil && spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > *spec.Completions {
			vs.add(RuleMaxFailedIndexes, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "must be less than or equal to completions"))
		}
		if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > maxFailedIndexesForIndexedJob {
			vs.add(RuleIndexedLimits, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesForIndexedJob)))
		}
		if spec.Completions != nil && *spec.Completions > CompletionsSoftLimit && spec.BackoffLimitPerIndex != nil {
			if spec.MaxFailedIndexes == nil {
				vs.add(RuleIndexedLimits, field.Required(fldPath.Child("maxFailedIndexes"), fmt.Sprintf("must be specified when completions is above %d", CompletionsSoftLimit)))
			}
			if spec.Parallelism != nil && *spec.Parallelism > parallelismLimitForHighCompletions {
				vs.add(RuleIndexedLimits, field.Invalid(fldPath.Child("parallelism"), *spec.Parallelism, fmt.Sprintf("must be less than or equal to %d when completions are above %d and used with backoff limit per index", parallelismLimitForHighCompletions, CompletionsSoftLimit)))
			}
			if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > maxFailedIndexesLimitForHighCompletions {
				vs.add(RuleIndexedLimits, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d when completions are above %d and used with backoff limit per index", maxFailedIndexesLimitForHighCompletions, CompletionsSoftLimit)))
			}
		}
	}
	if spec.CompletionMode == nil || *spec.CompletionMode == batchv1.NonIndexedCompletion {
		if spec.BackoffLimitPerIndex != nil {
			vs.add(RulePerIndexNeedsIndexed, field.Invalid(fldPath.Child("backoffLimitPerIndex"), *spec.BackoffLimitPerIndex, "requires indexed completion mode"))
		}
		if spec.MaxFailedIndexes != nil {
			vs.add(RulePerIndexNeedsIndexed, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "requires indexed completion mode"))
		}
	}
	if spec.PodFailurePolicy != nil {
		vs = append(vs, validatePodFailurePolicy(spec, fldPath.Child("podFailurePolicy"))...)
	}
	if spec.SuccessPolicy != nil {
		if !indexed {
			vs.add(RuleSuccessPolicy, field.Invalid(fldPath.Child("successPolicy"), successPolicyJSON(spec.SuccessPolicy), "requires indexed completion mode"))
		} else {
			vs = append(vs, validateSuccessPolicy(spec, fldPath)...)
		}
	}
	vs.add(RulePodReplacementPolicy, validatePodReplacementPolicy(spec, fldPath.Child("podReplacementPolicy"))...)
	// spec.scheduling: the WorkloadWithJob gate is alpha and off by default in the mirrored release, so
	// PrepareForCreate drops the field (job.DropDisabledFields) before validation: accepted.
	vs = append(vs, ValidatePodTemplate(&spec.Template, fldPath.Child("template"))...)

	rp := spec.Template.Spec.RestartPolicy
	rpPath := fldPath.Child("template", "spec", "restartPolicy")
	switch {
	case rp == corev1.RestartPolicyAlways || rp == "":
		vs.add(RuleRestartPolicy, field.Required(rpPath, fmt.Sprintf("valid values: %q, %q", corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever)))
	case rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever:
		vs.add(RuleRestartPolicy, field.NotSupported(rpPath, rp, []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	case spec.PodFailurePolicy != nil && rp != corev1.RestartPolicyNever:
		vs.add(RuleRestartPolicy, field.Invalid(rpPath, rp, fmt.Sprintf("only %q is supported when podFailurePolicy is specified", corev1.RestartPolicyNever)))
	}
	return vs
}

func validatePodReplacementPolicy(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	if spec.PodReplacementPolicy == nil {
		return nil
	}
	supported := []batchv1.PodReplacementPolicy{batchv1.Failed, batchv1.TerminatingOrFailed}
	if spec.PodFailurePolicy != nil {
		supported = supported[:1] // Failed only
	}
	if p := *spec.PodReplacementPolicy; !slices.Contains(supported, p) {
		return field.ErrorList{field.NotSupported(fldPath, p, supported)}
	}
	return nil
}

func validatePodFailurePolicy(spec *batchv1.JobSpec, fldPath *field.Path) []Violation {
	var vs violations
	rulesPath := fldPath.Child("rules")
	if len(spec.PodFailurePolicy.Rules) > maxPodFailurePolicyRules {
		vs.add(RulePodFailurePolicy, field.TooMany(rulesPath, len(spec.PodFailurePolicy.Rules), maxPodFailurePolicyRules))
	}
	names := map[string]bool{}
	for _, c := range slices.Concat(spec.Template.Spec.Containers, spec.Template.Spec.InitContainers) {
		names[c.Name] = true
	}
	for i := range spec.PodFailurePolicy.Rules {
		vs = append(vs, validatePodFailurePolicyRule(spec, &spec.PodFailurePolicy.Rules[i], rulesPath.Index(i), names)...)
	}
	return vs
}

func validatePodFailurePolicyRule(spec *batchv1.JobSpec, rule *batchv1.PodFailurePolicyRule, rulePath *field.Path, containerNames map[string]bool) []Violation {
	var vs violations
	actionPath := rulePath.Child("action")
	vs.add(RulePodFailurePolicy, oneOfValidValues(rule.Action, actionPath, supportedPodFailurePolicyActions)...)
	if rule.Action == batchv1.PodFailurePolicyActionFailIndex && spec.BackoffLimitPerIndex == nil {
		vs.add(RuleFailIndexNeedsPerIdx, field.Invalid(actionPath, rule.Action, "requires the backoffLimitPerIndex to be set"))
	}
	if rule.OnExitCodes != nil {
		vs.add(RulePodFailurePolicy, validateOnExitCodes(rule.OnExitCodes, rulePath.Child("onExitCodes"), containerNames)...)
	}
	if len(rule.OnPodConditions) > 0 {
		vs.add(RulePodFailurePolicy, validateOnPodConditions(rule.OnPodConditions, rulePath.Child("onPodConditions"))...)
	}
	if rule.OnExitCodes != nil && len(rule.OnPodConditions) > 0 {
		vs.add(RulePodFailurePolicy, field.Invalid(rulePath, field.OmitValueType{}, "specifying both OnExitCodes and OnPodConditions is not supported"))
	}
	if rule.OnExitCodes == nil && len(rule.OnPodConditions) == 0 {
		vs.add(RulePodFailurePolicy, field.Invalid(rulePath, field.OmitValueType{}, "specifying one of OnExitCodes and OnPodConditions is required"))
	}
	return vs
}

// oneOfValidValues is the check of a podFailurePolicy field that must be one of supported:
// Required, naming them, when v is empty, else NotSupported when it is none.
func oneOfValidValues[T ~string](v T, path *field.Path, supported []string) field.ErrorList {
	switch {
	case v == "":
		return field.ErrorList{field.Required(path, fmt.Sprintf("valid values: %q", supported))}
	case !slices.Contains(supported, string(v)):
		return field.ErrorList{field.NotSupported(path, v, supported)}
	}
	return nil
}

func validateOnPodConditions(patterns []batchv1.PodFailurePolicyOnPodConditionsPattern, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(patterns) > maxPodFailurePolicyOnPodConditions {
		errs = append(errs, field.TooMany(path, len(patterns), maxPodFailurePolicyOnPodConditions))
	}
	for j, p := range patterns {
		pp := path.Index(j)
		errs = append(errs, invalid(pp.Child("type"), string(p.Type),
			utilvalidation.IsQualifiedName(string(p.Type)))...)
		errs = append(errs, oneOfValidValues(p.Status, pp.Child("status"), supportedConditionStatuses)...)
	}
	return errs
}

func validateOnExitCodes(req *batchv1.PodFailurePolicyOnExitCodesRequirement, path *field.Path, containerNames map[string]bool) field.ErrorList {
	errs := oneOfValidValues(req.Operator, path.Child("operator"), supportedOnExitCodesOperators)
	if req.ContainerName != nil && !containerNames[*req.ContainerName] {
		errs = append(errs, field.Invalid(path.Child("containerName"), *req.ContainerName, "must be one of the container or initContainer names in the pod template"))
	}
	valuesPath := path.Child("values")
	if len(req.Values) == 0 {
		errs = append(errs, field.Invalid(valuesPath, req.Values, "at least one value is required"))
	} else if len(req.Values) > maxPodFailurePolicyOnExitCodesValues {
		errs = append(errs, field.TooMany(valuesPath, len(req.Values), maxPodFailurePolicyOnExitCodesValues))
	}
	seen := map[int32]bool{}
	for j, v := range req.Values {
		vp := valuesPath.Index(j)
		if req.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && v == 0 {
			errs = append(errs, field.Invalid(vp, v, "must not be 0 for the In operator"))
		}
		if seen[v] {
			errs = append(errs, field.Duplicate(vp, v))
		} else {
			seen[v] = true
		}
	}
	if !slices.IsSorted(req.Values) {
		errs = append(errs, field.Invalid(valuesPath, req.Values, "must be ordered"))
	}
	return errs
}

// SuccessPolicyCrashes reports whether the mirrored API server (pkg/version) panics validating spec (defaulted)
// instead of answering: validateSuccessPolicyRule dereferences spec.completions, which is nil
// for an Indexed Job that sets parallelism but not completions.
func SuccessPolicyCrashes(spec *batchv1.JobSpec) bool {
	if spec.SuccessPolicy == nil || spec.Completions != nil || spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		return false
	}
	return slices.ContainsFunc(spec.SuccessPolicy.Rules, func(r batchv1.SuccessPolicyRule) bool {
		return r.SucceededIndexes != nil || r.SucceededCount != nil
	})
}

func validateSuccessPolicy(spec *batchv1.JobSpec, specPath *field.Path) []Violation {
	var vs violations
	rulesPath := specPath.Child("successPolicy", "rules")
	if SuccessPolicyCrashes(spec) {
		vs.add(RuleSuccessPolicyCrash, field.Required(specPath.Child("completions"),
			"when completion mode is Indexed and successPolicy is set (the v"+version.KubernetesMinor+" API server does not answer with this error: it panics validating the successPolicy and the client sees an HTTP/2 stream INTERNAL_ERROR)"))
		return vs
	}
	if len(spec.SuccessPolicy.Rules) == 0 {
		vs.add(RuleSuccessPolicy, field.Required(rulesPath, "at least one rules must be specified when the successPolicy is specified"))
	}
	if len(spec.SuccessPolicy.Rules) > maxSuccessPolicyRules {
		vs.add(RuleSuccessPolicy, field.TooMany(rulesPath, len(spec.SuccessPolicy.Rules), maxSuccessPolicyRules))
	}
	for i := range spec.SuccessPolicy.Rules {
		for _, e := range validateSuccessPolicyRule(spec, &spec.SuccessPolicy.Rules[i], rulesPath.Index(i)) {
			rule := RuleSuccessPolicy
			if e.Type == field.ErrorTypeInvalid && e.Detail == "must be greater than or equal to 0" {
				rule = RuleNegativeValue
			}
			vs.add(rule, e)
		}
	}
	return vs
}

func validateSuccessPolicyRule(spec *batchv1.JobSpec, rule *batchv1.SuccessPolicyRule, rulePath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if rule.SucceededCount == nil && rule.SucceededIndexes == nil {
		errs = append(errs, field.Required(rulePath, "at least one of succeededCount or succeededIndexes must be specified"))
	}
	var total int32
	if rule.SucceededIndexes != nil {
		p := rulePath.Child("succeededIndexes")
		if len(*rule.SucceededIndexes) > maxSucceededIndexesLength {
			errs = append(errs, field.TooLong(p, "", maxSucceededIndexesLength))
		}
		var err error
		if total, err = indexes.ValidateFormat(*rule.SucceededIndexes, *spec.Completions); err != nil {
			errs = append(errs, field.Invalid(p, *rule.SucceededIndexes, fmt.Sprintf("error parsing succeededIndexes: %s", err.Error())))
		}
	}
	if rule.SucceededCount != nil {
		p := rulePath.Child("succeededCount")
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*rule.SucceededCount), p)...)
		if *rule.SucceededCount > *spec.Completions {
			errs = append(errs, field.Invalid(p, *rule.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", *spec.Completions)))
		}
		if rule.SucceededIndexes != nil && *rule.SucceededCount > total {
			errs = append(errs, field.Invalid(p, *rule.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total)))
		}
	}
	return errs
}

// successPolicyJSON renders p the way the API server renders its internal SuccessPolicy in an
// error: encoding/json over structs without JSON tags, so with Go field names and every field
// present.
func successPolicyJSON(p *batchv1.SuccessPolicy) json.RawMessage {
	// The internal SuccessPolicyRule has the v1 fields without their tags; a conversion keeps
	// the fields and drops the tags.
	type rule struct {
		SucceededIndexes *string
		SucceededCount   *int32
	}
	var internal struct{ Rules []rule }
	if p.Rules != nil { // [] and null are rendered as given
		internal.Rules = make([]rule, len(p.Rules))
	}
	for i, r := range p.Rules {
		internal.Rules[i] = rule(r)
	}
	b, _ := json.Marshal(internal) // strings and numbers always encode
	return b
}
