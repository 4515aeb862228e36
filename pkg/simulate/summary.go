package simulate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
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
	s := Summary{CompletedIndexes: st.CompletedIndexes, Succeeded: st.Succeeded, Failed: st.Failed, PodsPerIndex: map[string]int{}}
	if st.FailedIndexes != nil {
		s.FailedIndexes = *st.FailedIndexes
	}
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
	add("completedIndexes", quoteEmpty(s.CompletedIndexes), quoteEmpty(o.CompletedIndexes))
	add("failedIndexes", quoteEmpty(s.FailedIndexes), quoteEmpty(o.FailedIndexes))
	add("succeeded", s.Succeeded, o.Succeeded)
	add("failed", s.Failed, o.Failed)
	add("conditions", strings.Join(s.Conditions, ","), strings.Join(o.Conditions, ","))
	add("podsPerIndex", PodsText(s.PodsPerIndex), PodsText(o.PodsPerIndex))
	return out
}

func quoteEmpty(v string) string {
	if v == "" {
		return `""`
	}
	return v
}

// PodsText renders pods per index as "0:1 1:2".
func PodsText(m map[string]int) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s:%d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}
