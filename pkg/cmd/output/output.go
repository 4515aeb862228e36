// Package output is the one printing path of the plugin's reports (versioned Go types with
// apiVersion and kind): -o json and -o yaml in the layout the reports document (indented JSON
// in field order, sigs.k8s.io/yaml), and kubectl's template formats through cli-runtime's
// PrintFlags: -o jsonpath=..., jsonpath-file=..., go-template=..., go-template-file=...,
// template=..., templatefile=..., custom-columns=... and custom-columns-file=.... Tables and
// text are written by each report's own package.
package output

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/cmd/get"
)

// templatePrefixes are the -o values cli-runtime and kubectl read a template from.
var templatePrefixes = []string{
	"jsonpath=", "jsonpath-file=", "jsonpath-as-json=", "go-template=", "go-template-file=", "template=", "templatefile=",
	"custom-columns=", "custom-columns-file=",
}

// IsTemplate reports whether format is one of kubectl's template formats.
func IsTemplate(format string) bool {
	for _, p := range templatePrefixes {
		if strings.HasPrefix(format, p) {
			return true
		}
	}
	return false
}

// Formats names the template formats, for help and errors.
const Formats = "jsonpath=..., jsonpath-file=..., go-template=..., go-template-file=..., custom-columns=..., custom-columns-file=..."

// Printer returns the printer of a template format, or an error saying what is wrong with it
// (checked before anything is read or sent).
func Printer(format string) (printers.ResourcePrinter, error) {
	return printerFor(format, Options{})
}

// Options tune the template printers.
type Options struct {
	// NoHeaders leaves out the header line of custom-columns (--no-headers).
	NoHeaders bool
}

func printerFor(format string, opts Options) (printers.ResourcePrinter, error) {
	if strings.HasPrefix(format, "custom-columns") {
		cf := &get.CustomColumnsPrintFlags{NoHeaders: opts.NoHeaders, TemplateArgument: ""}
		p, err := cf.ToPrinter(format)
		if err != nil {
			return nil, fmt.Errorf("-o %s: %w", format, err)
		}
		return p, nil
	}
	pf := genericclioptions.NewPrintFlags("")
	f := format
	pf.OutputFormat = &f
	p, err := pf.ToPrinter()
	if err != nil {
		return nil, fmt.Errorf("-o %s: %w", format, err)
	}
	return p, nil
}

// Print writes report through the printer of a template format. The report is passed as the
// JSON object -o json prints, so field paths are the documented ones (e.g.
// -o jsonpath='{.completeness.missing}').
func Print(w io.Writer, format string, report any) error {
	return PrintList(w, format, report, "items")
}

// PrintList is Print for a report whose list of rows is the field itemsKey (lint's
// "findings"): custom-columns prints a row per element.
func PrintList(w io.Writer, format string, report any, itemsKey string) error {
	return PrintListWith(w, format, report, itemsKey, Options{})
}

// PrintListWith is PrintList with options (--no-headers).
func PrintListWith(w io.Writer, format string, report any, itemsKey string, opts Options) error {
	p, err := printerFor(format, opts)
	if err != nil {
		return err
	}
	b, err := json.Marshal(report)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("cannot print the report with -o %s: %w", format, err)
	}
	// custom-columns prints a row per element of a list report; the other templates see the
	// report as -o json prints it.
	if items, ok := m[itemsKey].([]any); ok && strings.HasPrefix(format, "custom-columns") {
		ul := &unstructured.UnstructuredList{Object: map[string]any{}}
		for k, v := range m {
			if k != itemsKey {
				ul.Object[k] = v
			}
		}
		for _, it := range items {
			if obj, ok := it.(map[string]any); ok {
				ul.Items = append(ul.Items, unstructured.Unstructured{Object: obj})
			}
		}
		return p.PrintObj(ul, w)
	}
	return p.PrintObj(&unstructured.Unstructured{Object: m}, w)
}

// Output formats understood by the report printers.
const (
	FormatText = ""
	FormatWide = "wide"
	FormatJSON = "json"
	FormatYAML = "yaml"
	FormatName = "name"
)

// ValidateFormat returns a usage error when format is not one of allowed (templates are not
// included: see Validate).
func ValidateFormat(format string, allowed ...string) error {
	if slices.Contains(allowed, format) {
		return nil
	}
	names := make([]string, 0, len(allowed))
	for _, a := range allowed {
		if a != "" {
			names = append(names, a)
		}
	}
	return fmt.Errorf("unsupported output format %q: allowed formats are %s", format, strings.Join(names, ", "))
}

// Validate accepts format when it is one of allowed or one of kubectl's template formats (a
// template that does not parse is an error here, before anything is read or sent).
func Validate(format string, allowed ...string) error {
	if IsTemplate(format) {
		_, err := Printer(format)
		return err
	}
	if err := ValidateFormat(format, allowed...); err != nil {
		return fmt.Errorf("%w, or %s", err, Formats)
	}
	return nil
}

// IsStructured reports whether format is json or yaml.
func IsStructured(format string) bool { return format == FormatJSON || format == FormatYAML }

// IsMachine reports whether format is for programs (json, yaml, name or a template): hints and
// notes for people then stay off stdout.
func IsMachine(format string) bool {
	return IsStructured(format) || format == FormatName || IsTemplate(format)
}

// PrintStructured writes v as JSON (indented, trailing newline) or YAML.
func PrintStructured(w io.Writer, format string, v any) error {
	switch format {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	case FormatYAML:
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	default:
		return fmt.Errorf("unsupported structured output format %q", format)
	}
}

// Write prints report in a machine format: json or yaml (PrintStructured) or a template
// (PrintList, with itemsKey the report's list of rows, "" for none).
func Write(w io.Writer, format string, report any, itemsKey string) error {
	if IsStructured(format) {
		return PrintStructured(w, format, report)
	}
	if itemsKey == "" {
		itemsKey = "items"
	}
	return PrintList(w, format, report, itemsKey)
}

// NoHeadersTemplate is the usage of --no-headers for commands with a table.
const NoHeadersTemplate = "When using the default or custom-column output format, don't print headers (default print headers)."
