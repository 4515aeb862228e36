package jobpolicy

import (
	"math"
	"testing"
)

// ReadIndexes reads a status index list as the controller does: malformed fragments skipped,
// indexes at or above completions dropped (it was jobdiff's countIndexes).
func TestReadIndexes(t *testing.T) {
	for in, want := range map[string]int{"": 0, "0": 1, "1,3": 2, "0-5": 6, "0,1,3-5,7": 6, "x,2": 1, "5-3": 0, "-1": 0} {
		if got := ReadIndexes(in, math.MaxInt).Len(); got != want {
			t.Errorf("ReadIndexes(%q) has %d indexes, want %d", in, got, want)
		}
	}
	if got := ReadIndexes("0,4-9", 6).Len(); got != 3 {
		t.Errorf("ReadIndexes(0,4-9) with 6 completions has %d indexes, want 3", got)
	}
}
