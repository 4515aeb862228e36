package jobdiff

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// holdsRule says when a difference holds now.
type holdsRule int

const (
	holdsAlways   holdsRule = iota // Live
	holdsNever                     // NewJob, or a condition that is false in every state
	holdsTemplate                  // the template rule: only while suspended and mutable
)

// want is one expected difference.
type want struct {
	path   string
	change Change
	class  Class
	holds  holdsRule
}

// fieldCase is one row of the mutability table in one direction: the manifest the live Job was
// created from (live) and the desired manifest (desired), and the differences expected.
type fieldCase struct {
	field   string // the row of the mutability table
	dir     string // set, unset or change (of the manifest field)
	live    func(*batchv1.Job)
	desired func(*batchv1.Job)
	want    []want
	// keepSuspend: the case is about spec.suspend; otherwise the desired Job is given the
	// live Job's suspend flag so that only the field under test differs.
	keepSuspend bool
	// states to run the case in; all when empty.
	states []liveState
}

func setLabels(l map[string]string) func(*batchv1.Job) {
	return func(j *batchv1.Job) { j.Labels = l }
}

func explicitJobLabels(j *batchv1.Job) { j.Labels = map[string]string{"app": "eval"} }

func chain(fs ...func(*batchv1.Job)) func(*batchv1.Job) {
	return func(j *batchv1.Job) {
		for _, f := range fs {
			if f != nil {
				f(j)
			}
		}
	}
}

func nonIndexed(j *batchv1.Job) {
	j.Spec.CompletionMode = nil
	j.Spec.BackoffLimitPerIndex = nil
	j.Spec.MaxFailedIndexes = nil
}

func noPerIndex(j *batchv1.Job) {
	j.Spec.BackoffLimitPerIndex = nil
	j.Spec.MaxFailedIndexes = nil
	j.Spec.BackoffLimit = ptrTo[int32](math.MaxInt32)
}

func pfp(code int32) func(*batchv1.Job) {
	return func(j *batchv1.Job) {
		j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
			Action:      batchv1.PodFailurePolicyActionFailIndex,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptrTo("worker"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{code}},
		}}}
		j.Spec.PodReplacementPolicy = ptrTo(batchv1.Failed)
	}
}

func successPolicy(idx string) func(*batchv1.Job) {
	return func(j *batchv1.Job) {
		j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptrTo(idx)}}}
	}
}

func withInit(j *batchv1.Job) {
	j.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "fetch", Image: "busybox:1.36",
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}}}
}

func nodeAffinity(zone string) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
			Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}}}
}

const (
	pWorker    = "spec.template.spec.containers[name=worker]"
	pTmplMeta  = "spec.template.metadata"
	pTmplSpec  = "spec.template.spec"
	pNodeAff   = "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
	annoteNote = "note"
)

func fieldCases() []fieldCase {
	set := ChangeSet
	unset := ChangeUnset
	mod := ChangeModify
	return []fieldCase{
		// metadata: Live.
		{field: "metadata.labels", dir: "set", desired: setLabels(map[string]string{"app": "eval", "team": "a"}),
			want: []want{{"metadata.labels.team", set, ClassLive, holdsAlways}}},
		{field: "metadata.labels", dir: "unset", live: setLabels(map[string]string{"app": "eval", "team": "a"}),
			want: []want{{"metadata.labels.team", unset, ClassLive, holdsAlways}}},
		{field: "metadata.labels", dir: "change", live: setLabels(map[string]string{"app": "eval", "team": "a"}), desired: setLabels(map[string]string{"app": "eval", "team": "b"}),
			want: []want{{"metadata.labels.team", mod, ClassLive, holdsAlways}}},
		{field: "metadata.annotations", dir: "set", desired: func(j *batchv1.Job) { j.Annotations = map[string]string{annoteNote: "x"} },
			want: []want{{"metadata.annotations.note", set, ClassLive, holdsAlways}}},
		{field: "metadata.annotations", dir: "unset", live: func(j *batchv1.Job) { j.Annotations = map[string]string{annoteNote: "x"} },
			want: []want{{"metadata.annotations.note", unset, ClassLive, holdsAlways}}},
		{field: "metadata.annotations", dir: "change", live: func(j *batchv1.Job) { j.Annotations = map[string]string{"example.com/note": "x"} },
			desired: func(j *batchv1.Job) { j.Annotations = map[string]string{"example.com/note": "y"} },
			want:    []want{{`metadata.annotations["example.com/note"]`, mod, ClassLive, holdsAlways}}},

		// spec.parallelism: Live.
		{field: "spec.parallelism", dir: "set", live: func(j *batchv1.Job) { j.Spec.Parallelism = nil }, // defaulted to 1
			want: []want{{"spec.parallelism", mod, ClassLive, holdsAlways}}},
		{field: "spec.parallelism", dir: "unset", desired: func(j *batchv1.Job) { j.Spec.Parallelism = nil },
			want: []want{{"spec.parallelism", mod, ClassLive, holdsAlways}}},
		{field: "spec.parallelism", dir: "change", desired: func(j *batchv1.Job) { j.Spec.Parallelism = ptrTo[int32](4) },
			want: []want{{"spec.parallelism", mod, ClassLive, holdsAlways}}},

		// spec.completions.
		{field: "spec.completions (Indexed)", dir: "change in tandem", desired: func(j *batchv1.Job) { j.Spec.Completions, j.Spec.Parallelism = ptrTo[int32](4), ptrTo[int32](4) },
			want: []want{{"spec.completions", mod, ClassConditional, holdsAlways}, {"spec.parallelism", mod, ClassLive, holdsAlways}}},
		{field: "spec.completions (Indexed)", dir: "change alone", desired: func(j *batchv1.Job) { j.Spec.Completions = ptrTo[int32](8) },
			want: []want{{"spec.completions", mod, ClassConditional, holdsNever}}},
		{field: "spec.completions (Indexed)", dir: "unset", desired: chain(nonIndexed, func(j *batchv1.Job) { j.Spec.Completions = nil }),
			want: []want{{"spec.backoffLimit", mod, ClassLive, holdsAlways}, {"spec.backoffLimitPerIndex", unset, ClassNewJob, holdsNever},
				{"spec.completionMode", mod, ClassNewJob, holdsNever}, {"spec.completions", unset, ClassNewJob, holdsNever},
				{"spec.maxFailedIndexes", unset, ClassLive, holdsAlways}}},
		{field: "spec.completions (NonIndexed)", dir: "change", live: nonIndexed, desired: chain(nonIndexed, func(j *batchv1.Job) { j.Spec.Completions = ptrTo[int32](8) }),
			want: []want{{"spec.completions", mod, ClassNewJob, holdsNever}}},
		{field: "spec.completions (NonIndexed)", dir: "set", live: chain(nonIndexed, func(j *batchv1.Job) { j.Spec.Completions = nil }), desired: nonIndexed,
			want: []want{{"spec.completions", set, ClassNewJob, holdsNever}}},
		{field: "spec.completions (NonIndexed)", dir: "unset", live: nonIndexed, desired: chain(nonIndexed, func(j *batchv1.Job) { j.Spec.Completions = nil }),
			want: []want{{"spec.completions", unset, ClassNewJob, holdsNever}}},

		// spec.activeDeadlineSeconds: Live.
		{field: "spec.activeDeadlineSeconds", dir: "set", desired: func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptrTo[int64](3600) },
			want: []want{{"spec.activeDeadlineSeconds", set, ClassLive, holdsAlways}}},
		{field: "spec.activeDeadlineSeconds", dir: "unset", live: func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptrTo[int64](3600) },
			want: []want{{"spec.activeDeadlineSeconds", unset, ClassLive, holdsAlways}}},
		{field: "spec.activeDeadlineSeconds", dir: "change", live: func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptrTo[int64](3600) },
			desired: func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptrTo[int64](7200) },
			want:    []want{{"spec.activeDeadlineSeconds", mod, ClassLive, holdsAlways}}},

		// spec.backoffLimit: Live (defaulted, so set and unset are changes from or to the default).
		{field: "spec.backoffLimit", dir: "set", desired: func(j *batchv1.Job) { j.Spec.BackoffLimit = ptrTo[int32](3) },
			want: []want{{"spec.backoffLimit", mod, ClassLive, holdsAlways}}},
		{field: "spec.backoffLimit", dir: "unset", live: func(j *batchv1.Job) { j.Spec.BackoffLimit = ptrTo[int32](3) },
			want: []want{{"spec.backoffLimit", mod, ClassLive, holdsAlways}}},
		{field: "spec.backoffLimit", dir: "change", live: func(j *batchv1.Job) { j.Spec.BackoffLimit = ptrTo[int32](3) },
			desired: func(j *batchv1.Job) { j.Spec.BackoffLimit = ptrTo[int32](4) },
			want:    []want{{"spec.backoffLimit", mod, ClassLive, holdsAlways}}},

		// spec.backoffLimitPerIndex: NewJob in every direction.
		{field: "spec.backoffLimitPerIndex", dir: "set", live: noPerIndex, desired: func(j *batchv1.Job) { j.Spec.MaxFailedIndexes = nil },
			want: []want{{"spec.backoffLimitPerIndex", set, ClassNewJob, holdsNever}}},
		{field: "spec.backoffLimitPerIndex", dir: "unset", live: func(j *batchv1.Job) { j.Spec.MaxFailedIndexes = nil }, desired: noPerIndex,
			want: []want{{"spec.backoffLimitPerIndex", unset, ClassNewJob, holdsNever}}},
		{field: "spec.backoffLimitPerIndex", dir: "change", desired: func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex = ptrTo[int32](2) },
			want: []want{{"spec.backoffLimitPerIndex", mod, ClassNewJob, holdsNever}}},

		// spec.maxFailedIndexes: Live with per-index on the live Job.
		{field: "spec.maxFailedIndexes", dir: "set", live: func(j *batchv1.Job) { j.Spec.MaxFailedIndexes = nil },
			want: []want{{"spec.maxFailedIndexes", set, ClassLive, holdsAlways}}},
		{field: "spec.maxFailedIndexes", dir: "unset", desired: func(j *batchv1.Job) { j.Spec.MaxFailedIndexes = nil },
			want: []want{{"spec.maxFailedIndexes", unset, ClassLive, holdsAlways}}},
		{field: "spec.maxFailedIndexes", dir: "change", desired: func(j *batchv1.Job) { j.Spec.MaxFailedIndexes = ptrTo[int32](4) },
			want: []want{{"spec.maxFailedIndexes", mod, ClassLive, holdsAlways}}},
		{field: "spec.maxFailedIndexes", dir: "change above completions, in tandem",
			desired: func(j *batchv1.Job) {
				j.Spec.Completions, j.Spec.Parallelism, j.Spec.MaxFailedIndexes = ptrTo[int32](8), ptrTo[int32](8), ptrTo[int32](7)
			},
			want: []want{{"spec.completions", mod, ClassConditional, holdsAlways}, {"spec.maxFailedIndexes", mod, ClassLive, holdsAlways}, {"spec.parallelism", mod, ClassLive, holdsAlways}}},
		{field: "spec.maxFailedIndexes", dir: "change above completions, not in tandem",
			desired: func(j *batchv1.Job) { j.Spec.Completions, j.Spec.MaxFailedIndexes = ptrTo[int32](8), ptrTo[int32](7) },
			want:    []want{{"spec.completions", mod, ClassConditional, holdsNever}, {"spec.maxFailedIndexes", mod, ClassConditional, holdsNever}}},
		{field: "spec.maxFailedIndexes", dir: "set without per-index on the live Job (the seed's fix)",
			live: func(j *batchv1.Job) {
				j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.BackoffLimit = nil, nil, ptrTo[int32](2)
			},
			want: []want{{"spec.backoffLimit", mod, ClassLive, holdsAlways}, {"spec.backoffLimitPerIndex", set, ClassNewJob, holdsNever},
				{"spec.maxFailedIndexes", set, ClassNewJob, holdsNever}}},

		// spec.podFailurePolicy: NewJob.
		{field: "spec.podFailurePolicy", dir: "set", live: func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptrTo(batchv1.Failed) }, desired: pfp(42),
			want: []want{{"spec.podFailurePolicy", set, ClassNewJob, holdsNever}}},
		{field: "spec.podFailurePolicy", dir: "set (podReplacementPolicy default follows)", desired: chain(pfp(42), func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = nil }),
			want: []want{{"spec.podFailurePolicy", set, ClassNewJob, holdsNever}, {"spec.podReplacementPolicy", mod, ClassLive, holdsAlways}}},
		{field: "spec.podFailurePolicy", dir: "unset", live: pfp(42), desired: func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptrTo(batchv1.Failed) },
			want: []want{{"spec.podFailurePolicy", unset, ClassNewJob, holdsNever}}},
		{field: "spec.podFailurePolicy", dir: "change", live: pfp(42), desired: pfp(43),
			want: []want{{"spec.podFailurePolicy", mod, ClassNewJob, holdsNever}}},

		// spec.successPolicy: NewJob.
		{field: "spec.successPolicy", dir: "set", desired: successPolicy("0"),
			want: []want{{"spec.successPolicy", set, ClassNewJob, holdsNever}}},
		{field: "spec.successPolicy", dir: "unset", live: successPolicy("0"),
			want: []want{{"spec.successPolicy", unset, ClassNewJob, holdsNever}}},
		{field: "spec.successPolicy", dir: "change", live: successPolicy("0"), desired: successPolicy("0-1"),
			want: []want{{"spec.successPolicy", mod, ClassNewJob, holdsNever}}},

		// spec.managedBy: NewJob.
		{field: "spec.managedBy", dir: "set", desired: func(j *batchv1.Job) { j.Spec.ManagedBy = ptrTo("example.com/batch") },
			want: []want{{"spec.managedBy", set, ClassNewJob, holdsNever}}},
		{field: "spec.managedBy", dir: "unset", live: func(j *batchv1.Job) { j.Spec.ManagedBy = ptrTo(batchv1.JobControllerName) },
			want: []want{{"spec.managedBy", unset, ClassNewJob, holdsNever}}},
		{field: "spec.managedBy", dir: "change", live: func(j *batchv1.Job) { j.Spec.ManagedBy = ptrTo(batchv1.JobControllerName) },
			desired: func(j *batchv1.Job) { j.Spec.ManagedBy = ptrTo("example.com/batch") },
			want:    []want{{"spec.managedBy", mod, ClassNewJob, holdsNever}}},

		// spec.completionMode: NewJob.
		{field: "spec.completionMode", dir: "set", live: nonIndexed, desired: func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = nil, nil },
			want: []want{{"spec.completionMode", mod, ClassNewJob, holdsNever}}},
		{field: "spec.completionMode", dir: "unset", live: func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = nil, nil }, desired: nonIndexed,
			want: []want{{"spec.completionMode", mod, ClassNewJob, holdsNever}}},

		// spec.suspend: Live.
		{field: "spec.suspend", dir: "set", keepSuspend: true, states: []liveState{stRunning, stFailing, stComplete, stFailed}, desired: func(j *batchv1.Job) { j.Spec.Suspend = ptrTo(true) },
			want: []want{{"spec.suspend", mod, ClassLive, holdsAlways}}},
		{field: "spec.suspend", dir: "unset", keepSuspend: true, live: func(j *batchv1.Job) { j.Spec.Suspend = ptrTo(true) },
			want: []want{{"spec.suspend", mod, ClassLive, holdsAlways}}},

		// spec.ttlSecondsAfterFinished: Live.
		{field: "spec.ttlSecondsAfterFinished", dir: "set", desired: func(j *batchv1.Job) { j.Spec.TTLSecondsAfterFinished = ptrTo[int32](86400) },
			want: []want{{"spec.ttlSecondsAfterFinished", set, ClassLive, holdsAlways}}},
		{field: "spec.ttlSecondsAfterFinished", dir: "unset", live: func(j *batchv1.Job) { j.Spec.TTLSecondsAfterFinished = ptrTo[int32](86400) },
			want: []want{{"spec.ttlSecondsAfterFinished", unset, ClassLive, holdsAlways}}},
		{field: "spec.ttlSecondsAfterFinished", dir: "change", live: func(j *batchv1.Job) { j.Spec.TTLSecondsAfterFinished = ptrTo[int32](86400) },
			desired: func(j *batchv1.Job) { j.Spec.TTLSecondsAfterFinished = ptrTo[int32](3600) },
			want:    []want{{"spec.ttlSecondsAfterFinished", mod, ClassLive, holdsAlways}}},

		// spec.podReplacementPolicy: Live, except away from Failed on a Job with a podFailurePolicy.
		{field: "spec.podReplacementPolicy", dir: "set", desired: func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptrTo(batchv1.Failed) },
			want: []want{{"spec.podReplacementPolicy", mod, ClassLive, holdsAlways}}},
		{field: "spec.podReplacementPolicy", dir: "unset", live: func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptrTo(batchv1.Failed) },
			want: []want{{"spec.podReplacementPolicy", mod, ClassLive, holdsAlways}}},
		{field: "spec.podReplacementPolicy", dir: "change with a podFailurePolicy", live: pfp(42),
			desired: chain(pfp(42), func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptrTo(batchv1.TerminatingOrFailed) }),
			want:    []want{{"spec.podReplacementPolicy", mod, ClassNewJob, holdsNever}}},

		// spec.manualSelector and spec.selector.
		{field: "spec.manualSelector", dir: "set", desired: func(j *batchv1.Job) {
			j.Spec.ManualSelector = ptrTo(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": string(testUID)}}
		}, want: []want{{"spec.manualSelector", mod, ClassLive, holdsAlways}}},
		{field: "spec.selector", dir: "set", desired: func(j *batchv1.Job) {
			j.Spec.ManualSelector = ptrTo(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "eval"}}
		}, want: []want{{"spec.manualSelector", mod, ClassLive, holdsAlways}, {"spec.selector", mod, ClassNewJob, holdsNever}}},
		{field: "spec.selector", dir: "change", live: func(j *batchv1.Job) {
			j.Spec.ManualSelector = ptrTo(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "eval"}}
		}, desired: func(j *batchv1.Job) {
			j.Spec.ManualSelector = ptrTo(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"eval"}}}}
		}, want: []want{{"spec.selector", mod, ClassNewJob, holdsNever}}},
		{field: "spec.selector", dir: "unset (the desired Job lets the server generate it: not compared)", live: func(j *batchv1.Job) {
			j.Spec.ManualSelector = ptrTo(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "eval"}}
		}, want: []want{{"spec.manualSelector", mod, ClassLive, holdsAlways}}},
		{field: "spec.manualSelector", dir: "unset", live: func(j *batchv1.Job) {
			j.Spec.ManualSelector = ptrTo(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "eval"}}
		}, want: []want{{"spec.manualSelector", mod, ClassLive, holdsAlways}}},
		{field: "spec.manualSelector", dir: "change", live: func(j *batchv1.Job) {
			j.Spec.ManualSelector = ptrTo(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "eval"}}
		}, desired: func(j *batchv1.Job) { j.Spec.ManualSelector = ptrTo(false) },
			want: []want{{"spec.manualSelector", mod, ClassLive, holdsAlways}}},

		// The pod template: Conditional for the parts that may change while suspended.
		{field: "spec.template.metadata", dir: "set label", live: explicitJobLabels,
			desired: chain(explicitJobLabels, func(j *batchv1.Job) { j.Spec.Template.Labels["team"] = "a" }),
			want:    []want{{pTmplMeta + ".labels.team", set, ClassConditional, holdsTemplate}}},
		{field: "spec.template.metadata", dir: "unset label", live: chain(explicitJobLabels, func(j *batchv1.Job) { j.Spec.Template.Labels["team"] = "a" }),
			desired: explicitJobLabels,
			want:    []want{{pTmplMeta + ".labels.team", unset, ClassConditional, holdsTemplate}}},
		{field: "spec.template.metadata", dir: "change label", live: explicitJobLabels,
			desired: chain(explicitJobLabels, func(j *batchv1.Job) { j.Spec.Template.Labels["app"] = "eval2" }),
			want:    []want{{pTmplMeta + ".labels.app", mod, ClassConditional, holdsTemplate}}},
		{field: "spec.template.metadata", dir: "set label, Job labels follow", desired: func(j *batchv1.Job) { j.Spec.Template.Labels["team"] = "a" },
			want: []want{{"metadata.labels.team", set, ClassLive, holdsAlways}, {pTmplMeta + ".labels.team", set, ClassConditional, holdsTemplate}}},
		{field: "spec.template.metadata", dir: "set annotation", desired: func(j *batchv1.Job) { j.Spec.Template.Annotations = map[string]string{annoteNote: "x"} },
			want: []want{{pTmplMeta + ".annotations.note", set, ClassConditional, holdsTemplate}}},
		{field: "spec.template.metadata", dir: "unset annotation", live: func(j *batchv1.Job) { j.Spec.Template.Annotations = map[string]string{annoteNote: "x"} },
			want: []want{{pTmplMeta + ".annotations.note", unset, ClassConditional, holdsTemplate}}},
		{field: "spec.template.metadata", dir: "change annotation", live: func(j *batchv1.Job) { j.Spec.Template.Annotations = map[string]string{annoteNote: "x"} },
			desired: func(j *batchv1.Job) { j.Spec.Template.Annotations = map[string]string{annoteNote: "y"} },
			want:    []want{{pTmplMeta + ".annotations.note", mod, ClassConditional, holdsTemplate}}},

		{field: "spec.template.spec.containers[].resources", dir: "set", desired: func(j *batchv1.Job) {
			worker(j).Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}
		}, want: []want{{pWorker + ".resources.limits.memory", set, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.containers[].resources", dir: "unset", desired: func(j *batchv1.Job) { worker(j).Resources = corev1.ResourceRequirements{} },
			want: []want{{pWorker + ".resources.requests.cpu", unset, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.containers[].resources", dir: "change", desired: func(j *batchv1.Job) {
			worker(j).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
		}, want: []want{{pWorker + ".resources.requests.cpu", mod, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.initContainers[].resources", dir: "set", live: withInit, desired: chain(withInit, func(j *batchv1.Job) {
			j.Spec.Template.Spec.InitContainers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")}
		}), want: []want{{pTmplSpec + ".initContainers[name=fetch].resources.limits.memory", set, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.initContainers[].resources", dir: "unset", live: withInit, desired: chain(withInit, func(j *batchv1.Job) {
			j.Spec.Template.Spec.InitContainers[0].Resources = corev1.ResourceRequirements{}
		}), want: []want{{pTmplSpec + ".initContainers[name=fetch].resources.requests.memory", unset, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.initContainers[].resources", dir: "change", live: withInit, desired: chain(withInit, func(j *batchv1.Job) {
			j.Spec.Template.Spec.InitContainers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("128Mi")
		}), want: []want{{pTmplSpec + ".initContainers[name=fetch].resources.requests.memory", mod, ClassConditional, holdsTemplate}}},

		{field: "spec.template.spec.nodeSelector", dir: "set", desired: func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"} },
			want: []want{{pTmplSpec + ".nodeSelector.disk", set, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.nodeSelector", dir: "unset", live: func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"} },
			want: []want{{pTmplSpec + ".nodeSelector.disk", unset, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.nodeSelector", dir: "change", live: func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "ssd"} },
			desired: func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"disk": "hdd"} },
			want:    []want{{pTmplSpec + ".nodeSelector.disk", mod, ClassConditional, holdsTemplate}}},

		{field: "spec.template.spec.tolerations", dir: "set", desired: func(j *batchv1.Job) {
			j.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}}
		}, want: []want{{pTmplSpec + ".tolerations", set, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.tolerations", dir: "unset", live: func(j *batchv1.Job) {
			j.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}}
		}, want: []want{{pTmplSpec + ".tolerations", unset, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.tolerations", dir: "change", live: func(j *batchv1.Job) {
			j.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}}
		}, desired: func(j *batchv1.Job) {
			j.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpEqual, Value: "a100"}}
		}, want: []want{{pTmplSpec + ".tolerations", mod, ClassConditional, holdsTemplate}}},

		{field: "spec.template.spec.schedulingGates", dir: "set", desired: func(j *batchv1.Job) {
			j.Spec.Template.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
		}, want: []want{{pTmplSpec + ".schedulingGates", set, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.schedulingGates", dir: "unset", live: func(j *batchv1.Job) {
			j.Spec.Template.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
		}, want: []want{{pTmplSpec + ".schedulingGates", unset, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.schedulingGates", dir: "change", live: func(j *batchv1.Job) {
			j.Spec.Template.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
		}, desired: func(j *batchv1.Job) {
			j.Spec.Template.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/admission"}}
		}, want: []want{{pTmplSpec + ".schedulingGates", mod, ClassConditional, holdsTemplate}}},

		{field: "spec.template.spec.affinity.nodeAffinity", dir: "set", desired: func(j *batchv1.Job) { j.Spec.Template.Spec.Affinity = nodeAffinity("a") },
			want: []want{{pNodeAff + ".nodeSelectorTerms", set, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.affinity.nodeAffinity", dir: "unset", live: func(j *batchv1.Job) { j.Spec.Template.Spec.Affinity = nodeAffinity("a") },
			want: []want{{pNodeAff + ".nodeSelectorTerms", unset, ClassConditional, holdsTemplate}}},
		{field: "spec.template.spec.affinity.nodeAffinity", dir: "change", live: func(j *batchv1.Job) { j.Spec.Template.Spec.Affinity = nodeAffinity("a") },
			desired: func(j *batchv1.Job) { j.Spec.Template.Spec.Affinity = nodeAffinity("b") },
			want:    []want{{pNodeAff + ".nodeSelectorTerms", mod, ClassConditional, holdsTemplate}}},

		// The rest of the pod template: NewJob.
		{field: "spec.template (anything else)", dir: "set podAffinity", desired: func(j *batchv1.Job) {
			j.Spec.Template.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "zone"}}}}}
		}, want: []want{{pTmplSpec + ".affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution", set, ClassNewJob, holdsNever}}},
		{field: "spec.template (anything else)", dir: "change image", desired: func(j *batchv1.Job) { worker(j).Image = "busybox:1.37" },
			want: []want{{pWorker + ".image", mod, ClassNewJob, holdsNever}}},
		{field: "spec.template (anything else)", dir: "change command", desired: func(j *batchv1.Job) { worker(j).Command = []string{"run-shard"} },
			want: []want{{pWorker + ".command", mod, ClassNewJob, holdsNever}}},
		{field: "spec.template (anything else)", dir: "set env", desired: func(j *batchv1.Job) { worker(j).Env = []corev1.EnvVar{{Name: "SHARDS", Value: "6"}} },
			want: []want{{pWorker + ".env", set, ClassNewJob, holdsNever}}},
		{field: "spec.template (anything else)", dir: "change env value", live: func(j *batchv1.Job) { worker(j).Env = []corev1.EnvVar{{Name: "SHARDS", Value: "6"}} },
			desired: func(j *batchv1.Job) { worker(j).Env = []corev1.EnvVar{{Name: "SHARDS", Value: "8"}} },
			want:    []want{{pWorker + ".env[name=SHARDS].value", mod, ClassNewJob, holdsNever}}},
		{field: "spec.template (anything else)", dir: "add a container", desired: func(j *batchv1.Job) {
			j.Spec.Template.Spec.Containers = append(j.Spec.Template.Spec.Containers, corev1.Container{Name: "sidecar", Image: "busybox:1.36"})
		}, want: []want{{pTmplSpec + ".containers", mod, ClassNewJob, holdsNever}}},
		{field: "spec.template (anything else)", dir: "change restartPolicy", desired: func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure },
			want: []want{{pTmplSpec + ".restartPolicy", mod, ClassNewJob, holdsNever}}},
		{field: "spec.template (anything else)", dir: "set pod-level resources", desired: func(j *batchv1.Job) {
			j.Spec.Template.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}
		}, want: []want{{pTmplSpec + ".resources.limits.cpu", set, ClassNewJob, holdsNever}}},
		{field: "spec.template (anything else)", dir: "set serviceAccountName", desired: func(j *batchv1.Job) { j.Spec.Template.Spec.ServiceAccountName = "runner" },
			want: []want{{pTmplSpec + ".serviceAccount", set, ClassNewJob, holdsNever}, {pTmplSpec + ".serviceAccountName", set, ClassNewJob, holdsNever}}},
		{field: "spec.template (anything else)", dir: "unset terminationGracePeriodSeconds", live: func(j *batchv1.Job) { j.Spec.Template.Spec.TerminationGracePeriodSeconds = ptrTo[int64](5) },
			want: []want{{pTmplSpec + ".terminationGracePeriodSeconds", mod, ClassNewJob, holdsNever}}},
	}
}

func (w want) holdsIn(st liveState) bool {
	switch w.holds {
	case holdsAlways:
		return true
	case holdsTemplate:
		return st == stSuspended || st == stSuspendedStarted
	}
	return false
}

// TestMutabilityTable runs every row of the mutability table, in each direction, against a
// live Job in each state, and checks the differences found and their classification.
func TestMutabilityTable(t *testing.T) {
	perClass := map[Class]int{}
	for _, fc := range fieldCases() {
		states := fc.states
		if len(states) == 0 {
			states = allStates
		}
		for _, st := range states {
			name := fmt.Sprintf("%s/%s/%s", fc.field, fc.dir, st)
			t.Run(name, func(t *testing.T) {
				live := liveJob(st, fc.live)
				desired := desiredJob(fc.desired)
				if !fc.keepSuspend {
					desired.Spec.Suspend = live.Spec.Suspend
				}
				r, err := Diff(live, desired, Options{Now: testNow})
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]Difference{}
				for _, d := range r.Differences {
					got[d.Path] = d
				}
				if len(got) != len(fc.want) {
					t.Errorf("got %d differences %v, want %d", len(got), pathsOf(r.Differences), len(fc.want))
				}
				for _, w := range fc.want {
					d, ok := got[w.path]
					if !ok {
						t.Errorf("no difference at %s; got %v", w.path, pathsOf(r.Differences))
						continue
					}
					wantClass := w.class
					// A finished Job (Complete or Failed) is never synced again and its
					// terminal condition cannot be removed (job-semantics §2.3): a
					// conditional change can never take effect, only a new Job has it
					// (one the server takes now stays Conditional, holding now).
					if wantClass == ClassConditional && !w.holdsIn(st) && (st == stComplete || st == stFailed) {
						wantClass = ClassNewJob
					}
					perClass[wantClass]++
					if d.Change != w.change {
						t.Errorf("%s: change %s, want %s", w.path, d.Change, w.change)
					}
					if d.Class != wantClass {
						t.Errorf("%s: class %s (%s), want %s", w.path, d.Class, d.Condition, wantClass)
					}
					if d.HoldsNow != w.holdsIn(st) {
						t.Errorf("%s: holdsNow %v, want %v (%s)", w.path, d.HoldsNow, w.holdsIn(st), d.Condition)
					}
					if d.Class != ClassLive && d.Condition == "" {
						t.Errorf("%s: %s without a condition", w.path, d.Class)
					}
					if (d.Change == ChangeSet) == (d.Live != nil) || (d.Change == ChangeUnset) == (d.Desired != nil) {
						t.Errorf("%s: change %s with live %v, desired %v", w.path, d.Change, d.Live, d.Desired)
					}
				}
			})
		}
	}
	t.Logf("expected differences checked per class (cases x states): %v", perClass)
}

// TestMutabilityTableCoversEveryRow fails when a row of MutabilityTable lacks a case in one of
// the directions set, unset and change.
func TestMutabilityTableCoversEveryRow(t *testing.T) {
	// Directions that do not exist for a field.
	notApplicable := map[string][]string{
		"spec.completions (Indexed)":    {"set"},    // an Indexed Job always has completions
		"spec.completionMode":           {"change"}, // two values: set is NonIndexed->Indexed, unset the reverse
		"spec.suspend":                  {"change"}, // a boolean: set and unset are its two changes
		"spec.template (anything else)": {"unset"},  // covered per field: see the cases
	}
	covered := map[string]map[string]bool{}
	for _, fc := range fieldCases() {
		if covered[fc.field] == nil {
			covered[fc.field] = map[string]bool{}
		}
		covered[fc.field][strings.Fields(fc.dir)[0]] = true
	}
	for _, row := range MutabilityTable() {
		for _, field := range strings.Split(row.Field, ", ") {
			if field == "spec.scheduling" {
				continue // alpha (WorkloadWithJob): TestScheduling
			}
			for _, d := range []string{"set", "unset", "change"} {
				if !covered[field][d] && !slices.Contains(notApplicable[field], d) {
					t.Errorf("row %q has no %q case", field, d)
				}
			}
		}
	}
}

func pathsOf(ds []Difference) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = fmt.Sprintf("%s(%s)", d.Path, d.Class)
	}
	return out
}

// TestScheduling: spec.scheduling (alpha WorkloadWithJob) is immutable except the gang's
// minCount (validateJobSchedulingUpdate and the declarative rules).
func TestScheduling(t *testing.T) {
	gang := func(n int32) func(*batchv1.Job) {
		return func(j *batchv1.Job) {
			j.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
				Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{MinCount: ptrTo(n)}}}
		}
	}
	basic := func(j *batchv1.Job) {
		j.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
			Basic: &schedulingv1alpha3.WorkloadPodGroupBasicSchedulingPolicy{}}}
	}
	for _, tc := range []struct {
		name          string
		live, desired func(*batchv1.Job)
		want          Class
	}{
		{"gang minCount change", gang(2), gang(3), ClassLive},
		{"set", nil, gang(2), ClassNewJob},
		{"unset", gang(2), nil, ClassNewJob},
		{"gang to basic", gang(2), basic, ClassNewJob},
	} {
		r, err := Diff(liveJob(stRunning, tc.live), desiredJob(tc.desired), Options{Now: testNow})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Differences) != 1 || r.Differences[0].Path != "spec.scheduling" || r.Differences[0].Class != tc.want {
			t.Errorf("%s: %v, want spec.scheduling %s", tc.name, pathsOf(r.Differences), tc.want)
		}
	}
}

// TableRow is one row of the mutability table kubectl indexed diff applies.
type TableRow struct {
	Field     string
	Class     Class
	Condition string
}

// MutabilityTable lists the rules classify applies, as docs/diff.md states them (readme_test)
// and TestMutabilityTable runs them. Fields not listed under the pod template are immutable
// (NewJob).
func MutabilityTable() []TableRow {
	rows := []TableRow{
		{"metadata.labels, metadata.annotations", ClassLive, "except keys under indexed.kubectl.io/ (NewJob: " + condIdentity + ")"},
		{"spec.parallelism", ClassLive, ""},
		{"spec.completions (Indexed)", ClassConditional, condTandem},
		{"spec.completions (NonIndexed)", ClassNewJob, condImmutable},
		{"spec.activeDeadlineSeconds", ClassLive, ""},
		{"spec.backoffLimit", ClassLive, ""},
		{"spec.backoffLimitPerIndex", ClassNewJob, condImmutable},
		{"spec.maxFailedIndexes", ClassLive, "requires backoffLimitPerIndex on the live Job (else NewJob); must not exceed completions"},
		{"spec.podReplacementPolicy", ClassLive, "only Failed when the Job has a podFailurePolicy (else NewJob)"},
		{"spec.suspend", ClassLive, ""},
		{"spec.ttlSecondsAfterFinished", ClassLive, ""},
		{"spec.manualSelector", ClassLive, ""},
		{"spec.completionMode", ClassNewJob, condImmutable},
		{"spec.podFailurePolicy", ClassNewJob, condImmutable},
		{"spec.successPolicy", ClassNewJob, condImmutable},
		{"spec.managedBy", ClassNewJob, condImmutable},
		{"spec.selector", ClassNewJob, condImmutable},
		{"spec.scheduling", ClassNewJob, "immutable except schedulingPolicy.gang.minCount (Live)"},
	}
	for _, prefix := range templateConditionalPrefixes {
		rows = append(rows, TableRow{prefix, ClassConditional, condTemplate})
	}
	rows = append(rows, TableRow{"spec.template (anything else)", ClassNewJob, "immutable"})
	return rows
}
