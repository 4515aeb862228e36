package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
)

// Options control what lint checks and reports. The zero value checks everything against
// DefaultKubeVersion.
type Options struct {
	// KubeVersion is the version of the target cluster for kube-version-feature; zero means
	// DefaultKubeVersion. Errors always mean "the mirrored API server (pkg/version) rejects this".
	KubeVersion Version
	// Disable lists rule IDs not to report.
	Disable []string
	// MinSeverity drops findings below it; "" reports everything (info and up).
	MinSeverity Severity
	// Queues are Kueue's LocalQueues and ClusterQueues, for kueue-never-admitted; nil skips it.
	Queues *kueue.Queues
}

func (o Options) kubeVersion() Version { return cmp.Or(o.KubeVersion, DefaultKubeVersion) }

func (o Options) reports(rule string, sev Severity) bool {
	return (o.MinSeverity == "" || sev.Rank() >= o.MinSeverity.Rank()) && !slices.Contains(o.Disable, rule)
}

// TTLThresholdSeconds is the ttlSecondsAfterFinished below which ttl-too-short warns.
const TTLThresholdSeconds = 3600

// checker collects the findings of one object.
type checker struct {
	opts     Options
	object   string
	ns       string
	findings []Finding
}

func (c *checker) add(rule string, sev Severity, path, msg string) {
	if !c.opts.reports(rule, sev) {
		return
	}
	r, _ := LookupRule(rule)
	c.findings = append(c.findings, Finding{Rule: rule, Severity: sev, Message: msg, Path: path,
		Object: c.object, Namespace: c.ns, Why: r.Why, Fix: r.Fix})
}

func objectName(kind string, meta metav1.ObjectMeta) string {
	switch {
	case meta.Name != "":
		return kind + "/" + meta.Name
	case meta.GenerateName != "":
		return kind + "/" + meta.GenerateName + "*"
	}
	return kind + "/"
}

// CheckJob lints one Job (as written in a manifest, not defaulted): every way the mirrored API
// server (pkg/version) would reject it (errors, worded as the server words them), the server's own warnings,
// and what hurts at run time. Findings carry no file information; they are sorted.
func CheckJob(job *batchv1.Job, opts Options) []Finding {
	// A live object (kubectl get job -o yaml) is checked as the manifest it came from.
	job = jobspec.DesiredSpec(job)
	c := &checker{opts: opts, object: objectName("Job", job.ObjectMeta), ns: job.Namespace}
	def := jobspec.Default(job)
	c.server(jobspec.ValidateDefaulted(def), func() []jobspec.ServerWarning { return jobspec.WarningsOnCreateDefaulted(def) })
	c.runtimeRules(job, def, field.NewPath("spec"))
	c.kueueJobRules(job, field.NewPath("spec"))
	c.dropWarningsOnRejectedFields()
	Sort(c.findings)
	return c.findings
}

// server adds the API server's errors, and its warnings when there is none: the server
// computes its warnings only for objects that pass validation.
func (c *checker) server(violations []jobspec.Violation, warnings func() []jobspec.ServerWarning) {
	for _, v := range violations {
		c.add(v.Rule, SeverityError, v.Err.Field, v.Message())
	}
	if len(violations) == 0 {
		for _, w := range warnings() {
			c.add(w.Rule, SeverityWarning, w.Path, w.Message)
		}
	}
}

// cronJobNameSuffix is what the CronJob controller appends to the CronJob's name for each Job
// ("-" and the scheduled time in minutes since the epoch, 8 digits until the year 2160).
const cronJobNameSuffix = "-29000000"

// CheckCronJob lints a CronJob: the server's CronJob validation, and the Job rules on its
// jobTemplate, with paths under spec.jobTemplate.spec.
func CheckCronJob(cj *batchv1.CronJob, opts Options) []Finding {
	c := &checker{opts: opts, object: objectName("CronJob", cj.ObjectMeta), ns: cj.Namespace}
	c.server(jobspec.ValidateCronJob(cj), func() []jobspec.ServerWarning { return jobspec.CronJobWarningsOnCreate(cj) })
	name := cmp.Or(cj.Name, jobspec.GenerateName(cj.GenerateName))
	// The Jobs the CronJob controller will create.
	job := jobspec.JobOf(cj)
	job.ObjectMeta = metav1.ObjectMeta{Name: name + cronJobNameSuffix}
	job.Spec.Selector, job.Spec.ManualSelector = nil, nil
	def := jobspec.Default(job)
	prefix := field.NewPath("spec", "jobTemplate", "spec")
	c.runtimeRules(job, def, prefix)
	if isIndexed(def) && def.Spec.Completions != nil && *def.Spec.Completions > 0 {
		host := fmt.Sprintf("%s-%d", job.Name, *def.Spec.Completions-1)
		if len(host) > 63 && !HasErrors(c.findings) {
			c.add(RuleCronJobIndexHostname, SeverityWarning, prefix.Child("completions").String(), fmt.Sprintf(
				"every Job this CronJob creates will be rejected: its name %q plus the highest index gives the hostname %q, %d characters, more than the 63 a DNS label allows", job.Name, host, len(host)))
		}
	}
	c.dropWarningsOnRejectedFields()
	Sort(c.findings)
	return c.findings
}

// dropWarningsOnRejectedFields removes warnings and infos about a field the server rejects, or
// about a field inside it: fixing the error changes what they would say.
func (c *checker) dropWarningsOnRejectedFields() {
	errs := slices.DeleteFunc(slices.Clone(c.findings), func(f Finding) bool {
		return f.Severity != SeverityError || f.Path == ""
	})
	c.findings = slices.DeleteFunc(c.findings, func(f Finding) bool {
		// f's path is an error's, or inside it ("spec.x.y" or "spec.x[0]" inside "spec.x").
		overlaps := slices.ContainsFunc(errs, func(e Finding) bool {
			p := e.Path
			return p == f.Path || strings.HasPrefix(f.Path, p+".") || strings.HasPrefix(f.Path, p+"[")
		})
		return f.Severity != SeverityError && strings.Contains(f.Path, ".") && overlaps
	})
}

func isIndexed(j *batchv1.Job) bool {
	return j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
}

// runtimeRules adds the warnings and infos: raw is the Job as written, def as defaulted; paths
// are under prefix.
func (c *checker) runtimeRules(raw, def *batchv1.Job, prefix *field.Path) {
	spec, rs := &def.Spec, &raw.Spec
	p := func(names ...string) string { return prefix.Child(names[0], names[1:]...).String() }
	indexed := isIndexed(def)
	completions := ptr.Deref(spec.Completions, 0)
	perIndex := spec.BackoffLimitPerIndex != nil
	restart := spec.Template.Spec.RestartPolicy

	pol := jobpolicy.SpecOf(def)
	pol.BackoffLimitSet = rs.BackoffLimit != nil
	if pol.SharedBudget() {
		path := p("completionMode")
		if pol.BackoffLimitSet {
			path = p("backoffLimit")
		}
		c.add(RulePrepareDB, SeverityWarning, path, PrepareDBMessage(pol))
	}
	if pol.BackoffLimitSet && pol.GlobalLimitFiresFirst() {
		c.add(RuleBackoffWithPerIdx, SeverityWarning, p("backoffLimit"), BackoffBesidePerIndexMessage(pol))
	}
	if perIndex && restart == corev1.RestartPolicyOnFailure {
		c.add(RulePerIndexOnFailure, SeverityWarning, p("template", "spec", "restartPolicy"),
			"backoffLimitPerIndex with restartPolicy OnFailure: failing containers restart in place, so per-index retries never count them; a crash-looping index restarts until the Job's deadline")
	}
	for i, ctr := range spec.Template.Spec.Containers {
		path := prefix.Child("template", "spec", "containers").Index(i)
		switch {
		case ctr.RestartPolicy != nil && *ctr.RestartPolicy == corev1.ContainerRestartPolicyAlways:
			c.add(RuleContainerRestart, SeverityWarning, path.Child("restartPolicy").String(), fmt.Sprintf(
				"container %q has restartPolicy Always: the kubelet restarts it even after it succeeds, so its pods never finish and the Job runs until its deadline, if it has one", ctr.Name))
		case ctr.RestartPolicy != nil && *ctr.RestartPolicy == corev1.ContainerRestartPolicyOnFailure:
			c.add(RuleContainerRestart, SeverityWarning, path.Child("restartPolicy").String(), fmt.Sprintf(
				"container %q has restartPolicy OnFailure: it restarts in place when it fails, so the pod does not fail and no podFailurePolicy rule, per-index limit or backoffLimit ever sees the failure", ctr.Name))
		case len(ctr.RestartPolicyRules) > 0:
			c.add(RuleContainerRestart, SeverityWarning, path.Child("restartPolicyRules").String(), fmt.Sprintf(
				"container %q has restartPolicyRules: the exit codes they match restart it in place, and those failures never reach podFailurePolicy, the per-index limits or backoffLimit", ctr.Name))
		}
	}
	if rs.ActiveDeadlineSeconds != nil && *rs.ActiveDeadlineSeconds == 0 {
		c.add(RuleDeadlineZero, SeverityWarning, p("activeDeadlineSeconds"),
			"activeDeadlineSeconds is 0: the Job fails with DeadlineExceeded on its first sync, before any pod is created")
	}
	if rs.Parallelism != nil && *rs.Parallelism == 0 {
		c.add(RuleParallelismZero, SeverityWarning, p("parallelism"), "parallelism is 0: no pod is ever created and the Job never finishes")
	}
	if indexed && perIndex && spec.MaxFailedIndexes != nil && completions > 0 {
		switch m := *spec.MaxFailedIndexes; {
		case m == 0 && completions > 1:
			c.add(RuleMaxFailedZero, SeverityWarning, p("maxFailedIndexes"), fmt.Sprintf(
				"maxFailedIndexes is 0: the first of the %d indexes to fail (after %d attempts) fails the whole Job and kills every running index", completions, jobpolicy.AttemptsPerIndex(*spec.BackoffLimitPerIndex)))
		case m == completions:
			c.add(RuleMaxFailedNoEffect, SeverityWarning, p("maxFailedIndexes"), fmt.Sprintf(
				"maxFailedIndexes %d equals completions: more than %d of %d indexes can never fail, so the limit never stops the Job", m, m, completions))
		}
	}
	if indexed && perIndex && spec.MaxFailedIndexes == nil && completions > 1 && completions <= jobspec.CompletionsSoftLimit {
		c.add(RuleMaxFailedUnset, SeverityWarning, p("backoffLimitPerIndex"), fmt.Sprintf(
			"maxFailedIndexes is not set: all %d indexes always run, each up to %d times, even when every one fails for the same reason; the Job is marked Failed only after the last index finished (%d%% of completions, rounded down, is %d)",
			completions, jobpolicy.AttemptsPerIndex(*spec.BackoffLimitPerIndex), jobpolicy.MaxFailedIndexesPercent, jobpolicy.SuggestedMaxFailedIndexes(int(completions))))
	}
	if rs.TTLSecondsAfterFinished != nil && *rs.TTLSecondsAfterFinished >= 0 && *rs.TTLSecondsAfterFinished < TTLThresholdSeconds {
		c.add(RuleTTLTooShort, SeverityWarning, p("ttlSecondsAfterFinished"), fmt.Sprintf(
			"ttlSecondsAfterFinished is %d: %s after it finishes the Job is deleted with its pods, its failedIndexes, conditions and logs, before anyone is likely to reconcile the run (threshold %ds)",
			*rs.TTLSecondsAfterFinished, humanSeconds(int64(*rs.TTLSecondsAfterFinished)), TTLThresholdSeconds))
	}
	if spec.SuccessPolicy != nil && indexed && spec.Completions != nil {
		c.successPolicyRules(spec, prefix)
	}
	if indexed {
		c.disruptionRules(spec, prefix)
	}
	if indexed && completions > 1 && spec.PodFailurePolicy != nil {
		for i, r := range spec.PodFailurePolicy.Rules {
			if r.Action == batchv1.PodFailurePolicyActionFailJob {
				c.add(RuleFailJob, SeverityWarning, prefix.Child("podFailurePolicy", "rules").Index(i).Child("action").String(), fmt.Sprintf(
					"rule %d fails the whole Job when one pod of any of the %d indexes %s: every running index is killed and the index is not recorded in failedIndexes", i, completions, describeMatch(r)))
			}
		}
	}
	if indexed && perIndex && spec.PodReplacementPolicy != nil && *spec.PodReplacementPolicy == batchv1.TerminatingOrFailed {
		how := "the default without a podFailurePolicy"
		if rs.PodReplacementPolicy != nil {
			how = "set explicitly"
		}
		c.add(RuleTerminatingOrFail, SeverityWarning, p("podReplacementPolicy"), fmt.Sprintf(
			"podReplacementPolicy is TerminatingOrFailed (%s): a pod being deleted counts as a failure of its index at once and is replaced while it still terminates, so two pods of one index can run together and evictions use up the index's %d attempts",
			how, jobpolicy.AttemptsPerIndex(*spec.BackoffLimitPerIndex)))
	}
	if spec.ManagedBy != nil && *spec.ManagedBy != "kubernetes.io/job-controller" {
		c.add(RuleManagedExternally, SeverityWarning, p("managedBy"), fmt.Sprintf(
			"managedBy is %q: the built-in Job controller ignores this Job; nothing runs unless that controller is installed", *spec.ManagedBy))
	}
	c.kubeVersionRules(rs, prefix)
	for _, list := range []struct {
		name string
		cs   []corev1.Container
	}{{"initContainers", spec.Template.Spec.InitContainers}, {"containers", spec.Template.Spec.Containers}} {
		for i, ctr := range list.cs {
			if ctr.Image != "" && !strings.Contains(ctr.Image, "@") {
				c.add(RuleImageNoDigest, SeverityInfo, prefix.Child("template", "spec", list.name).Index(i).Child("image").String(), fmt.Sprintf(
					"image %q of container %q has no digest: indexes started later or retried may run a different image if the tag moves", ctr.Image, ctr.Name))
			}
		}
	}
	if indexed && rs.Completions != nil && *rs.Completions == 1 {
		c.add(RuleSingleIndex, SeverityInfo, p("completions"), "an Indexed Job with completions 1 has a single index, 0")
	}
	if rs.Suspend != nil && *rs.Suspend && raw.Labels[kueue.QueueLabel] == "" {
		c.add(RuleSuspended, SeverityInfo, p("suspend"), "the Job is created suspended: no pod runs until suspend is set to false")
	}
}

func (c *checker) successPolicyRules(spec *batchv1.JobSpec, prefix *field.Path) {
	completions := *spec.Completions
	for i, r := range spec.SuccessPolicy.Rules {
		rp := prefix.Child("successPolicy", "rules").Index(i)
		if r.SucceededCount != nil && *r.SucceededCount == 0 {
			c.add(RuleSucceededCountZero, SeverityWarning, rp.Child("succeededCount").String(),
				"succeededCount is 0: the rule is met as soon as any one index succeeds, and the Job is then declared successful with the other indexes terminated")
			continue
		}
		need := int64(-1)
		switch {
		case r.SucceededIndexes != nil:
			total, err := indexes.ValidateFormat(*r.SucceededIndexes, completions)
			if err != nil || total == 0 {
				continue
			}
			need = int64(total)
			if r.SucceededCount != nil && int64(*r.SucceededCount) < need {
				need = int64(*r.SucceededCount)
			}
		case r.SucceededCount != nil:
			need = int64(*r.SucceededCount)
		}
		if need >= 0 && need < int64(completions) {
			c.add(RuleSuccessPartial, SeverityWarning, rp.String(), fmt.Sprintf(
				"rule %d declares the Job successful (Complete) once %d of its %d indexes succeeded: the other %d are terminated without counting as failed, so incomplete results pass as complete",
				i, need, completions, int64(completions)-need))
		}
	}
}

func (c *checker) disruptionRules(spec *batchv1.JobSpec, prefix *field.Path) {
	pfpPath := prefix.Child("podFailurePolicy")
	ignoreAt := -1
	if spec.PodFailurePolicy != nil {
		ignoreAt = slices.IndexFunc(spec.PodFailurePolicy.Rules, func(r batchv1.PodFailurePolicyRule) bool {
			return r.Action == batchv1.PodFailurePolicyActionIgnore && slices.ContainsFunc(r.OnPodConditions, func(pc batchv1.PodFailurePolicyOnPodConditionsPattern) bool {
				return pc.Type == corev1.DisruptionTarget && (pc.Status == corev1.ConditionTrue || pc.Status == "")
			})
		})
	}
	if ignoreAt < 0 {
		path := pfpPath.String()
		if spec.PodFailurePolicy == nil {
			path = prefix.String()
		}
		c.add(RuleNoDisruptionIgnore, SeverityWarning, path,
			"no podFailurePolicy rule ignores the DisruptionTarget condition: pods evicted or preempted (node drain, higher-priority work) count as failures and use up retries")
		return
	}
	for i := 0; i < ignoreAt; i++ {
		r := spec.PodFailurePolicy.Rules[i]
		if r.OnExitCodes == nil || r.Action == batchv1.PodFailurePolicyActionIgnore {
			continue
		}
		for _, code := range []int32{137, 143} {
			if jobpolicy.ExitCodeMatches(r.OnExitCodes, code) {
				c.add(RuleDisruptionShadowed, SeverityWarning, pfpPath.Child("rules").Index(i).String(), fmt.Sprintf(
					"rule %d (%s on exit code %d, the code of a killed container) comes before the Ignore rule for DisruptionTarget (rule %d): an evicted or preempted pod is matched by rule %d first", i, r.Action, code, ignoreAt, i))
				break
			}
		}
	}
}

func describeMatch(r batchv1.PodFailurePolicyRule) string {
	switch {
	case r.OnExitCodes != nil:
		vals := make([]string, len(r.OnExitCodes.Values))
		for i, v := range r.OnExitCodes.Values {
			vals[i] = strconv.Itoa(int(v))
		}
		who := "any container"
		if r.OnExitCodes.ContainerName != nil {
			who = fmt.Sprintf("container %q", *r.OnExitCodes.ContainerName)
		}
		op := "in"
		if r.OnExitCodes.Operator == batchv1.PodFailurePolicyOnExitCodesOpNotIn {
			op = "not in"
		}
		return fmt.Sprintf("exits from %s with a code %s [%s]", who, op, strings.Join(vals, ","))
	case len(r.OnPodConditions) > 0:
		types := make([]string, len(r.OnPodConditions))
		for i, pc := range r.OnPodConditions {
			types[i] = string(pc.Type)
		}
		return fmt.Sprintf("has the condition %s", strings.Join(types, " or "))
	}
	return "matches"
}

// kubeVersionRules flags fields the target Kubernetes version lacks.
func (c *checker) kubeVersionRules(rs *batchv1.JobSpec, prefix *field.Path) {
	type use struct {
		set  bool
		f    feature
		path *field.Path
	}
	uses := []use{
		{rs.CompletionMode != nil && *rs.CompletionMode == batchv1.IndexedCompletion, featIndexed, prefix.Child("completionMode")},
		{rs.Suspend != nil, featSuspend, prefix.Child("suspend")},
		{rs.PodFailurePolicy != nil, featPodFailurePolicy, prefix.Child("podFailurePolicy")},
		{rs.BackoffLimitPerIndex != nil, featPerIndex, prefix.Child("backoffLimitPerIndex")},
		{rs.MaxFailedIndexes != nil, featMaxFailedIndexes, prefix.Child("maxFailedIndexes")},
		{rs.PodReplacementPolicy != nil, featPodReplacement, prefix.Child("podReplacementPolicy")},
		{rs.SuccessPolicy != nil, featSuccessPolicy, prefix.Child("successPolicy")},
		{rs.ManagedBy != nil, featManagedBy, prefix.Child("managedBy")},
		{rs.Scheduling != nil, featScheduling, prefix.Child("scheduling")},
	}
	if rs.PodFailurePolicy != nil {
		for i, r := range rs.PodFailurePolicy.Rules {
			rule := prefix.Child("podFailurePolicy", "rules").Index(i)
			uses = append(uses, use{r.Action == batchv1.PodFailurePolicyActionFailIndex, featFailIndex, rule.Child("action")})
		}
	}
	for _, u := range uses {
		if !u.set {
			continue
		}
		if sev, msg := u.f.availability(c.opts.kubeVersion()); sev != "" {
			c.add(RuleKubeVersion, sev, u.path.String(), msg)
		}
	}
}

func humanSeconds(s int64) string {
	switch {
	case s == 0:
		return "immediately"
	case s < 120:
		return fmt.Sprintf("%d seconds", s)
	default:
		return fmt.Sprintf("%d minutes", s/60)
	}
}
