package htmlreport

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

func report() *indexstatus.IndexedJobStatus {
	exit := int32(42)
	return &indexstatus.IndexedJobStatus{
		Job:         contract.JobRef{Name: "eval", Namespace: "ml"},
		Phase:       indexstatus.PhaseFailed,
		Completions: 6,
		Explanation: `index 2 failed: <script>alert("x")</script>`,
		Grid: []indexstatus.Run{
			{First: 0, Last: 1, State: indexstatus.StateSucceeded},
			{First: 2, Last: 2, State: indexstatus.StateFailed},
			{First: 4, Last: 5, State: indexstatus.StateRunning},
		},
		Indexes: []indexstatus.IndexStatus{
			{Index: 0, State: indexstatus.StateSucceeded, Attempts: 1, Pods: []string{"eval-0-a"}},
			{Index: 2, State: indexstatus.StateFailed, Attempts: 1, LastExitCode: &exit, Pods: []string{"eval-2-a"},
				Detail: `failed at once </script><script>alert(1)</script> (pod eval-2-a)`},
		},
	}
}

var dataScript = regexp.MustCompile(`(?s)<script id="report-data" type="application/json">(.*?)</script>`)

// TestUserStringsCannotEscape: words of the report (a Job's messages, a container's termination
// message end up in details) are text in the page: never markup, never the end of a script.
func TestUserStringsCannotEscape(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, report()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, `<script>alert`) {
		t.Errorf("a report string became markup:\n%s", page)
	}
	m := dataScript.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data script")
	}
	var d data
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("the data does not parse: %v", err)
	}
	if got := rowsOf(d, 2)[""]; got != "failed at once </script><script>alert(1)</script> (pod "+Placeholder+")" {
		t.Errorf("detail %q", got)
	}
	if d.Facts[0][1] != "eval-2-a" || rowsOf(d, 2)["pods"] != Placeholder {
		t.Errorf("the placeholder stands for %v, want the index's last pod", d.Facts[0][1])
	}
}

// TestRunsAndFacts: the grid is (length, state) pairs from index 0, with -1 for an index the
// report has no row for; a plain succeeded index carries no facts.
func TestRunsAndFacts(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, report()); err != nil {
		t.Fatal(err)
	}
	var d data
	if err := json.Unmarshal([]byte(dataScript.FindStringSubmatch(b.String())[1]), &d); err != nil {
		t.Fatal(err)
	}
	want := []int{2, 0, 1, 1, 1, -1, 2, 2} // succeeded 0-1, failed 2, none 3, running 4-5
	if len(d.Runs) != len(want) {
		t.Fatalf("runs %v, want %v", d.Runs, want)
	}
	for i := range want {
		if d.Runs[i] != want[i] {
			t.Fatalf("runs %v, want %v", d.Runs, want)
		}
	}
	if len(d.Facts) != 1 || d.Facts[0][0].(float64) != 2 || rowsOf(d, 2)["attempts"] != "1, last exit code 42" {
		t.Errorf("facts %v", d.Facts)
	}
	if !strings.Contains(b.String(), "Succeeded: 2") || !strings.Contains(b.String(), "Running: 2") {
		t.Error("the legend does not count the states in words")
	}
}

// pageData reads the data script of a page.
func pageData(t *testing.T, page string) data {
	t.Helper()
	m := dataScript.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data script")
	}
	var d data
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("the data does not parse: %v", err)
	}
	return d
}

// rowsOf is the facts of cell as label: value (nil: the cell has none).
func rowsOf(d data, cell int) map[string]string {
	for _, f := range d.Facts {
		if int(f[0].(float64)) != cell {
			continue
		}
		rows := map[string]string{}
		for k := 2; k+1 < len(f); k += 2 {
			rows[d.Strs[int(f[k].(float64))]] = d.Strs[int(f[k+1].(float64))]
		}
		return rows
	}
	return nil
}

// cellStates expands the runs of d into a state name per cell ("" for none).
func cellStates(d data) []string {
	out := make([]string, 0, d.Cells)
	for k := 0; k < len(d.Runs); k += 2 {
		for range d.Runs[k] {
			name := ""
			if s := d.Runs[k+1]; s >= 0 {
				name = d.States[s]
			}
			out = append(out, name)
		}
	}
	for len(out) < d.Cells {
		out = append(out, "")
	}
	return out
}

func TestLongIndexListsAreCut(t *testing.T) {
	var list []string
	for i := 0; i < 1000; i += 2 {
		list = append(list, strconv.Itoa(i))
	}
	got := cutList(strings.Join(list, ","), 500, "indexes")
	if len(got) > maxIndexesText+60 || !strings.HasSuffix(got, "… (500 indexes in all; the grid shows each)") || strings.Contains(got, ",,") {
		t.Errorf("cut: %q", got)
	}
	if cutList("1,3", 2, "indexes") != "1,3" {
		t.Error("a short list is kept whole")
	}
}
