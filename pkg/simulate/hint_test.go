package simulate

import (
	"strings"
	"testing"
)

// The hint's outcomes make backoffLimit+1 transient failures: the Job in the prepare-db mode
// fails (syncJob: failed > backoffLimit) and the same Job with backoffLimitPerIndex completes.
func TestPrepareDBHint(t *testing.T) {
	j := job(10, 10, nil)
	j.Spec.BackoffLimit = i32(2)
	h, ok := PrepareDBHint("jobs/prepare db.yaml", j, false)
	if !ok {
		t.Fatal("no hint for the prepare-db mode")
	}
	if !strings.Contains(h.Fix, `'jobs/prepare db.yaml'`) || !strings.Contains(h.Fix, `"backoffLimitPerIndex":1`) ||
		!strings.Contains(h.Simulate, "--compare '/tmp/prepare db-per-index.yaml'") || !strings.HasSuffix(h.Fix, "> '/tmp/prepare db-per-index.yaml'") || strings.Count(h.Simulate, "--outcome") != 3 {
		t.Fatalf("hint:\n%s\n%s", h.Fix, h.Simulate)
	}
	flags, perIndex, _ := PrepareDBOutcomes(j)
	out := NewOutcomes()
	args := strings.Fields(flags)
	for k := 0; k+1 < len(args); k += 2 {
		var err error
		switch args[k] {
		case "--outcome":
			err = out.ParseOutcome(args[k+1])
		case "--duration":
			err = out.ParseDuration(args[k+1])
		case "--default-duration":
			err = out.SetDefaultDuration(args[k+1])
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if r := run(t, j, out); r.Outcome() != "Failed" {
		t.Errorf("prepare-db mode: %s, want Failed", r.Outcome())
	}
	fixed := j.DeepCopy()
	fixed.Spec.BackoffLimit = nil
	fixed.Spec.BackoffLimitPerIndex = i32(int32(perIndex))
	if r := run(t, fixed, out); r.Outcome() != "Complete" {
		t.Errorf("per-index fix: %s, want Complete", r.Outcome())
	}
	j.Spec.BackoffLimitPerIndex = i32(1)
	if _, ok := PrepareDBHint("x.yaml", j, false); ok {
		t.Error("hint for a Job with backoffLimitPerIndex")
	}
}
