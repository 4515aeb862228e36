package jobpolicy

import (
	"reflect"
	"testing"
)

func TestGroupByIndex(t *testing.T) {
	type item struct {
		index int
		name  string
	}
	items := []item{{2, "a"}, {0, "b"}, {2, "c"}, {5, "beyond"}, {-1, "none"}, {0, "d"}}
	got := GroupByIndex(4, items, func(it item) int { return it.index })
	want := [][]item{{{0, "b"}, {0, "d"}}, nil, {{2, "a"}, {2, "c"}}, nil}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("GroupByIndex = %v, want %v", got, want)
	}
	// Appending to a group must not write into its neighbour.
	got[0] = append(got[0], item{0, "e"})
	if got[2][0].name != "a" {
		t.Fatalf("append to group 0 overwrote group 2: %v", got[2])
	}
	if GroupByIndex(0, items, func(it item) int { return it.index }) != nil {
		t.Fatal("no completions: want nil")
	}
}
