package podlogs

import (
	"fmt"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// Group is the failed indexes that share one cause, and the attempt whose log stands for them.
type Group struct {
	// Cause is what the indexes share, in words: "failed: exit code 1 in container worker".
	Cause   string
	Indexes indexes.Set
	// Sample is the first of its targets whose pod is still there (else the first of them).
	Sample Target
}

// GroupFailed groups the targets of a Failed selection by cause, from report's rows: the
// index's state, its last exit code and reason, the container, and the podFailurePolicy rule
// that matched. Groups are in the order of their first index.
func GroupFailed(targets []Target, report *indexstatus.IndexedJobStatus) []Group {
	rows := map[int]*indexstatus.IndexStatus{}
	for i := range report.Indexes {
		rows[report.Indexes[i].Index] = &report.Indexes[i]
	}
	var groups []Group
	var sets []indexes.Builder
	byCause := map[string]int{}
	for _, t := range targets {
		cause := causeOf(rows[t.Index])
		k, ok := byCause[cause]
		if !ok {
			k = len(groups)
			byCause[cause] = k
			groups = append(groups, Group{Cause: cause, Sample: t})
			sets = append(sets, indexes.Builder{})
		}
		g := &groups[k]
		sets[k].Add(t.Index)
		if g.Sample.Gone && !t.Gone {
			g.Sample = t
		}
	}
	for k := range groups {
		groups[k].Indexes = sets[k].Set()
	}
	return groups
}

// causeOf says what a failed index's row says about why: its state, last exit code (and
// reason), container and podFailurePolicy rule.
func causeOf(st *indexstatus.IndexStatus) string {
	if st == nil {
		return "failed"
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(string(st.State)))
	if st.State == indexstatus.StateUnfinished {
		b.WriteString(", its last attempt failed")
	}
	if st.LastExitCode != nil {
		fmt.Fprintf(&b, ": exit code %d", *st.LastExitCode)
		if st.LastReason != "" && st.LastReason != "Error" {
			fmt.Fprintf(&b, " (%s)", st.LastReason)
		}
	} else if st.LastReason != "" {
		fmt.Fprintf(&b, ": %s", st.LastReason)
	}
	if st.LastContainer != "" {
		fmt.Fprintf(&b, " in container %s", st.LastContainer)
	}
	if st.Rule != nil {
		fmt.Fprintf(&b, ", podFailurePolicy rule %d (%s)", st.Rule.Index, st.Rule.Action)
	}
	return b.String()
}
