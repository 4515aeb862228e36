package receipt

import corev1 "k8s.io/api/core/v1"

// TerminationMessage returns the termination message of a pod's worker container: container
// when given (and present), else the first container whose message looks like a summary, else
// the first terminated container. It reads the current termination, or, for a container
// restarted in place (restartPolicy OnFailure), the last one. ok is false when the container
// has not terminated.
func TerminationMessage(pod *corev1.Pod, container string) (message, name string, ok bool) {
	var first *corev1.ContainerStatus
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		t := terminated(cs)
		if t == nil {
			continue
		}
		if container != "" {
			if cs.Name == container {
				return t.Message, cs.Name, true
			}
			continue
		}
		if isSummaryLike(t.Message) {
			return t.Message, cs.Name, true
		}
		if first == nil {
			first = cs
		}
	}
	if first != nil {
		return terminated(first).Message, first.Name, true
	}
	return "", "", false
}

func terminated(cs *corev1.ContainerStatus) *corev1.ContainerStateTerminated {
	if cs.State.Terminated != nil {
		return cs.State.Terminated
	}
	return cs.LastTerminationState.Terminated
}
