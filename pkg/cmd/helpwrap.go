package cmd

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// HelpWidth is the width every help page fits (docs/kubectl-habits.md: 80 columns).
const HelpWidth = 80

// helpTemplate is cobra's help template with the long description wrapped, and split: its
// first paragraph, what the verb answers, opens the page; the rest (how, exit codes) follows
// the usage line and the examples (usageTemplate, longRest), before the flags.
const helpTemplate = `{{with (or .Long .Short)}}{{. | longHead | trimTrailingWhitespaces | wrapProse}}

{{end}}{{if or .Runnable .HasSubCommands}}{{.UsageString}}{{end}}`

// longHead is the first paragraph of a long description; longRest the others.
func longHead(long string) string {
	head, _, _ := strings.Cut(strings.TrimLeft(long, "\n"), "\n\n")
	return head
}

func longRest(long string) string {
	_, rest, _ := strings.Cut(strings.TrimLeft(long, "\n"), "\n\n")
	// templates.LongDesc renders the paragraphs after the first indented by one space.
	lines := strings.Split(strings.TrimSpace(rest), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, " ")
	}
	return strings.Join(lines, "\n")
}

func init() {
	cobra.AddTemplateFunc("wrapProse", func(s string) string { return wrapBlock(s, HelpWidth, false) })
	cobra.AddTemplateFunc("wrapExample", func(s string) string { return wrapBlock(s, HelpWidth, true) })
	cobra.AddTemplateFunc("wrapFlags", func(fs *pflag.FlagSet) string { return wrapFlagUsages(fs.FlagUsagesWrapped(0), HelpWidth) })
	cobra.AddTemplateFunc("wrapUse", func(s string) string { return wrapBlock("  "+s, HelpWidth, false) })
	cobra.AddTemplateFunc("add", func(a, b int) int { return a + b })
	cobra.AddTemplateFunc("longHead", longHead)
	cobra.AddTemplateFunc("longRest", longRest)
	cobra.AddTemplateFunc("optionsHint", func() string { return wrapBlock(OptionsHint, HelpWidth, false) })
	cobra.AddTemplateFunc("wrapShort", func(s string, col int) string {
		lines := textwrap.Words(s, HelpWidth-col)
		return strings.Join(lines, "\n"+strings.Repeat(" ", col))
	})
}

// wrapBlock wraps each line of text longer than width at spaces, keeping its indentation. In
// examples, a comment continues as a comment and a command continues after a backslash.
func wrapBlock(text string, width int, examples bool) string {
	var out []string
	src := strings.Split(text, "\n")
	if examples {
		src = joinComments(src)
	}
	for _, line := range src {
		if utf8.RuneCountInString(line) <= width {
			out = append(out, line)
			continue
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		body := strings.TrimLeft(line, " ")
		next := indent
		switch {
		case examples && strings.HasPrefix(body, "#"):
			next = indent + "# "
			body = strings.TrimSpace(strings.TrimPrefix(body, "#"))
			indent += "# "
		case examples:
			// A command: break before a trailing comment first, then at spaces with " \".
			if cmd, comment, ok := strings.Cut(body, " # "); ok {
				out = append(out, wrapCommand(indent, strings.TrimRight(cmd, " "), width)...)
				out = append(out, wrapBlock(indent+"# "+comment, width, true))
				continue
			}
			out = append(out, wrapCommand(indent, body, width)...)
			continue
		case strings.HasPrefix(body, "- ") || strings.HasPrefix(body, "* "):
			next = indent + "  "
		}
		lines := textwrap.Words(body, width-len(indent))
		out = append(out, indent+lines[0])
		for _, l := range textwrap.Words(strings.Join(lines[1:], " "), width-len(next)) {
			if l != "" {
				out = append(out, next+l)
			}
		}
	}
	return strings.Join(out, "\n")
}

// joinComments joins each run of comment lines of an example into one line, which wrapBlock
// then fills: a comment written over two lines of the source, the first too long for the
// page, was wrapped into a line of two words between two full ones.
func joinComments(lines []string) []string {
	var out []string
	for _, l := range lines {
		body := strings.TrimLeft(l, " ")
		if n := len(out); n > 0 && strings.HasPrefix(body, "# ") {
			prev := out[n-1]
			pbody := strings.TrimLeft(prev, " ")
			if strings.HasPrefix(pbody, "#") && len(prev)-len(pbody) == len(l)-len(body) {
				out[n-1] = prev + " " + strings.TrimSpace(strings.TrimPrefix(body, "#"))
				continue
			}
		}
		out = append(out, l)
	}
	return out
}

// wrapCommand breaks a shell command at spaces outside quotes, each line but the last ending
// in " \" (textwrap.Command).
func wrapCommand(indent, body string, width int) []string {
	lines := textwrap.Command(body, width-len(indent))
	for k := range lines {
		lines[k] = indent + lines[k]
	}
	return lines
}

// wrapFlagUsages wraps pflag's unwrapped usage lines ("  -o, --output string   text"): the
// text is wrapped under its column; when a word of it does not fit there (a long annotation
// name), the text goes under the flag, indented by 8, wrapped to width.
func wrapFlagUsages(usages string, width int) string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(usages, "\n"), "\n") {
		if utf8.RuneCountInString(line) <= width {
			out = append(out, line)
			continue
		}
		col := usageColumn(line)
		if col < 0 {
			out = append(out, wrapBlock(line, width, false))
			continue
		}
		head, text := line[:col], line[col:]
		lines := textwrap.Words(text, width-col)
		if !slices.ContainsFunc(lines, func(l string) bool { return col+utf8.RuneCountInString(l) > width }) {
			out = append(out, head+strings.Join(lines, "\n"+strings.Repeat(" ", col)))
			continue
		}
		out = append(out, strings.TrimRight(head, " "), "        "+strings.Join(textwrap.Words(text, width-8), "\n        "))
	}
	return strings.Join(out, "\n") + "\n"
}

// usageColumn is where a flag line's text starts: after the first run of 3 or more spaces
// past the flag's name, or -1.
func usageColumn(line string) int {
	start := len(line) - len(strings.TrimLeft(line, " "))
	if k := strings.Index(line[start:], "   "); k >= 0 {
		return len(line) - len(strings.TrimLeft(line[start+k:], " "))
	}
	return -1
}
