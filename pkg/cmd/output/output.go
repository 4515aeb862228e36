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
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/cmd/get"
)

// IsTemplate reports whether format is one of kubectl's template formats (NAME=...).
func IsTemplate(format string) bool {
	return slices.ContainsFunc(templateFormats, func(t string) bool { return strings.HasPrefix(format, t+"=") })
}

// Printer returns the printer of a template format (create and retry print objects through
// cli-runtime's PrintFlags, which lacks custom-columns), or an error saying what is wrong with it.
// noHeaders leaves out the header line of custom-columns (--no-headers).
func Printer(format string, noHeaders bool) (printers.ResourcePrinter, error) {
	var p printers.ResourcePrinter
	var err error
	if strings.HasPrefix(format, "custom-columns") {
		p, err = (&get.CustomColumnsPrintFlags{NoHeaders: noHeaders}).ToPrinter(format)
	} else {
		pf := genericclioptions.NewPrintFlags("")
		f := format
		pf.OutputFormat = &f
		p, err = pf.ToPrinter()
	}
	if err != nil {
		return nil, fmt.Errorf("-o %s: %w", format, err)
	}
	return p, nil
}

// printWith writes report through p, the printer of the template format. The report is passed
// as the JSON object -o json prints, so field paths are the documented ones (e.g.
// -o jsonpath='{.completeness.missing}'); custom-columns prints a row per element of the
// report's itemsKey list.
func printWith(w io.Writer, p printers.ResourcePrinter, format string, report any, itemsKey string) error {
	b, err := json.Marshal(report)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("cannot print the report with -o %s: %w", format, err)
	}
	if items, ok := m[itemsKey].([]any); ok && strings.HasPrefix(format, "custom-columns") {
		ul := &unstructured.UnstructuredList{Object: maps.Clone(m)}
		delete(ul.Object, itemsKey)
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

// NoHeadersTemplate is the usage of --no-headers for commands with a table.
const NoHeadersTemplate = "When using the default or custom-column output format, don't print headers (default print headers)."
