package output

import (
	"io"
	"os"

	"golang.org/x/term"
)

// TerminalWidth is the width in columns of the terminal w writes to; 0 when w is not a
// terminal or its size cannot be read (text views then keep their own width).
func TerminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}
