package create

import (
	"fmt"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/simulate"
)

// create's default maxFailedIndexes, lint's advice when it is unset and the fix simulate's
// prepare-db hint writes are one rule (jobpolicy.SuggestedMaxFailedIndexes). Before, create set
// half of the shards, lint advised "5-10%" and the hint wrote a tenth.
func TestMaxFailedIndexesOneRule(t *testing.T) {
	if !strings.Contains(scaffold.DefaultMaxFailedIndexes.String(), fmt.Sprint(jobpolicy.MaxFailedIndexesPercent)) {
		t.Errorf("create's default %s is not %d%%", scaffold.DefaultMaxFailedIndexes, jobpolicy.MaxFailedIndexesPercent)
	}
	rule, _ := lint.LookupRule(lint.RuleMaxFailedUnset)
	if !strings.Contains(rule.Fix, "half of completions") || !strings.Contains(rule.Fix, "kubectl indexed create") {
		t.Errorf("lint's fix: %q", rule.Fix)
	}
	for _, n := range []int{2, 3, 10, 15, 100} {
		cases := make([]string, n)
		for i := range cases {
			cases[i] = fmt.Sprintf("case-%d", i)
		}
		m, _, err := shards.Split(cases, shards.SplitOptions{Name: "eval", Revision: "1", Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		objs, err := scaffold.Build(scaffold.Options{JobName: "eval", Namespace: "ns", Manifest: m, Image: "img:1", Command: []string{"/bin/worker"}})
		if err != nil {
			t.Fatal(err)
		}
		want := *objs.Job.Spec.MaxFailedIndexes
		if want != jobpolicy.SuggestedMaxFailedIndexes(n) {
			t.Errorf("%d shards: create sets %d, the rule says %d", n, want, jobpolicy.SuggestedMaxFailedIndexes(n))
		}

		unset := objs.Job.DeepCopy()
		unset.Spec.MaxFailedIndexes = nil
		var msg string
		for _, f := range lint.CheckJob(unset, lint.Options{}) {
			if f.Rule == lint.RuleMaxFailedUnset {
				msg = f.Message
			}
		}
		if !strings.Contains(msg, fmt.Sprintf("is %d)", want)) {
			t.Errorf("%d shards: lint says %q, create sets %d", n, msg, want)
		}

		prepareDB := objs.Job.DeepCopy()
		prepareDB.Spec.BackoffLimitPerIndex, prepareDB.Spec.MaxFailedIndexes, prepareDB.Spec.BackoffLimit = nil, nil, ptr.To[int32](2)
		prepareDB.Spec.PodFailurePolicy = nil
		prepareDB.Spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		h, ok := simulate.PrepareDBHint("job.yaml", prepareDB, false)
		if v := fmt.Sprintf(`"maxFailedIndexes":%d`, want); !ok || !strings.Contains(h.Fix, v+",") && !strings.Contains(h.Fix, v+"}") {
			t.Errorf("%d shards: the hint's fix %q (%v), create sets %d", n, h.Fix, ok, want)
		}
	}
}
