package testutil

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podrecord"
)

// Fixture reads the Job and the pods captured from the control plane in test/fixtures/NAME
// (job.json and pods.json, never edited by hand), from a test of any package.
func Fixture(t testing.TB, name string) (*batchv1.Job, []corev1.Pod) {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(self), "..", "fixtures", name)
	var job batchv1.Job
	var pods corev1.PodList
	for file, v := range map[string]any{"job.json": &job, "pods.json": &pods} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	return &job, pods.Items
}

// WriteRecord writes at path the pod record status --wait --record keeps of job's terminal
// pods; with lineage, the record of the lineage job is the root of (status --lineage --record),
// which takes the pods of every Job of the run.
func WriteRecord(t testing.TB, path string, job *batchv1.Job, lineage bool, pods []corev1.Pod) {
	t.Helper()
	var w *podrecord.Writer
	var err error
	if lineage {
		w, err = podrecord.OpenLineage(path, contract.JobRef{Name: job.Name, Namespace: job.Namespace, UID: string(job.UID)}, time.Now)
	} else {
		w, err = podrecord.Open(path, job, time.Now)
	}
	if err != nil {
		t.Fatal(err)
	}
	for i := range pods {
		if err := w.Add(&pods[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
