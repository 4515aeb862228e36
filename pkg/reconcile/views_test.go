package reconcile

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// TestTenThousandShardsProblemsFirst (issue 22, acceptance): 10,000 shards, 10 missing, 1 with
// a receipt rejected for an unknown field, 1 not evaluated. The default view is at most 60
// lines of at most 80 columns and names each of the 12 shards under its state; the rejected
// one is rejected (with its reason), not missing. Before, the view had a row per shard
// (10,006 lines) and the rejected shard read "missing".
func TestTenThousandShardsProblemsFirst(t *testing.T) {
	const n = 10000
	m := &shards.Manifest{APIVersion: shards.APIVersion, Kind: shards.Kind, Metadata: shards.Metadata{Name: "big"}, Revision: "1"}
	for i := range n {
		m.Shards = append(m.Shards, shards.Shard{ID: fmt.Sprintf("shard-%05d", i), Cases: []string{fmt.Sprintf("c%d", i)}})
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Manifest: m, Repetitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	missing := map[int]bool{}
	for k := range 10 {
		missing[17+k*997] = true
	}
	const rejected, infra = 4242, 9001
	for i := range n {
		switch {
		case missing[i]:
		case i == rejected:
			data, err := json.Marshal(rcpt(m, i, "att", 1, m.Shards[i].Cases[0]))
			if err != nil {
				t.Fatal(err)
			}
			data = []byte(strings.Replace(string(data), "{", `{"colour":"blue",`, 1))
			_, perr := receipt.Parse("shard-04242/a.receipt.json", data)
			if perr == nil {
				t.Fatal("a receipt with an unknown field parsed")
			}
			r.RejectData("shard-04242/a.receipt.json", data, perr)
		case i == infra:
			r.AddReceipt(fmt.Sprintf("%d.json", i), rcpt(m, i, "att", 1, m.Shards[i].Cases[0]+":infra"))
		default:
			r.AddReceipt(fmt.Sprintf("%d.json", i), rcpt(m, i, "att", 1, m.Shards[i].Cases[0]))
		}
	}
	rep := r.Report()
	var b strings.Builder
	if err := PrintText(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 60 {
		t.Errorf("%d lines, want at most 60", len(lines))
	}
	for k, l := range lines {
		if w := utf8.RuneCountInString(l); w > 80 {
			t.Errorf("line %d is %d columns: %q", k+1, w, l)
		}
	}
	// Each of the 12 shards is named under the group of its state.
	section := func(state State) string {
		_, after, ok := strings.Cut(out, "- "+string(state)+", ")
		if !ok {
			t.Fatalf("no %s group:\n%s", state, out)
		}
		if end := strings.Index(after, "\n  - "); end >= 0 {
			after = after[:end]
		}
		return after
	}
	for i := range missing {
		if !strings.Contains(section(StateMissing), m.Shards[i].ID) {
			t.Errorf("missing %s not named in its group", m.Shards[i].ID)
		}
	}
	if s := section(StateRejected); !strings.Contains(s, "1 shard: malformed: ") || !strings.Contains(s, `unknown field "colour"`) || !strings.Contains(s, "shard-04242") {
		t.Errorf("rejected group:\n%s", s)
	}
	if s := section(StateNotEvaluated); !strings.Contains(s, "shard-09001") || !strings.Contains(s, "timeout") {
		t.Errorf("not-evaluated group:\n%s", s)
	}
	if !strings.Contains(out, "9988 complete") {
		t.Errorf("no count of complete shards:\n%s", out)
	}
	if t.Failed() {
		t.Logf("view:\n%s", out)
	}
	// -o wide still lists every shard.
	b.Reset()
	if err := PrintWide(&b, rep); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "\nshard-") + strings.Count(b.String(), "  shard-"); got < n {
		t.Errorf("wide names %d shards, want %d", got, n)
	}
}

// TestSameReceiptTwiceIsOneAttempt: a receipt read twice (the same attempt ID for the same
// shard, e.g. a copy of the file) is one attempt: no duplicates, no "more than one attempt".
// Two distinct attempts still count as duplicates.
func TestSameReceiptTwiceIsOneAttempt(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	r.AddReceipt("a/0.json", rcpt(m, 0, "p0", 1, "a", "b"))
	r.AddReceipt("b/0.json", rcpt(m, 0, "p0", 1, "a", "b"))
	rep := r.Report()
	if s := rep.Shards[0]; s.Duplicates != 0 || len(s.Attempts) != 1 || s.State != StateComplete {
		t.Errorf("shard %+v", s)
	}
	var b strings.Builder
	if err := PrintText(&b, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "more than one attempt") || !strings.Contains(b.String(), "1 receipt was of an attempt already read") {
		t.Errorf("view:\n%s", b.String())
	}
	r.AddReceipt("c/0.json", rcpt(m, 0, "p1", 2, "a", "b"))
	if s := r.Report().Shards[0]; s.Duplicates != 2 {
		t.Errorf("two distinct attempts: %d duplicates, want 2", s.Duplicates)
	}
}

// TestNoReceiptFiles: a receipts directory with no *.receipt.json says so in the verdict.
func TestNoReceiptFiles(t *testing.T) {
	m := manifest(t)
	r := newR(t, m)
	r.NoReceiptFiles("results", "*.receipt.json")
	if v := r.Report().Verdict; !strings.Contains(v, "found 0 receipt files in results (looked for *.receipt.json)") {
		t.Errorf("verdict %q", v)
	}
}
