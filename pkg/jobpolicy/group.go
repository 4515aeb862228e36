package jobpolicy

// GroupByIndex groups items by completion index: element i of the result holds, in input
// order, the items whose index (as index reports it) is i, for 0 <= i < completions; items
// with another index are left out. The groups are windows of one array, capped at their
// length (appending to one copies it and leaves its neighbours alone), so a report over
// 100,000 indexes costs one pointer per item and one slice header per index instead of a
// map entry and a small array per index.
func GroupByIndex[T any](completions int, items []T, index func(T) int) [][]T {
	if completions <= 0 {
		return nil
	}
	start := make([]int32, completions+1)
	n := 0
	for _, it := range items {
		if i := index(it); i >= 0 && i < completions {
			start[i+1]++
			n++
		}
	}
	for i := 1; i <= completions; i++ {
		start[i] += start[i-1]
	}
	flat := make([]T, n)
	next := make([]int32, completions)
	copy(next, start[:completions])
	for _, it := range items {
		if i := index(it); i >= 0 && i < completions {
			flat[next[i]] = it
			next[i]++
		}
	}
	out := make([][]T, completions)
	for i := range out {
		if a, b := start[i], start[i+1]; a < b {
			out[i] = flat[a:b:b]
		}
	}
	return out
}
