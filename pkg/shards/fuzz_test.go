package shards

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics, and whatever it accepts is valid, writes back (YAML and
// JSON) to the same manifest, and has a stable canonical form.
func FuzzParse(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/parse/*.*")
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden") {
			continue
		}
		if b, err := os.ReadFile(in); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"apiVersion":"indexed.kubectl.io/v1alpha1","kind":"ShardManifest","metadata":{"name":"a"},"revision":"1","shards":[{"id":"x","cases":["on","~","1e3","a: b","- c","\"q\"","#c"]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz", data)
		if err != nil {
			if m != nil {
				t.Fatal("manifest and error")
			}
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("Parse accepted an invalid manifest: %v", err)
		}
		for name, out := range map[string][]byte{"yaml": m.YAML(), "json": m.JSON(), "canonical": m.Canonical()} {
			back, err := Parse(name, out)
			if err != nil {
				t.Fatalf("%s output does not parse: %v\n%s", name, err, out)
			}
			if !reflect.DeepEqual(back.Canonical(), m.Canonical()) || back.Hash() != m.Hash() {
				t.Fatalf("%s round trip changed the manifest", name)
			}
		}
	})
}

// FuzzSplit: any list of lines either fails with an error or gives a valid manifest holding
// exactly the distinct valid cases, with shard sizes differing by at most one, independent of
// the input order.
func FuzzSplit(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), uint8(2))
	f.Add([]byte("x\nx\ny\n"), uint8(5))
	f.Add([]byte("\n\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		cases, err := ReadCases("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		o := SplitOptions{Name: "f", Revision: "1", Shards: int(n)}
		m, stats, err := Split(cases, o)
		if err != nil {
			return
		}
		if m.NumCases() != stats.Unique || len(m.Shards) != int(n) || stats.Largest-stats.Smallest > 1 {
			t.Fatalf("stats %+v, %d cases, %d shards", stats, m.NumCases(), len(m.Shards))
		}
		rev := append([]string(nil), cases...)
		for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
			rev[i], rev[j] = rev[j], rev[i]
		}
		m2, _, err := Split(rev, o)
		if err != nil || !bytes.Equal(m2.YAML(), m.YAML()) {
			t.Fatalf("reversed input changed the result: %v", err)
		}
		if _, err := Parse("split", m.YAML()); err != nil {
			t.Fatalf("split output does not parse: %v", err)
		}
	})
}

// FuzzParseShardIDs: the status contract's reader never panics, and what it accepts is a list
// of distinct valid IDs.
func FuzzParseShardIDs(f *testing.F) {
	f.Add([]byte(`["a","b"]`))
	f.Add([]byte(`["a","a"]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ids, err := ParseShardIDs(data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if ValidateShardID(id) != "" || seen[id] {
				t.Fatalf("accepted %q", ids)
			}
			seen[id] = true
		}
	})
}
