package lineage

import (
	"slices"
	"testing"
)

// Retry names never stack suffixes (issue 36, item 8): a root named eval-r1 is retried as
// eval-r2, not eval-r1-r1.
func TestRetryName(t *testing.T) {
	for _, c := range []struct {
		root string
		n    int
		want string
	}{
		{"mmlu-eval", 1, "mmlu-eval-r1"},
		{"mmlu-eval", 2, "mmlu-eval-r2"},
		{"mmlu-eval-r1", 1, "mmlu-eval-r2"},
		{"mmlu-eval-r1", 3, "mmlu-eval-r4"},
		{"eval-r9", 1, "eval-r10"},
		{"eval-r0", 1, "eval-r0-r1"},
		{"eval-r01", 1, "eval-r01-r1"},
		{"eval-rx", 1, "eval-rx-r1"},
		{"-r1", 1, "-r1-r1"},
		{"r1", 1, "r1-r1"},
		{"eval-r", 1, "eval-r-r1"},
	} {
		if got := RetryName(c.root, c.n); got != c.want {
			t.Errorf("RetryName(%q, %d) = %q, want %q", c.root, c.n, got, c.want)
		}
	}
}

// Names sort as read: eval-r1-4 before eval-r1-17.
func TestNaturalCompare(t *testing.T) {
	got := []string{"eval-r1-17", "eval-r2", "eval-r1-4", "eval", "eval-r10", "eval-r1-100", "eval-r1", "eval-r1-04", "b", "a10b", "a9c"}
	slices.SortFunc(got, NaturalCompare)
	want := []string{"a9c", "a10b", "b", "eval", "eval-r1", "eval-r1-04", "eval-r1-4", "eval-r1-17", "eval-r1-100", "eval-r2", "eval-r10"}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	for _, p := range [][2]string{{"x", "x"}, {"", ""}} {
		if NaturalCompare(p[0], p[1]) != 0 {
			t.Errorf("%q != %q", p[0], p[1])
		}
	}
}
