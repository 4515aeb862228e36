package textwrap

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
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

// A long command breaks between shell words, never inside quotes, and the lines run as one
// command in sh (each but the last ends in a backslash).
func TestCommand(t *testing.T) {
	cmd := `kubectl indexed retry seed -n ml '--context=prod east' --kubeconfig=/home/a/.kube/config --indexes 2,4,10-1007 -p '{"a": "b c"}'`
	lines := Command(cmd, 40)
	for k, l := range lines {
		if utf8.RuneCountInString(l) > 40 && !strings.Contains(l, "'") {
			t.Errorf("line %d of %d runes: %q", k, utf8.RuneCountInString(l), l)
		}
		if k < len(lines)-1 && !strings.HasSuffix(l, " \\") {
			t.Errorf("line %d lacks the continuation: %q", k, l)
		}
	}
	joined := strings.Join(strings.Fields(strings.ReplaceAll(strings.Join(lines, "\n"), "\\\n", " ")), " ")
	if joined != strings.Join(strings.Fields(cmd), " ") {
		t.Errorf("the lines do not join back into the command:\n%s\n%s", joined, cmd)
	}
	for _, l := range lines {
		if strings.Count(l, "'")%2 != 0 {
			t.Errorf("a break inside quotes: %q", l)
		}
	}
	if got := Command("kubectl get jobs", 40); len(got) != 1 || got[0] != "kubectl get jobs" {
		t.Errorf("a short command: %q", got)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 cases", 1: "1 case", 2: "2 cases", 10000: "10000 cases"} {
		if got := Count(n, "case", "cases"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"eval":              "eval",
		"a,b@c%d+e/f=g:h.i": "a,b@c%d+e/f=g:h.i",
		"":                  "''",
		"a b":               "'a b'",
		"it's":              `'it'\''s'`,
		`{"a":1}`:           `'{"a":1}'`,
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
