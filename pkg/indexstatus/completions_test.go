package indexstatus

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// A Job with more completions than MaxCompletions (the API server accepts up to 2^31-1) is a
// clear error from NewAccumulator, SetJob and Build, before anything is allocated per index:
// before, the report allocated the facts of every index and died with a runtime out-of-memory
// error. MaxCompletions itself is accepted.
func TestTooManyCompletions(t *testing.T) {
	if _, err := NewAccumulator(newJob("max", MaxCompletions, 100).get()); err != nil {
		t.Fatalf("MaxCompletions: %v", err)
	}
	for _, n := range []int32{MaxCompletions + 1, 10_000_000, math.MaxInt32} {
		j := newJob("big", n, 100).get()
		_, err := NewAccumulator(j)
		var tm *TooManyCompletionsError
		if !errors.As(err, &tm) || tm.Completions != n {
			t.Fatalf("%d: NewAccumulator: %v, want a TooManyCompletionsError", n, err)
		}
		for _, want := range []string{`job "big" in namespace "ns" has spec.completions`, "at most 1000000", "kubectl get job big -n ns -o yaml"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%d: %q lacks %q", n, err, want)
			}
		}
		if _, err := Build(j, nil, Options{}); !errors.As(err, &tm) {
			t.Errorf("%d: Build: %v", n, err)
		}
		acc, err := NewAccumulator(newJob("big", 3, 1).get())
		if err != nil {
			t.Fatal(err)
		}
		if err := acc.SetJob(j); !errors.As(err, &tm) {
			t.Errorf("%d: SetJob (the newer Job a watch gives): %v", n, err)
		}
	}
}
