package indexstatus

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Pod annotations, labels and the finalizer the Job controller writes (pkg/controller/job in Kubernetes v1.37.2).
const (
	annotationIndex          = batchv1.JobCompletionIndexAnnotation          // batch.kubernetes.io/job-completion-index
	annotationFailureCount   = batchv1.JobIndexFailureCountAnnotation        // batch.kubernetes.io/job-index-failure-count
	annotationIgnoredFailure = batchv1.JobIndexIgnoredFailureCountAnnotation // batch.kubernetes.io/job-index-ignored-failure-count
	labelControllerUID       = batchv1.ControllerUidLabel                    // batch.kubernetes.io/controller-uid
	labelLegacyControllerUID = "controller-uid"
	labelJobName             = batchv1.JobNameLabel
	labelLegacyJobName       = "job-name"
	finalizerTracking        = batchv1.JobTrackingFinalizer
)

// podSummary is what the report needs from one pod: a few dozen bytes instead of the decoded
// object, so that a live report can drop each page of pods as soon as it is read.
type podSummary struct {
	name  string
	uid   string
	index int // -1 when the pod carries no usable index

	phase    corev1.PodPhase
	ready    bool
	deleting bool // deletionTimestamp set
	created  time.Time
	started  time.Time
	finished time.Time // getFinishedTime, for terminal or deleted pods

	failureCount    int32 // job-index-failure-count (counted failures of the index before this pod)
	ignoredCount    int32 // job-index-ignored-failure-count
	hasFailureCount bool
	tracked         bool // still carries the job-tracking finalizer (not counted yet)

	// failed is the controller's isPodFailed; countFailed is false when an Ignore rule matched.
	failed      bool
	countFailed bool
	rule        int // index of the matching podFailurePolicy rule, -1 if none
	action      batchv1.PodFailurePolicyAction
	matchedBy   string // "exit code 42 in container worker" or "condition DisruptionTarget"

	// The exit of the attempt: the container that decided it (the rule's container, else the
	// first non-zero terminated container, app containers before init containers).
	hasExit   bool
	exitCode  int32
	exitCause string // the container's terminated reason ("Error", "OOMKilled", ...)
	container string
	podReason string // status.reason ("Evicted", "DeadlineExceeded", ...)
	waiting   string // why a pending pod waits: the scheduler's reason and message, or a container's waiting reason ("ImagePullBackOff", ...)
	restarts  int32  // container restarts (restartPolicy OnFailure)
	condition string // the matched or disruption condition, e.g. "DisruptionTarget (PreemptionByScheduler)"

	// cases is the receipt summary in the termination message, if any (cases.go).
	cases *CaseCounts
}

// active is IsPodActive: not terminal and not being deleted.
func (p *podSummary) active() bool {
	return !p.deleting && p.phase != corev1.PodSucceeded && p.phase != corev1.PodFailed
}

// terminating is a non-terminal pod being deleted.
func (p *podSummary) terminating() bool {
	return p.deleting && p.phase != corev1.PodSucceeded && p.phase != corev1.PodFailed
}

// attempt is the 0-based attempt number of the pod within its index, from the annotations.
func (p *podSummary) attempt() int32 { return p.failureCount + p.ignoredCount }

// summarize reduces pod to what the report needs, evaluating job's podFailurePolicy on it as
// the controller would.
func summarize(job *batchv1.Job, pod *corev1.Pod) podSummary {
	s := podSummary{
		name:     pod.Name,
		uid:      string(pod.UID),
		index:    podIndex(pod),
		phase:    pod.Status.Phase,
		deleting: pod.DeletionTimestamp != nil,
		created:  pod.CreationTimestamp.Time,
		rule:     -1,
	}
	if pod.Status.StartTime != nil {
		s.started = pod.Status.StartTime.Time
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			s.ready = true
		}
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			s.condition = describeCondition(c)
		}
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason != "" {
			// Not bound to a node: the scheduler says why (e.g. Unschedulable and its message).
			s.waiting = c.Reason
			if c.Message != "" {
				s.waiting += ": " + c.Message
			}
		}
	}
	if v, ok := pod.Annotations[annotationFailureCount]; ok {
		s.failureCount, s.hasFailureCount = parseCount(v), true
	}
	if v, ok := pod.Annotations[annotationIgnoredFailure]; ok {
		s.ignoredCount = parseCount(v)
	}
	s.tracked = slices.Contains(pod.Finalizers, finalizerTracking)
	s.podReason = pod.Status.Reason
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		s.restarts += cs.RestartCount
		if cs.State.Waiting != nil && s.waiting == "" && cs.State.Waiting.Reason != "" {
			s.waiting = cs.State.Waiting.Reason
		}
	}
	s.failed = isPodFailed(job, pod)
	s.countFailed = true
	if s.failed || s.phase == corev1.PodSucceeded || s.deleting {
		s.finished = finishedTime(pod)
	}
	if s.failed {
		s.matchPolicy(job, pod)
	}
	if !s.hasExit {
		s.pickExit(pod)
	}
	s.cases = caseCounts(pod)
	return s
}

// podIndex reads the completion index from the annotation (what the controller reads,
// getCompletionIndex), falling back to the label for pods without it.
func podIndex(pod *corev1.Pod) int {
	for _, v := range []string{pod.Annotations[annotationIndex], pod.Labels[annotationIndex]} {
		if v == "" {
			continue
		}
		if i, err := strconv.Atoi(v); err == nil && i >= 0 {
			return i
		}
	}
	return -1
}

// parseCount mirrors the controller's parseInt32: unparsable, negative or too large values are 0.
func parseCount(v string) int32 {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 1<<31-1 {
		return 0
	}
	return int32(n)
}

// isPodFailed mirrors the controller's isPodFailed (job_controller.go).
func isPodFailed(job *batchv1.Job, pod *corev1.Pod) bool {
	if pod.Status.Phase == corev1.PodFailed {
		return true
	}
	if onlyReplaceFailedPods(job) {
		return false
	}
	return pod.DeletionTimestamp != nil && pod.Status.Phase != corev1.PodSucceeded
}

// onlyReplaceFailedPods: podReplacementPolicy Failed, explicitly or through a podFailurePolicy.
func onlyReplaceFailedPods(job *batchv1.Job) bool {
	if job.Spec.PodReplacementPolicy != nil {
		return *job.Spec.PodReplacementPolicy == batchv1.Failed
	}
	return job.Spec.PodFailurePolicy != nil
}

// matchPolicy evaluates the podFailurePolicy as matchPodFailurePolicy does: rules in order,
// the first match wins; onExitCodes looks at terminated containers with a non-zero exit code,
// app containers before init containers, the first matching container wins; onPodConditions
// matches a pod condition of equal type and status (status defaults to True); a rule with an
// unknown action is skipped.
func (s *podSummary) matchPolicy(job *batchv1.Job, pod *corev1.Pod) {
	pfp := job.Spec.PodFailurePolicy
	if pfp == nil {
		return
	}
	for i := range pfp.Rules {
		rule := &pfp.Rules[i]
		switch rule.Action {
		case batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionFailIndex,
			batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionFailJob:
		default:
			continue
		}
		if rule.OnExitCodes != nil {
			cs := matchOnExitCodes(&pod.Status, rule.OnExitCodes)
			if cs == nil {
				continue
			}
			s.setExit(cs)
			s.matchedBy = fmt.Sprintf("exit code %d in container %s", cs.State.Terminated.ExitCode, cs.Name)
		} else if rule.OnPodConditions != nil {
			c := matchOnPodConditions(&pod.Status, rule.OnPodConditions)
			if c == nil {
				continue
			}
			s.condition = describeCondition(*c)
			s.matchedBy = "condition " + string(c.Type)
		} else {
			continue
		}
		s.rule, s.action = i, rule.Action
		s.countFailed = rule.Action != batchv1.PodFailurePolicyActionIgnore
		return
	}
}

func describeCondition(c corev1.PodCondition) string {
	if c.Reason != "" {
		return fmt.Sprintf("%s (%s)", c.Type, c.Reason)
	}
	return string(c.Type)
}

func matchOnExitCodes(st *corev1.PodStatus, req *batchv1.PodFailurePolicyOnExitCodesRequirement) *corev1.ContainerStatus {
	if cs := matchingContainer(st.ContainerStatuses, req); cs != nil {
		return cs
	}
	return matchingContainer(st.InitContainerStatuses, req)
}

func matchingContainer(list []corev1.ContainerStatus, req *batchv1.PodFailurePolicyOnExitCodesRequirement) *corev1.ContainerStatus {
	for i := range list {
		cs := &list[i]
		if cs.State.Terminated == nil {
			continue
		}
		if req.ContainerName != nil && *req.ContainerName != cs.Name {
			continue
		}
		code := cs.State.Terminated.ExitCode
		if code == 0 {
			continue
		}
		var match bool
		switch req.Operator {
		case batchv1.PodFailurePolicyOnExitCodesOpIn:
			match = slices.Contains(req.Values, code)
		case batchv1.PodFailurePolicyOnExitCodesOpNotIn:
			match = !slices.Contains(req.Values, code)
		}
		if match {
			return cs
		}
	}
	return nil
}

func matchOnPodConditions(st *corev1.PodStatus, patterns []batchv1.PodFailurePolicyOnPodConditionsPattern) *corev1.PodCondition {
	for i := range st.Conditions {
		c := &st.Conditions[i]
		for _, p := range patterns {
			status := p.Status
			if status == "" {
				status = corev1.ConditionTrue // SetDefaults_PodFailurePolicyOnPodConditionsPattern
			}
			if c.Type == p.Type && c.Status == status {
				return c
			}
		}
	}
	return nil
}

func (s *podSummary) setExit(cs *corev1.ContainerStatus) {
	t := cs.State.Terminated
	s.hasExit, s.exitCode, s.exitCause, s.container = true, t.ExitCode, t.Reason, cs.Name
}

// pickExit records the exit that explains the attempt when no rule named a container: the first
// terminated container with a non-zero exit code (app containers, then init containers), else
// the first terminated app container (exit 0 for a pod that succeeded). With restartPolicy
// OnFailure a running container's last termination is used.
func (s *podSummary) pickExit(pod *corev1.Pod) {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for i := range list {
			if t := list[i].State.Terminated; t != nil && t.ExitCode != 0 {
				s.setExit(&list[i])
				return
			}
		}
	}
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].State.Terminated != nil {
			s.setExit(&pod.Status.ContainerStatuses[i])
			return
		}
	}
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		if t := cs.LastTerminationState.Terminated; t != nil && t.ExitCode != 0 {
			s.hasExit, s.exitCode, s.exitCause, s.container = true, t.ExitCode, t.Reason, cs.Name
			return
		}
	}
}

// finishedTime mirrors the controller's getFinishedTime (backoff_utils.go): the latest finish
// time of the containers when all finished (sidecar init containers included), else the
// Ready=False transition time, else deletionTimestamp minus the grace period, else the
// creation time.
func finishedTime(p *corev1.Pod) time.Time {
	if t, ok := finishTimeFromContainers(p); ok {
		return t
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	if p.DeletionTimestamp != nil {
		var grace int64
		if p.DeletionGracePeriodSeconds != nil {
			grace = *p.DeletionGracePeriodSeconds
		}
		return p.DeletionTimestamp.Add(-time.Duration(grace) * time.Second)
	}
	return p.CreationTimestamp.Time
}

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
	sidecars := map[string]bool{}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
		}
	}
	for _, cs := range p.Status.InitContainerStatuses {
		if !sidecars[cs.Name] {
			continue
		}
		if !consider(cs) {
			return time.Time{}, false
		}
	}
	return latest, found
}

// backoff is the controller's getRemainingTimeForFailuresCount: 10s × 2^(n−1), capped at
// 10 minutes, measured from the last failure; 0 when it has passed.
func backoff(failures int32, lastFailure, now time.Time) (total, remaining time.Duration) {
	if failures <= 0 {
		return 0, 0
	}
	d := defaultBackoff
	for i := int32(1); i < failures; i++ {
		d *= 2
		if d >= maxBackoff {
			d = maxBackoff
			break
		}
	}
	elapsed := now.Sub(lastFailure)
	if d < elapsed {
		return d, 0
	}
	return d, d - elapsed
}

const (
	defaultBackoff = 10 * time.Second // DefaultJobPodFailureBackOff
	maxBackoff     = 10 * time.Minute // MaxJobPodFailureBackOff
)
