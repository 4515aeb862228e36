// Package indexes reads and writes the interval strings of an Indexed Job's
// status.completedIndexes and status.failedIndexes (and successPolicy succeededIndexes).
//
// A Set is held as sorted, disjoint, non-adjacent intervals, so a Job with 100,000 completed
// indexes written as "0-99999" costs one interval, not 100,000 booleans. Parsing and writing
// are linear in the length of the string.
//
// Three readers mirror the Kubernetes release in pkg/version:
//   - Parse accepts exactly what the API server accepts (validateIndexesFormat and
//     parseIndexInterval in pkg/apis/batch/validation), with the same error texts;
//   - ParseLenient reads a string as the Job controller does (parseIndexesFromString in
//     pkg/controller/job/indexed_job_utils.go): corrupt fragments are skipped, indexes at or
//     above completions are dropped and intervals clipped, so a malformed string from an old or
//     foreign controller still yields the indexes the controller itself would see;
//   - String writes the controller's format (orderedIntervals.String): a run of 1 is "a", a
//     run of 2 is "a,b" and a longer run is "a-b".
package indexes

import (
	"fmt"
	"iter"
	"slices"
	"sort"
	"strconv"
)

// Interval is the inclusive range of indexes First..Last (First <= Last).
type Interval struct {
	First int `json:"first"`
	Last  int `json:"last"`
}

// Len is the number of indexes in the interval.
func (iv Interval) Len() int { return iv.Last - iv.First + 1 }

// Set is a set of non-negative indexes, held as sorted, disjoint, non-adjacent intervals.
// The zero value is the empty set. A Set is immutable once built; methods return new Sets.
type Set struct {
	ivs []Interval
}

// FromIntervals builds a Set from intervals in any order; overlapping and adjacent intervals
// are merged and intervals with First > Last or a negative First are dropped.
func FromIntervals(ivs ...Interval) Set {
	var b Builder
	for _, iv := range ivs {
		b.AddInterval(iv.First, iv.Last)
	}
	return b.Set()
}

// Of builds a Set from indexes in any order (negative indexes are dropped).
func Of(indexes ...int) Set {
	var b Builder
	for _, i := range indexes {
		b.Add(i)
	}
	return b.Set()
}

// Range is the set First..Last, or the empty set when last < first.
func Range(first, last int) Set { return FromIntervals(Interval{first, last}) }

// Intervals returns the intervals in increasing order. The slice must not be modified.
func (s Set) Intervals() []Interval { return s.ivs }

// Len is the number of indexes in the set.
func (s Set) Len() int {
	n := 0
	for _, iv := range s.ivs {
		n += iv.Len()
	}
	return n
}

// IsEmpty reports whether the set holds no index.
func (s Set) IsEmpty() bool { return len(s.ivs) == 0 }

// IsZero is IsEmpty, so that a field `json:",omitzero"` leaves out an empty set as
// `json:",omitempty"` leaves out an empty string.
func (s Set) IsZero() bool { return s.IsEmpty() }

// Has reports whether i is in the set, in O(log intervals).
func (s Set) Has(i int) bool {
	k := sort.Search(len(s.ivs), func(k int) bool { return s.ivs[k].Last >= i })
	return k < len(s.ivs) && s.ivs[k].First <= i
}

// Max returns the largest index, or -1 for the empty set.
func (s Set) Max() int {
	if len(s.ivs) == 0 {
		return -1
	}
	return s.ivs[len(s.ivs)-1].Last
}

// All yields every index in increasing order.
func (s Set) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for _, iv := range s.ivs {
			for i := iv.First; i <= iv.Last; i++ {
				if !yield(i) {
					return
				}
			}
		}
	}
}

// Equal reports whether both sets hold the same indexes.
func (s Set) Equal(o Set) bool { return slices.Equal(s.ivs, o.ivs) }

// Union returns the indexes in s or o, in O(intervals).
func (s Set) Union(o Set) Set {
	out := make([]Interval, 0, len(s.ivs)+len(o.ivs))
	i, j := 0, 0
	for i < len(s.ivs) || j < len(o.ivs) {
		if j == len(o.ivs) || (i < len(s.ivs) && s.ivs[i].First <= o.ivs[j].First) {
			out = appendMerged(out, s.ivs[i])
			i++
		} else {
			out = appendMerged(out, o.ivs[j])
			j++
		}
	}
	return Set{ivs: out}
}

// appendMerged appends iv to ivs, sorted by First, merging it into the last interval when
// they overlap or touch.
func appendMerged(ivs []Interval, iv Interval) []Interval {
	if n := len(ivs); n > 0 && iv.First <= ivs[n-1].Last+1 {
		ivs[n-1].Last = max(ivs[n-1].Last, iv.Last)
		return ivs
	}
	return append(ivs, iv)
}

// Intersect returns the indexes in both s and o, in O(intervals).
func (s Set) Intersect(o Set) Set {
	var out []Interval
	i, j := 0, 0
	for i < len(s.ivs) && j < len(o.ivs) {
		a, b := s.ivs[i], o.ivs[j]
		lo, hi := max(a.First, b.First), min(a.Last, b.Last)
		if lo <= hi {
			out = append(out, Interval{lo, hi})
		}
		if a.Last < b.Last {
			i++
		} else {
			j++
		}
	}
	return Set{ivs: out}
}

// Difference returns the indexes in s that are not in o, in O(intervals).
func (s Set) Difference(o Set) Set {
	var out []Interval
	j := 0
	for _, iv := range s.ivs {
		first := iv.First
		for j < len(o.ivs) && o.ivs[j].Last < first {
			j++
		}
		k := j
		for k < len(o.ivs) && o.ivs[k].First <= iv.Last {
			if o.ivs[k].First > first {
				out = append(out, Interval{first, o.ivs[k].First - 1})
			}
			first = o.ivs[k].Last + 1
			k++
		}
		if first <= iv.Last {
			out = append(out, Interval{first, iv.Last})
		}
	}
	return Set{ivs: out}
}

// Complement returns the indexes 0..n-1 that are not in s.
func (s Set) Complement(n int) Set { return Range(0, n-1).Difference(s) }

// First returns the n smallest indexes of s (all of s when it has n or fewer).
func (s Set) First(n int) Set {
	var out []Interval
	for _, iv := range s.ivs {
		if n <= 0 {
			break
		}
		if iv.Len() > n {
			iv.Last = iv.First + n - 1
		}
		out = append(out, iv)
		n -= iv.Len()
	}
	return Set{ivs: out}
}

// String writes the set as the Job controller writes completedIndexes: comma-separated,
// increasing, a run of 1 as "a", a run of 2 as "a,b", a run of 3 or more as "a-b".
func (s Set) String() string {
	buf := make([]byte, 0, len(s.ivs)*8)
	for k, iv := range s.ivs {
		if k > 0 {
			buf = append(buf, ',')
		}
		buf = appendInterval(buf, iv)
	}
	return string(buf)
}

// appendInterval writes one interval in the controller's format.
func appendInterval(buf []byte, iv Interval) []byte {
	buf = strconv.AppendInt(buf, int64(iv.First), 10)
	switch {
	case iv.Last == iv.First+1:
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(iv.Last), 10)
	case iv.Last > iv.First:
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, int64(iv.Last), 10)
	}
	return buf
}

// Wrapped returns String() in lines of at most width bytes, cut at interval boundaries, each
// line but the last ending in its comma, for a list shown whole: "0-4,7,9,12-20,". An
// interval longer than width gets a line of its own; the empty set gives no line.
func (s Set) Wrapped(width int) []string {
	var lines []string
	buf := make([]byte, 0, width+16)
	for _, iv := range s.ivs {
		frag := appendInterval(nil, iv)
		// The fragment and the comma that follows it unless it is the last.
		if len(buf) > 0 && len(buf)+1+len(frag)+1 > width {
			lines = append(lines, string(append(buf, ',')))
			buf = buf[:0]
		} else if len(buf) > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, frag...)
	}
	if len(buf) > 0 {
		lines = append(lines, string(buf))
	}
	return lines
}

// Truncated returns String() cut at an interval boundary so that the indexes part is at most
// about limit bytes, followed by the number of indexes left out, for one-line displays:
// "0-4,7,9 (and 120 more)". At least one interval is always shown.
func (s Set) Truncated(limit int) string {
	buf := make([]byte, 0, min(limit+16, len(s.ivs)*8))
	shown := 0
	for k, iv := range s.ivs {
		frag := appendInterval(nil, iv)
		if k > 0 && len(buf)+1+len(frag) > limit {
			return fmt.Sprintf("%s (and %d more)", buf, s.Len()-shown)
		}
		if k > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, frag...)
		shown += iv.Len()
	}
	return string(buf)
}

// MarshalText writes String(), so a Set appears in JSON and YAML as the controller's string.
func (s Set) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a string in the API server's grammar, without an upper bound.
func (s *Set) UnmarshalText(b []byte) error {
	v, err := Parse(string(b), -1)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Builder collects indexes and intervals into a Set. Adding in increasing order is O(1) per
// call; out-of-order additions are sorted once in Set.
type Builder struct {
	ivs      []Interval
	unsorted bool
}

// Add adds index i (negative indexes are ignored).
func (b *Builder) Add(i int) { b.AddInterval(i, i) }

// AddInterval adds first..last. Empty (last < first) or negative intervals are clipped at 0 or
// ignored.
func (b *Builder) AddInterval(first, last int) {
	first = max(first, 0)
	if last < first {
		return
	}
	if n := len(b.ivs); n > 0 && !b.unsorted {
		prev := &b.ivs[n-1]
		switch {
		case first > prev.Last+1:
		case first >= prev.First:
			prev.Last = max(prev.Last, last)
			return
		default:
			b.unsorted = true
		}
	}
	b.ivs = append(b.ivs, Interval{first, last})
}

// Set returns the collected set. The Builder may be used further.
func (b *Builder) Set() Set {
	if !b.unsorted {
		return Set{ivs: append([]Interval(nil), b.ivs...)}
	}
	ivs := append([]Interval(nil), b.ivs...)
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].First < ivs[j].First })
	out := ivs[:0]
	for _, iv := range ivs {
		out = appendMerged(out, iv)
	}
	b.ivs, b.unsorted = out, false
	return Set{ivs: append([]Interval(nil), out...)}
}
