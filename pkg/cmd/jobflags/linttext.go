package jobflags

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
)

// lintTextWidth is the width lint findings fit, as kubectl indexed lint's text report.
const lintTextWidth = 80

// LintText is how create and retry print the lint findings of the Job they are about to send:
// exactly as kubectl indexed lint prints them, with the same --brief and --no-color.
type LintText struct {
	// Brief prints one line per finding, without its why and fix.
	Brief bool
	// NoColor turns colours off (so do NO_COLOR and an output that is not a terminal).
	NoColor bool
	// IsTerminal says whether the findings' stream is a terminal; tests replace it.
	IsTerminal func(io.Writer) bool
}

// AddLintTextFlags adds --brief and --no-color, worded as lint's.
func AddLintTextFlags(fl *pflag.FlagSet, t *LintText) {
	fl.BoolVar(&t.Brief, "brief", t.Brief, "Print the lint findings of the Job one line each, without why and fix (as kubectl indexed lint --brief).")
	fl.BoolVar(&t.NoColor, "no-color", t.NoColor, output.NoColorUsage)
}

func (t LintText) textOptions(w io.Writer) lint.TextOptions {
	return lint.TextOptions{Brief: t.Brief, Color: output.UseColor(w, t.NoColor, t.IsTerminal), Width: lintTextWidth}
}
