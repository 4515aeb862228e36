// Package output prints a report (a versioned Go type with apiVersion and kind) through
// cli-runtime's printers, so that every report takes kubectl's template formats:
// -o jsonpath=..., jsonpath-file=..., go-template=..., go-template-file=..., template=...,
// templatefile=..., custom-columns=... and custom-columns-file=... (json and yaml stay with
// pkg/printers, whose layout the reports document).
package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
	if strings.HasPrefix(format, "custom-columns") {
		cf := &get.CustomColumnsPrintFlags{NoHeaders: false, TemplateArgument: ""}
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
	p, err := Printer(format)
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
