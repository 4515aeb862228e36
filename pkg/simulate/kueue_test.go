package simulate

import (
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
)

// A Job in a Kueue queue: the report says the wait for admission is not modelled, rather than
// predicting when it starts; a Job outside any queue says nothing of the kind.
func TestAdmissionWaitNotModelled(t *testing.T) {
	j := job(2, 2, nil)
	plain, err := Predict(j, nil, Options{Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	if plain.AdmissionWait != "" {
		t.Errorf("a Job without queue: admissionWait %q", plain.AdmissionWait)
	}
	j.Labels = map[string]string{kueue.QueueLabel: "team-a"}
	rep, err := Predict(j, nil, Options{Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.AdmissionWait, `LocalQueue "team-a"`) || !strings.Contains(rep.AdmissionWait, "not modelled") {
		t.Errorf("admissionWait %q", rep.AdmissionWait)
	}
}
