package simulate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// Summary is the part of a final status that a simulation predicts and a real Job is compared
// on: the index sets, the counters, the True conditions (type and reason, in order) and the pods
// each index still has.
type Summary struct {
	CompletedIndexes string         `json:"completedIndexes"`
	FailedIndexes    string         `json:"failedIndexes"`
	Succeeded        int32          `json:"succeeded"`
	Failed           int32          `json:"failed"`
	Conditions       []string       `json:"conditions"`
	PodsPerIndex     map[string]int `json:"podsPerIndex"`
}

// Summarize reduces a JobStatus and the pods per index to a Summary.
func Summarize(st *batchv1.JobStatus, podsPerIndex map[string]int) Summary {
	s := Summary{CompletedIndexes: st.CompletedIndexes, FailedIndexes: ptr.Deref(st.FailedIndexes, ""), Succeeded: st.Succeeded, Failed: st.Failed,
		PodsPerIndex: map[string]int{}}
	for _, c := range st.Conditions {
		if c.Status == corev1.ConditionTrue {
			s.Conditions = append(s.Conditions, string(c.Type)+"/"+c.Reason)
		}
	}
	for k, v := range podsPerIndex {
		if v > 0 {
			s.PodsPerIndex[k] = v
		}
	}
	return s
}

// Diff lists the fields where o differs from s ("field: s → o").
func (s Summary) Diff(o Summary) []string {
	var out []string
	add := func(field string, a, b any) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			out = append(out, fmt.Sprintf("%s: %v → %v", field, a, b))
		}
	}
	add("completedIndexes", cmp.Or(s.CompletedIndexes, `""`), cmp.Or(o.CompletedIndexes, `""`))
	add("failedIndexes", cmp.Or(s.FailedIndexes, `""`), cmp.Or(o.FailedIndexes, `""`))
	add("succeeded", s.Succeeded, o.Succeeded)
	add("failed", s.Failed, o.Failed)
	add("conditions", strings.Join(s.Conditions, ","), strings.Join(o.Conditions, ","))
	add("podsPerIndex", PodsText(s.PodsPerIndex), PodsText(o.PodsPerIndex))
	return out
}

// PodsText renders pods per index grouped by count, "0-2,4:1 3:2" (by count, then by first
// index), or "none".
func PodsText(m map[string]int) string { return PodsTextWidth(m, 0) }

// PodsTextWidth is PodsText with each group's indexes cut at about width bytes ("0,100,200
// (and 997 more):2"); 0 keeps them whole.
func PodsTextWidth(m map[string]int, width int) string {
	byCount := map[int][]int{}
	for k, v := range m {
		i, err := strconv.Atoi(k)
		if err != nil || v <= 0 {
			continue
		}
		byCount[v] = append(byCount[v], i)
	}
	counts := slices.Collect(maps.Keys(byCount))
	slices.Sort(counts)
	parts := make([]string, 0, len(counts))
	for _, c := range counts {
		set := indexes.Of(byCount[c]...)
		words := set.String()
		if width > 0 {
			words = set.Truncated(width)
		}
		parts = append(parts, fmt.Sprintf("%s:%d", words, c))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}
