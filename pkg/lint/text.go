package lint

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// TextOptions control the human-readable output.
type TextOptions struct {
	// Brief leaves out the why/fix lines under each finding.
	Brief bool
	// Color marks the severity with ANSI colours (error red, warning yellow, info cyan); the
	// command sets it only on a terminal, without --no-color and NO_COLOR.
	Color bool
	// Width wraps the message, why and fix lines at this many columns (continuations
	// indented); 0 does not wrap. Brief findings are never wrapped.
	Width int
}

// WrapText breaks text at spaces into lines that end by column width, the first starting at
// column first and the others at column rest; a word longer than a line is cut. It is the
// wrapping of lint's text and of the other reports that print prose (diff's warnings and plan).
func WrapText(text string, first, rest, width int) []string {
	words := strings.Fields(text)
	if len(words) == 0 || width <= 0 {
		return []string{text}
	}
	var lines []string
	line, used := "", first
	for _, word := range words {
		// A word longer than a line (a JSON value in a server message) is cut into pieces.
		for piece := range slices.Chunk([]rune(word), width-rest) {
			w, n := string(piece), len(piece)
			switch {
			case line == "":
				line, used = w, used+n
			case used+1+n > width:
				lines = append(lines, line)
				line, used = w, rest+n
			default:
				line, used = line+" "+w, used+1+n
			}
		}
	}
	return append(lines, line)
}

// PrintFindings writes findings for humans, one per line followed by its why and fix:
//
//	file:line: severity rule Object: message
//	    why: ...
//	    fix: ...
//
// Findings without a file (CheckJob) start with the severity.
func PrintFindings(w io.Writer, findings []Finding, opts TextOptions) error {
	b := bufio.NewWriterSize(w, 64<<10)
	for i := range findings {
		if _, err := b.WriteString(FormatFinding(&findings[i], opts)); err != nil {
			return err
		}
	}
	return b.Flush()
}

// FormatFinding renders one finding as PrintFindings does, ending in a newline.
func FormatFinding(f *Finding, opts TextOptions) string {
	var b strings.Builder
	if f.File != "" {
		b.WriteString(f.File)
		if f.Line > 0 {
			b.WriteString(":" + strconv.Itoa(f.Line))
		}
		b.WriteString(": ")
	}
	sev := string(f.Severity)
	if opts.Color {
		sev = severities[f.Severity].color + sev + "\x1b[0m"
	}
	b.WriteString(sev + " " + f.Rule)
	if f.Object != "" {
		b.WriteString(" " + f.Object)
	}
	b.WriteString(": ")
	if f.Path != "" && !strings.HasPrefix(f.Message, f.Path+":") && !strings.Contains(f.Message, `"`+f.Path+`"`) {
		b.WriteString(f.Path + ": ")
	}
	msg := f.Message
	if opts.Brief {
		// One line per finding, whatever a parser's message holds.
		msg = strings.Join(strings.Fields(msg), " ")
	}
	if opts.Brief || opts.Width <= 0 {
		b.WriteString(msg + "\n")
	} else {
		// The whole finding line wrapped, continuations indented under it.
		line := b.String() + msg
		b.Reset()
		b.WriteString(strings.Join(WrapText(line, 0, 4, opts.Width), "\n    ") + "\n")
	}
	if !opts.Brief {
		for _, part := range []struct{ label, text string }{{"why", f.Why}, {"fix", f.Fix}} {
			if part.text == "" {
				continue
			}
			// Continuations under the text, after "    why: "; not wrapped (width 0), one line.
			wrapped := WrapText(part.text, 9, 9, opts.Width)
			b.WriteString("    " + part.label + ": " + strings.Join(wrapped, "\n         ") + "\n")
		}
	}
	return b.String()
}

// PrintText writes a report for humans: its findings, then a summary line.
func PrintText(w io.Writer, r *Report, opts TextOptions) error {
	if err := PrintFindings(w, r.Findings, opts); err != nil {
		return err
	}
	return PrintSummary(w, r, opts)
}

// PrintSummary writes the summary line that ends PrintText.
func PrintSummary(w io.Writer, r *Report, opts TextOptions) error {
	line := r.SummaryLine()
	if opts.Width > 0 && !opts.Brief {
		// Wrapped as the findings are; --brief keeps it one line, for grep.
		line = strings.Join(WrapText(line, 0, 4, opts.Width), "\n    ")
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// SummaryLine says what was checked and found, in one line.
func (r *Report) SummaryLine() string {
	s := r.Summary
	parts := []string{textwrap.Count(s.Checked, "Job or CronJob", "Jobs and CronJobs") + " checked"}
	if s.Skipped > 0 {
		parts = append(parts, textwrap.Count(s.Skipped, "object", "objects")+" of other kinds skipped")
	}
	if s.Unreadable > 0 {
		parts = append(parts, textwrap.Count(s.Unreadable, "document", "documents")+" unreadable")
	}
	found := "no findings"
	if s.Errors+s.Warnings+s.Infos > 0 {
		found = fmt.Sprintf("%s, %s, %s", textwrap.Count(s.Errors, "error", "errors"), textwrap.Count(s.Warnings, "warning", "warnings"), textwrap.Count(s.Infos, "info", "infos"))
	}
	return strings.Join(parts, ", ") + ": " + found
}

// PrintRules writes the rules as lint --list-rules prints them: a line with each rule's ID and
// severity, and what it flags under it, wrapped at width.
func PrintRules(w io.Writer, rules []Rule, width int) error {
	idWidth := 0
	for _, r := range rules {
		idWidth = max(idWidth, len(r.ID))
	}
	for _, r := range rules {
		what := strings.Join(WrapText(r.What, 4, 4, width), "\n    ")
		if _, err := fmt.Fprintf(w, "%-*s  %s\n    %s\n", idWidth, r.ID, r.Severity, what); err != nil {
			return err
		}
	}
	return nil
}
