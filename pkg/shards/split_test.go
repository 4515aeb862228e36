package shards

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

func numberedCases(n int) []string {
	cases := make([]string, n)
	for i := range cases {
		cases[i] = fmt.Sprintf("case-%04d", i)
	}
	return cases
}

func TestSplitIsDeterministicAndOrderIndependent(t *testing.T) {
	cases := numberedCases(1000)
	o := SplitOptions{Name: "eval", Revision: "1", Shards: 8}
	first, stats, err := Split(cases, o)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Input != 1000 || stats.Unique != 1000 || stats.Smallest != 125 || stats.Largest != 125 || len(stats.Duplicates) != 0 {
		t.Errorf("stats %+v", stats)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		shuffled := append([]string(nil), cases...)
		rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		// Duplicates in the input do not change the result either.
		shuffled = append(shuffled, shuffled[:i*7]...)
		m, _, err := Split(shuffled, o)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m.YAML(), first.YAML()) || !bytes.Equal(m.Canonical(), first.Canonical()) {
			t.Fatalf("shuffle %d gave a different manifest", i)
		}
	}
	if got := first.NumCases(); got != 1000 {
		t.Errorf("NumCases = %d", got)
	}
}

func TestSplitStriped(t *testing.T) {
	m, stats, err := Split([]string{"e", "b", "a", "d", "c", "g", "f", "b"}, SplitOptions{Name: "m", Revision: "r", Shards: 3, IDPrefix: "part"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Shard{
		{ID: "part-0", Cases: []string{"a", "d", "g"}},
		{ID: "part-1", Cases: []string{"b", "e"}},
		{ID: "part-2", Cases: []string{"c", "f"}},
	}
	if !reflect.DeepEqual(m.Shards, want) {
		t.Errorf("shards %+v, want %+v", m.Shards, want)
	}
	if stats.Input != 8 || stats.Unique != 7 || !reflect.DeepEqual(stats.Duplicates, []string{"b"}) || stats.Largest != 3 || stats.Smallest != 2 {
		t.Errorf("stats %+v", stats)
	}
}

func TestSplitIDsPadded(t *testing.T) {
	m, _, err := Split(numberedCases(12), SplitOptions{Name: "m", Revision: "1", Shards: 11})
	if err != nil {
		t.Fatal(err)
	}
	if m.Shards[0].ID != "shard-00" || m.Shards[10].ID != "shard-10" {
		t.Errorf("ids %v", m.IDs())
	}
	one, _, err := Split(numberedCases(3), SplitOptions{Name: "m", Revision: "1", Shards: 1})
	if err != nil || one.Shards[0].ID != "shard-0" || len(one.Shards[0].Cases) != 3 {
		t.Errorf("one shard: %v %v", one, err)
	}
}

func TestSplitErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cases []string
		o     SplitOptions
		want  string
	}{
		{"no cases", nil, SplitOptions{Name: "m", Revision: "1", Shards: 1}, "no case IDs given"},
		{"zero shards", []string{"a"}, SplitOptions{Name: "m", Revision: "1", Shards: 0}, "at least 1, not 0"},
		{"too many for cases", []string{"a", "b", "a"}, SplitOptions{Name: "m", Revision: "1", Shards: 3}, "3 shards for 2 distinct cases would leave shards empty: use at most 2 shards"},
		{"above max", []string{"a"}, SplitOptions{Name: "m", Revision: "1", Shards: MaxShards + 1}, "at most 100000"},
		{"bad case", []string{"a", " b"}, SplitOptions{Name: "m", Revision: "1", Shards: 1}, `case 2: invalid case ID " b"`},
		{"bad name", []string{"a"}, SplitOptions{Name: "M", Revision: "1", Shards: 1}, "metadata.name: invalid name"},
		{"bad prefix", []string{"a"}, SplitOptions{Name: "m", Revision: "1", Shards: 1, IDPrefix: "-x"}, `invalid shard ID "-x-0"`},
		{"no revision", []string{"a"}, SplitOptions{Name: "m", Shards: 1}, "revision: required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Split(tc.cases, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestReadCases(t *testing.T) {
	got, err := ReadCases("list", strings.NewReader("\ufeffb\r\n  a  \n\n\tc\nb\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"b", "a", "c", "b"}) {
		t.Errorf("got %q", got)
	}
	_, err = ReadCases("list", strings.NewReader("a\nb\x00c\n"))
	if err == nil || !strings.Contains(err.Error(), `case list list: line 2: invalid case ID "b\x00c"`) {
		t.Errorf("err = %v", err)
	}
	_, err = ReadCases("big", strings.NewReader("a\n"+strings.Repeat("x", 2<<20)))
	if err == nil || !strings.Contains(err.Error(), "line 2: longer than 1 MiB") {
		t.Errorf("err = %v", err)
	}
	if got := CasesText([]string{"a", "b"}); got != "a\nb\n" {
		t.Errorf("CasesText = %q", got)
	}
}

// TestSplitGolden pins the exact bytes split writes for a small list, so that a change of the
// algorithm or the format cannot go unnoticed.
func TestSplitGolden(t *testing.T) {
	cases, err := ReadCases("cases", strings.NewReader("math-3\ngsm-2\nmath-1\ngsm-1\nyes\n007\nmath-2\ngsm-3\ncode/1\n"))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := Split(cases, SplitOptions{Name: "demo", Revision: "2024-06-01", Labels: map[string]string{"candidate": "model-a"}, Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "testdata/split/demo.yaml", m.YAML())
	testutil.Golden(t, "testdata/split/demo.json", m.JSON())
}
