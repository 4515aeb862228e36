package indexstatus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// scaledRetrying builds, from the real capture test/fixtures/retrying (a Job with
// backoffLimitPerIndex 2 whose index 1 failed with exit 1, index 0 succeeded, the others
// running), the saved objects of a 10,000-index Job: indexes 5000-5100 failed (each attempt
// exits 1, retries used up: 3 failed pods), 9900-9999 running, the rest succeeded. Each pod
// is a copy of the captured pod of its kind, renamed and relabelled.
func scaledRetrying(t testing.TB) (*batchv1.Job, []corev1.Pod) {
	t.Helper()
	var job batchv1.Job
	var pods corev1.PodList
	for file, v := range map[string]any{"job.json": &job, "pods.json": &pods} {
		raw, err := os.ReadFile("../../test/fixtures/retrying/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatal(err)
		}
	}
	proto := map[corev1.PodPhase]*corev1.Pod{}
	for i := range pods.Items {
		proto[pods.Items[i].Status.Phase] = &pods.Items[i]
	}
	const n, failFirst, failLast, runFirst = 10000, 5000, 5100, 9900
	job.Spec.Completions, job.Spec.Parallelism = ptr.To[int32](n), ptr.To[int32](100)
	job.Status.CompletedIndexes = fmt.Sprintf("0-%d,%d-%d", failFirst-1, failLast+1, runFirst-1)
	job.Status.FailedIndexes = ptr.To(fmt.Sprintf("%d-%d", failFirst, failLast))
	job.Status.Active, job.Status.Ready = n-runFirst, ptr.To[int32](n-runFirst)
	job.Status.Succeeded = int32(n - (failLast - failFirst + 1) - (n - runFirst))
	job.Status.Failed = 3 * (failLast - failFirst + 1)
	var out []corev1.Pod
	add := func(phase corev1.PodPhase, index, attempt int) {
		p := proto[phase].DeepCopy()
		p.Name = fmt.Sprintf("%s-%d-a%d", job.Name, index, attempt)
		p.UID = "" // names are unique; the capture's UID belongs to one pod
		for _, m := range []map[string]string{p.Labels, p.Annotations} {
			m[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(index)
		}
		p.Annotations["batch.kubernetes.io/job-index-failure-count"] = strconv.Itoa(attempt)
		if attempt > 0 {
			shift := metav1.NewTime(p.CreationTimestamp.Add(time.Duration(attempt) * 20 * time.Second))
			p.CreationTimestamp = shift
			if cs := p.Status.ContainerStatuses; len(cs) > 0 && cs[0].State.Terminated != nil {
				cs[0].State.Terminated.StartedAt = shift
				cs[0].State.Terminated.FinishedAt = metav1.NewTime(shift.Add(2 * time.Second))
			}
		}
		out = append(out, *p)
	}
	for i := range n {
		switch {
		case i >= failFirst && i <= failLast:
			for a := range 3 {
				add(corev1.PodFailed, i, a)
			}
		case i >= runFirst:
			add(corev1.PodRunning, i, 0)
		default:
			add(corev1.PodSucceeded, i, 0)
		}
	}
	return &job, out
}

// TestTenThousandIndexesOneScreen (issue 22, acceptance): status of a saved 10,000-index Job
// with 101 failed indexes, all for one cause, is at most 60 lines of at most 80 columns and
// shows the failed indexes as one range. Before, it printed 192 lines: the same sentence five
// times, then 50 identical blocks.
func TestTenThousandIndexesOneScreen(t *testing.T) {
	job, pods := scaledRetrying(t)
	now := CaptureTime(job, pods).Add(time.Minute)
	r, err := Build(job, pods, Options{Clock: fixedClock(now), ListLimit: TextViewRows})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := PrintText(&b, r, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 60 {
		t.Errorf("%d lines, want at most 60", len(lines))
	}
	for k, l := range lines {
		if w := utf8.RuneCountInString(l); w > 80 {
			t.Errorf("line %d is %d columns: %q", k+1, w, l)
		}
	}
	if strings.Count(out, "5000-5100") < 1 {
		t.Errorf("the failed indexes are not one range")
	}
	if strings.Contains(out, "5050") {
		t.Errorf("a failed index named on its own")
	}
	t.Logf("%d lines:\n%s", len(lines), out)
}
