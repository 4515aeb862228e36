package indexstatus

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Saved objects (kubectl get -o yaml) carry no time of their own: the time they were saved is
// inferred from the newest timestamp written in them, or given (--now).

// CaptureTime is the newest time written in the objects: a Job or pod condition, a start or
// completion time, a container's start or finish, a creation or deletion. A saved report is
// made at that time, not at the wall clock's, so ages and "due now" read as they did when the
// objects were saved (status -f and diff --live-file; their --now overrides it, OfflineTime).
func CaptureTime(job *batchv1.Job, pods []corev1.Pod) time.Time {
	var newest newestTime
	see := newest.see
	see(&job.CreationTimestamp) // not the deletion timestamp: it lies in the future by the grace period
	see(job.Status.StartTime)
	see(job.Status.CompletionTime)
	for i := range job.Status.Conditions {
		see(&job.Status.Conditions[i].LastProbeTime)
		see(&job.Status.Conditions[i].LastTransitionTime)
	}
	for i := range pods {
		see(&metav1.Time{Time: PodTime(&pods[i])})
	}
	return time.Time(newest)
}

// newestTime is the newest of the times it has seen.
type newestTime time.Time

func (n *newestTime) see(t *metav1.Time) {
	if t != nil && t.After(time.Time(*n)) {
		*n = newestTime(t.Time)
	}
}

// PodTime is the newest time written in a pod.
func PodTime(p *corev1.Pod) time.Time {
	var newest newestTime
	see := newest.see
	see(&p.CreationTimestamp)
	see(p.Status.StartTime)
	for k := range p.Status.Conditions {
		see(&p.Status.Conditions[k].LastProbeTime)
		see(&p.Status.Conditions[k].LastTransitionTime)
	}
	for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for k := range list {
			for _, st := range []corev1.ContainerState{list[k].State, list[k].LastTerminationState} {
				if st.Running != nil {
					see(&st.Running.StartedAt)
				}
				if st.Terminated != nil {
					see(&st.Terminated.StartedAt)
					see(&st.Terminated.FinishedAt)
				}
			}
		}
	}
	return time.Time(newest)
}

// OfflineTime is the time a report of saved objects is made at: given (--now) when set, else
// captured (CaptureTime), else wall, the current time, when the objects carry no timestamp at
// all; fromWall says the last (worth a note). given before captured is an error: the objects
// cannot have been saved before a time written in them, and a report made then would count
// ages, backoffs and deadlines from times still to come.
func OfflineTime(given, captured, wall time.Time) (t time.Time, fromWall bool, err error) {
	switch {
	case !given.IsZero() && given.Before(captured):
		c := captured.UTC().Format(time.RFC3339)
		return time.Time{}, false, fmt.Errorf("--now %s is before %s, the newest time written in the objects: they were saved after it; give --now at or after %s, or leave it out to report at that time",
			given.UTC().Format(time.RFC3339), c, c)
	case !given.IsZero():
		return given, false, nil
	case !captured.IsZero():
		return captured, false, nil
	}
	return wall, true, nil
}

// ParseTime reads a --now value: an RFC 3339 time. The error says so; the caller names the flag.
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time (e.g. 2026-03-01T12:00:00Z)", s)
	}
	return t, nil
}
