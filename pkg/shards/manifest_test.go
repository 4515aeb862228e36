package shards

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// TestParseGolden parses every testdata/parse input and compares the outcome (the error, or
// the canonical form, hash and YAML) with its golden file.
func TestParseGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/parse/*.*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden") {
			continue
		}
		n++
		t.Run(filepath.Base(in), func(t *testing.T) {
			var out bytes.Buffer
			m, err := Read(in, nil)
			if err != nil {
				if m != nil {
					t.Errorf("Read returned a manifest and an error")
				}
				fmt.Fprintf(&out, "error:\n%s\n", strings.ReplaceAll(err.Error(), filepath.ToSlash(in), filepath.Base(in)))
			} else {
				fmt.Fprintf(&out, "hash: %s\ncanonical:\n%s\nyaml:\n%s", m.Hash(), m.Canonical(), m.YAML())
				// What we write reads back as the same manifest.
				back, err := Parse("yaml", m.YAML())
				if err != nil {
					t.Fatalf("the YAML written does not parse: %v", err)
				}
				if !reflect.DeepEqual(back, m) {
					t.Errorf("YAML round trip changed the manifest:\n%#v\n%#v", back, m)
				}
			}
			testutil.Golden(t, filepath.Join("testdata", "parse", strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))+".golden"), out.Bytes())
		})
	}
	if n < 10 {
		t.Fatalf("only %d inputs found", n)
	}
}

func TestSameManifestSameHash(t *testing.T) {
	a, err := Read("testdata/parse/valid.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read("testdata/parse/valid-reordered.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash() != b.Hash() || !bytes.Equal(a.Canonical(), b.Canonical()) {
		t.Errorf("the same manifest written two ways hashes differently: %s vs %s", a.Hash(), b.Hash())
	}
	// Any change of meaning changes the hash: revision, a case, the order of shards.
	c := *b
	c.Revision = "4"
	d := *b
	d.Shards = append([]Shard{b.Shards[1], b.Shards[0]}, b.Shards[2:]...)
	e := *b
	e.Shards = append([]Shard(nil), b.Shards...)
	e.Shards[2] = Shard{ID: "shard-2", Cases: []string{"q-003", "q-005"}}
	for name, m := range map[string]*Manifest{"revision": &c, "shard order": &d, "a case": &e} {
		if m.Hash() == a.Hash() {
			t.Errorf("changing %s did not change the hash", name)
		}
	}
	if b.Shards[2].Cases[0] != "q-003" || len(b.Shards[2].Cases) != 1 {
		t.Fatalf("the test modified its input")
	}
}

func TestTooManyShards(t *testing.T) {
	m := &Manifest{APIVersion: APIVersion, Kind: Kind, Metadata: Metadata{Name: "big"}, Revision: "1"}
	for i := 0; i <= MaxShards; i++ {
		m.Shards = append(m.Shards, Shard{ID: fmt.Sprintf("s%d", i), Cases: []string{fmt.Sprintf("c%d", i)}})
	}
	err := m.Validate()
	if err == nil || !strings.Contains(err.Error(), "100001 shards: at most 100000 are allowed") {
		t.Fatalf("err = %v", err)
	}
	m.Shards = m.Shards[:MaxShards]
	if err := m.Validate(); err != nil {
		t.Fatalf("%d shards should be allowed: %v", MaxShards, err)
	}
}

func TestProblemsAreCapped(t *testing.T) {
	m := &Manifest{APIVersion: APIVersion, Kind: Kind, Metadata: Metadata{Name: "m"}, Revision: "1"}
	for i := 0; i < 50; i++ {
		m.Shards = append(m.Shards, Shard{ID: "same", Cases: []string{fmt.Sprint("c", i)}})
	}
	err := m.Validate()
	var e *Error
	if !asError(err, &e) {
		t.Fatalf("err = %v", err)
	}
	if len(e.Problems) != maxProblems || e.More != 49-maxProblems {
		t.Errorf("problems %d, more %d", len(e.Problems), e.More)
	}
	if !strings.Contains(err.Error(), "49 problems:") || !strings.Contains(err.Error(), "... and 29 more") {
		t.Errorf("message: %s", err)
	}
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

func TestValidateCaseID(t *testing.T) {
	for id, want := range map[string]string{
		"q-001":                   "",
		"path/to/case 7":          "",
		"ünïcode ✓":               "",
		"#hash":                   "",
		"":                        "must not be empty",
		" a":                      "leading or trailing white space",
		"a\u00a0":                 "leading or trailing white space",
		"a\nb":                    "control character U+000A",
		"a\x00":                   "control character U+0000",
		"\xff":                    "not valid UTF-8",
		"a\u2028b":                "control character U+2028",
		strings.Repeat("x", 1025): "longer than 1024 bytes",
		strings.Repeat("x", 1024): "",
		"\ufeffbom":               "control character U+FEFF",
	} {
		got := ValidateCaseID(id)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("ValidateCaseID(%q) = %q, want %q", id, got, want)
		}
	}
}
