package shards

import (
	"strings"
	"testing"
)

// TestCaseIDBidiControls: bidirectional controls are refused like other control characters
// (issue 16, item 8); other non-ASCII text stays valid.
func TestCaseIDBidiControls(t *testing.T) {
	for _, r := range []rune{'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'} {
		id := "a" + string(r) + "gnp.exe"
		if why := ValidateCaseID(id); !strings.Contains(why, "bidirectional control character") {
			t.Errorf("%U: %q", r, why)
		}
	}
	for _, id := range []string{"case-ü-1", "שלום-1", "数学/42", "a b"} {
		if why := ValidateCaseID(id); why != "" {
			t.Errorf("%q refused: %s", id, why)
		}
	}
}
