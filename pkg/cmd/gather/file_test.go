package gather

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

func pod(name string, phase corev1.PodPhase) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{batchv1.ControllerUidLabel: "u"}},
		Status: corev1.PodStatus{Phase: phase}}
}

func names(t *testing.T, src Source, job *batchv1.Job, fieldSelector string) string {
	t.Helper()
	var got []string
	if _, err := src.Pods(context.Background(), job, fieldSelector, func(p *corev1.Pod) { got = append(got, p.Name) }); err != nil {
		t.Fatal(err)
	}
	return strings.Join(got, ",")
}

// File answers as Live does on the same objects: the pods, the label selectors of a lineage,
// the field selector of status's first read (as the API server applies it), and NotFound for what it does not hold, which says which
// files lack it.
func TestFileAnswersAsLive(t *testing.T) {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u"}}
	r1 := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j-r1", Namespace: "ns", UID: "u1", Labels: map[string]string{"root": "j"}}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}}
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "other"}}
	pods := []corev1.Pod{pod("a", corev1.PodSucceeded), pod("b", corev1.PodFailed), pod("c", corev1.PodRunning)}
	ctx := context.Background()

	live := &Live{Client: fake.NewClientset(job, r1, cm, other, &pods[0], &pods[1], &pods[2]), Namespace: "ns", FirstPageSize: 10, ChunkSize: 10}
	file := &File{Files: "all.json", Namespace: "ns", JobList: []*batchv1.Job{job, r1}, PodList: pods,
		ConfigMaps: map[string]*corev1.ConfigMap{cm.Name: cm, other.Name: other}}
	// The fake clientset ignores field selectors: the API server's answer is the File's.
	if got := names(t, file, job, indexstatus.NotSucceededSelector); got != "b,c" {
		t.Errorf("pods not succeeded %q", got)
	}
	for _, src := range []Source{live, file} {
		if got := names(t, src, job, ""); got != "a,b,c" {
			t.Errorf("%T: all pods %q", src, got)
		}
		if jobs, err := src.Jobs(ctx, "root=j"); err != nil || len(jobs) != 1 || jobs[0].Name != "j-r1" {
			t.Errorf("%T: jobs %v %v", src, jobs, err)
		}
		if j, err := src.Job(ctx, "j-r1"); err != nil || j.UID != "u1" {
			t.Errorf("%T: job %v %v", src, j, err)
		}
		if got, err := src.ConfigMap(ctx, "cm"); err != nil || got.Name != "cm" {
			t.Errorf("%T: configmap %v %v", src, got, err)
		}
		for _, name := range []string{"gone", "elsewhere"} {
			if _, err := src.ConfigMap(ctx, name); !apierrors.IsNotFound(err) {
				t.Errorf("%T: configmap %s: %v, want not found", src, name, err)
			}
		}
		if _, err := src.Job(ctx, "gone"); !apierrors.IsNotFound(err) {
			t.Errorf("%T: job gone: %v, want not found", src, err)
		}
	}
	_, err := file.ConfigMap(ctx, "gone")
	if m, ok := IsMissing(err); !ok || m.Files != "all.json" || err.Error() != `all.json does not hold configmaps "gone"` {
		t.Errorf("missing: %v", err)
	}
	if _, ok := IsMissing(func() error { _, err := live.ConfigMap(ctx, "gone"); return err }()); ok {
		t.Error("the cluster's NotFound is not a file's")
	}
}

// Pods of a pods file are streamed when JSON and read the general way otherwise (YAML), with
// the same pods; a file that holds nothing says what was expected.
func TestFilePodsFile(t *testing.T) {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u"}}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	json := write("pods.json", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"status":{"phase":"Succeeded"}},{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"},"status":{"phase":"Failed"}}]}`)
	yaml := write("pods.yaml", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a}, status: {phase: Succeeded}}\n- {apiVersion: v1, kind: Pod, metadata: {name: b}, status: {phase: Failed}}\n")
	for _, p := range []string{json, yaml} {
		if got := names(t, &File{PodsFile: p}, job, ""); got != "a,b" {
			t.Errorf("%s: %q", p, got)
		}
		if got := names(t, &File{PodsFile: p}, job, indexstatus.NotSucceededSelector); got != "b" {
			t.Errorf("%s not succeeded: %q", p, got)
		}
	}
	_, err := (&File{PodsFile: write("empty.json", "")}).Pods(context.Background(), job, "", func(*corev1.Pod) {})
	if exitcode.Code(err) != exitcode.Usage || !strings.Contains(err.Error(), "kubectl get pods -n ns -l batch.kubernetes.io/job-name=j -o json") {
		t.Errorf("empty pods file: %v", err)
	}
}
