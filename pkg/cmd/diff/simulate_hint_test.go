package diff

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"
)

// When the live Job is in the prepare-db mode and the desired one is not, diff prints the
// simulate --compare command that plays both on the same failures; with a live Job from the
// cluster the command reads it with kubectl get.
func TestSimulateHint(t *testing.T) {
	live := manifestJob()
	live.Spec.BackoffLimitPerIndex, live.Spec.MaxFailedIndexes = nil, nil
	live.Spec.BackoffLimit = ptr.To[int32](2)
	liveFile := writeYAML(t, "live.yaml", stored(live))
	desired := writeYAML(t, "job.yaml", manifestJob())
	r := run(t, nil, "", "--live-file", liveFile, "-f", desired)
	want := "kubectl indexed simulate " + liveFile + " --compare " + desired + " --default-duration 10m --outcome 0=1,0"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	if r := run(t, nil, "", "--live-file", liveFile, "-f", desired, "-o", "json"); strings.Contains(r.stderr, "simulate") {
		t.Errorf("hint with -o json:\n%s", r.stderr)
	}
	same := writeYAML(t, "same.yaml", manifestJob())
	liveOK := writeYAML(t, "live-ok.yaml", stored(manifestJob()))
	if r := run(t, nil, "", "--live-file", liveOK, "-f", same); strings.Contains(r.stderr, "simulate") {
		t.Errorf("hint without the prepare-db mode:\n%s", r.stderr)
	}
}
