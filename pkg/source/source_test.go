package source

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const multi = `# leading comment
apiVersion: batch/v1
kind: Job
metadata:
  name: a
spec:
  completions: 3
---
---
# only a comment
---
apiVersion: v1
kind: List
items:
- apiVersion: batch/v1
  kind: Job
  metadata:
    name: b
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: c
- 42
---
apiVersion: batch/v1
kind: Job
metadata: {name: d
---
- just
- a list
`

func TestParseYAMLStream(t *testing.T) {
	docs := Parse("f.yaml", []byte(multi))
	type want struct {
		doc, item, line int
		name, err       string
	}
	wants := []want{
		{doc: 1, item: -1, line: 2, name: "a"},
		{doc: 4, item: 0, line: 15, name: "b"},
		{doc: 4, item: 1, line: 19, name: "c"},
		{doc: 4, item: 2, line: 23, err: "line 23: item 2 of the List is a number"},
		{doc: 5, item: -1, line: 25, err: "line 2"},
		{doc: 6, item: -1, line: 29, err: "line 29: the document is a list"},
	}
	if len(docs) != len(wants) {
		for _, d := range docs {
			t.Logf("%+v err=%v", d.Name(), d.Err)
		}
		t.Fatalf("got %d documents, want %d", len(docs), len(wants))
	}
	for i, w := range wants {
		d := docs[i]
		if d.Doc != w.doc || d.Item != w.item || d.Line != w.line {
			t.Errorf("doc %d: got doc=%d item=%d line=%d, want %d %d %d", i, d.Doc, d.Item, d.Line, w.doc, w.item, w.line)
		}
		if w.err != "" {
			if d.Err == nil || !strings.Contains(d.Err.Error(), w.err) {
				t.Errorf("doc %d: error %v, want it to contain %q", i, d.Err, w.err)
			}
			continue
		}
		if d.Err != nil {
			t.Errorf("doc %d: unexpected error %v", i, d.Err)
		}
		if d.Name() != w.name {
			t.Errorf("doc %d: name %q, want %q", i, d.Name(), w.name)
		}
	}
	if got := docs[0].LineOf("spec.completions"); got != 7 {
		t.Errorf("LineOf(spec.completions) = %d, want 7", got)
	}
	if got := docs[0].LineOf("spec.parallelism"); got != 6 {
		t.Errorf("LineOf(absent spec.parallelism) = %d, want 6 (its parent)", got)
	}
	if got := docs[1].LineOf("metadata.name"); got != 18 {
		t.Errorf("LineOf(items[0].metadata.name) = %d, want 18", got)
	}
}

func TestParseJSONStream(t *testing.T) {
	in := "{\"kind\":\"Job\",\"metadata\":{\"name\":\"x\"}}\n\n{\"kind\":\"Job\",\n \"metadata\":{\"name\":\"y\"},\n \"spec\":{\"completions\":2}}\n{broken"
	docs := Parse("f.json", []byte(in))
	if len(docs) != 3 {
		t.Fatalf("got %d docs", len(docs))
	}
	if docs[0].Line != 1 || docs[1].Line != 3 || docs[1].Name() != "y" {
		t.Errorf("unexpected lines/names: %d %d %q", docs[0].Line, docs[1].Line, docs[1].Name())
	}
	if got := docs[1].LineOf("spec.completions"); got != 5 {
		t.Errorf("JSON LineOf = %d, want 5", got)
	}
	if docs[2].Err == nil || !strings.Contains(docs[2].Err.Error(), "invalid JSON") {
		t.Errorf("want invalid JSON error, got %v", docs[2].Err)
	}
}

func TestParseBinaryAndDuplicates(t *testing.T) {
	docs := Parse("bin", []byte{0x7f, 'E', 'L', 'F', 0, 1, 2})
	if len(docs) != 1 || docs[0].Err == nil || !strings.Contains(docs[0].Err.Error(), "binary") {
		t.Fatalf("binary input: %+v", docs)
	}
	docs = Parse("dup.yaml", []byte("kind: Job\nkind: Job\n"))
	if len(docs) != 1 || docs[0].Err == nil {
		t.Fatalf("duplicate keys must be an error: %+v", docs)
	}
}

func TestSplitPath(t *testing.T) {
	got := strings.Join(splitPath("spec.template.metadata.labels[app.kubernetes.io/name].x[3]"), "|")
	if want := "spec|template|metadata|labels|app.kubernetes.io/name|x|3"; got != want {
		t.Errorf("splitPath = %q, want %q", got, want)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(multi))
	f.Add([]byte("{\"kind\":\"List\",\"items\":[{\"kind\":\"Job\"}]}"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("a: &x [1]\nb: *x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range Parse("fuzz", data) {
			if d.Err == nil && d.Object == nil {
				t.Fatalf("document without object and without error")
			}
			_ = d.LineOf("spec.template.spec.containers[0].image")
		}
	})
}

func TestReadDirectorySkipsSubdirectoriesWithoutRecursive(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "job.yaml"), []byte("apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var skipped []string
	docs, err := Read([]string{dir}, Options{SkippedDir: func(d string) { skipped = append(skipped, d) }})
	if err != nil || len(docs) != 0 {
		t.Fatalf("non-recursive read: %d docs, err %v; want none", len(docs), err)
	}
	if len(skipped) != 1 || skipped[0] != sub {
		t.Errorf("SkippedDir got %v, want [%s]", skipped, sub)
	}
	skipped = nil
	docs, err = Read([]string{dir}, Options{Recursive: true, SkippedDir: func(d string) { skipped = append(skipped, d) }})
	if err != nil || len(docs) != 1 || len(skipped) != 0 {
		t.Fatalf("recursive read: %d docs, skipped %v, err %v; want 1 doc, none skipped", len(docs), skipped, err)
	}
}

func TestParseDuplicateKeysKeepLenientObject(t *testing.T) {
	docs := Parse("dup.yaml", []byte("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: d\nspec:\n  completions: 4\n  completions: 5\n"))
	if len(docs) != 1 {
		t.Fatalf("got %d documents", len(docs))
	}
	var dup *DuplicateKeyError
	if !errors.As(docs[0].Err, &dup) || !strings.Contains(docs[0].Err.Error(), "line 7") {
		t.Fatalf("want a DuplicateKeyError naming line 7, got %v", docs[0].Err)
	}
	spec, _ := docs[0].Object["spec"].(map[string]any)
	if spec["completions"] != float64(5) {
		t.Errorf("lenient object: completions = %v, want 5 (the last value, as kubectl reads it)", spec["completions"])
	}
	docs = Parse("broken.yaml", []byte("spec: [1\n"))
	if errors.As(docs[0].Err, &dup) || docs[0].Object != nil {
		t.Errorf("a syntax error is not a duplicate key: %v", docs[0].Err)
	}
}

// ReadPods tells an input with no object at all (ErrNoObject) from a List with no items (no
// pods: an answer).
func TestReadPodsNoObject(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"empty": "", "null": "null", "comment": "# nothing\n---\n", "tilde": "~\n"} {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		pods, err := ReadPods(p, nil)
		var re *ReadError
		if !errors.Is(err, ErrNoObject) || !errors.As(err, &re) || re.Path != p || pods != nil {
			t.Errorf("%s: pods %v, err %v, want a ReadError of %s wrapping ErrNoObject", name, pods, err, p)
		}
	}
	if _, err := ReadPods("-", strings.NewReader("")); !errors.Is(err, ErrNoObject) {
		t.Errorf("empty stdin: %v", err)
	}
	for name, text := range map[string]string{"json": `{"kind":"List","items":[]}`, "yaml": "kind: PodList\nitems: []\n"} {
		p := filepath.Join(dir, "list-"+name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if pods, err := ReadPods(p, nil); err != nil || len(pods) != 0 {
			t.Errorf("%s empty List: pods %v, err %v, want none and no error", name, pods, err)
		}
	}
}

// ForEachInOrder checks documents on several workers, in any order, and keeps their results
// in the order of files, documents and List items.
func TestForEachInOrderKeepsInputOrder(t *testing.T) {
	dir := t.TempDir()
	var stream strings.Builder
	for i := range 60 {
		if i == 30 {
			stream.WriteString("---\napiVersion: v1\nkind: List\nitems:\n- {kind: Job, metadata: {name: item-0}}\n- {kind: Job, metadata: {name: item-1}}\n")
		}
		fmt.Fprintf(&stream, "---\nkind: Job\nmetadata:\n  name: job-%d\n", i)
		if i%7 == 0 {
			stream.WriteString("---\n# a blank document\n")
		}
	}
	a := filepath.Join(dir, "a.yaml")
	b := filepath.Join(dir, "b.yaml")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte(stream.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	check := func(d *Document) string {
		if d.Doc%3 == 0 {
			time.Sleep(time.Millisecond) // later documents are done first
		}
		return fmt.Sprintf("%s %d %d %s", filepath.Base(d.File), d.Doc, d.Item, d.Name())
	}
	if err := ForEachInOrder([]string{b, a}, Options{}, 4, check, func(s string) { got = append(got, s) }); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range []string{b, a} {
		docs, err := Read([]string{f}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range docs {
			want = append(want, fmt.Sprintf("%s %d %d %s", filepath.Base(f), docs[i].Doc, docs[i].Item, docs[i].Name()))
		}
	}
	if len(want) != 2*62 || !slices.Equal(got, want) {
		t.Errorf("kept in this order:\n%s\nwant (%d):\n%s", strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
}
