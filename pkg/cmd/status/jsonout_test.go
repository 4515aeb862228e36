package status

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// TestWriteJSONSameAsWhole: indexes[] written one entry at a time gives the bytes of the
// report encoded whole, with text that looks like the marker, HTML characters, newlines and
// every optional field in the entries.
func TestWriteJSONSameAsWhole(t *testing.T) {
	for _, n := range []int{0, 3, streamIndexesFrom, 2*streamIndexesFrom + 7} {
		r := &indexstatus.IndexedJobStatus{APIVersion: indexstatus.APIVersion, Kind: indexstatus.Kind,
			Notes: []string{"\n  \"indexes\": []", "<a & b>"}, Grid: []indexstatus.Run{{First: 0, Last: 1, Indexes: "0-1"}}}
		for i := range n {
			st := indexstatus.IndexStatus{Index: i, State: indexstatus.StateFailed, Attempts: i % 4, Pods: []string{fmt.Sprintf("p-%d", i)},
				Detail: fmt.Sprintf("exit <%d> & \"quoted\"\nline", i)}
			if i%3 == 0 {
				st.LastExitCode, st.RetriesLeft, st.Pods = ptr.To(int32(i%256)), ptr.To(int32(1)), nil
				st.Rule = &indexstatus.RuleMatch{Index: 0, Action: "FailIndex", On: "exit code 42"}
				st.Cases = &indexstatus.CaseCounts{Pod: "p", Text: "1/2 cases"}
			}
			r.Indexes = append(r.Indexes, st)
		}
		var whole, streamed bytes.Buffer
		if err := output.PrintStructured(&whole, output.FormatJSON, r); err != nil {
			t.Fatal(err)
		}
		if err := writeJSON(&streamed, r); err != nil {
			t.Fatal(err)
		}
		if whole.String() != streamed.String() {
			w, s := whole.String(), streamed.String()
			k := 0
			for k < len(w) && k < len(s) && w[k] == s[k] {
				k++
			}
			t.Fatalf("%d indexes: differ at byte %d:\n%q\n%q", n, k, w[max(0, k-80):min(len(w), k+80)], s[max(0, k-80):min(len(s), k+80)])
		}
		if n > 0 && !strings.Contains(streamed.String(), "\"index\": 1,") && n > 1 {
			t.Fatalf("%d indexes: no index 1 in %s", n, streamed.String()[:200])
		}
	}
}
