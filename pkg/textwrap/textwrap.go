// Package textwrap fills lines of text to a width: the one word wrapper of the plugin's text
// views (status, reconcile) and of its help, with the other small text helpers they share
// (Count and Plural, Truncate, NewTable).
//
// It is kept next to github.com/mitchellh/go-wordwrap, which is in the module graph through
// k8s.io/kubectl: WrapString (v1.0.1) would replace only Fill (about 20 lines), keeps the
// input's runs of spaces and newlines where the views re-flow words, and does not move a word
// at least as long as the width to a line of its own; Command (a shell command broken only
// between quoted words, each line ending in " \" so that the lines paste as one command) has
// no counterpart there.
package textwrap

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// Words breaks text at spaces into lines of at most width runes (a longer word stays whole).
// Text without a word gives one empty line.
func Words(text string, width int) []string {
	return Fill(strings.Fields(text), width)
}

// Fill puts words on lines of at most width runes, one space between two words; a word longer
// than width gets a line of its own. No words give one empty line.
func Fill(words []string, width int) []string {
	if len(words) == 0 {
		return []string{""}
	}
	var lines []string
	line := words[0]
	for _, w := range words[1:] {
		if utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		line += " " + w
	}
	return append(lines, line)
}

// Command breaks a shell command into lines of at most width runes where its words allow:
// only at spaces outside quotes (a break inside a quoted word would be kept literally), each
// line but the last ending in " \" (or in a pipe, where the shell reads on), the lines after
// the first indented by two spaces. Pasted, the lines run as the one command.
func Command(cmd string, width int) []string {
	if utf8.RuneCountInString(cmd) <= width {
		return []string{cmd}
	}
	lines := Fill(ShellWords(cmd), width-4)
	for k := range lines {
		if k > 0 {
			lines[k] = "  " + lines[k]
		}
		if k < len(lines)-1 && !strings.HasSuffix(lines[k], "|") {
			lines[k] += " \\"
		}
	}
	return lines
}

// ShellQuote quotes s for a POSIX shell when it needs it: a word of only safe characters is
// kept as it is, anything else is single-quoted.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellWords splits a command at the spaces outside single or double quotes.
func ShellWords(cmd string) []string {
	words := SplitUnquoted(cmd, func(i int) bool { return cmd[i] == ' ' })
	return slices.DeleteFunc(words, func(w string) bool { return w == "" })
}

// SplitUnquoted splits s at each byte outside single and double quotes that at (given its
// index) says to split at, without that byte.
func SplitUnquoted(s string, at func(i int) bool) []string {
	var out []string
	start := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case at(i):
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// Count is n followed by the noun one or many, as n asks: "1 case", "0 cases", "2 cases".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}

// NewTable is the one table writer of the text views: columns left-aligned, padded with
// spaces, padding the spaces at least between two columns (1 for key/value blocks, 2 for
// tables, 3 for list's kubectl-like table).
func NewTable(w io.Writer, padding int) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, padding, ' ', 0)
}

// Truncate is s when it is at most n bytes long, else its first n bytes followed by mark
// ("..." or "…"): a value quoted in a message, cut so that a long one does not flood it.
func Truncate(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + mark
}

// Plural is one or many, as n asks: Plural(1, "index has", "indexes have").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
