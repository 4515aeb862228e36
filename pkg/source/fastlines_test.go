package source

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// allPaths lists the field paths of v (an object decoded from JSON), as LineOf takes them, plus
// a path under each that does not exist.
func allPaths(prefix string, v any, out *[]string) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		if strings.ContainsAny(k, ".[]") {
			return prefix + "[" + k + "]"
		}
		return prefix + "." + k
	}
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := join(k)
			*out = append(*out, p)
			allPaths(p, t[k], out)
		}
		*out = append(*out, join("absentField"))
	case []any:
		for i, x := range t {
			p := fmt.Sprintf("%s[%d]", prefix, i)
			*out = append(*out, p)
			allPaths(p, x, out)
		}
		*out = append(*out, fmt.Sprintf("%s[%d]", prefix, len(t)))
	}
}

// checkFastLines compares the fast path with the yaml.v3 walk on every path of every document
// of data; it returns how many documents took the fast path.
func checkFastLines(t *testing.T, name string, data []byte) int {
	t.Helper()
	fast := 0
	for _, d := range Parse(name, data) {
		if d.Object == nil || d.Item >= 0 {
			continue
		}
		tree := fastTree(d.raw)
		if tree == nil {
			continue
		}
		fast++
		var paths []string
		allPaths("", d.Object, &paths)
		paths = append(paths, "")
		for _, p := range paths {
			want := d.lineOfPathV3(p, d.Line)
			if got := tree.lineOf(splitPath(p)) + d.rawLine - 1; got != want {
				t.Errorf("%s document %d: LineOf(%q): fast path %d, yaml.v3 %d", name, d.Doc, p, got, want)
			}
		}
	}
	return fast
}

func TestFastLinesAgreeWithYAMLv3(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../test/lint/corpus/*.yaml", "../../examples/*.yaml", "../../test/fixtures/*/*.yaml"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	if len(files) < 50 {
		t.Fatalf("only %d files to compare on", len(files))
	}
	fast := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fast += checkFastLines(t, f, data)
	}
	fast += checkFastLines(t, "multi", []byte(multi))
	fast += checkFastLines(t, "tricky", []byte(tricky))
	t.Logf("fast path answered for %d documents", fast)
	if fast < len(files)/2 {
		t.Errorf("the fast path answered for only %d documents of %d files", fast, len(files))
	}
}

// tricky has what the fast path must either get right or give up on.
const tricky = `apiVersion: batch/v1   # trailing comment
kind: "Job"
metadata:
  name: 'it''s'
  labels: {a: b, "c": d}
  annotations:
    "quoted/key": "value # not a comment"
    plain: a#b
spec:
  template:
    spec:
      containers:
      - name: a
        args:
        - |
          line one
          line two
        - >-
          folded
        - [x, y]
        - {k: v}
        command: ["sh", "-c"]
      - - nested
        - seq
      volumes:
      -   name: wide
          emptyDir: {}
  completions: 3
---
a:
- b
-
  c: d
---
a: &x 1
b: *x
---
key:
  multi
  line
---
k: "open
  quote"
`

func FuzzFastLines(f *testing.F) {
	f.Add([]byte(multi))
	f.Add([]byte(tricky))
	seeds, _ := filepath.Glob("../../test/lint/corpus/0[0-4]*.yaml")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastLines(t, "fuzz", data)
	})
}
