package indexes

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Unbounded, given as completions, lifts the upper bound on indexes.
const Unbounded = -1

// Parse reads s in the API server's grammar (validateIndexesFormat, parseIndexInterval):
//
//	list := "" | iv ("," iv)*
//	iv   := N | N "-" M        with N < M
//
// where every number is below completions (unless completions is Unbounded) and every
// interval starts after the previous one ends. Numbers are read as strconv.Atoi reads them (an
// optional "+", leading zeros allowed). "1-2" is accepted although the controller writes
// "1,2". The error texts are the API server's. Parse is linear in len(s).
func Parse(s string, completions int) (Set, error) {
	if s == "" {
		return Set{}, nil
	}
	limit := completions
	if completions < 0 {
		limit = math.MaxInt
	}
	ivs := make([]Interval, 0, 1+strings.Count(s, ","))
	last := -1
	for frag := range strings.SplitSeq(s, ",") {
		x, y, err := parseInterval(frag, limit)
		if err != nil {
			return Set{}, err
		}
		if last >= 0 && last >= x {
			return Set{}, fmt.Errorf("non-increasing order, previous: %d, current: %d", last, x)
		}
		last = y
		ivs = appendMerged(ivs, Interval{x, y})
	}
	return Set{ivs: ivs}, nil
}

// ParseRootIndexes reads root completion indexes the plugin stored in an object of the API
// server (a retry's index map, in its annotation or its ConfigMap): Parse below the largest
// completions a Job can have (spec.completions is an int32), as the root Job, whose own
// completions bound them, is not at hand where the map is read.
func ParseRootIndexes(s string) (Set, error) { return Parse(s, math.MaxInt32) }

// ValidateFormat is the API server's validateIndexesFormat, with its signature: it accepts
// what Parse accepts below completions (nothing but "" when completions is 0 or less, as on the
// server; there is no Unbounded here), returns the same error texts, and returns the number of
// indexes listed. Job validation uses it for successPolicy succeededIndexes.
func ValidateFormat(s string, completions int32) (int32, error) {
	set, err := Parse(s, max(int(completions), 0))
	if err != nil {
		return 0, err
	}
	return int32(set.Len()), nil // below completions, so it fits
}

// parseInterval mirrors the API server's parseIndexInterval, including the order of its checks.
func parseInterval(frag string, limit int) (x, y int, err error) {
	first, second, parts := splitDash(frag)
	if parts > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", frag)
	}
	if x, err = index(first, limit); err != nil || parts == 1 {
		return x, x, err
	}
	if y, err = index(second, limit); err != nil {
		return 0, 0, err
	}
	if x >= y {
		return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
	}
	return x, y, nil
}

// index is one number of an interval, below limit. s holds no '-' (splitDash), so
// strconv.Atoi accepts what parseIndexInterval's strconv.Atoi does: an optional '+', digits.
func index(s string, limit int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("cannot convert string to integer for index: %q", s)
	}
	if n >= limit {
		return 0, fmt.Errorf("too large index: %q", s)
	}
	return n, nil
}

// ParseLenient reads s as the Job controller reads status.completedIndexes and
// status.failedIndexes (parseIndexesFromString): fragments whose numbers cannot be read are
// skipped, reading stops at the first fragment starting at or above completions, an interval
// reaching past completions is clipped, parts after a second '-' are ignored. The result holds
// exactly the indexes the controller's intervals cover; problems says, in words, what was
// skipped, dropped or clipped (empty when s is well formed). It never fails and is linear in
// len(s).
func ParseLenient(s string, completions int) (Set, []string) {
	if s == "" {
		return Set{}, nil
	}
	var problems []string
	note := func(format string, a ...any) {
		if len(problems) < maxProblems {
			problems = append(problems, fmt.Sprintf(format, a...))
		} else if len(problems) == maxProblems {
			problems = append(problems, "further problems not listed")
		}
	}
	// The controller's own intervals, built exactly as parseIndexesFromString builds them
	// (they may be unsorted or inverted for malformed input).
	raw := make([]Interval, 0, 1+strings.Count(s, ","))
	prevLast := -1
	for frag := range strings.SplitSeq(s, ",") {
		firstStr, lastStr, parts := splitDash(frag)
		first, err := strconv.Atoi(firstStr)
		if err != nil {
			note("fragment %q skipped: %q is not a number", frag, firstStr)
			continue
		}
		if first >= completions {
			note("fragment %q and everything after it dropped: index %d is not below completions %d", frag, first, completions)
			break
		}
		if parts > 2 {
			note("fragment %q has more than two parts separated by '-'; the controller reads only %s-%s", frag, firstStr, lastStr)
		}
		iv := Interval{First: first, Last: first}
		if parts > 1 {
			l, err := strconv.Atoi(lastStr)
			if err != nil {
				note("fragment %q skipped: %q is not a number", frag, lastStr)
				continue
			}
			if l >= completions {
				note("interval %q clipped to %d-%d: completions is %d", frag, first, completions-1, completions)
				l = completions - 1
			}
			iv.Last = l
			if l <= first {
				note("interval %q does not increase", frag)
			}
		}
		if prevLast >= 0 && iv.First <= prevLast {
			note("fragment %q is not after the previous interval (ends at %d)", frag, prevLast)
		}
		prevLast = max(prevLast, iv.Last)
		if n := len(raw); n > 0 && raw[n-1].Last == iv.First-1 {
			raw[n-1].Last = iv.Last
		} else {
			raw = append(raw, iv)
		}
	}
	if normalized(raw) {
		return Set{ivs: raw}, problems
	}
	return FromIntervals(raw...), problems
}

// normalized reports whether ivs are already increasing, disjoint, non-adjacent and
// non-inverted, as they are for every string the controller writes.
func normalized(ivs []Interval) bool {
	for k, iv := range ivs {
		if iv.First < 0 || iv.Last < iv.First || (k > 0 && iv.First <= ivs[k-1].Last+1) {
			return false
		}
	}
	return true
}

const maxProblems = 10

// splitDash returns the first two '-'-separated parts of frag and how many parts it has.
func splitDash(frag string) (first, second string, parts int) {
	dash := strings.IndexByte(frag, '-')
	if dash < 0 {
		return frag, "", 1
	}
	rest := frag[dash+1:]
	parts = 2 + strings.Count(rest, "-")
	if d2 := strings.IndexByte(rest, '-'); d2 >= 0 {
		rest = rest[:d2]
	}
	return frag[:dash], rest, parts
}
