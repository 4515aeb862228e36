package testutil

import (
	"bytes"
	"io"
	"slices"
	"testing"
)

type inner struct {
	n    int
	tags map[string][]string
}

type opts struct {
	Name  string
	in    *inner
	Out   io.Writer
	list  []*inner
	again *inner
}

func TestSnapshotSeesChangesThroughPointers(t *testing.T) {
	shared := &inner{n: 1, tags: map[string][]string{"b": {"x"}, "a": nil}}
	var buf bytes.Buffer
	o := &opts{Name: "j", in: shared, Out: &buf, list: []*inner{{n: 2}}, again: shared}
	before := Snapshot(o)
	if !slices.Equal(before, Snapshot(o)) {
		t.Fatal("two snapshots of the same value differ")
	}
	buf.WriteString("output is not a change of the options")
	if d := SnapshotDiff(before, Snapshot(o)); len(d) > 0 {
		t.Errorf("writing to a stream shows as a change: %v", d)
	}
	for name, change := range map[string]func(){
		"field":             func() { o.Name = "k" },
		"through a pointer": func() { o.in.n = 5 },
		"map entry":         func() { o.in.tags["a"] = []string{"y"} },
		"slice element":     func() { o.list[0].n = 3 },
		"stream replaced":   func() { o.Out = &bytes.Buffer{} },
	} {
		o = &opts{Name: "j", in: &inner{n: 1, tags: map[string][]string{"b": {"x"}, "a": nil}}, Out: &buf, list: []*inner{{n: 2}}}
		o.again = o.in
		before := Snapshot(o)
		change()
		if d := SnapshotDiff(before, Snapshot(o)); len(d) == 0 {
			t.Errorf("%s: change not seen", name)
		}
	}
}
