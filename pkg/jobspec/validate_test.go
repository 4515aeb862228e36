package jobspec

import (
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

func rule0(j *batchv1.Job) *batchv1.PodFailurePolicyRule { return &j.Spec.PodFailurePolicy.Rules[0] }

func TestSeedJobIsValid(t *testing.T) {
	if vs := ValidateJob(testutil.EvaluationJob()); len(vs) != 0 {
		t.Fatalf("the seed Job must be valid, got %v", vs)
	}
	d := Default(testutil.EvaluationJob())
	if *d.Spec.BackoffLimit != 2147483647 || *d.Spec.PodReplacementPolicy != batchv1.Failed {
		t.Errorf("defaulting: backoffLimit %d, podReplacementPolicy %s; want 2147483647 and Failed", *d.Spec.BackoffLimit, *d.Spec.PodReplacementPolicy)
	}
	if d.Spec.Template.Labels[batchv1.JobNameLabel] != "evaluation" || d.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] != string(PlaceholderUID) {
		t.Errorf("generated selector/labels: %v %v", d.Spec.Template.Labels, d.Spec.Selector)
	}
}

// The rendered errors of the v1.37.2 API server's Job validation, word for word.
func TestReferenceErrorStrings(t *testing.T) {
	succ := func(rules ...batchv1.SuccessPolicyRule) func(*batchv1.Job) {
		return func(j *batchv1.Job) { j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: rules} }
	}
	for _, tc := range []struct {
		name string
		mut  func(*batchv1.Job)
		want []string
		rule string
	}{
		{"negative backoffLimit", func(j *batchv1.Job) { j.Spec.BackoffLimit = ptr.To[int32](-1) },
			[]string{"spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"}, RuleNegativeValue},
		{"maxFailedIndexes without per-index", func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex = nil; j.Spec.PodFailurePolicy = nil },
			[]string{"spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"}, RuleMaxFailedIndexes},
		{"per-index on NonIndexed", func(j *batchv1.Job) { j.Spec.CompletionMode = nil },
			[]string{"spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode", "spec.maxFailedIndexes: Invalid value: 2: requires indexed completion mode"}, RulePerIndexNeedsIndexed},
		{"Indexed without completions", func(j *batchv1.Job) { j.Spec.Completions = nil },
			[]string{"spec.completions: Required value: when completion mode is Indexed"}, RuleIndexedCompletions},
		{"parallelism too high", func(j *batchv1.Job) { j.Spec.Parallelism = ptr.To[int32](100001) },
			[]string{"spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when completion mode is Indexed"}, RuleIndexedLimits},
		{"maxFailedIndexes above completions", func(j *batchv1.Job) { j.Spec.MaxFailedIndexes = ptr.To[int32](7) },
			[]string{"spec.maxFailedIndexes: Invalid value: 7: must be less than or equal to completions"}, RuleMaxFailedIndexes},
		{"maxFailedIndexes above 1e5", func(j *batchv1.Job) {
			j.Spec.Completions = ptr.To[int32](200000)
			j.Spec.MaxFailedIndexes = ptr.To[int32](100001)
		}, []string{"spec.maxFailedIndexes: Invalid value: 100001: must be less than or equal to 100000"}, RuleIndexedLimits},
		{"high completions, no maxFailedIndexes", func(j *batchv1.Job) {
			j.Spec.Completions = ptr.To[int32](100001)
			j.Spec.MaxFailedIndexes = nil
		}, []string{"spec.maxFailedIndexes: Required value: must be specified when completions is above 100000"}, RuleIndexedLimits},
		{"high completions, parallelism and maxFailedIndexes too high", func(j *batchv1.Job) {
			j.Spec.Completions = ptr.To[int32](100001)
			j.Spec.Parallelism = ptr.To[int32](20000)
			j.Spec.MaxFailedIndexes = ptr.To[int32](20000)
		}, []string{
			"spec.parallelism: Invalid value: 20000: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index",
			"spec.maxFailedIndexes: Invalid value: 20000: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index",
		}, RuleIndexedLimits},
		{"bad completionMode", func(j *batchv1.Job) { j.Spec.CompletionMode = ptr.To(batchv1.CompletionMode("X")) },
			[]string{`spec.completionMode: Unsupported value: "X": supported values: "NonIndexed", "Indexed"`}, RuleCompletionMode},
		{"managedBy format", func(j *batchv1.Job) { j.Spec.ManagedBy = ptr.To("foo") },
			[]string{`spec.managedBy: Invalid value: "foo": must be a domain-prefixed path (such as "acme.io/foo")`}, RuleManagedBy},
		{"managedBy length", func(j *batchv1.Job) { j.Spec.ManagedBy = ptr.To("acme.io/" + strings.Repeat("x", 60)) },
			[]string{"spec.managedBy: Too long: may not be more than 63 bytes"}, RuleManagedBy},
		{"name too long for its indexes", func(j *batchv1.Job) { j.Name = strings.Repeat("a", 62) },
			[]string{`metadata.name: Invalid value: "` + strings.Repeat("a", 62) + `": will not able to create pod with invalid DNS label: ` + strings.Repeat("a", 62) + "-5"}, RuleIndexHostname},
		{"FailIndex without per-index", func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex = nil; j.Spec.MaxFailedIndexes = nil },
			[]string{`spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set`}, RuleFailIndexNeedsPerIdx},
		{"action empty", func(j *batchv1.Job) { rule0(j).Action = "" },
			[]string{`spec.podFailurePolicy.rules[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]`}, RulePodFailurePolicy},
		{"action unknown", func(j *batchv1.Job) { rule0(j).Action = "Retry" },
			[]string{`spec.podFailurePolicy.rules[0].action: Unsupported value: "Retry": supported values: "Count", "FailIndex", "FailJob", "Ignore"`}, RulePodFailurePolicy},
		{"both requirements", func(j *batchv1.Job) {
			rule0(j).OnPodConditions = []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: "ConfigIssue"}}
		}, []string{"spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported"}, RulePodFailurePolicy},
		{"neither requirement", func(j *batchv1.Job) { rule0(j).OnExitCodes = nil },
			[]string{"spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required"}, RulePodFailurePolicy},
		{"operator empty", func(j *batchv1.Job) { rule0(j).OnExitCodes.Operator = "" },
			[]string{`spec.podFailurePolicy.rules[0].onExitCodes.operator: Required value: valid values: ["In" "NotIn"]`}, RulePodFailurePolicy},
		{"operator unknown", func(j *batchv1.Job) { rule0(j).OnExitCodes.Operator = "X" },
			[]string{`spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: "X": supported values: "In", "NotIn"`}, RulePodFailurePolicy},
		{"no values", func(j *batchv1.Job) { rule0(j).OnExitCodes.Values = []int32{} },
			[]string{"spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []: at least one value is required"}, RulePodFailurePolicy},
		{"256 values", func(j *batchv1.Job) {
			vals := make([]int32, 256)
			for i := range vals {
				vals[i] = int32(i + 1)
			}
			rule0(j).OnExitCodes.Values = vals
		}, []string{"spec.podFailurePolicy.rules[0].onExitCodes.values: Too many: 256: must have at most 255 items"}, RulePodFailurePolicy},
		{"zero with In, duplicates, disorder", func(j *batchv1.Job) { rule0(j).OnExitCodes.Values = []int32{0, 42, 3, 3} }, []string{
			"spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator",
			"spec.podFailurePolicy.rules[0].onExitCodes.values[3]: Duplicate value: 3",
			"spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [0,42,3,3]: must be ordered",
		}, RulePodFailurePolicy},
		{"containerName", func(j *batchv1.Job) { rule0(j).OnExitCodes.ContainerName = ptr.To("nope") },
			[]string{`spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "nope": must be one of the container or initContainer names in the pod template`}, RulePodFailurePolicy},
		{"onPodConditions status unknown", func(j *batchv1.Job) {
			*rule0(j) = batchv1.PodFailurePolicyRule{Action: "Ignore", OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget", Status: "X"}}}
		}, []string{`spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: "X": supported values: "False", "True", "Unknown"`}, RulePodFailurePolicy},
		{"21 patterns", func(j *batchv1.Job) {
			*rule0(j) = batchv1.PodFailurePolicyRule{Action: "Ignore", OnPodConditions: make([]batchv1.PodFailurePolicyOnPodConditionsPattern, 21)}
			for i := range rule0(j).OnPodConditions {
				rule0(j).OnPodConditions[i].Type = "DisruptionTarget"
			}
		}, []string{"spec.podFailurePolicy.rules[0].onPodConditions: Too many: 21: must have at most 20 items"}, RulePodFailurePolicy},
		{"21 rules", func(j *batchv1.Job) {
			for len(j.Spec.PodFailurePolicy.Rules) < 21 {
				j.Spec.PodFailurePolicy.Rules = append(j.Spec.PodFailurePolicy.Rules, *rule0(j))
			}
		}, []string{"spec.podFailurePolicy.rules: Too many: 21: must have at most 20 items"}, RulePodFailurePolicy},
		{"podReplacementPolicy with PFP", func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed) },
			[]string{`spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"`}, RulePodReplacementPolicy},
		{"podReplacementPolicy unknown", func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = nil
			j.Spec.PodReplacementPolicy = ptr.To(batchv1.PodReplacementPolicy("X"))
		}, []string{`spec.podReplacementPolicy: Unsupported value: "X": supported values: "Failed", "TerminatingOrFailed"`}, RulePodReplacementPolicy},
		{"restartPolicy empty", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "" },
			[]string{`spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`}, RuleRestartPolicy},
		{"restartPolicy unknown", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "X" },
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "X": supported values: "OnFailure", "Never"`}, RuleRestartPolicy},
		{"restartPolicy OnFailure with PFP", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure },
			[]string{`spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified`}, RuleRestartPolicy},
		{"successPolicy on NonIndexed", func(j *batchv1.Job) {
			j.Spec.CompletionMode, j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.PodFailurePolicy = nil, nil, nil, nil
			succ(batchv1.SuccessPolicyRule{SucceededIndexes: ptr.To("0")})(j)
		}, []string{`spec.successPolicy: Invalid value: {"Rules":[{"SucceededIndexes":"0","SucceededCount":null}]}: requires indexed completion mode`}, RuleSuccessPolicy},
		{"successPolicy without rules", succ(),
			[]string{"spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified"}, RuleSuccessPolicy},
		{"empty rule", succ(batchv1.SuccessPolicyRule{}),
			[]string{"spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified"}, RuleSuccessPolicy},
		{"indexes out of order, count above the (zero) total", succ(batchv1.SuccessPolicyRule{SucceededIndexes: ptr.To("3,1"), SucceededCount: ptr.To[int32](1)}), []string{
			`spec.successPolicy.rules[0].succeededIndexes: Invalid value: "3,1": error parsing succeededIndexes: non-increasing order, previous: 3, current: 1`,
			"spec.successPolicy.rules[0].succeededCount: Invalid value: 1: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)",
		}, RuleSuccessPolicy},
		{"index too large", succ(batchv1.SuccessPolicyRule{SucceededIndexes: ptr.To("7")}),
			[]string{`spec.successPolicy.rules[0].succeededIndexes: Invalid value: "7": error parsing succeededIndexes: too large index: "7"`}, RuleSuccessPolicy},
		{"not a number", succ(batchv1.SuccessPolicyRule{SucceededIndexes: ptr.To("x")}),
			[]string{`spec.successPolicy.rules[0].succeededIndexes: Invalid value: "x": error parsing succeededIndexes: cannot convert string to integer for index: "x"`}, RuleSuccessPolicy},
		{"three parts", succ(batchv1.SuccessPolicyRule{SucceededIndexes: ptr.To("1-2-3")}),
			[]string{`spec.successPolicy.rules[0].succeededIndexes: Invalid value: "1-2-3": error parsing succeededIndexes: the fragment "1-2-3" violates the requirement that an index interval can have at most two parts separated by '-'`}, RuleSuccessPolicy},
		{"count above completions", succ(batchv1.SuccessPolicyRule{SucceededCount: ptr.To[int32](7)}),
			[]string{"spec.successPolicy.rules[0].succeededCount: Invalid value: 7: must be less than or equal to 6 (the number of specified completions)"}, RuleSuccessPolicy},
		{"count above the indexes", succ(batchv1.SuccessPolicyRule{SucceededIndexes: ptr.To("0-2"), SucceededCount: ptr.To[int32](4)}),
			[]string{"spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 3 (the number of indexes in the specified succeededIndexes field)"}, RuleSuccessPolicy},
		{"negative count", succ(batchv1.SuccessPolicyRule{SucceededCount: ptr.To[int32](-1)}),
			[]string{"spec.successPolicy.rules[0].succeededCount: Invalid value: -1: must be greater than or equal to 0"}, RuleNegativeValue},
		{"manual selector missing", func(j *batchv1.Job) { j.Spec.ManualSelector = ptr.To(true) },
			[]string{"spec.selector: Required value"}, RuleSelector},
		{"the crash", func(j *batchv1.Job) {
			j.Spec.Completions = nil
			succ(batchv1.SuccessPolicyRule{SucceededCount: ptr.To[int32](1)})(j)
		}, []string{"spec.completions: Required value: when completion mode is Indexed and successPolicy is set"}, RuleSuccessPolicyCrash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := ValidateJob(testutil.EvaluationJob(tc.mut))
			var got []string
			for _, v := range vs {
				got = append(got, v.Message())
			}
			for _, w := range tc.want {
				i := slices.IndexFunc(vs, func(v Violation) bool { return strings.HasPrefix(v.Message(), w) })
				if i < 0 {
					t.Errorf("want %q\ngot  %q", w, got)
					continue
				}
				if vs[i].Rule != tc.rule {
					t.Errorf("%q: rule %s, want %s", w, vs[i].Rule, tc.rule)
				}
			}
		})
	}
}

// The v1.37 defaulting turns an empty onPodConditions status into True, so the server never
// answers the "status: Required value" error its validation code has for it.
func TestEmptyConditionStatusIsDefaulted(t *testing.T) {
	j := testutil.EvaluationJob(func(j *batchv1.Job) {
		*rule0(j) = batchv1.PodFailurePolicyRule{Action: "Ignore", OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget"}}}
	})
	if vs := ValidateJob(j); len(vs) != 0 {
		t.Errorf("empty status must be defaulted to True and accepted, got %v", vs)
	}
}

func TestCronJobTemplateCrashesWithoutJobDefaults(t *testing.T) {
	spec := testutil.EvaluationJob().Spec
	spec.Completions, spec.Parallelism, spec.MaxFailedIndexes = nil, nil, nil
	spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededCount: ptr.To[int32](1)}}}
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly"}, Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: spec}}}
	found := false
	for _, v := range ValidateCronJob(cj) {
		if v.Rule == RuleSuccessPolicyCrash && v.Err.Field == "spec.jobTemplate.spec.completions" {
			found = true
		}
	}
	if !found {
		t.Errorf("a CronJob template gets no Job defaults: neither completions nor parallelism still crashes the server; got %v", ValidateCronJob(cj))
	}
	// The same spec in a Job is defaulted to 1/1 and accepted.
	j := testutil.EvaluationJob(func(j *batchv1.Job) { j.Spec = spec })
	if vs := ValidateJob(j); len(vs) != 0 {
		t.Errorf("as a Job it is accepted, got %v", vs)
	}
}
