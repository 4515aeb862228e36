package indexstatus

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// The Why line says each cause once with its indexes as a range set, however many pods or
// indexes share it: the issue's "index 4 exit code 1 in container embed, index 4 exit code 1
// in container embed, ..." is one clause.
func TestWhyGroupsByCause(t *testing.T) {
	job := newJob("j", 10, 10).backoffLimit(6).status("", nil, 0, 7, 0).
		cond(batchv1.JobFailed, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", time.Minute).get()
	var pods []corev1.Pod
	add := func(index, attempt int, code int32) {
		p := newPod(job, index, attempt, time.Duration(attempt)*10*time.Second).exited(code, time.Duration(attempt)*10*time.Second+5*time.Second).counted().get()
		pods = append(pods, p)
	}
	for a := range 3 {
		add(4, a, 1)
	}
	add(5, 0, 1)
	add(6, 0, 137)
	add(7, 0, 1)
	add(8, 0, 1)
	r, err := Build(job, pods, Options{Clock: at(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	want := "(7 pods failed on their own: exit code 1 in container worker: indexes 4,5,7,8 (6 pods); exit code 137 in container worker: index 6)"
	if !strings.Contains(r.Explanation, want) {
		t.Errorf("explanation does not group by cause, want %q in:\n%s", want, r.Explanation)
	}
}

// Failed indexes with the same words are one clause; past listLimit causes the rest are counted.
func TestFailedIndexListGroups(t *testing.T) {
	failed := "0-7"
	job := newJob("j", 8, 8).perIndex(0, nil).status("", ptr.To(failed), 0, 8, 0).
		cond(batchv1.JobFailed, batchv1.JobReasonFailedIndexes, "Job has failed indexes", time.Minute).get()
	var pods []corev1.Pod
	for i := range 8 {
		code := int32(1)
		if i >= 2 {
			code = int32(i) // 6 more distinct causes
		}
		pods = append(pods, newPod(job, i, 0, 0).exited(code, 5*time.Second).counted().get())
	}
	r, err := Build(job, pods, Options{Clock: at(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"indexes 0,1 failed after 1 attempt (exit code 1 in container worker), backoffLimitPerIndex 0 exhausted; index 2 failed",
		"; and 2 more causes.",
	} {
		if !strings.Contains(r.Explanation, want) {
			t.Errorf("want %q in:\n%s", want, r.Explanation)
		}
	}
	if n := strings.Count(r.Explanation, "exit code 1 in"); n != 1 {
		t.Errorf("exit code 1 named %d times, want once:\n%s", n, r.Explanation)
	}
}
