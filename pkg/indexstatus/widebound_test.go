package indexstatus

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Issue 36 item 7: -o wide lines reached 359 columns on a 150-index Job (the unwrapped Why:)
// and 215 in its per-index rows (every pod of the index, then the whole detail). Every line of
// the wide view of every captured scenario stays within WideWidth (160): the header, the lists
// and the commands wrap, a row names the latest pod and cuts its detail. Nothing is lost from
// -o json, and what the rows shorten is there: the row's POD is the last of the index's pods
// with the count of the others, its DETAIL a prefix of the index's detail.
func TestWideLinesAreBounded(t *testing.T) {
	const bound = 160 // WideWidth
	widest := 0
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			f := loadFixture(t, name)
			lines := strings.Split(strings.TrimSuffix(f.wide, "\n"), "\n")
			for _, l := range lines {
				n := utf8.RuneCountInString(l)
				widest = max(widest, n)
				if n > bound {
					t.Errorf("a line of %d columns (bound %d): %q", n, bound, l)
				}
			}
			// The index table: its header, then a row per index of the JSON, in order.
			head := -1
			for k, l := range lines {
				if strings.HasPrefix(l, "INDEX ") {
					head = k
					break
				}
			}
			if head < 0 {
				t.Fatalf("no index table:\n%s", f.wide)
			}
			cols := lines[head]
			podAt, detailAt := strings.Index(cols, "POD "), strings.Index(cols, "DETAIL")
			if podAt < 0 || detailAt < 0 || strings.Contains(cols, "PODS") {
				t.Fatalf("index table header %q", cols)
			}
			for k, st := range f.r.Indexes {
				row := lines[head+1+k]
				if !strings.HasPrefix(row, fmt.Sprintf("%-5d  %s ", st.Index, st.State)) {
					t.Fatalf("row %d of index %d (%s): %q", k, st.Index, st.State, row)
				}
				pod := strings.TrimSpace(row[podAt:min(detailAt, len(row))])
				want := "-"
				switch n := len(st.Pods); {
				case n == 1:
					want = st.Pods[0]
				case n > 1:
					want = fmt.Sprintf("%s (+%d)", st.Pods[n-1], n-1)
				}
				if pod != want {
					t.Errorf("index %d: POD %q, pods %v", st.Index, pod, st.Pods)
				}
				detail := ""
				if len(row) > detailAt {
					detail = row[detailAt:]
				}
				if short, ok := strings.CutSuffix(detail, "..."); ok {
					if !strings.HasPrefix(st.Detail, short) || len(short) >= len(st.Detail) {
						t.Errorf("index %d: DETAIL %q is not a cut of %q", st.Index, detail, st.Detail)
					}
				} else if detail != st.Detail {
					t.Errorf("index %d: DETAIL %q, JSON %q", st.Index, detail, st.Detail)
				}
			}
		})
	}
	t.Logf("widest -o wide line of the captured scenarios: %d columns", widest)
}

// Issue 36 item 7: on a terminal the text view takes its width, but the state table's cut
// index lists overshot it ("(and 23 more)" was not counted: 108 columns on a 100-column
// terminal, 90 at the default 80). Every line of the 2,000-index Job's text ends within the
// width, and the lists use it; its -o wide view stays within 160 columns.
func TestTextEndsAtItsWidth(t *testing.T) {
	r, _ := bigFailedJob(t)
	for _, width := range []int{0, 80, 100, 120, 160, 200} {
		want := max(width, 80)
		_, lines := text(t, r, TextOptions{Width: width})
		widest := 0
		for _, l := range lines {
			n := utf8.RuneCountInString(l)
			widest = max(widest, n)
			if n > want {
				t.Errorf("width %d: a line of %d columns: %q", width, n, l)
			}
		}
		if widest < want-10 {
			t.Errorf("width %d: the widest line is %d columns: the width is not used", width, widest)
		}
	}
	_, lines := text(t, r, TextOptions{Wide: true, Width: 100})
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 160 {
			t.Errorf("-o wide: a line of %d columns: %q", n, l)
		}
	}
}
