package indexes

import (
	"fmt"
	"strconv"
	"strings"
)

// FlagGrammar describes, for help texts, what every flag of the plugin that takes completion
// indexes accepts (ParseFlag).
const FlagGrammar = "a list such as 2,5,11-14"

// MaxFlagIndex bounds the indexes a flag may name: the API server's limit on completions for
// an Indexed Job with parallelism (100,000) is far below; the bound keeps a typo such as
// 0-99999999999 from describing a set nobody meant.
const MaxFlagIndex = 1<<31 - 1

// ParseFlag reads the value of a flag that takes completion indexes (flag names it in the
// error): a comma-separated list of N or N-M (N <= M), in any order, overlaps allowed, as
// 2,5,11-14. Every index-taking flag of the plugin uses it, so the grammar and the error text
// are the same everywhere; callers turn the error into a usage error (exit 2) before anything
// is read or sent.
func ParseFlag(flag, s string) (Set, error) {
	if strings.TrimSpace(s) == "" {
		return Set{}, fmt.Errorf("%s %q: give completion indexes, %s", flag, s, FlagGrammar)
	}
	var ivs []Interval
	for _, frag := range strings.Split(s, ",") {
		frag = strings.TrimSpace(frag)
		first, second, parts := splitDash(frag)
		if parts > 2 {
			return Set{}, flagError(flag, s, fmt.Sprintf("%q has more than one -", frag))
		}
		x, err := strconv.Atoi(first) // no '-' in first (splitDash)
		if first == "" && parts > 1 {
			first = frag // "-2": a negative number, not an interval
		}
		if err != nil || x > MaxFlagIndex {
			return Set{}, flagError(flag, s, fmt.Sprintf("%q is not an index (0 to %d)", first, MaxFlagIndex))
		}
		y := x
		if parts == 2 {
			if y, err = strconv.Atoi(second); err != nil || y > MaxFlagIndex {
				return Set{}, flagError(flag, s, fmt.Sprintf("%q is not an index (0 to %d)", second, MaxFlagIndex))
			}
			if y < x {
				return Set{}, flagError(flag, s, fmt.Sprintf("%q ends before it starts", frag))
			}
		}
		ivs = append(ivs, Interval{First: x, Last: y})
	}
	return FromIntervals(ivs...), nil
}

func flagError(flag, s, why string) error {
	return fmt.Errorf("%s %q: %s: give completion indexes, %s", flag, s, why, FlagGrammar)
}
