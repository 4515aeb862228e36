package output

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

type report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Note       string `json:"note"`
	Rows       []row  `json:"rows"`
}

type row struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

func sample() report {
	return report{APIVersion: "indexed.kubectl.io/v1alpha1", Kind: "Sample", Note: "a<b & c", Rows: []row{{"x", 1}, {"y", 2}}}
}

// The documented layouts: JSON indented by two spaces in field order, HTML characters kept,
// a trailing newline; YAML as sigs.k8s.io/yaml writes it.
func TestPrintStructuredLayout(t *testing.T) {
	var js, ym bytes.Buffer
	if err := PrintStructured(&js, FormatJSON, sample()); err != nil {
		t.Fatal(err)
	}
	wantJSON := `{
  "apiVersion": "indexed.kubectl.io/v1alpha1",
  "kind": "Sample",
  "note": "a<b & c",
  "rows": [
    {
      "name": "x",
      "count": 1
    },
    {
      "name": "y",
      "count": 2
    }
  ]
}
`
	if js.String() != wantJSON {
		t.Errorf("json:\n%s\nwant:\n%s", js.String(), wantJSON)
	}
	if err := PrintStructured(&ym, FormatYAML, sample()); err != nil {
		t.Fatal(err)
	}
	wantYAML := "apiVersion: indexed.kubectl.io/v1alpha1\nkind: Sample\nnote: a<b & c\nrows:\n- count: 1\n  name: x\n- count: 2\n  name: \"y\"\n"
	if ym.String() != wantYAML {
		t.Errorf("yaml:\n%s\nwant:\n%s", ym.String(), wantYAML)
	}
	if err := PrintStructured(io.Discard, "xml", sample()); err == nil {
		t.Error("xml accepted")
	}
}

func TestPrintTemplates(t *testing.T) {
	for _, tc := range []struct {
		format    string
		noHeaders bool
		want      string
	}{
		{"jsonpath={.rows[*].name}", false, "x y"},
		{"go-template={{.note}}", false, "a<b & c"},
		{"custom-columns=NAME:.name,COUNT:.count", false, "NAME   COUNT\nx      1\ny      2\n"},
		{"custom-columns=NAME:.name,COUNT:.count", true, "x     1\ny     2\n"},
		{"json", false, "{\n  \"apiVersion\": \"indexed.kubectl.io/v1alpha1\",\n  \"kind\": \"Sample\",\n  \"note\": \"a<b & c\",\n  \"rows\": [\n    {\n      \"name\": \"x\",\n      \"count\": 1\n    },\n    {\n      \"name\": \"y\",\n      \"count\": 2\n    }\n  ]\n}\n"},
	} {
		f := &PrintFlags{OutputFormat: tc.format, ItemsKey: "rows", NoHeaders: tc.noHeaders}
		if err := f.Complete(); err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		var b bytes.Buffer
		err := f.Print(&b, sample(), func(string) error { t.Errorf("%s: text called", tc.format); return nil })
		if err != nil || b.String() != tc.want {
			t.Errorf("%s %v: %q, %v; want %q", tc.format, tc.noHeaders, b.String(), err, tc.want)
		}
	}
}

// TestPrintFlagsContract: one error text for an unknown -o, whatever the verb; wide, name and
// a verb's own formats only where the verb declares them, and then printed by the verb.
func TestPrintFlagsContract(t *testing.T) {
	plain := &PrintFlags{}
	verb := &PrintFlags{Wide: true, Name: true, Extra: []string{"sarif"}}
	for _, f := range []*PrintFlags{plain, verb} {
		f.OutputFormat = "xml"
		err := f.Complete()
		if err == nil || !strings.HasPrefix(err.Error(), `unable to match a printer suitable for the output format "xml", allowed formats are: json, yaml, `) ||
			!strings.HasSuffix(err.Error(), "custom-columns=..., custom-columns-file=...") {
			t.Errorf("%+v: %v", f, err)
		}
	}
	for _, format := range []string{"wide", "name", "sarif"} {
		plain.OutputFormat = format
		if err := plain.Complete(); err == nil {
			t.Errorf("%s accepted by a verb without it", format)
		}
		verb.OutputFormat = format
		if err := verb.Complete(); err != nil {
			t.Errorf("%s: %v", format, err)
		}
		got := ""
		if err := verb.Print(io.Discard, sample(), func(f string) error { got = f; return nil }); err != nil || got != format {
			t.Errorf("%s: the verb was called with %q, %v", format, got, err)
		}
	}
	if !verb.IsMachine() {
		t.Error("an Extra format is for programs: hints must stay off stdout")
	}
	plain.OutputFormat = "text"
	if err := plain.Complete(); err != nil || plain.Format() != FormatText {
		t.Errorf("-o text: %q %v", plain.Format(), err)
	}
	plain.OutputFormat = "jsonpath={.rows"
	if err := plain.Complete(); err == nil || !strings.HasPrefix(err.Error(), "-o jsonpath={.rows: ") {
		t.Errorf("bad template: %v", err)
	}
	if !IsMachine("name") || !IsMachine("go-template={{.}}") || IsMachine("wide") || IsMachine("") {
		t.Error("IsMachine")
	}
}

// TestAddFlagsHelpAndCompletion: -o's help line and completion list the same formats.
func TestAddFlagsHelpAndCompletion(t *testing.T) {
	f := &PrintFlags{Wide: true, HasNoHeaders: true, Extra: []string{"junit"}}
	cmd := &cobra.Command{Use: "x", Run: func(*cobra.Command, []string) {}}
	f.AddFlags(cmd)
	if cmd.Flags().Lookup("no-headers") == nil {
		t.Error("no --no-headers")
	}
	usage := cmd.Flags().Lookup("output").Usage
	want := "Output format. One of: (json, yaml, wide, junit, jsonpath, jsonpath-file, jsonpath-as-json, go-template, go-template-file, template, templatefile, custom-columns, custom-columns-file). Default: text."
	if usage != want {
		t.Errorf("usage %q\nwant  %q", usage, want)
	}
	comp, _ := cmd.GetFlagCompletionFunc("output")
	got, _ := comp(cmd, nil, "")
	if strings.Join(got, " ") != strings.Join(f.Formats(), " ") || !slices.Contains(got, "jsonpath=") || !slices.Contains(got, "junit") {
		t.Errorf("completion %q", got)
	}
}

func TestUseColor(t *testing.T) {
	tty := func(io.Writer) bool { return true }
	t.Setenv("NO_COLOR", "")
	if !UseColor(io.Discard, false, tty) || UseColor(io.Discard, true, tty) || UseColor(&bytes.Buffer{}, false, nil) {
		t.Error("terminal / --no-color / not a terminal")
	}
	t.Setenv("NO_COLOR", "1")
	if UseColor(io.Discard, false, tty) {
		t.Error("NO_COLOR ignored")
	}
}
