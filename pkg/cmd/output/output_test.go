package output

import (
	"bytes"
	"io"
	"strings"
	"testing"
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

func TestWriteTemplates(t *testing.T) {
	for _, tc := range []struct {
		format string
		opts   Options
		want   string
	}{
		{"jsonpath={.rows[*].name}", Options{}, "x y"},
		{"go-template={{.note}}", Options{}, "a<b & c"},
		{"custom-columns=NAME:.name,COUNT:.count", Options{}, "NAME   COUNT\nx      1\ny      2\n"},
		{"custom-columns=NAME:.name,COUNT:.count", Options{NoHeaders: true}, "x     1\ny     2\n"},
	} {
		var b bytes.Buffer
		if err := PrintListWith(&b, tc.format, sample(), "rows", tc.opts); err != nil || b.String() != tc.want {
			t.Errorf("%s %+v: %q, %v; want %q", tc.format, tc.opts, b.String(), err, tc.want)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, FormatJSON, sample(), "rows"); err != nil || !strings.HasPrefix(b.String(), "{\n  \"apiVersion\"") {
		t.Errorf("Write json: %q %v", b.String(), err)
	}
}

func TestValidate(t *testing.T) {
	if err := Validate("", FormatText, FormatJSON); err != nil {
		t.Error(err)
	}
	if err := Validate("jsonpath={.rows}", FormatText); err != nil {
		t.Error(err)
	}
	if err := Validate("wide", FormatText, FormatJSON); err == nil || !strings.Contains(err.Error(), `unsupported output format "wide": allowed formats are json, or jsonpath=...`) {
		t.Errorf("wide: %v", err)
	}
	if err := Validate("jsonpath={.rows", FormatText); err == nil || !strings.HasPrefix(err.Error(), "-o jsonpath={.rows: ") {
		t.Errorf("bad template: %v", err)
	}
	if !IsMachine("name") || !IsMachine("go-template={{.}}") || IsMachine("wide") || IsMachine("") {
		t.Error("IsMachine")
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
