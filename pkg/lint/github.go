package lint

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteGitHub writes one GitHub Actions workflow command per finding (::error, ::warning,
// ::notice for info), which the runner turns into annotations on the file and line of a pull
// request: "::error file=F,line=L,title=RULE (OBJECT)::MESSAGE". Values are escaped as the
// runner's toolkit escapes them (actions/toolkit, packages/core/src/command.ts).
func WriteGitHub(w io.Writer, report *Report) error {
	for _, f := range report.Findings {
		var props []string
		if f.File != "" && f.File != "-" {
			props = append(props, "file="+escapeProperty.Replace(f.File))
			if f.Line > 0 {
				props = append(props, "line="+strconv.Itoa(f.Line))
			}
		}
		title := f.Rule
		if f.Object != "" {
			title += " (" + f.Object + ")"
		}
		props = append(props, "title="+escapeProperty.Replace(title))
		msg := f.Message
		if f.Path != "" && !strings.HasPrefix(msg, f.Path) {
			msg = f.Path + ": " + msg
		}
		if f.Fix != "" {
			msg += "\nFix: " + f.Fix
		}
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", severities[f.Severity].github, strings.Join(props, ","), escapeData.Replace(msg)); err != nil {
			return err
		}
	}
	return nil
}

var (
	// escapeData escapes a command's message: %, CR and LF.
	escapeData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	// escapeProperty escapes a command property's value: the message's escapes, ':' and ','.
	escapeProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)
