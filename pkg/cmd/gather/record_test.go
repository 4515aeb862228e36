package gather

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

func podOfJob(name string, job *batchv1.Job) *corev1.Pod {
	p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name),
			Labels: map[string]string{batchv1.JobNameLabel: job.Name, batchv1.ControllerUidLabel: string(job.UID)}},
		Status: corev1.PodStatus{Phase: corev1.PodFailed}}
	return p
}

// A lineage record holds the pods of the root and its retries: each Job reads its own from it
// (readRecord), the lineage reads them all (ReadRunRecord), another run's Jobs are refused,
// and -f's records are told from the other files by their first line (SplitRecords).
func TestLineageRecordRead(t *testing.T) {
	root := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "eval", Namespace: "ns", UID: "root-uid"}}
	l := &lineage.Lineage{RootJob: "eval", RootJobUID: "root-uid", ParentJob: "eval", ParentJobUID: "root-uid", Attempt: 1}
	r1 := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "eval-r1", Namespace: "ns", UID: "r1-uid", Annotations: l.Annotations(), Labels: l.Labels()}}
	if r1.Annotations[shards.AnnotationRootJobUID] != "root-uid" {
		t.Fatalf("retry annotations: %v", r1.Annotations)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "eval.record")
	testutil.WriteRecord(t, path, root, true, []corev1.Pod{*podOfJob("a", root), *podOfJob("b", r1), *podOfJob("c", root)})
	for job, want := range map[*batchv1.Job]string{root: "a,c", r1: "b"} {
		if got := names(t, &File{PodsFile: path}, job, ""); got != want {
			t.Errorf("%s reads %q from the lineage record, want %q", job.Name, got, want)
		}
	}
	other := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "eval", Namespace: "ns", UID: "another-uid"}}
	_, err := (&File{PodsFile: path}).Pods(context.Background(), other, "", func(*corev1.Pod) {})
	if exitcode.Code(err) != exitcode.Usage || !strings.Contains(err.Error(), "is the record of the lineage of job ns/eval (uid root-uid), not of job \"eval\" (uid another-uid)") {
		t.Errorf("another run's Job: %v", err)
	}

	f := &File{}
	if ok, err := f.ReadRunRecord(path, lineage.RunID{Root: "eval", RootUID: "root-uid"}, []*batchv1.Job{root, r1}); !ok || err != nil || len(f.PodList) != 3 {
		t.Errorf("the lineage: ok %v, %v, %d pods, want 3", ok, err, len(f.PodList))
	}
	if ok, err := (&File{}).ReadRunRecord(path, lineage.RunID{Root: "eval", RootUID: "another-uid"}, []*batchv1.Job{other}); !ok || exitcode.Code(err) != exitcode.Usage {
		t.Errorf("another run: ok %v, %v", ok, err)
	}

	jobFile := filepath.Join(dir, "job.json")
	if err := os.WriteFile(jobFile, []byte(`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"eval"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	others, records := SplitRecords([]string{path, jobFile, filepath.Join(dir, "missing.json")}, nil)
	if strings.Join(records, ",") != path || len(others) != 2 || others[0] != jobFile {
		t.Errorf("SplitRecords: others %v, records %v", others, records)
	}
	if err := RecordWithoutJob(path, nil); exitcode.Code(err) != exitcode.Usage || !strings.Contains(err.Error(), "the lineage of job ns/eval (uid root-uid), and no Job is given") {
		t.Errorf("RecordWithoutJob: %v", err)
	}
}
