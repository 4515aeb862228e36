package indexstatus

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// bigFailedJob is a 2,000-index Job under backoffLimitPerIndex 0 whose every 7th index below
// 700 failed (exit 1, or 137 for every 21st), and indexes 700-999 succeeded: too many failed
// ranges for one line.
func bigFailedJob(t *testing.T) (*IndexedJobStatus, indexes.Set) {
	t.Helper()
	var failed indexes.Builder
	for i := 0; i < 700; i += 7 {
		failed.Add(i)
	}
	fs := failed.Set().String()
	job := newJob("big", 2000, 100).perIndex(0, nil).status("700-999", &fs, 300, int32(failed.Set().Len()), 0).get()
	var pods []corev1.Pod
	for i := range failed.Set().All() {
		code := int32(1)
		if i%21 == 0 {
			code = 137
		}
		pods = append(pods, newPod(job, i, 0, 0).exited(code, 5*time.Second).counted().get())
	}
	r, err := Build(job, pods, Options{Clock: at(time.Hour), ListLimit: TextViewRows})
	if err != nil {
		t.Fatal(err)
	}
	return r, failed.Set()
}

func text(t *testing.T, r *IndexedJobStatus, opts TextOptions) (string, []string) {
	t.Helper()
	var b bytes.Buffer
	if err := PrintTextWith(&b, r, opts); err != nil {
		t.Fatal(err)
	}
	return b.String(), strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// tableRows is the state table of out: its lines from the STATE header to the blank line.
func tableRows(out string) []string {
	_, rest, _ := strings.Cut(out, "\nSTATE ")
	table, _, _ := strings.Cut(rest, "\n\n")
	return strings.Split(table, "\n")[1:]
}

// Issue 36, item 7: the text view cuts a long index list ("(and 23 more)"); --state failed
// keeps the Failed rows only and lists every failed index, wrapped in 80 columns (or a wider
// terminal's width); -o wide lists every index too.
func TestStateFilterListsEveryIndex(t *testing.T) {
	r, failed := bigFailedJob(t)
	out, _ := text(t, r, TextOptions{})
	if rows := tableRows(out); len(rows) != 3 || !strings.Contains(rows[1], "(and ") {
		t.Fatalf("default state table, want Failed cut with (and N more):\n%s", strings.Join(rows, "\n"))
	}
	for _, tc := range []struct {
		name  string
		opts  TextOptions
		width int
	}{
		{"--state failed", TextOptions{States: []State{StateFailed}}, 80},
		{"--state failed, a 120-column terminal", TextOptions{States: []State{StateFailed}, Width: 120}, 120},
		{"-o wide", TextOptions{Wide: true}, 80},
	} {
		out, lines := text(t, r, tc.opts)
		rows := tableRows(out)
		var ix strings.Builder
		wider := false
		for _, l := range rows {
			f := strings.Fields(l)
			if f[0] == string(StateFailed) {
				ix.WriteString(f[2])
			} else if len(f) == 1 && ix.Len() > 0 && strings.HasSuffix(ix.String(), ",") {
				ix.WriteString(f[0]) // a continuation line of the Failed row
			}
			if !tc.opts.Wide && f[0] != string(StateFailed) && len(f) == 3 {
				t.Errorf("%s: a row of another state: %q", tc.name, l)
			}
		}
		if got, err := indexes.Parse(ix.String(), 2000); err != nil || !got.Equal(failed) {
			t.Errorf("%s: the Failed row lists %q (%v), want every failed index %s:\n%s", tc.name, ix.String(), err, failed, out)
		}
		if strings.Contains(strings.Join(rows, "\n"), "(and ") {
			t.Errorf("%s: the state table still cuts a list:\n%s", tc.name, out)
		}
		for k, l := range lines {
			w := utf8.RuneCountInString(l)
			wider = wider || w > 80
			if w > tc.width && !tc.opts.Wide {
				t.Errorf("%s: line %d is %d columns: %q", tc.name, k+1, w, l)
			}
		}
		for k, l := range rows {
			if w := utf8.RuneCountInString(l); w > tc.width {
				t.Errorf("%s: state table line %d is %d columns: %q", tc.name, k+1, w, l)
			}
		}
		if tc.width > 80 && !wider {
			t.Errorf("%s: no line uses the terminal's width:\n%s", tc.name, out)
		}
		if !tc.opts.Wide {
			// The groups: Failed only, each with every index under it.
			if strings.Contains(out, "\nSucceeded ") || strings.Contains(out, "\nPending ") {
				t.Errorf("%s: rows of other states:\n%s", tc.name, out)
			}
			if !strings.Contains(out, "    indexes: 0,21,42,") || !strings.Contains(out, "    indexes: 7,14,28,") {
				t.Errorf("%s: the group's indexes are not listed under it:\n%s", tc.name, out)
			}
		}
	}
	// A state no index is in says so.
	if out, _ := text(t, r, TextOptions{States: []State{StateRetrying, StateRunning}}); !strings.Contains(out, "No index is Running or Retrying.") {
		t.Errorf("an empty filter:\n%s", out)
	}
}
