package simulate

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
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
	// Checked before every sync: 100 checks pass (the first before sync 1), the 101st stops it.
	if !strings.Contains(err.Error(), "after 100 syncs") || !strings.Contains(err.Error(), "1m39s of simulated time") {
		t.Fatalf("error %q: want it to stop after 100 syncs at 1m39s", err)
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
