package source

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// describeDoc is what a test compares of a Document: where it is, what it holds, why not.
func describeDoc(d *Document) string {
	err := ""
	if d.Err != nil {
		err = d.Err.Error()
	}
	return fmt.Sprintf("%s doc %d item %d line %d: %s %q %s", filepath.Base(d.File), d.Doc, d.Item, d.Line, d.Kind(), d.JSON, err)
}

// A regular file of YAML is read a document at a time: the documents, their lines and errors
// are the ones of the whole file read at once, whatever the separators, line ends, byte order
// mark or line lengths; binary files and JSON are read whole, as before.
func TestStreamedFileReadsAsWhole(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	cases := map[string]string{
		"plain":                              "kind: Job\nmetadata:\n  name: a\n---\nkind: Job\nmetadata:\n  name: b\n",
		"leading separator":                  "---\nkind: Job\n---\nkind: CronJob\n",
		"trailing separator without newline": "kind: Job\n---",
		"no final newline":                   "kind: Job\n---\nkind: Pod\nmetadata: {name: p}",
		"crlf":                               "kind: Job\r\nmetadata:\r\n  name: a\r\n---\r\nkind: Job\r\nspec: [\r\n",
		"bom":                                "\xef\xbb\xbfkind: Job\n---\nkind: Job\n",
		"bom and separator":                  "\xef\xbb\xbf---\nkind: Job\n",
		"blank and comments":                 "# head\n---\n\n---\n# only a comment\n---\n~\n---\n\n\nkind: Job\nbad: [\n",
		"separator words":                    "--- # a comment\nkind: Job\n---\t\nkind: Job\n----\nkind: Job\n",
		"list":                               "apiVersion: v1\nkind: List\nitems:\n- kind: Job\n  metadata: {name: a}\n- 3\n",
		"duplicate key":                      "kind: Job\nkind: Job\n---\nkind: Job\n",
		"long line":                          "kind: Job\nmetadata:\n  name: a\n  annotations: {x: " + long + "}\n---\nkind: Job\n",
		"tab":                                "kind: Job\nspec:\n\tcompletions: 2\n",
		"json":                               "{\"kind\": \"Job\"}\n{\"kind\": \"Job\", \"metadata\": {\"name\": \"b\"}}\n",
		"json after space":                   "\n  \n{\"kind\": \"Job\"}\n",
		"binary":                             "kind: Job\n---\nkind: \x00Job\n",
		"not utf-8":                          "kind: Job\n---\nkind: \xe2\n",
		"only blanks":                        "\n\n",
	}
	dir := t.TempDir()
	for name, content := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yaml")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		whole, err := Read([]string{path}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := range whole {
			want = append(want, describeDoc(&whole[i]))
		}
		for _, workers := range []int{1, 3} {
			var got []string
			err := ForEachInOrder([]string{path}, Options{}, workers, describeDoc, func(s string) { got = append(got, s) })
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s (%d workers): read a document at a time:\n%s\nread whole:\n%s", name, workers, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

// The size bound holds for a file read a document at a time as for one read whole.
func TestStreamedFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte(strings.Repeat("kind: Job\n---\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	err := ForEachInOrder([]string{path}, Options{MaxBytes: 1000}, 2, func(*Document) int { return 0 }, func(int) { t.Error("a document of a file over the bound") })
	if err == nil || !strings.Contains(err.Error(), "larger than 1000 bytes") {
		t.Errorf("error %v", err)
	}
}
