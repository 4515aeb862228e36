// Package printers writes the plugin's reports (versioned Go types with apiVersion and kind)
// as JSON or YAML. Tables are written by each report's own package.
package printers

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// Output formats understood by the report printers.
const (
	FormatText = ""
	FormatWide = "wide"
	FormatJSON = "json"
	FormatYAML = "yaml"
)

// ValidateFormat returns a usage error when format is not one of allowed.
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

// IsStructured reports whether format is json or yaml.
func IsStructured(format string) bool { return format == FormatJSON || format == FormatYAML }

// Print writes v as JSON (indented, trailing newline) or YAML.
func Print(w io.Writer, format string, v any) error {
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
