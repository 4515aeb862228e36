package jobpolicy

import "testing"

func TestSuggestedMaxFailedIndexes(t *testing.T) {
	for completions, want := range map[int]int32{0: 0, 1: 0, 2: 1, 3: 1, 10: 5, 11: 5, 100000: 50000} {
		if got := SuggestedMaxFailedIndexes(completions); got != want {
			t.Errorf("SuggestedMaxFailedIndexes(%d) = %d, want %d", completions, got, want)
		}
	}
	if got := PercentOf(8, 10); got != 0 {
		t.Errorf("PercentOf(8, 10) = %d, want 0 (rounded down)", got)
	}
}
