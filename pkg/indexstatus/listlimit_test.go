package indexstatus

import (
	"bytes"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestListLimitSameText: a report made with ListLimit (what the text view keeps) prints the
// same text as one listing every index that needs attention, including the "and N more"
// count and the CASES column when only an index past the limit has case counts; it holds
// only ListLimit rows.
func TestListLimitSameText(t *testing.T) {
	const n = 3 * TextViewRows
	job := newJob("j", n, n).status("", nil, 0, n, 0).get()
	var pods []corev1.Pod
	for i := range n {
		p := newPod(job, i, 0, 0).exited(1, 5*time.Second).get()
		if i == n-1 {
			p = withMessage(p, summaryMessage(t, "s", 150, 0))
		}
		pods = append(pods, p)
	}
	print := func(limit int) (string, *IndexedJobStatus) {
		a, err := NewAccumulator(job)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pods {
			a.Add(&pods[i])
		}
		r := a.Report(Options{Clock: at(time.Minute), ListLimit: limit})
		a.AddCaseCounts(r)
		var b bytes.Buffer
		if err := PrintText(&b, r, false); err != nil {
			t.Fatal(err)
		}
		return b.String(), r
	}
	all, rAll := print(0)
	limited, rLimited := print(TextViewRows)
	if len(rAll.Indexes) != n || len(rLimited.Indexes) != TextViewRows {
		t.Fatalf("listed %d and %d indexes, want %d and %d", len(rAll.Indexes), len(rLimited.Indexes), n, TextViewRows)
	}
	if all != limited {
		t.Errorf("text differs:\n%s\n---\n%s", all, limited)
	}
	for _, want := range []string{"Unfinished  150", "(and 149 alike)"} {
		if !strings.Contains(limited, want) {
			t.Errorf("text lacks %q:\n%s", want, limited)
		}
	}
}
