package output

import (
	"cmp"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// The -o values every report verb takes, whatever else it has: the structured formats and
// kubectl's template formats (each with =TEMPLATE or =FILE).
var (
	structuredFormats = []string{FormatJSON, FormatYAML}
	templateFormats   = []string{"jsonpath", "jsonpath-file", "jsonpath-as-json", "go-template", "go-template-file",
		"template", "templatefile", "custom-columns", "custom-columns-file"}
)

// PrintFlags is the one output contract of the plugin's report verbs, shaped like kubectl's
// genericclioptions.PrintFlags: the verb says once which formats it prints (AddFlags adds -o,
// its help line and its shell completion, and --no-headers when the verb has a table),
// Complete checks -o and makes the printer before anything is read or sent, and Run calls
// Print. json, yaml and kubectl's templates are printed here; the default text, wide, name and
// the verb's Extra formats (lint's sarif, say) are printed by the verb, which Print calls back.
type PrintFlags struct {
	// OutputFormat is -o as given (Default when not given; "text" is the default text).
	OutputFormat string
	// Default is the format when -o is not given: "" (text) for most verbs.
	Default string
	// Wide and Name say whether the verb prints -o wide and -o name.
	Wide, Name bool
	// Extra are format names of the verb's own, which the verb prints itself.
	Extra []string
	// ItemsKey is the field of the report whose elements custom-columns prints a row each
	// ("items" when empty).
	ItemsKey string
	// Subject completes the help line: what -o json prints ("a LintReport").
	Subject string
	// NoHeaders is --no-headers, added by AddFlags when HasNoHeaders is set.
	NoHeaders    bool
	HasNoHeaders bool

	printer printers.ResourcePrinter
}

// Formats lists the -o values the verb takes, in the order of help and completion: the
// structured ones, name, wide, the verb's own, and the templates (as NAME=).
func (f *PrintFlags) Formats() []string {
	out := append([]string(nil), structuredFormats...)
	if f.Name {
		out = append(out, FormatName)
	}
	if f.Wide {
		out = append(out, FormatWide)
	}
	out = append(out, f.Extra...)
	for _, t := range templateFormats {
		out = append(out, t+"=")
	}
	return out
}

// Usage is the help line of -o, the same shape on every verb.
func (f *PrintFlags) Usage() string {
	// Only the templates' names end in "=".
	s := "Output format. One of: (" + strings.ReplaceAll(strings.Join(f.Formats(), ", "), "=", "") + ")."
	if f.Subject != "" {
		s += " json and yaml print " + f.Subject + "; the templates see it as -o json prints it."
	}
	return s + " Default: " + cmp.Or(f.Default, "text") + "."
}

// AddFlags adds -o (with its completion) and, for a verb with a table, --no-headers.
func (f *PrintFlags) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.OutputFormat, "output", "o", f.Default, f.Usage())
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(f.Formats(), cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))
	if f.HasNoHeaders {
		cmd.Flags().BoolVar(&f.NoHeaders, "no-headers", false, NoHeadersTemplate)
	}
}

// Complete checks -o and makes the printer of a template: an unknown format or a template
// that does not parse is an error here (a usage error: exit 2), before anything is read.
func (f *PrintFlags) Complete() error {
	if f.OutputFormat == "text" {
		f.OutputFormat = FormatText
	}
	format := f.OutputFormat
	switch {
	case IsTemplate(format):
		p, err := Printer(format, f.NoHeaders)
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		f.printer = p
		return nil
	case format == FormatText, slices.Contains(structuredFormats, format), slices.Contains(f.Extra, format),
		format == FormatName && f.Name, format == FormatWide && f.Wide:
		return nil
	}
	return exitcode.UsageError("unable to match a printer suitable for the output format %q, allowed formats are: %s",
		format, strings.ReplaceAll(strings.Join(f.Formats(), ", "), "=", "=..."))
}

// Format is the format chosen ("" for the default text).
func (f *PrintFlags) Format() string { return f.OutputFormat }

// IsMachine reports whether the output is for programs (json, yaml, name, a template or an
// Extra format): hints and notes for people then stay off stdout.
func (f *PrintFlags) IsMachine() bool {
	return IsMachine(f.OutputFormat) || slices.Contains(f.Extra, f.OutputFormat)
}

// IsStructured reports whether the output is json or yaml.
func (f *PrintFlags) IsStructured() bool { return IsStructured(f.OutputFormat) }

// IsWide reports -o wide.
func (f *PrintFlags) IsWide() bool { return f.OutputFormat == FormatWide }

// Print writes report as -o asks: json, yaml and the templates (with the printer Complete made,
// over report as -o json prints it) here; the default text, wide, name and the Extra formats
// through text, called with the format.
func (f *PrintFlags) Print(w io.Writer, report any, text func(format string) error) error {
	return f.PrintList(w, report, f.ItemsKey, text)
}

// PrintList is Print for a report whose rows for custom-columns are the field itemsKey rather
// than ItemsKey (lint --list-rules: "rules").
func (f *PrintFlags) PrintList(w io.Writer, report any, itemsKey string, text func(format string) error) error {
	switch {
	case f.IsStructured():
		return PrintStructured(w, f.OutputFormat, report)
	case IsTemplate(f.OutputFormat):
		return printWith(w, f.printer, f.OutputFormat, report, cmp.Or(itemsKey, "items"))
	}
	return text(f.OutputFormat)
}
