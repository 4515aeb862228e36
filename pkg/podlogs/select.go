// Package podlogs decides whose logs `kubectl indexed logs` shows: from an Indexed Job, its
// pods and the status report, the attempts of the completion indexes asked for, each with the
// pod that ran it or, when that pod is gone, what is still known about it. It is pure: the
// command fetches and streams the logs.
//
// Attempts are numbered from 1 per index. With backoffLimitPerIndex the Job controller writes
// on every pod how many failures of its index came before it (the
// batch.kubernetes.io/job-index-failure-count and job-index-ignored-failure-count annotations,
// getIndexAbsoluteFailureCount in pkg/controller/job), so attempt k is the pod whose counts add
// up to k-1, and an attempt whose pod was deleted shows as a gap. Without it the controller keeps
// no count, and attempts are the pods still present in creation order.
package podlogs

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// DefaultContainerAnnotation is kubectl's: the container `kubectl logs` picks by default.
const DefaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

// Selection is what the user asked for.
type Selection struct {
	// Index is the completion index (with Attempt or AllAttempts); ignored with Failed.
	Index int
	// Attempt is the attempt (1-based) of Index; 0 means the latest.
	Attempt int
	// AllAttempts selects every attempt of Index, oldest first.
	AllAttempts bool
	// Failed selects the last failed attempt of every Failed index (and of every Unfinished
	// index whose last attempt failed).
	Failed bool
	// Container is -c; empty picks one per pod (see Container).
	Container string
}

// Target is one attempt whose logs are wanted.
type Target struct {
	Index   int
	Attempt int
	// Pod is the pod that ran the attempt; empty when it is gone.
	Pod       string
	Container string
	// Gone says the attempt's pod no longer exists; Known says what is still known about it.
	Gone  bool
	Known string
	// Facts is what the pod's status says about how Container ended (exit code, reason,
	// termination message), for when its logs cannot be fetched; empty when it records none.
	Facts string
}

// Label names the target in prefixes and messages: "index 4 attempt 2", or "index 4" when
// no attempt of it is known (its pods are gone and nothing counted them): attempts count from 1.
func (t Target) Label() string {
	if t.Attempt < 1 {
		return fmt.Sprintf("index %d", t.Index)
	}
	return fmt.Sprintf("index %d attempt %d", t.Index, t.Attempt)
}

// Error is a selection that cannot be met (an index out of range, an attempt that never ran).
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// attempt is one pod of an index with its attempt number.
type attempt struct {
	n   int
	pod *corev1.Pod
	pol jobpolicy.Pod
}

// Select returns the targets for sel, in index then attempt order. report is the status report
// of job and pods with every index listed (indexstatus.Options.AllIndexes).
func Select(job *batchv1.Job, pods []corev1.Pod, report *indexstatus.IndexedJobStatus, sel Selection) ([]Target, error) {
	byIndex := map[int][]attempt{}
	for i := range pods {
		p := &pods[i]
		pp := jobpolicy.ObservePod(job, p)
		if pp.Index < 0 || int32(pp.Index) >= report.Completions || !indexstatus.Owns(job, p) {
			continue
		}
		byIndex[pp.Index] = append(byIndex[pp.Index], attempt{pod: p, pol: pp})
	}
	perIndex := job.Spec.BackoffLimitPerIndex != nil
	for _, as := range byIndex { // sorted and numbered in place
		slices.SortStableFunc(as, func(a, b attempt) int { return jobpolicy.ListOrder(&a.pol, &b.pol) })
		for k := range as {
			as[k].n = jobpolicy.AttemptNumber(perIndex, &as[k].pol, k)
		}
	}
	status := map[int]*indexstatus.IndexStatus{}
	for i := range report.Indexes {
		status[report.Indexes[i].Index] = &report.Indexes[i]
	}

	if sel.Failed {
		var out []Target
		for i := range report.Indexes {
			st := &report.Indexes[i]
			lastFailedToo := st.State == indexstatus.StateUnfinished && st.LastExitCode != nil && *st.LastExitCode != 0
			if st.State != indexstatus.StateFailed && !lastFailedToo {
				continue
			}
			out = append(out, lastFailed(st, byIndex[st.Index], perIndex, sel.Container))
		}
		if len(out) == 0 {
			return nil, &Error{Msg: fmt.Sprintf("job %q has no failed index (%s)", job.Name, summary(report))}
		}
		return out, nil
	}

	if sel.Index < 0 || int32(sel.Index) >= report.Completions {
		return nil, &Error{Msg: fmt.Sprintf("index %d is out of range: job %q has completion indexes 0 to %d", sel.Index, job.Name, report.Completions-1)}
	}
	as := byIndex[sel.Index]
	st := status[sel.Index]
	latest := 0
	for _, a := range as {
		latest = max(latest, a.n)
	}
	if st != nil {
		latest = max(latest, st.Attempts)
	}
	switch {
	case sel.Attempt > 0 && !sel.AllAttempts:
		if sel.Attempt > latest {
			if latest == 0 {
				return nil, &Error{Msg: fmt.Sprintf("index %d has not run yet: no attempt %d", sel.Index, sel.Attempt)}
			}
			return nil, &Error{Msg: fmt.Sprintf("index %d has run %s: there is no attempt %d", sel.Index, textwrap.Count(latest, "attempt", "attempts"), sel.Attempt)}
		}
		return []Target{targetFor(sel.Index, sel.Attempt, as, st, perIndex, sel.Container)}, nil
	case latest == 0:
		return []Target{noAttempt(sel.Index, st)}, nil
	case sel.AllAttempts:
		out := make([]Target, 0, latest)
		for n := 1; n <= latest; n++ {
			out = append(out, targetFor(sel.Index, n, as, st, perIndex, sel.Container))
		}
		return out, nil
	default:
		return []Target{targetFor(sel.Index, latest, as, st, perIndex, sel.Container)}, nil
	}
}

// noAttempt is an index without any attempt: gone, with the report's words on it.
func noAttempt(index int, st *indexstatus.IndexStatus) Target {
	t := Target{Index: index, Attempt: 0, Gone: true, Known: "no pod of this index exists"}
	if st != nil {
		t.Known = fmt.Sprintf("no pod of this index exists (%s)", describe(st))
	}
	return t
}

// targetFor is attempt n of index: its pod, or what is known when it is gone.
func targetFor(index, n int, as []attempt, st *indexstatus.IndexStatus, perIndex bool, container string) Target {
	for _, a := range as {
		if a.n == n {
			c := Container(a.pod, container)
			return Target{Index: index, Attempt: n, Pod: a.pod.Name, Container: c, Facts: Facts(a.pod, c)}
		}
	}
	t := Target{Index: index, Attempt: n, Gone: true}
	// The next attempt present: as are in attempt order (Select).
	k := slices.IndexFunc(as, func(a attempt) bool { return a.n > n })
	switch {
	case perIndex && k >= 0:
		later := &as[k]
		// A later attempt's pod counts the failures before it, so this one failed.
		t.Known = fmt.Sprintf("its pod is gone; it failed: pod %s (attempt %d) counts %s of this index before it (%d ignored by the podFailurePolicy)",
			later.pod.Name, later.n, textwrap.Count(int(later.pol.Attempt()), "failure", "failures"), later.pol.IgnoredCount)
	case st != nil:
		t.Known = "its pod is gone; " + describe(st)
	default:
		t.Known = "its pod is gone"
	}
	return t
}

// lastFailed is the last failed attempt of a failed index.
func lastFailed(st *indexstatus.IndexStatus, as []attempt, perIndex bool, container string) Target {
	for k := len(as) - 1; k >= 0; k-- {
		if as[k].pol.Failed {
			return targetFor(st.Index, as[k].n, as, st, perIndex, container)
		}
	}
	n := st.Attempts
	if n == 0 {
		return noAttempt(st.Index, st)
	}
	return Target{Index: st.Index, Attempt: n, Gone: true, Known: "its pod is gone; " + describe(st)}
}

// describe says what the status report knows about an index whose pod is gone.
func describe(st *indexstatus.IndexStatus) string {
	parts := []string{"the index is " + string(st.State)}
	if st.LastExitCode != nil {
		e := fmt.Sprintf("last exit code %d", *st.LastExitCode)
		if st.LastContainer != "" {
			e += " in container " + st.LastContainer
		}
		if st.LastReason != "" {
			e += " (" + st.LastReason + ")"
		}
		parts = append(parts, e)
	}
	if st.Rule != nil {
		parts = append(parts, fmt.Sprintf("podFailurePolicy rule %d (%s) matched %s", st.Rule.Index, st.Rule.Action, st.Rule.On))
	}
	if st.FailureCount > 0 {
		parts = append(parts, textwrap.Count(int(st.FailureCount), "counted failure", "counted failures"))
	}
	s := strings.Join(parts, ", ")
	if st.Detail != "" {
		s += ": " + strings.TrimSuffix(st.Detail, ".")
	}
	return s
}

// maxMessage bounds the termination message Facts quotes (the kubelet keeps up to 4 KiB).
const maxMessage = 300

// Facts says what pod's status records about how container ended, on one line: "exit code 137
// (OOMKilled); termination message: \"...\"", with the pod's own reason and message (an
// eviction) when it has them; its last termination when the container was restarted in
// place. Empty when the status records nothing.
func Facts(pod *corev1.Pod, container string) string {
	var parts []string
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for i := range list {
			cs := &list[i]
			if cs.Name != container {
				continue
			}
			t := cmp.Or(cs.State.Terminated, cs.LastTerminationState.Terminated)
			if t == nil {
				continue
			}
			s := fmt.Sprintf("exit code %d", t.ExitCode)
			if t.Reason != "" {
				s += " (" + t.Reason + ")"
			}
			if t.Signal != 0 {
				s += fmt.Sprintf(", signal %d", t.Signal)
			}
			parts = append(parts, s+" in container "+container)
			if m := oneLine(t.Message); m != "" {
				parts = append(parts, fmt.Sprintf("termination message %q", m))
			}
		}
	}
	if r := pod.Status.Reason; r != "" {
		s := "pod " + r
		if m := oneLine(pod.Status.Message); m != "" {
			s += ": " + m
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// oneLine folds s onto one line and cuts it at maxMessage bytes.
func oneLine(s string) string {
	return textwrap.Truncate(strings.Join(strings.Fields(s), " "), maxMessage, "…")
}

// Container picks the container whose logs to show: the one asked for; else kubectl's
// default-container annotation; else, for a pod with several, the first whose last run ended
// with a non-zero exit code; else the first app container.
func Container(pod *corev1.Pod, asked string) string {
	if asked != "" {
		return asked
	}
	if c := pod.Annotations[DefaultContainerAnnotation]; c != "" {
		return c
	}
	if len(pod.Spec.Containers) == 1 {
		return pod.Spec.Containers[0].Name
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
			return cs.Name
		}
	}
	if len(pod.Spec.Containers) > 0 {
		return pod.Spec.Containers[0].Name
	}
	return ""
}

func summary(r *indexstatus.IndexedJobStatus) string {
	return fmt.Sprintf("%d of %d succeeded, %d running, %d pending", r.Summary.Succeeded, r.Completions, r.Summary.Running, r.Summary.Pending)
}
