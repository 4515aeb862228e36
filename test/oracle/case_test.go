package oracle

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/simulate"
	"github.com/kubectl-indexed/kubectl-indexed/test/oracle/job"
)

// Try is one attempt of an index in a Case (JSON: {"code":1,"cond":"DisruptionTarget","d":"3s"}).
type Try struct {
	Code int32  `json:"code,omitempty"`
	Cond string `json:"cond,omitempty"`
	D    string `json:"d"`
}

// Case is a Job and how each attempt of each index ends: what both the oracle and simulate
// play. Every disagreement ever found is kept as a Case in testdata/regressions.json.
type Case struct {
	Name string          `json:"name"`
	Why  string          `json:"why,omitempty"`
	Spec batchv1.JobSpec `json:"spec"`
	// Tries per index (the last repeats); an index without an entry runs 1s and exits 0.
	Tries map[int][]Try `json:"tries"`
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *Case) job() *batchv1.Job {
	spec := *c.Spec.DeepCopy()
	if spec.Template.Spec.RestartPolicy == "" {
		spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	}
	if len(spec.Template.Spec.Containers) == 0 {
		spec.Template.Spec.Containers = []corev1.Container{{Name: "main", Image: "worker"}}
	}
	mode := batchv1.IndexedCompletion
	spec.CompletionMode = &mode
	return &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "oracle", Namespace: "default"}, Spec: spec}
}

func (c *Case) try(index, attempt int) Try {
	ts, ok := c.Tries[index]
	if !ok || len(ts) == 0 {
		return Try{D: "1s"}
	}
	return ts[min(attempt, len(ts)-1)]
}

func mustDur(s string) time.Duration {
	if s == "never" {
		return -1
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return d
}

func (c *Case) plan() job.Plan {
	return func(index, attempt int) job.Attempt {
		t := c.try(index, attempt)
		d := mustDur(t.D)
		return job.Attempt{Code: t.Code, Condition: t.Cond, Duration: max(d, 0), Never: d < 0}
	}
}

// outcomes are the simulate flags of the case (--outcome, --duration, --condition).
func (c *Case) outcomes() (*simulate.Outcomes, error) {
	o := simulate.NewOutcomes()
	for _, i := range sortedKeys(c.Tries) {
		ts := c.Tries[i]
		var codes, ds, conds []string
		anyCond := false
		for _, t := range ts {
			codes = append(codes, strconv.Itoa(int(t.Code)))
			ds = append(ds, t.D)
			conds = append(conds, t.Cond)
			anyCond = anyCond || t.Cond != ""
		}
		if err := o.ParseOutcome(fmt.Sprintf("%d=%s", i, strings.Join(codes, ","))); err != nil {
			return nil, err
		}
		if err := o.ParseDuration(fmt.Sprintf("%d=%s", i, strings.Join(ds, ","))); err != nil {
			return nil, err
		}
		if anyCond {
			if err := o.ParseCondition(fmt.Sprintf("%d=%s", i, strings.Join(conds, ","))); err != nil {
				return nil, err
			}
		}
	}
	return o, nil
}

func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// Verdict is what one side says about a played Job: the comparable part of (a).
type Verdict struct {
	Finished         bool
	Conditions       []string // TYPE/REASON, sorted
	CompletedIndexes string
	FailedIndexes    string // "<nil>" when unset
	Succeeded        int32
	Failed           int32
	End              time.Duration
}

func (v Verdict) String() string {
	b, _ := json.Marshal(struct {
		Finished   bool
		Conditions []string
		Completed  string
		FailedIdx  string
		Succeeded  int32
		Failed     int32
		End        string
	}{v.Finished, v.Conditions, v.CompletedIndexes, v.FailedIndexes, v.Succeeded, v.Failed, v.End.String()})
	return string(b)
}

// diff lists how got (simulate) differs from want (the oracle); End may differ by at most 1s.
func (v Verdict) diff(want Verdict) []string {
	var out []string
	if v.Finished != want.Finished {
		out = append(out, fmt.Sprintf("finished %v, controller %v", v.Finished, want.Finished))
	}
	if !slices.Equal(v.Conditions, want.Conditions) {
		out = append(out, fmt.Sprintf("conditions %v, controller %v", v.Conditions, want.Conditions))
	}
	if v.CompletedIndexes != want.CompletedIndexes {
		out = append(out, fmt.Sprintf("completedIndexes %q, controller %q", v.CompletedIndexes, want.CompletedIndexes))
	}
	if v.FailedIndexes != want.FailedIndexes {
		out = append(out, fmt.Sprintf("failedIndexes %q, controller %q", v.FailedIndexes, want.FailedIndexes))
	}
	if v.Succeeded != want.Succeeded || v.Failed != want.Failed {
		out = append(out, fmt.Sprintf("succeeded/failed %d/%d, controller %d/%d", v.Succeeded, v.Failed, want.Succeeded, want.Failed))
	}
	if want.Finished && v.Finished {
		if d := v.End - want.End; d > time.Second || d < -time.Second {
			out = append(out, fmt.Sprintf("ends at %s, controller at %s", v.End, want.End))
		}
	}
	return out
}

func conditionsOf(cs []batchv1.JobCondition) []string {
	var out []string
	for _, c := range cs {
		if c.Status == corev1.ConditionTrue {
			out = append(out, string(c.Type)+"/"+c.Reason)
		}
	}
	sort.Strings(out)
	return out
}

func failedIndexesOf(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// Horizon of both sides: a case is built to end well before.
const horizon = 2 * time.Hour

// controller plays the case on the Job controller's own code.
func (c *Case) controller() (Verdict, error) {
	b, err := job.New(simulate.Defaulted(c.job()), c.plan(), t0, job.Options{Horizon: horizon})
	if err != nil {
		return Verdict{}, err
	}
	defer b.Close()
	if _, err := b.Play(); err != nil {
		return Verdict{}, err
	}
	j := b.Job()
	v := Verdict{Finished: finished(j), Conditions: conditionsOf(j.Status.Conditions), CompletedIndexes: j.Status.CompletedIndexes,
		FailedIndexes: failedIndexesOf(j.Status.FailedIndexes), Succeeded: j.Status.Succeeded, Failed: j.Status.Failed}
	if v.Finished {
		v.End = b.Clock().Now().Sub(t0)
	}
	return v, nil
}

// simulated plays the case with simulate.
func (c *Case) simulated() (Verdict, error) {
	out, err := c.outcomes()
	if err != nil {
		return Verdict{}, err
	}
	r, err := simulate.Simulate(c.job(), out, simulate.Options{Start: t0, Horizon: horizon})
	if err != nil {
		return Verdict{}, err
	}
	j := r.Job
	v := Verdict{Finished: r.Finished, Conditions: conditionsOf(j.Status.Conditions), CompletedIndexes: j.Status.CompletedIndexes,
		FailedIndexes: failedIndexesOf(j.Status.FailedIndexes), Succeeded: j.Status.Succeeded, Failed: j.Status.Failed}
	if v.Finished {
		v.End = r.End
	}
	return v, nil
}

func finished(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func p32(v int32) *int32 { return &v }
func p64(v int64) *int64 { return &v }

// random builds a random Indexed Job the API server accepts, and its attempts.
func random(r *rand.Rand, name string) *Case {
	c := &Case{Name: name, Tries: map[int][]Try{}}
	n := int32(1 + r.IntN(6))
	c.Spec.Completions = p32(n)
	c.Spec.Parallelism = p32(1 + r.Int32N(n))
	perIndex := r.IntN(2) == 0
	if perIndex {
		c.Spec.BackoffLimitPerIndex = p32(r.Int32N(3))
		if r.IntN(2) == 0 {
			c.Spec.MaxFailedIndexes = p32(r.Int32N(n + 1))
		}
		if r.IntN(4) == 0 {
			c.Spec.BackoffLimit = p32(r.Int32N(6))
		}
	} else {
		c.Spec.BackoffLimit = p32(r.Int32N(4))
	}
	if r.IntN(5) < 2 {
		actions := []batchv1.PodFailurePolicyAction{batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionFailJob}
		if perIndex {
			actions = append(actions, batchv1.PodFailurePolicyActionFailIndex)
		}
		pfp := &batchv1.PodFailurePolicy{}
		for k := 0; k < 1+r.IntN(3); k++ {
			rule := batchv1.PodFailurePolicyRule{Action: actions[r.IntN(len(actions))]}
			if r.IntN(3) == 0 {
				rule.OnPodConditions = []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}
			} else {
				op := batchv1.PodFailurePolicyOnExitCodesOpIn
				vals := []int32{[]int32{1, 2, 42}[r.IntN(3)]}
				if r.IntN(4) == 0 {
					op = batchv1.PodFailurePolicyOnExitCodesOpNotIn
					vals = []int32{0, 1}
				}
				rule.OnExitCodes = &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: vals}
			}
			pfp.Rules = append(pfp.Rules, rule)
		}
		c.Spec.PodFailurePolicy = pfp
	} else if r.IntN(3) == 0 {
		p := []batchv1.PodReplacementPolicy{batchv1.Failed, batchv1.TerminatingOrFailed}[r.IntN(2)]
		c.Spec.PodReplacementPolicy = &p
	}
	if r.IntN(10) < 3 {
		rule := batchv1.SuccessPolicyRule{}
		if r.IntN(2) == 0 {
			first := r.Int32N(n)
			last := first + r.Int32N(n-first)
			s := strconv.Itoa(int(first))
			if last > first {
				s += "-" + strconv.Itoa(int(last))
			}
			rule.SucceededIndexes = &s
			if r.IntN(2) == 0 {
				rule.SucceededCount = p32(1 + r.Int32N(last-first+1))
			}
		} else {
			rule.SucceededCount = p32(1 + r.Int32N(n))
		}
		c.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{rule}}
	}
	if r.IntN(5) == 0 {
		c.Spec.ActiveDeadlineSeconds = p64(int64(3 + r.IntN(40)))
	}
	durs := []string{"500ms", "1s", "2s", "3300ms", "5s", "10s", "10s", "20s"}
	codes := []int32{0, 0, 0, 1, 2, 42}
	for i := 0; i < int(n); i++ {
		if r.IntN(4) == 0 {
			continue
		}
		var ts []Try
		for k := 0; k < 1+r.IntN(3); k++ {
			t := Try{Code: codes[r.IntN(len(codes))], D: durs[r.IntN(len(durs))]}
			if r.IntN(8) == 0 {
				t.Cond, t.Code = string(corev1.DisruptionTarget), 0
			}
			ts = append(ts, t)
		}
		c.Tries[i] = ts
	}
	return c
}
