package jobdiff

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// goldenScenarios are whole reports, checked as text and as JSON.
func goldenScenarios() []struct {
	name    string
	live    *batchv1.Job
	desired *batchv1.Job
} {
	seedLive := func(j *batchv1.Job) {
		j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.BackoffLimit = nil, nil, ptrTo[int32](2)
		j.Spec.Completions, j.Spec.Parallelism = ptrTo[int32](10), ptrTo[int32](10)
	}
	seedDesired := func(j *batchv1.Job) {
		j.Spec.Completions, j.Spec.Parallelism = ptrTo[int32](10), ptrTo[int32](10)
	}
	moreCPU := func(j *batchv1.Job) {
		worker(j).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
		worker(j).Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}
	}
	return []struct {
		name    string
		live    *batchv1.Job
		desired *batchv1.Job
	}{
		{"no-differences", liveJob(stRunning, nil), desiredJob(nil)},
		{"seed-fix-running", liveJob(stRunning, seedLive), desiredJob(seedDesired)},
		{"live-changes-running", liveJob(stRunning, nil), desiredJob(func(j *batchv1.Job) {
			j.Spec.Parallelism = ptrTo[int32](3)
			j.Spec.MaxFailedIndexes = ptrTo[int32](3)
			j.Spec.TTLSecondsAfterFinished = ptrTo[int32](86400)
			j.Annotations = map[string]string{"example.com/owner": "ml-eval"}
		})},
		{"template-running", liveJob(stRunning, nil), desiredJob(moreCPU)},
		{"template-suspended", liveJob(stSuspendedStarted, nil), desiredJob(chain(moreCPU, func(j *batchv1.Job) {
			j.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "big"}
		}))},
		{"completions-not-in-tandem", liveJob(stRunning, nil), desiredJob(func(j *batchv1.Job) { j.Spec.Completions = ptrTo[int32](8) })},
		{"finished-with-image-change", liveJob(stComplete, nil), desiredJob(func(j *batchv1.Job) {
			j.Name = "eval-2"
			worker(j).Image = "busybox:1.37"
			j.Spec.Parallelism = ptrTo[int32](4)
			j.Spec.TTLSecondsAfterFinished = ptrTo[int32](60)
		})},
	}
}

func TestGolden(t *testing.T) {
	for _, sc := range goldenScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			r, err := Diff(sc.live, sc.desired, Options{Now: testNow, DesiredSource: "eval.yaml"})
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			if err := WriteText(&text, r, testNow); err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", sc.name+".txt"), text.Bytes())
			js, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", sc.name+".json"), append(js, '\n'))
		})
	}
}
