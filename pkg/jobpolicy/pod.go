// Package jobpolicy answers the Job controller's questions about an Indexed Job the way
// pkg/controller/job of the mirrored Kubernetes release (pkg/version) does, from the Job, its pods and a clock: is a pod
// failed, counted or ignored; which podFailurePolicy rule matches it; is an index failed, how
// many retries it has left and when its next attempt is due; how far the Job is from each of its
// limits; whether it can still succeed; what the controller does at its next sync.
//
// The package is pure: no client, no printing, no sentences. It returns typed facts that the
// commands (status, lint, diff) put into words. Each rule names, in a one-line comment, the
// upstream function it mirrors (files job_controller.go, indexed_job_utils.go,
// pod_failure_policy.go, success_policy.go and backoff_utils.go of pkg/controller/job).
package jobpolicy

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Backoff constants of the controller.
const (
	// DefaultBackoff is DefaultJobPodFailureBackOff (job_controller.go).
	DefaultBackoff = 10 * time.Second
	// SyncJobBatchPeriod: a pod event or a status update syncs the Job this much later
	// (job_controller.go: SyncJobBatchPeriod, enqueueSyncJobBatched); what happens within it is
	// seen by one sync.
	SyncJobBatchPeriod = time.Second
	// MaxBackoff is MaxJobPodFailureBackOff (job_controller.go).
	MaxBackoff = 10 * time.Minute
	// DefaultBackoffLimit is backoffLimit's default without backoffLimitPerIndex (SetDefaults_Job).
	DefaultBackoffLimit int32 = 6
	// NoIndex is getCompletionIndex's unknownCompletionIndex.
	NoIndex = -1
)

// Match is the podFailurePolicy rule that matched a failed pod.
type Match struct {
	// Rule is the rule's position in spec.podFailurePolicy.rules, -1 when no rule matched.
	Rule   int
	Action batchv1.PodFailurePolicyAction
	// Container and ExitCode are set when an onExitCodes rule matched.
	Container string
	ExitCode  int32
	// Condition is set when an onPodConditions rule matched.
	Condition corev1.PodConditionType
}

// Matched reports whether a rule matched (a nil Match is no rule).
func (m *Match) Matched() bool { return m != nil && m.Rule >= 0 }

// CountFailed is matchPodFailurePolicy's second result: false only for Ignore.
func (m *Match) CountFailed() bool { return !m.Is(batchv1.PodFailurePolicyActionIgnore) }

// Is reports whether a rule of action matched.
func (m *Match) Is(action batchv1.PodFailurePolicyAction) bool {
	return m.Matched() && m.Action == action
}

// Pod is what the controller's decisions need from one pod: small enough to keep for every pod
// of a large Job (104 bytes besides its strings).
type Pod struct {
	Name  string
	UID   string
	Phase corev1.PodPhase
	// Match is the podFailurePolicy rule matching a failed pod, nil if none.
	Match *Match
	// created and finished are CreationTimestamp and getFinishedTime (set for terminal or
	// deleted pods) in Unix nanoseconds, math.MinInt64 for the zero time (SetTimes): compared
	// as integers they order as the times do.
	created, finished int64
	// Index is getCompletionIndex: the annotation only; NoIndex when absent or invalid.
	Index int
	// FailureCount and IgnoredCount are the job-index-failure-count and
	// job-index-ignored-failure-count annotations (parseIndexFailureCountAnnotation).
	FailureCount int32
	IgnoredCount int32
	// Restarts sums the restartCount of init and app containers (pastBackoffLimitOnFailure).
	Restarts int32
	Deleting bool
	// Tracked: the pod still carries the batch.kubernetes.io/job-tracking finalizer, so the
	// controller has not accounted for it yet (hasJobTrackingFinalizer).
	Tracked bool
	// Failed is isPodFailed.
	Failed bool
}

// Created is the pod's creation time.
func (p *Pod) Created() time.Time { return fromNanos(p.created) }

// Finished is getFinishedTime, set for terminal or deleted pods (else the zero time).
func (p *Pod) Finished() time.Time { return fromNanos(p.finished) }

// SetTimes sets Created and Finished. A time outside what Unix nanoseconds hold (years 1678 to
// 2262) is kept at that bound (time.UnixNano); the zero time stays zero.
func (p *Pod) SetTimes(created, finished time.Time) {
	p.created, p.finished = toNanos(created), toNanos(finished)
}

func toNanos(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == math.MinInt64 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// Active is controller.IsPodActive: not terminal and not being deleted.
func (p *Pod) Active() bool {
	return !p.Deleting && p.Phase != corev1.PodSucceeded && p.Phase != corev1.PodFailed
}

// Terminating is a non-terminal pod being deleted (controller.FilterTerminatingPods).
func (p *Pod) Terminating() bool {
	return p.Deleting && p.Phase != corev1.PodSucceeded && p.Phase != corev1.PodFailed
}

// Attempt is getIndexAbsoluteFailureCount: counted plus ignored failures before this pod.
func (p *Pod) Attempt() int32 { return p.FailureCount + p.IgnoredCount }

// CountFailed: the pod failed and its failure counts (nonIgnoredFailedPodsCount).
func (p *Pod) CountFailed() bool { return p.Failed && p.Match.CountFailed() }

// ObservePod reduces pod to the facts the controller's decisions read.
func ObservePod(job *batchv1.Job, pod *corev1.Pod) Pod {
	p := Pod{
		Name:     pod.Name,
		UID:      string(pod.UID),
		Index:    CompletionIndex(pod),
		Phase:    pod.Status.Phase,
		Deleting: pod.DeletionTimestamp != nil,
		Tracked:  HasTrackingFinalizer(pod),
		Failed:   IsPodFailed(job, pod),
		// An absent annotation reads as 0, as an unparsable one does.
		FailureCount: parseInt32(pod.Annotations[batchv1.JobIndexFailureCountAnnotation]),
		IgnoredCount: parseInt32(pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation]),
	}
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for i := range list {
			p.Restarts += list[i].RestartCount
		}
	}
	var finished time.Time
	if p.Failed || p.Phase == corev1.PodSucceeded || p.Deleting {
		finished = FinishedTime(pod)
	}
	p.SetTimes(pod.CreationTimestamp.Time, finished)
	if p.Failed {
		if m := MatchPodFailurePolicy(job.Spec.PodFailurePolicy, pod); m.Matched() {
			p.Match = &m
		}
	}
	return p
}

// CompletionIndex mirrors getCompletionIndex (indexed_job_utils.go): the annotation only, never
// the label.
func CompletionIndex(pod *corev1.Pod) int {
	i, err := strconv.Atoi(pod.Annotations[batchv1.JobCompletionIndexAnnotation]) // absent: ""
	if err != nil || i < 0 {
		return NoIndex
	}
	return i
}

// HasTrackingFinalizer mirrors hasJobTrackingFinalizer (tracking_utils.go).
func HasTrackingFinalizer(pod *corev1.Pod) bool {
	return slices.Contains(pod.Finalizers, batchv1.JobTrackingFinalizer)
}

// parseInt32 mirrors parseInt32 (indexed_job_utils.go): unparsable, negative or too large is 0.
func parseInt32(v string) int32 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > 1<<31-1 {
		return 0
	}
	return int32(n)
}

// OnlyReplaceFailedPods mirrors onlyReplaceFailedPods (job_controller.go); a Job not defaulted
// yet gets SetDefaults_Job's value (Failed when a podFailurePolicy is set).
func OnlyReplaceFailedPods(job *batchv1.Job) bool {
	return DefaultedPodReplacementPolicy(&job.Spec) == batchv1.Failed
}

// IsPodFailed mirrors isPodFailed (job_controller.go): phase Failed, or, under
// podReplacementPolicy TerminatingOrFailed, being deleted without having succeeded.
func IsPodFailed(job *batchv1.Job, pod *corev1.Pod) bool {
	return PodFailed(pod.Status.Phase, pod.DeletionTimestamp != nil, OnlyReplaceFailedPods(job))
}

// PodFailed is isPodFailed over a pod's phase and whether it is being deleted; onlyFailed is
// OnlyReplaceFailedPods of its Job.
func PodFailed(phase corev1.PodPhase, deleting, onlyFailed bool) bool {
	if phase == corev1.PodFailed {
		return true
	}
	return !onlyFailed && deleting && phase != corev1.PodSucceeded
}

// MatchPodFailurePolicy mirrors matchPodFailurePolicy (pod_failure_policy.go): rules in order,
// the first match wins, a rule with an unknown action is skipped.
func MatchPodFailurePolicy(pfp *batchv1.PodFailurePolicy, pod *corev1.Pod) Match {
	if pfp == nil {
		return Match{Rule: -1}
	}
	for i := range pfp.Rules {
		rule := &pfp.Rules[i]
		switch rule.Action {
		case batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionFailIndex,
			batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionFailJob:
		default:
			continue
		}
		switch {
		case rule.OnExitCodes != nil:
			if cs := matchOnExitCodes(&pod.Status, rule.OnExitCodes); cs != nil {
				return Match{Rule: i, Action: rule.Action, Container: cs.Name, ExitCode: cs.State.Terminated.ExitCode}
			}
		case rule.OnPodConditions != nil:
			if c := matchOnPodConditions(&pod.Status, rule.OnPodConditions); c != nil {
				return Match{Rule: i, Action: rule.Action, Condition: c.Type}
			}
		}
	}
	return Match{Rule: -1}
}

// matchOnExitCodes mirrors matchOnExitCodes (pod_failure_policy.go): app containers first.
func matchOnExitCodes(st *corev1.PodStatus, req *batchv1.PodFailurePolicyOnExitCodesRequirement) *corev1.ContainerStatus {
	if cs := matchingContainer(st.ContainerStatuses, req); cs != nil {
		return cs
	}
	return matchingContainer(st.InitContainerStatuses, req)
}

// matchingContainer mirrors getMatchingContainerFromList (pod_failure_policy.go): terminated containers with a non-zero exit code only.
func matchingContainer(list []corev1.ContainerStatus, req *batchv1.PodFailurePolicyOnExitCodesRequirement) *corev1.ContainerStatus {
	for i := range list {
		cs := &list[i]
		if cs.State.Terminated == nil || cs.State.Terminated.ExitCode == 0 {
			continue
		}
		if req.ContainerName != nil && *req.ContainerName != cs.Name {
			continue
		}
		if ExitCodeMatches(req, cs.State.Terminated.ExitCode) {
			return cs
		}
	}
	return nil
}

// ExitCodeMatches mirrors isOnExitCodesOperatorMatching (pod_failure_policy.go): whether code
// is, or with NotIn is not, among req's values.
func ExitCodeMatches(req *batchv1.PodFailurePolicyOnExitCodesRequirement, code int32) bool {
	switch req.Operator {
	case batchv1.PodFailurePolicyOnExitCodesOpIn:
		return slices.Contains(req.Values, code)
	case batchv1.PodFailurePolicyOnExitCodesOpNotIn:
		return !slices.Contains(req.Values, code)
	}
	return false
}

// matchOnPodConditions mirrors matchOnPodConditions (pod_failure_policy.go); an empty pattern
// status is SetDefaults_PodFailurePolicyOnPodConditionsPattern's True.
func matchOnPodConditions(st *corev1.PodStatus, patterns []batchv1.PodFailurePolicyOnPodConditionsPattern) *corev1.PodCondition {
	for i := range st.Conditions {
		c := &st.Conditions[i]
		for _, p := range patterns {
			status := cmp.Or(p.Status, corev1.ConditionTrue)
			if c.Type == p.Type && c.Status == status {
				return c
			}
		}
	}
	return nil
}

// FinishedTime mirrors getFinishedTime (backoff_utils.go): the latest finish of the containers
// when all finished (sidecar init containers included), else the Ready=False transition, else
// deletionTimestamp minus the grace period, else the creation time.
func FinishedTime(p *corev1.Pod) time.Time {
	if t, ok := finishTimeFromContainers(p); ok {
		return t
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	if p.DeletionTimestamp != nil {
		return p.DeletionTimestamp.Add(-time.Duration(ptr.Deref(p.DeletionGracePeriodSeconds, 0)) * time.Second)
	}
	return p.CreationTimestamp.Time
}

// finishTimeFromContainers mirrors getFinishTimeFromContainers and latestFinishTime
// (backoff_utils.go).
func finishTimeFromContainers(p *corev1.Pod) (time.Time, bool) {
	var latest time.Time
	found := false
	consider := func(cs corev1.ContainerStatus) bool {
		t := cs.State.Terminated
		if t == nil || t.FinishedAt.IsZero() {
			return false
		}
		if !found || latest.Before(t.FinishedAt.Time) {
			latest, found = t.FinishedAt.Time, true
		}
		return true
	}
	for _, cs := range p.Status.ContainerStatuses {
		if !consider(cs) {
			return time.Time{}, false
		}
	}
	for _, cs := range p.Status.InitContainerStatuses {
		sidecar := slices.ContainsFunc(p.Spec.InitContainers, func(c corev1.Container) bool {
			return c.Name == cs.Name && ptr.Deref(c.RestartPolicy, "") == corev1.ContainerRestartPolicyAlways
		})
		if sidecar && !consider(cs) {
			return time.Time{}, false
		}
	}
	return latest, found
}

// Backoff mirrors getRemainingTimeForFailuresCount (backoff_utils.go): 10s × 2^(n−1), capped at
// 10 minutes, measured from the last failure. It returns the whole delay and what is left of it
// at now (0 once it has passed).
func Backoff(failures int32, lastFailure, now time.Time) (total, remaining time.Duration) {
	if failures <= 0 {
		return 0, 0
	}
	d := DefaultBackoff
	for i := int32(1); i < failures; i++ {
		d *= 2
		if d >= MaxBackoff {
			d = MaxBackoff
			break
		}
	}
	elapsed := now.Sub(lastFailure)
	if d < elapsed {
		return d, 0
	}
	return d, d - elapsed
}
