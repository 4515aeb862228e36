package simulate

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// cancelAfter is a context whose Err turns to Canceled at its n-th call: a cancel that lands
// while the simulation runs, at a point that does not depend on the machine's speed.
type cancelAfter struct {
	context.Context
	n atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestSimulateStopsOnCancelledContext(t *testing.T) {
	j := job(5000, 1, nil) // 5000 waves: one sync per second of simulated time
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Simulate(j, nil, Options{Start: t0, Context: ctx})
	if r != nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "after 0 syncs") {
		t.Fatalf("cancelled before: got %v, %v; want no result and context.Canceled after 0 syncs", r, err)
	}
	c := &cancelAfter{Context: context.Background()}
	c.n.Store(100)
	r, err = Simulate(j, nil, Options{Start: t0, Context: c})
	if r != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while simulating: got %v, %v; want context.Canceled", r, err)
	}
	// Checked before every step (a sync, or the pod events of an instant): 100 checks pass (the
	// first before sync 1), the 101st stops it. A wave is a sync that creates the pod, the sync
	// its status write asks for a batch period later (which runs before the pod's end at that
	// same instant, as on the control plane: a pod's run starts after the sync that made it),
	// and the sync a batch period after the pod's end: 2 syncs and one pod step per wave, 67
	// syncs by 66s.
	if !strings.Contains(err.Error(), "after 67 syncs") || !strings.Contains(err.Error(), "1m6s of simulated time") {
		t.Fatalf("error %q: want it to stop after 67 syncs at 1m6s", err)
	}
	// Predict stops too, and an uncancelled context changes nothing.
	c.n.Store(10)
	if _, err := Predict(j, nil, Options{Start: t0, Context: c}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Predict: %v, want context.Canceled", err)
	}
	r, err = Simulate(job(50, 1, nil), nil, Options{Start: t0, Context: context.Background()})
	if err != nil || !r.Finished || r.Job.Status.Succeeded != 50 {
		t.Fatalf("uncancelled: %v, %+v", err, r)
	}
}

// A container that fails in no time under restartPolicy OnFailure restarts at the same instant;
// each restart waits for the next sync, which counts it (pastBackoffLimitOnFailure: restarts of
// running pods >= backoffLimit fail the Job), so the simulation ends. Before, the restarts were
// applied in a loop with no sync in between, and it never ended (nor stopped on SIGINT).
func TestZeroDurationRestartsEnd(t *testing.T) {
	j := job(2, 2, nil)
	j.Spec.Template.Spec.RestartPolicy = "OnFailure"
	j.Spec.BackoffLimit = i32(3)
	out := NewOutcomes()
	for _, v := range []string{"0=1"} {
		if err := out.ParseOutcome(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.ParseDuration("0=0s"); err != nil {
		t.Fatal(err)
	}
	r := run(t, j, out)
	at, reason, ok := condAt(r, "Failed")
	// FailureTarget at 0s; Failed once the killed pod's end is seen, a batch period later.
	if !ok || at != time.Second || reason != "BackoffLimitExceeded" || r.Indexes[0].Restarts != 3 {
		t.Fatalf("Failed %v at %s (%s), restarts of index 0: %d; want BackoffLimitExceeded at 1s after 3 restarts", ok, at, reason, r.Indexes[0].Restarts)
	}
}
