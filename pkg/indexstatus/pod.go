package indexstatus

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// podSummary is what the report needs from one pod: 152 bytes besides the bytes of its name and UID
// instead of the decoded object, so that a report can hold every pod of a Job of 100,000 and
// a live report can drop each page of pods as soon as it is read. The controller's facts about
// the pod (failed, counted, matching rule, finish time) are jobpolicy's; the rest is for the
// words.
type podSummary struct {
	jobpolicy.Pod

	// started is status.startTime in Unix nanoseconds, 0 when unset.
	started int64

	// exit is the exit of the attempt, nil when no container terminated. exit and rare are
	// shared by the summaries that have the same (interner): most pods of a Job exit alike.
	exit *podExit

	// cases is the receipt summary in the termination message, if any (cases.go).
	cases *receiptCounts

	// node is spec.nodeName, where the attempt ran ("" before it is bound); the interner
	// shares one copy of each name.
	node string

	// rare holds the words most pods lack, nil when all are empty: a running or succeeded pod
	// then does not carry six empty strings.
	rare *podRare

	ready bool
}

// podExit is the container that decided the attempt (the rule's container, else the first
// non-zero terminated container, app containers before init containers) and how it ended.
type podExit struct {
	code      int32
	cause     string // the container's terminated reason ("Error", "OOMKilled", ...)
	container string
}

// interner keeps one copy of each distinct podExit, podRare and node name (a Job's pods run on
// a few nodes); the zero interner is ready to use.
type interner struct {
	exits map[podExit]*podExit
	rares map[podRare]*podRare
	nodes map[string]*string
}

// intern returns the copy of v kept in *m, adding one the first time.
func intern[T comparable](m *map[T]*T, v T) *T {
	if p, ok := (*m)[v]; ok {
		return p
	}
	if *m == nil {
		*m = map[T]*T{}
	}
	(*m)[v] = &v
	return &v
}

// startedAt is status.startTime, the zero time when unset.
func (s *podSummary) startedAt() time.Time {
	if s.started == 0 {
		return time.Time{}
	}
	return time.Unix(0, s.started)
}

// podRare are the details only some pods have.
type podRare struct {
	matchedBy string // "exit code 42 in container worker" or "condition DisruptionTarget"
	podReason string // status.reason ("Evicted", "DeadlineExceeded", ...)
	waiting   string // why a pending pod waits: the scheduler's reason and message, or a container's waiting reason ("ImagePullBackOff", ...)
	condition string // the matched or disruption condition, e.g. "DisruptionTarget (PreemptionByScheduler)"

	// unschedulable and unschedulableMessage are the reason and message of a pending pod's
	// PodScheduled=False condition: the scheduler cannot place it.
	unschedulable, unschedulableMessage string
}

var noRare podRare

// r returns the pod's rare details (all empty when it has none); read only.
func (s *podSummary) r() *podRare {
	if s.rare == nil {
		return &noRare
	}
	return s.rare
}

// summarize reduces pod to what the report needs: jobpolicy's facts and the words' details.
// in shares the exits, rare words and node names of the summaries.
func summarize(job *batchv1.Job, pod *corev1.Pod, in *interner) podSummary {
	s := podSummary{Pod: jobpolicy.ObservePod(job, pod)}
	var rr podRare
	var exit podExit
	hasExit := false
	setExit := func(cs *corev1.ContainerStatus, t *corev1.ContainerStateTerminated) {
		exit, hasExit = podExit{code: t.ExitCode, cause: t.Reason, container: cs.Name}, true
	}
	if st := pod.Status.StartTime; st != nil && !st.IsZero() {
		s.started = st.UnixNano()
	}
	s.node = *intern(&in.nodes, pod.Spec.NodeName)
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			s.ready = true
		}
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			rr.condition = describeCondition(c)
		}
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason != "" {
			// Not bound to a node: the scheduler says why (e.g. Unschedulable and its message).
			rr.waiting = c.Reason
			if pod.Status.Phase == corev1.PodPending {
				rr.unschedulable, rr.unschedulableMessage = c.Reason, c.Message
			}
			if c.Message != "" {
				rr.waiting += ": " + c.Message
			}
		}
	}
	rr.podReason = pod.Status.Reason
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		if cs.State.Waiting != nil && rr.waiting == "" && cs.State.Waiting.Reason != "" {
			rr.waiting = cs.State.Waiting.Reason
		}
	}
	if m := s.Match; m.Matched() {
		switch {
		case m.Container != "":
			rr.matchedBy = fmt.Sprintf("exit code %d in container %s", m.ExitCode, m.Container)
			for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
				for i := range list {
					if list[i].Name == m.Container && list[i].State.Terminated != nil && !hasExit {
						setExit(&list[i], list[i].State.Terminated)
					}
				}
			}
		default:
			rr.matchedBy = "condition " + string(m.Condition)
			for _, c := range pod.Status.Conditions {
				if c.Type == m.Condition {
					rr.condition = describeCondition(c)
				}
			}
		}
	}
	if !hasExit {
		pickExit(pod, setExit)
	}
	if hasExit {
		s.exit = intern(&in.exits, exit)
	}
	if rc, ok := readReceipt(pod); ok {
		s.cases = &rc
	}
	if rr != (podRare{}) {
		s.rare = intern(&in.rares, rr)
	}
	return s
}

func describeCondition(c corev1.PodCondition) string {
	if c.Reason != "" {
		return fmt.Sprintf("%s (%s)", c.Type, c.Reason)
	}
	return string(c.Type)
}

// pickExit records the exit that explains the attempt when no rule named a container: the first
// terminated container with a non-zero exit code (app containers, then init containers), else
// the first terminated app container (exit 0 for a pod that succeeded). With restartPolicy
// OnFailure a running container's last termination is used.
func pickExit(pod *corev1.Pod, set func(*corev1.ContainerStatus, *corev1.ContainerStateTerminated)) {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for i := range list {
			if t := list[i].State.Terminated; t != nil && t.ExitCode != 0 {
				set(&list[i], t)
				return
			}
		}
	}
	for i := range pod.Status.ContainerStatuses {
		if t := pod.Status.ContainerStatuses[i].State.Terminated; t != nil {
			set(&pod.Status.ContainerStatuses[i], t)
			return
		}
	}
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		if t := cs.LastTerminationState.Terminated; t != nil && t.ExitCode != 0 {
			set(cs, t)
			return
		}
	}
}
