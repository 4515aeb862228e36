package simulate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
)

// Report kinds.
const (
	APIVersion     = contract.APIVersion
	KindReport     = contract.SimulationReport
	KindComparison = contract.SimulationComparison
)

// Report is the machine-readable prediction for one Job: the status as the API writes it, so it
// compares directly with a real Job's .status.
type Report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Source is the file the Job came from; Job its name.
	Source string `json:"source,omitempty"`
	Job    string `json:"job"`
	// Outcome: Complete, Failed, Running (pods run forever, nothing else happens) or
	// Unfinished (the horizon was reached).
	Outcome string `json:"outcome"`
	// Duration is the simulated time until the outcome.
	Duration     string            `json:"duration"`
	Status       batchv1.JobStatus `json:"status"`
	PodsPerIndex map[string]int    `json:"podsPerIndex"`
	PodsCreated  int               `json:"podsCreated"`
	Events       []Event           `json:"events"`
	MoreEvents   int               `json:"moreEvents,omitempty"`
	// Indexes groups the indexes that ended the same way (state, pods, failures, exit codes).
	Indexes []IndexGroup `json:"indexes,omitempty"`
	// TimingDependent lists the other outcomes the real timing can give (racing events): empty
	// when every ordering agrees.
	TimingDependent []Alternative `json:"timingDependent,omitempty"`
	// TimingIndependent says why no ordering of events can change the outcome, when the
	// timing variants were not simulated.
	TimingIndependent string `json:"timingIndependent,omitempty"`
	// RestartTiming, when containers restarted in place (restartPolicy OnFailure), says that
	// their restart times are not modelled: the kubelet's crash-loop back-off is not known here.
	RestartTiming string `json:"restartTiming,omitempty"`
	// AdmissionWait, for a Job in a Kueue queue, says that the time it waits for admission is not
	// modelled (AdmissionWait).
	AdmissionWait string `json:"admissionWait,omitempty"`

	result *Result
}

// Result is the main simulation behind the report.
func (r *Report) Result() *Result { return r.result }

// AdmissionWait is what a simulation of a Job in Kueue LocalQueue %s cannot know.
const AdmissionWait = "the Job is in Kueue LocalQueue %q: the simulation starts at its admission; how long it waits for quota, whether Kueue admits fewer pods than parallelism (partial admission), and evictions (preemption) that suspend it and delete its pods are not modelled"

// RestartTiming is what a simulation with containers restarted in place cannot know.
const RestartTiming = "containers restart here at once; a kubelet restarts them after its crash-loop back-off, which grows with each restart and depends on the node's kubelet version and configuration: times after a restart are lower bounds, and a deadline (activeDeadlineSeconds) can pass on a real node where it does not here"

// TimingIndependent returns why the final status of job cannot depend on the order of its
// pods' events, or "": every index retries on its own (backoffLimitPerIndex, restartPolicy
// Never) and nothing Job-wide counts failures or successes across indexes (no backoffLimit
// of its own, no maxFailedIndexes, no FailJob rule, no success policy, no deadline). Then each
// index goes through the same attempts whatever the timing, and syncJob's decisions depend on
// the set of index results only.
func TimingIndependent(job *batchv1.Job) string {
	s := job.Spec
	switch {
	case s.BackoffLimitPerIndex == nil, s.BackoffLimit != nil && *s.BackoffLimit != jobpolicy.UnlimitedBackoffLimit,
		s.MaxFailedIndexes != nil, s.SuccessPolicy != nil, s.ActiveDeadlineSeconds != nil,
		s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever,
		s.PodFailurePolicy != nil && slices.ContainsFunc(s.PodFailurePolicy.Rules, func(r batchv1.PodFailurePolicyRule) bool {
			return r.Action == batchv1.PodFailurePolicyActionFailJob
		}):
		return ""
	}
	return "every index retries on its own (backoffLimitPerIndex) and no Job-wide limit, FailJob rule, success policy or deadline compares indexes: the order of events cannot change the result"
}

// Alternative is the outcome under another ordering of racing events.
type Alternative struct {
	Timing  Timing  `json:"timing"`
	Meaning string  `json:"meaning"`
	Outcome string  `json:"outcome"`
	Summary Summary `json:"summary"`
	// Differs lists the fields that differ from the main prediction.
	Differs []string `json:"differs"`
}

// Comparison is several Jobs simulated on the same outcomes.
type Comparison struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Reports    []Report `json:"reports"`
}

// Outcome names how a simulation ended.
func (r *Result) Outcome() string {
	switch {
	case r.Finished: // the simulation ends there when one of them is True
		return string(jobpolicy.FinishingCondition(r.Job).Type)
	case r.Stuck:
		return "Running"
	default:
		return "Unfinished"
	}
}

// Predict simulates job with the outcomes, then again with racing events ordered both ways
// (failures first, successes first, each moved by Skew), and reports the outcomes that differ.
func Predict(job *batchv1.Job, out *Outcomes, opts Options) (*Report, error) {
	opts.Timing = Together
	res, err := Simulate(job, out, opts)
	if err != nil {
		return nil, err
	}
	rep := &Report{APIVersion: APIVersion, Kind: KindReport, Job: job.Name, Outcome: res.Outcome(),
		Duration: res.End.String(), Status: res.Job.Status, PodsPerIndex: res.PodsPerIndex(), PodsCreated: res.PodsCreated,
		Events: res.Events, MoreEvents: res.MoreEvents, Indexes: Group(res.Indexes), result: res}
	if slices.ContainsFunc(rep.Indexes, func(g IndexGroup) bool { return g.Restarts > 0 }) {
		rep.RestartTiming = RestartTiming
	}
	if q := job.Labels[kueue.QueueLabel]; q != "" {
		rep.AdmissionWait = fmt.Sprintf(AdmissionWait, q)
	}
	meaning := map[Timing]string{
		FailuresFirst:  fmt.Sprintf("failing pods end %s earlier and succeeding pods %s later than given", Skew, Skew),
		SuccessesFirst: fmt.Sprintf("succeeding pods end %s earlier and failing pods %s later than given", Skew, Skew),
	}
	if reason := TimingIndependent(res.Job); reason != "" {
		rep.TimingIndependent = reason
		return rep, nil
	}
	opts.KeepPods = false
	base := Summarize(&res.Job.Status, rep.PodsPerIndex)
	for _, t := range []Timing{FailuresFirst, SuccessesFirst} {
		opts.Timing = t
		alt, err := Simulate(job, out, opts)
		if err != nil {
			return nil, err
		}
		sum := Summarize(&alt.Job.Status, alt.PodsPerIndex())
		if d := base.Diff(sum); len(d) > 0 || alt.Outcome() != res.Outcome() {
			rep.TimingDependent = append(rep.TimingDependent, Alternative{Timing: t, Meaning: meaning[t], Outcome: alt.Outcome(), Summary: sum, Differs: d})
		}
	}
	return rep, nil
}

// IndexGroup is a set of indexes that ended the same way.
type IndexGroup struct {
	// Indexes in the API's interval format ("0-3,7").
	Indexes indexes.Set `json:"indexes"`
	IndexResult
}

// Group folds indexes with the same result into groups, in order of their first index (ixs[i]
// is index i's).
func Group(ixs []IndexResult) []IndexGroup {
	type key struct {
		state                       string
		pods, remaining             int
		failures, ignored, restarts int32
		codes                       string
	}
	var out []IndexGroup
	var sets []indexes.Builder
	at := map[key]int{}
	for i, r := range ixs {
		k := key{string(r.State), r.Pods, r.Remaining, r.Failures, r.Ignored, r.Restarts, fmt.Sprint(r.ExitCodes)}
		g, ok := at[k]
		if !ok {
			g = len(out)
			at[k] = g
			out = append(out, IndexGroup{IndexResult: r})
			sets = append(sets, indexes.Builder{})
		}
		sets[g].Add(i)
	}
	for g := range out {
		out[g].Indexes = sets[g].Set()
	}
	return out
}

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
		PodsPerIndex: maps.Clone(podsPerIndex)}
	for _, c := range st.Conditions {
		if c.Status == corev1.ConditionTrue {
			s.Conditions = append(s.Conditions, string(c.Type)+"/"+c.Reason)
		}
	}
	maps.DeleteFunc(s.PodsPerIndex, func(_ string, v int) bool { return v <= 0 })
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
	parts := make([]string, 0, len(byCount))
	for _, c := range slices.Sorted(maps.Keys(byCount)) {
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

// TimelineLine is one line of the grouped timeline: the events of one instant, type and cause.
type TimelineLine struct {
	At      time.Duration
	Message string
	// Events is how many events the line stands for.
	Events int
}

// groupSetWidth is how many bytes of a group's index set a line shows.
const groupSetWidth = 40

// GroupEvents makes the timeline's lines from events (in time order): the events about one
// index that happen at the same instant with the same type and cause (Event.Cause) become one
// line naming their indexes as ranges ("indexes 11-20 (10) failed: podFailurePolicy rule 0
// (FailIndex)"), at the place of the first of them; every other event is a line of its own.
func GroupEvents(evs []Event) []TimelineLine {
	type key struct {
		at         time.Duration
		typ, cause string
	}
	var out []TimelineLine
	var sets []indexes.Builder // each line's indexes
	var causes []string        // each line's first Cause
	lineOf := map[key]int{}
	for _, e := range evs {
		k, grouped := key{e.At, e.Type, e.Cause}, e.Cause != "" && e.Index >= 0
		l, ok := lineOf[k]
		if !ok || !grouped { // a new line; every event that is not grouped has its own
			l = len(out)
			out = append(out, TimelineLine{At: e.At, Message: e.Message})
			sets, causes = append(sets, indexes.Builder{}), append(causes, e.Cause)
			if grouped {
				lineOf[k] = l
			}
		}
		out[l].Events++
		sets[l].Add(e.Index)
	}
	for l := range out {
		if out[l].Events > 1 {
			set := sets[l].Set()
			r := strings.NewReplacer("{indexes}", fmt.Sprintf("indexes %s (%d)", set.Truncated(groupSetWidth), set.Len()), "{pod}", ": pods")
			out[l].Message = r.Replace(causes[l])
		}
	}
	return out
}
