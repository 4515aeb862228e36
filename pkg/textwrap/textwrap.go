// Package textwrap fills lines of text to a width: the one word wrapper of the plugin's text
// views (status, reconcile) and of its help.
package textwrap

import (
	"strconv"
	"strings"
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

// Count is n followed by the noun one or many, as n asks: "1 case", "0 cases", "2 cases".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
