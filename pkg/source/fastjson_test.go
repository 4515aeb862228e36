package source

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

func decodeNumbers(t *testing.T, js []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("invalid JSON %s: %v", js, err)
	}
	return v
}

// checkFastJSON compares the fast path with yaml.YAMLToJSONStrict on every YAML document of
// data and returns how many the fast path converted.
func checkFastJSON(t *testing.T, name string, data []byte) int {
	t.Helper()
	if looksLikeJSON(data) {
		return 0
	}
	fast := 0
	for _, c := range splitYAML(data) {
		js, value, _, ok := fastYAMLToJSON(c.text)
		if !ok {
			continue
		}
		var decoded any
		if err := json.Unmarshal(js, &decoded); err != nil || !reflect.DeepEqual(decoded, value) {
			t.Errorf("%s line %d: the fast path's value %#v is not its JSON %s decoded (%v)", name, c.line, value, js, err)
		}
		fast++
		want, err := yaml.YAMLToJSONStrict(c.text)
		if err != nil {
			t.Errorf("%s line %d: the fast path converted a document yaml.v2 rejects (%v):\n%s", name, c.line, err, c.text)
			continue
		}
		if got, exp := decodeNumbers(t, js), decodeNumbers(t, want); !reflect.DeepEqual(got, exp) {
			t.Errorf("%s line %d: fast path\n  %s\nyaml.v2\n  %s\nfor\n%s", name, c.line, js, want, c.text)
		}
	}
	return fast
}

func TestFastJSONAgreesWithYAML(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../test/lint/corpus/*.yaml", "../../examples/*.yaml", "../../test/fixtures/*/*.yaml"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	fast := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fast += checkFastJSON(t, f, data)
	}
	fast += checkFastJSON(t, "multi", []byte(multi))
	fast += checkFastJSON(t, "tricky", []byte(tricky))
	fast += checkFastJSON(t, "scalars", []byte(scalars))
	t.Logf("the fast path converted %d documents", fast)
	if fast < len(files)/2 {
		t.Errorf("the fast path converted only %d documents of %d files", fast, len(files))
	}
}

// scalars are YAML 1.1 forms that yaml.v2 resolves in surprising ways.
const scalars = `a: yes
b: No
c: on
d: ~
e: 0777
f: 0x1F
g: 1_000
h: -12
i: +3
j: 1.5
k: 1e3
l: .5
m: 2026-01-02
n: 100m
o: 10Gi
p: v1.36
q: 'it''s'
r: "plain"
s: [1, "two", three, {x: y}, []]
t: {"k": v, n: 5}
u: |
  line one

  line three
v: |-
  stripped
w: |+
  kept

x: >
  folded
y: -
z: "esc\n"
yes: key
1: one
0o17: octal?
---
key: value
key: dup
`

func FuzzFastJSON(f *testing.F) {
	f.Add([]byte(scalars))
	f.Add([]byte(tricky))
	f.Add([]byte(multi))
	seeds, _ := filepath.Glob("../../test/lint/corpus/0[0-4]*.yaml")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastJSON(t, "fuzz", data)
		checkFastLines(t, "fuzz", data)
	})
}

// Each scalar form on its own: the fast path either converts it as yaml.v2 does or gives up.
func TestFastJSONScalarsOneByOne(t *testing.T) {
	converted := 0
	for _, line := range bytes.Split([]byte(scalars), []byte("\n")) {
		if len(line) == 0 || line[0] == ' ' || bytes.HasPrefix(line, []byte("---")) {
			continue
		}
		converted += checkFastJSON(t, string(line), append(line, '\n'))
	}
	if converted < 15 {
		t.Errorf("the fast path converted only %d of the scalar forms", converted)
	}
}
