package podrecord

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
)

var job = &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "eval", Namespace: "ml", UID: "job-uid"}}

func pod(name string, phase corev1.PodPhase, exit int32) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ml", UID: types.UID("uid-" + name),
			Annotations:   map[string]string{batchv1.JobCompletionIndexAnnotation: "3"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}},
		Spec: corev1.PodSpec{NodeName: "node-1", RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "worker", Image: "eval:1", Args: []string{"--big"}}}},
		Status: corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{Name: "worker",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Reason: "Error", Message: "shard 3: bad input"}}}}},
	}
}

func clock() func() time.Time {
	t := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(100 * time.Millisecond); return t }
}

func readAll(t *testing.T, path string) (*Header, []*corev1.Pod) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var pods []*corev1.Pod
	h, err := Read(f, func(p *corev1.Pod) { pods = append(pods, p) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h, pods
}

// TestWriteReadBack: only terminal pods are written, each once, slimmed (no managedFields, no
// image), with the evidence a report reads: exit code, reason, message, node, index.
func TestWriteReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eval.record")
	w, err := Open(path, job, clock())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*corev1.Pod{pod("a", corev1.PodRunning, 0), pod("b", corev1.PodFailed, 42), pod("b", corev1.PodFailed, 42), pod("c", corev1.PodSucceeded, 0)} {
		if err := w.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Written != 2 {
		t.Errorf("written %d, want 2 (b once, c)", w.Written)
	}
	h, pods := readAll(t, path)
	if h.Job.UID != "job-uid" || h.Job.Name != "eval" || h.Kind != "PodRecord" {
		t.Errorf("header %+v", h)
	}
	if len(pods) != 2 || pods[0].Name != "b" || pods[1].Name != "c" {
		t.Fatalf("pods %v", pods)
	}
	b := pods[0]
	st := b.Status.ContainerStatuses[0].State.Terminated
	if st.ExitCode != 42 || st.Message != "shard 3: bad input" || b.Spec.NodeName != "node-1" || b.Annotations[batchv1.JobCompletionIndexAnnotation] != "3" {
		t.Errorf("evidence lost: %+v", b)
	}
	if b.ManagedFields != nil || b.Spec.Containers[0].Image != "" || b.Spec.Containers[0].Name != "worker" {
		t.Errorf("not slim: %+v", b.Spec)
	}
}

// TestReopenAddsNothingTwice: a writer killed after its writes, then opened again on the same
// file, learns the pods there and appends only new ones; a torn last line is cut off and its
// pod written again.
func TestReopenAddsNothingTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eval.record")
	w, err := Open(path, job, clock())
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Add(pod("a", corev1.PodFailed, 1))
	_ = w.Add(pod("b", corev1.PodFailed, 2))
	_ = w.f.Close() // killed: no Close
	// The kill came in the middle of writing c.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c","ui`)
	_ = f.Close()
	if _, pods := readAll(t, path); len(pods) != 2 {
		t.Fatalf("a torn last line is skipped: read %d pods, want 2", len(pods))
	}

	w, err = Open(path, job, clock())
	if err != nil {
		t.Fatal(err)
	}
	if w.Kept != 2 || len(w.Notes) != 1 || !strings.Contains(w.Notes[0], "torn line") {
		t.Errorf("kept %d, notes %q", w.Kept, w.Notes)
	}
	for _, p := range []*corev1.Pod{pod("a", corev1.PodFailed, 1), pod("b", corev1.PodFailed, 2), pod("c", corev1.PodFailed, 3)} {
		if err := w.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, pods := readAll(t, path)
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "a,b,c" {
		t.Errorf("pods %v, want a,b,c once each", names)
	}
}

func TestRefusesAnotherJobsRecordAndOtherFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "eval.record")
	w, err := Open(path, job, clock())
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	again := job.DeepCopy()
	again.UID = "new-uid"
	if _, err := Open(path, again, clock()); err == nil || !strings.Contains(err.Error(), "not of this job") {
		t.Errorf("a Job made again under the same name: %v", err)
	}
	pods := filepath.Join(dir, "pods.json")
	if err := os.WriteFile(pods, []byte(`{"apiVersion":"v1","kind":"PodList","items":[]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(pods, job, clock()); !errors.Is(err, ErrNotARecord) {
		t.Errorf("a pod list is not a record to append to: %v", err)
	}
	f, _ := os.Open(pods)
	defer func() { _ = f.Close() }()
	if Peek(bufio.NewReader(f)) != nil {
		t.Error("Peek: a pod list is not a record")
	}
	r, _ := os.Open(path)
	defer func() { _ = r.Close() }()
	if h := Peek(bufio.NewReader(r)); h == nil || h.Job.Name != job.Name {
		t.Errorf("Peek: a record is one, of its Job: %+v", h)
	}
}

// TestAppendsAtTheEnd: the record is opened for appending, so a line written to it by another
// writer after this one opened it is not overwritten (a file opened without O_APPEND writes at
// its own offset, over the other writer's line).
func TestAppendsAtTheEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eval.record")
	w, err := Open(path, job, clock())
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(path, job, clock())
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Add(pod("a", corev1.PodFailed, 1)); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(pod("b", corev1.PodFailed, 2)); err != nil {
		t.Fatal(err)
	}
	_ = other.Close()
	_ = w.Close()
	_, pods := readAll(t, path)
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "a,b" {
		t.Errorf("pods %v, want a,b: a write went over another's line", names)
	}
}

// A lineage's record is resumed by the same run only: not by a one-Job record's writer, nor by
// another run whose root has the same name.
func TestLineageRecordIsBoundToItsRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.record")
	root := contract.JobRef{Name: "eval", Namespace: "ml", UID: "root-uid"}
	w, err := OpenLineage(path, root, clock())
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	if w, err = OpenLineage(path, root, clock()); err != nil {
		t.Fatalf("the same run: %v", err)
	}
	_ = w.Close()
	other := root
	other.UID = "another-uid"
	if _, err := OpenLineage(path, other, clock()); err == nil || !strings.Contains(err.Error(), "is the record of the lineage of job ml/eval (uid root-uid), not of the lineage of job ml/eval (uid another-uid)") {
		t.Errorf("another run: %v", err)
	}
	if _, err := Open(path, job, clock()); err == nil || !strings.Contains(err.Error(), "not of this job") {
		t.Errorf("one Job onto a lineage record: %v", err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if h := Peek(bufio.NewReader(f)); h == nil || !h.Lineage || h.Job != root {
		t.Errorf("Peek: %+v", h)
	}
}
