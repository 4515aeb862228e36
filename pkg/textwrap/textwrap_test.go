package textwrap

import (
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		text  string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"a b c", 3, []string{"a b", "c"}},
		{"  one   two  ", 20, []string{"one two"}},
		{"short averyveryverylongword x", 8, []string{"short", "averyveryverylongword", "x"}},
		{"é é é", 3, []string{"é é", "é"}}, // runes, not bytes
	} {
		if got := Words(tc.text, tc.width); !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q, %d) = %q, want %q", tc.text, tc.width, got, tc.want)
		}
	}
}

func TestFillKeepsWordsWhole(t *testing.T) {
	got := Fill([]string{"kubectl", "'--context=prod east'", "--as=jane"}, 12)
	want := []string{"kubectl", "'--context=prod east'", "--as=jane"}
	if !slices.Equal(got, want) {
		t.Errorf("Fill = %q, want %q", got, want)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 cases", 1: "1 case", 2: "2 cases", 10000: "10000 cases"} {
		if got := Count(n, "case", "cases"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
