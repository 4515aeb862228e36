package indexstatus

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// Pod annotations, labels and the finalizer the Job controller writes (pkg/controller/job of the release in pkg/version).
const (
	labelControllerUID       = batchv1.ControllerUidLabel // batch.kubernetes.io/controller-uid
	labelLegacyControllerUID = "controller-uid"
	labelJobName             = batchv1.JobNameLabel
	labelLegacyJobName       = "job-name"
)

// podSummary is what the report needs from one pod: a few dozen bytes instead of the decoded
// object, so that a live report can drop each page of pods as soon as it is read. The
// controller's facts about the pod (failed, counted, matching rule, finish time) are
// jobpolicy's; the rest is for the words.
type podSummary struct {
	jobpolicy.Pod

	ready   bool
	started time.Time

	// The exit of the attempt: the container that decided it (the rule's container, else the
	// first non-zero terminated container, app containers before init containers).
	hasExit   bool
	exitCode  int32
	exitCause string // the container's terminated reason ("Error", "OOMKilled", ...)
	container string

	// cases is the receipt summary in the termination message, if any (cases.go).
	cases *receiptCounts

	// rare holds the words most pods lack, nil when all are empty: a running or succeeded pod
	// then does not carry six empty strings (a report may hold 100,000 summaries).
	rare *podRare

	// seq is the order the pod was added in, when pods are folded (FoldSettled: settled and untracked terminating ones, fold.go).
	seq uint32
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
func summarize(job *batchv1.Job, pod *corev1.Pod) podSummary {
	s := podSummary{Pod: jobpolicy.ObservePod(job, pod)}
	var rr podRare
	if pod.Status.StartTime != nil {
		s.started = pod.Status.StartTime.Time
	}
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
					if list[i].Name == m.Container && list[i].State.Terminated != nil && !s.hasExit {
						s.setExit(&list[i])
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
	if !s.hasExit {
		s.pickExit(pod)
	}
	if rc, ok := readReceipt(pod); ok {
		s.cases = &rc
	}
	if rr != (podRare{}) {
		s.rare = &rr
	}
	return s
}

func describeCondition(c corev1.PodCondition) string {
	if c.Reason != "" {
		return fmt.Sprintf("%s (%s)", c.Type, c.Reason)
	}
	return string(c.Type)
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
