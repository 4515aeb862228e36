package indexstatus

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// reportBytes is the JSON, text and wide report of job and pods, with the settled pods folded
// or each kept.
func reportBytes(t *testing.T, job *batchv1.Job, pods []corev1.Pod, now time.Time, fold bool) (string, int) {
	t.Helper()
	var out bytes.Buffer
	folded := 0
	for _, all := range []bool{true, false} {
		a, err := NewAccumulator(job)
		if err != nil {
			t.Fatal(err)
		}
		if fold {
			a.FoldSettled()
		}
		for i := range pods {
			a.Add(&pods[i])
		}
		if a.fold != nil {
			folded = a.fold.pol.Len()
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
	return out.String(), folded
}

// Folding the settled pods changes no byte of any captured scenario's report, in every view
// (json, text, wide, a short list), and the scenarios do hold settled pods to fold.
func TestFoldSettledSameReport(t *testing.T) {
	total := 0
	for _, name := range fixtureNames(t) {
		dir := filepath.Join(fixturesDir, name)
		meta, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			CapturedAt time.Time `json:"capturedAt"`
		}
		if err := yaml.Unmarshal(meta, &m); err != nil {
			t.Fatal(err)
		}
		job, err := source.ReadJob(filepath.Join(dir, "job.json"), nil)
		if err != nil {
			t.Fatal(err)
		}
		pods, err := source.ReadPods(filepath.Join(dir, "pods.json"), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Every pod twice: a later copy of a folded pod is ignored, as the first is kept.
		pods = append(pods, pods...)
		kept, _ := reportBytes(t, job, pods, m.CapturedAt, false)
		folded, n := reportBytes(t, job, pods, m.CapturedAt, true)
		total += n
		if kept != folded {
			t.Errorf("%s: the report differs with the settled pods folded (%d folded)\nkept:\n%s\nfolded:\n%s", name, n, kept, folded)
		}
	}
	t.Logf("%d settled pods folded over the captured scenarios", total)
	if total == 0 {
		t.Fatal("no captured scenario has a settled pod: the test does not exercise folding")
	}
}
