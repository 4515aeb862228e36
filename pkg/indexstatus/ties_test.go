package indexstatus

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// tiedReport builds the report of job and pods many times, and fails unless every build is
// the same: pods that tie in index and creation are named in list order (attempt, then name),
// not in the order a map hands them out.
func tiedReport(t *testing.T, job *batchv1.Job, pods []corev1.Pod) string {
	t.Helper()
	now := t0.Add(time.Hour)
	first := reportBytes(t, job, pods, now)
	for range 30 {
		if again := reportBytes(t, job, pods, now); again != first {
			t.Fatalf("two builds of the same report differ:\n%s\n---\n%s", first, again)
		}
	}
	return first
}

// reportBytes is the JSON, text and wide report of job and pods.
func reportBytes(t *testing.T, job *batchv1.Job, pods []corev1.Pod, now time.Time) string {
	t.Helper()
	var out bytes.Buffer
	for _, all := range []bool{true, false} {
		a, err := NewAccumulator(job)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pods {
			a.Add(&pods[i])
		}
		r := a.Report(Options{Clock: fixedClock(now), AllIndexes: all, ListLimit: 3})
		a.AddCaseCounts(r)
		js, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(js)
		if err := PrintText(&out, r, all); err != nil {
			t.Fatal(err)
		}
	}
	return out.String()
}

// namedPod is a failed pod of index 0 named name, created at t0, exiting with code.
func namedPod(job *batchv1.Job, name string, code int32, counted bool) corev1.Pod {
	b := newPod(job, 0, 0, 0).exited(code, 5*time.Second)
	if counted {
		b.counted()
	}
	p := b.get()
	p.Name, p.UID = name, types.UID("uid-"+name)
	return p
}

// The pods that failed on their own are listed by index, then creation, then name.
func TestOwnFailureListTie(t *testing.T) {
	job := newJob("j", 2, 2).backoffLimit(1).status("", nil, 0, 2, 0).
		cond(batchv1.JobFailed, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", time.Minute).get()
	for _, counted := range []bool{false, true} {
		var pods []corev1.Pod
		for _, name := range []string{"j-0-e", "j-0-c", "j-0-a", "j-0-d", "j-0-b"} {
			pods = append(pods, namedPod(job, name, int32(name[len(name)-1]-'a'+1), counted))
		}
		out := tiedReport(t, job, pods)
		want := "exit code 1 in container worker: index 0; exit code 2 in container worker: index 0; exit code 3 in container worker: index 0"
		if !strings.Contains(out, want) {
			t.Errorf("counted %v: the own failures are not in name order, want %q in:\n%s", counted, want, out)
		}
	}
}

// With a FailJob condition whose message names no pod, the pod named is the first in list
// order that matched the FailJob rule.
func TestFailJobPodTie(t *testing.T) {
	job := newJob("j", 2, 2).rule(batchv1.PodFailurePolicyActionFailJob, "", batchv1.PodFailurePolicyOnExitCodesOpIn, 42).
		status("", nil, 0, 3, 0).
		cond(batchv1.JobFailed, batchv1.JobReasonPodFailurePolicy, "a message that names no pod", time.Minute).get()
	for _, counted := range []bool{false, true} {
		var pods []corev1.Pod
		for _, name := range []string{"j-0-z", "j-0-m", "j-0-k"} {
			pods = append(pods, namedPod(job, name, 42, counted))
		}
		out := tiedReport(t, job, pods)
		if want := "Pod j-0-k (index 0): exit code 42 in container worker matches podFailurePolicy rule 0 (FailJob)"; !strings.Contains(out, want) {
			t.Errorf("counted %v: want %q in:\n%s", counted, want, out)
		}
	}
}
