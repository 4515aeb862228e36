package indexes

import (
	"strings"
	"testing"
)

func TestParseFlag(t *testing.T) {
	for in, want := range map[string]string{
		"2,5,11-14": "2,5,11-14",
		"14,2-3,3":  "2,3,14",
		"0":         "0",
		"4-4":       "4",
		"1, 2":      "1,2",
	} {
		got, err := ParseFlag("--index", in)
		if err != nil || got.String() != want {
			t.Errorf("%q: %q %v, want %q", in, got.String(), err, want)
		}
	}
	for in, why := range map[string]string{
		"":            `--index "": give completion indexes, a list such as 2,5,11-14`,
		"-2":          `"-2" is not an index`,
		"3-1":         `"3-1" ends before it starts`,
		"1-2-3":       `"1-2-3" has more than one -`,
		"x":           `"x" is not an index`,
		"1,,2":        `"" is not an index`,
		"failed":      `"failed" is not an index`,
		"99999999999": `"99999999999" is not an index`,
	} {
		_, err := ParseFlag("--index", in)
		if err == nil || !strings.Contains(err.Error(), why) || !strings.HasSuffix(err.Error(), FlagGrammar) {
			t.Errorf("%q: %v, want %q", in, err, why)
		}
	}
}

func TestNamed(t *testing.T) {
	for _, tc := range []struct {
		set  Set
		want string
	}{
		{FromIntervals(Interval{First: 4, Last: 4}), "index 4"},
		{FromIntervals(Interval{First: 2, Last: 2}, Interval{First: 4, Last: 9}), "indexes 2,4-9"},
		{FromIntervals(Interval{First: 4, Last: 5}), "indexes 4,5"},
	} {
		if got := tc.set.Named(0); got != tc.want {
			t.Errorf("Named(%v) = %q, want %q", tc.set, got, tc.want)
		}
	}
}
