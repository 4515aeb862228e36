package output

import (
	"io"
	"os"

	"golang.org/x/term"
)

// NoColorUsage is the help of --no-color, the same on every command that colours.
const NoColorUsage = "No colours in lint findings (also when NO_COLOR is set, or the output is not a terminal). Only lint findings are coloured, by lint and by create and retry."

// UseColor says whether text written to w is coloured: on a terminal only, unless --no-color
// (noColor) or NO_COLOR (https://no-color.org) says otherwise. isTerminal, when set, replaces
// the terminal check (tests).
func UseColor(w io.Writer, noColor bool, isTerminal func(io.Writer) bool) bool {
	if noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	if isTerminal != nil {
		return isTerminal(w)
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// TerminalWidth is the width in columns of the terminal w writes to; 0 when w is not a
// terminal or its size cannot be read (text views then keep their own width).
func TerminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		// GetSize fails on anything but a terminal.
		if width, _, err := term.GetSize(int(f.Fd())); err == nil {
			return width
		}
	}
	return 0
}
