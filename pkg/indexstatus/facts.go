package indexstatus

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// The facts of a report (the package comment says where the decisions and words are), computed
// without side effects: jobpolicy's model of the controller's next sync, each index's state and
// the pods that explain it, and the Job-wide sets the sentences name. The files that word them
// decide no state and re-derive no controller rule.

// indexFacts is what is known about one completion index (a report holds one per index:
// 120 bytes, its fields ordered so that none is padded).
type indexFacts struct {
	index int
	pol   *jobpolicy.Index // into the report's jobpolicy.Facts: a copy per completion would double it
	state State
	// current is the latest active pod, term a terminating one, lastFailed the latest failed
	// pod that is not terminating, succeeded a succeeded pod, lastFinished the latest terminal pod.
	// The index's pods are the report's byIndex[index].
	current, term, lastFailed, succeeded, lastFinished *podSummary
	activeCount                                        int
	attempts                                           int
	// remaining is what is left of the next attempt's backoff (pol.Backoff).
	remaining time.Duration
	// count is the number of the index's pods.
	count int32
	// unreadCounts are, under backoffLimitPerIndex, the failure and ignored-failure counts the
	// unread succeeded pod carries.
	unreadCounts [2]int32
	// waitsSlot: retrying, but left out of the next pod creation (slots)
	waitsSlot bool
	// unread: the index succeeded (status.completedIndexes) and its succeeded pod was not
	// read (Accumulator.LeaveOutSucceeded): count and attempts include it, its own fields
	// (name, exit, receipt) are not known.
	unread bool
	// retrying: the latest attempt failed and a replacement is due (Retrying, or Terminating
	// under TerminatingOrFailed with a counted failure).
	retrying bool
}

type reportBuilder struct {
	acc  *Accumulator
	job  *batchv1.Job
	opts Options
	now  time.Time
	r    *IndexedJobStatus

	// pol is jobpolicy's model of the controller's next sync.
	pol         *jobpolicy.Facts
	completions int
	perIndex    bool
	limit       int32 // backoffLimitPerIndex
	// completed and failed are status.completedIndexes and status.failedIndexes as written.
	completed indexes.Set
	failed    indexes.Set
	byIndex   [][]*podSummary // by index below completions (jobpolicy.GroupByIndex)
	phase     Phase
	cond      *batchv1.JobCondition

	facts []indexFacts

	// Gathered from the facts.
	failedIx      indexes.Builder // Failed indexes
	unfinishedIx  indexes.Builder // Unfinished indexes
	failedGone    indexes.Builder // Failed indexes without pods
	noPodLeft     indexes.Builder // Unfinished indexes without pods
	ownFailure    indexes.Builder // Unfinished indexes whose last attempt failed on its own
	terminatingIx indexes.Builder
	notRecorded   indexes.Builder // succeeded pod, index not in completedIndexes yet
	forgotten     indexes.Builder // finished pods the controller no longer counts: the index runs again
	// forgottenFailed: one of them is a failed pod (its index succeeded with none)
	forgottenFailed bool
	duplicates      indexes.Builder // more than one active pod
	retrying        []int           // indexes whose next attempt waits or is due
	lastAttempt     []int           // running indexes on their last attempt under backoffLimitPerIndex
	notStarted      int             // Pending indexes without a pod
	unreadIx        indexes.Builder // Succeeded indexes whose succeeded pod was not read
	// The next manageJob's pod creation (slots): free is how many pods it may create,
	// considered the pending indexes it looks at for them, lowest first; a retrying index
	// outside waits for a slot, whatever its backoff.
	free       int
	considered indexes.Set

	// Job-wide pod facts.
	ownFailedPods int // failed pods that were not deleted (failed on their own)
	countedFailed int // failed pods whose failure counts (not Ignore)
	// beyond counts the pods with an index at or above completions, by state (the controller
	// deletes the active ones; a succeeded one's index was dropped from completedIndexes; a
	// failed one is still counted in status.failed).
	beyond PodCounts
}

// Report makes the report from the Job and the pods added so far.
func (a *Accumulator) Report(opts Options) *IndexedJobStatus {
	b := &reportBuilder{acc: a, job: a.job, opts: opts, now: opts.now()}
	return b.build()
}

func (b *reportBuilder) build() *IndexedJobStatus {
	job := b.job
	b.completions = int(*job.Spec.Completions)
	b.perIndex = job.Spec.BackoffLimitPerIndex != nil
	b.limit = ptr.Deref(job.Spec.BackoffLimitPerIndex, 0)
	r := &IndexedJobStatus{
		APIVersion:  APIVersion,
		Kind:        Kind,
		Job:         contract.JobRef{Name: job.Name, Namespace: job.Namespace, UID: string(job.UID)},
		ObservedAt:  b.now.UTC().Truncate(time.Second),
		Completions: *job.Spec.Completions,
		Parallelism: ptr.Deref(job.Spec.Parallelism, 1),
		Policy:      policyOf(job),
		Counters:    countersOf(job),
		Indexes:     []IndexStatus{},
		Queue:       b.opts.Queue,
		Grid:        []Run{},
	}
	b.r = r
	b.readSets()

	// Facts.
	pods := make([]*jobpolicy.Pod, 0, len(b.acc.pods))
	for k := range b.acc.pods {
		pods = append(pods, &b.acc.pods[k].Pod)
	}
	// In list order (index, attempt, creation, name), so that what jobpolicy lists (forgotten
	// pods) comes out in that order, not in the map's.
	slices.SortFunc(pods, func(p, q *jobpolicy.Pod) int {
		return cmp.Or(cmp.Compare(p.Index, q.Index), jobpolicy.ListOrder(p, q))
	})
	b.pol = jobpolicy.EvaluatePods(job, pods, b.now)
	b.groupPods()
	b.phase, b.cond = DecidePhase(job)
	b.facts = make([]indexFacts, b.completions)
	for i := range b.facts {
		b.facts[i] = b.indexFacts(i)
	}
	b.gather()
	b.slots()
	r.unread = b.unreadIx.Set()

	// Words.
	r.Phase = b.phase
	if b.cond != nil {
		r.Reason, r.Message = b.cond.Reason, b.cond.Message
	}
	if r.Phase == PhaseComplete && r.Reason == "" {
		// Clusters before the success-policy work left the reason of Complete empty.
		if c := jobpolicy.ConditionTrue(job, batchv1.JobSuccessCriteriaMet); c != nil {
			r.Reason, r.Message = c.Reason, c.Message
		}
	}
	b.walkIndexes()
	if flaky, words := b.flaky(); !flaky.IsEmpty() {
		r.Flaky, r.flakyWords = flaky.String(), words
	}
	r.failedByPolicy, r.policyRules = b.failedByPolicy()
	r.ExplanationEntry = b.explainEntry()
	r.Explanation = r.ExplanationEntry.Text
	r.WaitingFor = b.waitingFor()
	r.Completeness = b.completeness()
	r.NextEntries = b.next()
	r.Next = texts(r.NextEntries)
	r.UnknownEntries = b.unknown()
	r.Unknown = texts(r.UnknownEntries)
	r.Notes = slices.Concat(b.notes(), r.Notes, b.opts.Notes)
	if len(b.opts.ShardIDs) > 0 {
		r.Shards = &ShardInfo{ConfigMap: b.opts.ShardsConfigMap, Count: len(b.opts.ShardIDs)}
	}
	r.Retries = b.opts.Retries
	return r
}

func texts(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Text)
	}
	return out
}

// groupPods sorts the pod summaries by index and, within an index, by attempt then creation,
// and counts the Job-wide pod facts.
func (b *reportBuilder) groupPods() {
	all := slices.Collect(maps.Values(b.acc.pods))
	b.byIndex = jobpolicy.GroupByIndex(b.completions, all, func(p *podSummary) int { return p.Index })
	for _, p := range b.acc.pods {
		if p.Failed && !p.Deleting {
			b.ownFailedPods++
		}
		if p.CountFailed() {
			b.countedFailed++
		}
		b.r.Pods.count(p)
		if p.Index >= b.completions {
			b.beyond.count(p)
		}
	}
	b.r.Pods.Ignored = len(b.acc.ignored)
	for _, pods := range b.byIndex {
		slices.SortFunc(pods, comparePods)
	}
}

// count counts p as seen, and by its state.
func (c *PodCounts) count(p *podSummary) {
	c.Seen++
	switch {
	case p.Active():
		c.Active++
	case p.Terminating():
		c.Terminating++
	case p.Phase == corev1.PodSucceeded:
		c.Succeeded++
	case p.Phase == corev1.PodFailed:
		c.Failed++
	}
}

// indexFacts computes one index's facts from jobpolicy's decision and the index's pods.
func (b *reportBuilder) indexFacts(i int) indexFacts {
	f := indexFacts{index: i, pol: &b.pol.Indexes[i]}
	pods := b.byIndex[i]
	f.count = int32(len(pods))
	// The index's pods in list order (groupPods).
	for _, p := range pods {
		switch {
		case p.Active():
			f.activeCount++
			f.current = p // the latest attempt wins
		case p.Terminating():
			f.term = p
		}
		if p.Failed && !p.Terminating() && (f.lastFailed == nil || later(p, f.lastFailed)) {
			f.lastFailed = p
		}
		if p.Phase == corev1.PodSucceeded {
			f.succeeded = p
		}
		if (p.Phase == corev1.PodSucceeded || p.Phase == corev1.PodFailed) && (f.lastFinished == nil || later(p, f.lastFinished)) {
			f.lastFinished = p
		}
	}
	if f.count > 0 {
		f.attempts = jobpolicy.AttemptNumber(b.perIndex, &pods[len(pods)-1].Pod, int(f.count)-1)
	}
	if b.acc.succeededNotRead && f.succeeded == nil && f.pol.State == jobpolicy.IndexSucceeded && b.completed.Has(i) {
		// The succeeded pod that was not read is the index's latest attempt. Its failure-count
		// annotations are what the controller wrote from the index's last failed pod, that is
		// jobpolicy's count over the pods read (the latest one's annotations plus its own
		// failure); SucceededPodsNeeded makes sure no counted failed pod is gone.
		f.unread = true
		f.count++
		f.lastFinished = nil
		f.attempts = int(f.count)
		if b.perIndex {
			// The succeeded pod carries the counts of the index's latest failed pod plus that
			// pod's own failure (getNewIndexFailureCounts).
			if lf := f.lastFailed; lf != nil {
				f.unreadCounts[0], f.unreadCounts[1] = jobpolicy.NewIndexFailureCounts(&lf.Pod)
			}
			f.attempts = int(f.unreadCounts[0]+f.unreadCounts[1]) + 1
		}
	}
	failedLast := f.lastFailed != nil && len(f.pol.Forgotten) == 0 && (f.succeeded == nil || later(f.lastFailed, f.succeeded))
	s := f.pol.State
	if s == jobpolicy.IndexBackoff {
		f.remaining = f.pol.NextAttemptAt.Sub(b.now)
	}
	// Backoff or Pending: the index gets a new pod when its turn comes.
	waits := s == jobpolicy.IndexBackoff || s == jobpolicy.IndexPending
	switch {
	case s == jobpolicy.IndexSucceeded:
		f.state = StateSucceeded
	case s == jobpolicy.IndexFailed:
		f.state = StateFailed
	case s == jobpolicy.IndexActive:
		f.state = StateRunning
		if f.current.Phase != corev1.PodRunning {
			f.state = StatePending
		}
	case f.term != nil:
		// A pod being deleted shows first (IndexTerminating has one). Of an index that waits,
		// under TerminatingOrFailed, it is failed already (isPodFailed).
		f.state = StateTerminating
		f.retrying = waits && f.term.Tracked && f.term.CountFailed()
	case s == jobpolicy.IndexNoResult:
		f.state = StateUnfinished
	case waits && failedLast:
		f.state = StateRetrying
		f.retrying = true
	default:
		f.state = StatePending
	}
	return f
}

// gather derives the Job-wide sets the sentences name from the index facts.
func (b *reportBuilder) gather() {
	for k := range b.facts {
		f := &b.facts[k]
		i := f.index
		if f.activeCount > 1 {
			b.duplicates.Add(i)
		}
		if len(f.pol.Forgotten) > 0 {
			b.forgotten.Add(i)
			b.forgottenFailed = b.forgottenFailed || f.succeeded == nil
		}
		if f.unread {
			b.r.Pods.NotRead++
			b.unreadIx.Add(i)
		}
		switch f.state {
		case StateSucceeded:
			if f.pol.NotYetRecorded {
				b.notRecorded.Add(i)
			}
		case StateFailed:
			b.failedIx.Add(i)
			if f.count == 0 {
				b.failedGone.Add(i)
			}
		case StateTerminating:
			b.terminatingIx.Add(i)
		case StatePending:
			if f.current == nil {
				b.notStarted++
			}
		case StateUnfinished:
			b.unfinishedIx.Add(i)
			switch {
			case f.lastFailed != nil && !f.lastFailed.Deleting:
				b.ownFailure.Add(i)
			case f.succeeded == nil && f.lastFailed == nil:
				b.noPodLeft.Add(i)
			}
		}
		if f.retrying {
			b.retrying = append(b.retrying, i)
		}
		if f.pol.LastAttempt && f.state == StateRunning {
			b.lastAttempt = append(b.lastAttempt, i)
		}
	}
}

// slots mirrors how the next manageJob picks the indexes it creates pods for: wantActive is
// min(parallelism, completions − succeeded) (job_controller.go:1774-1791), the free slots
// wantActive − active (minus the terminating pods under podReplacementPolicy Failed,
// 1815-1822), and firstPendingIndexes (indexed_job_utils.go:245-273) takes that many pending
// indexes, lowest first; only those wait for their backoff (getPodCreationInfoForIndependent
// Indexes, 1970-1990, or the global one, 1823-1835). The active pods it deletes first (above
// completions, extra pods of an index) are left out: the sync after their deletion creates.
func (b *reportBuilder) slots() {
	if b.phase != PhaseRunning {
		return
	}
	active := b.r.Pods.Active - b.beyond.Active - b.pol.Duplicates
	b.free = b.pol.FreeSlots(jobpolicy.OnlyReplaceFailedPods(b.job), active, b.r.Pods.Terminating)
	var considered indexes.Builder
	for _, ix := range b.pol.FirstPending(b.free) {
		considered.Add(ix.Index)
	}
	b.considered = considered.Set()
	for _, i := range b.retrying {
		b.facts[i].waitsSlot = !b.considered.Has(i)
	}
}

// comparePods is the order of an index's pods in the report: attempt, then creation, then name.
func comparePods(p, q *podSummary) int { return jobpolicy.ListOrder(&p.Pod, &q.Pod) }

// later says whether p is a later attempt than q (jobpolicy.Later).
func later(p, q *podSummary) bool { return jobpolicy.Later(&p.Pod, &q.Pod) }

// finishingPhase is the phase each of jobpolicy.FinishingCondition's conditions decides.
var finishingPhase = map[batchv1.JobConditionType]Phase{
	batchv1.JobComplete: PhaseComplete, batchv1.JobFailed: PhaseFailed,
	batchv1.JobSuccessCriteriaMet: PhaseCompleting, batchv1.JobFailureTarget: PhaseFailing,
}

// DecidePhase picks a Job's phase, from its conditions and spec.suspend, and the condition that
// decided it.
func DecidePhase(job *batchv1.Job) (Phase, *batchv1.JobCondition) {
	if c := jobpolicy.FinishingCondition(job); c != nil {
		return finishingPhase[c.Type], c
	}
	if jobpolicy.Suspended(job) {
		return PhaseSuspended, cmp.Or(jobpolicy.ConditionTrue(job, batchv1.JobSuspended),
			&batchv1.JobCondition{Type: batchv1.JobSuspended, Reason: "JobSuspended", Message: "spec.suspend is true; the controller has not acted on it yet"})
	}
	return PhaseRunning, nil
}

// The report's fields read straight from the Job: its policy, its counters, and the index
// sets of its status as the report reads them.

func policyOf(job *batchv1.Job) Policy {
	s := &job.Spec
	return Policy{
		BackoffLimit:          s.BackoffLimit,
		BackoffLimitPerIndex:  s.BackoffLimitPerIndex,
		MaxFailedIndexes:      s.MaxFailedIndexes,
		ActiveDeadlineSeconds: s.ActiveDeadlineSeconds,
		Suspend:               jobpolicy.Suspended(job),
		RestartPolicy:         string(s.Template.Spec.RestartPolicy),
		PodReplacementPolicy:  string(ptr.Deref(s.PodReplacementPolicy, "")),
		PodFailurePolicyRules: len(ptr.Deref(s.PodFailurePolicy, batchv1.PodFailurePolicy{}).Rules),
		SuccessPolicyRules:    len(ptr.Deref(s.SuccessPolicy, batchv1.SuccessPolicy{}).Rules),
		ManagedBy:             ptr.Deref(s.ManagedBy, ""),
	}
}

func countersOf(job *batchv1.Job) Counters {
	st := job.Status
	c := Counters{
		Active:           st.Active,
		Ready:            ptr.Deref(st.Ready, 0),
		Terminating:      ptr.Deref(st.Terminating, 0),
		Succeeded:        st.Succeeded,
		Failed:           st.Failed,
		CompletedIndexes: st.CompletedIndexes,
		FailedIndexes:    st.FailedIndexes,
	}
	if st.StartTime != nil {
		c.StartTime = ptr.To(st.StartTime.UTC())
	}
	if st.CompletionTime != nil {
		c.CompletionTime = ptr.To(st.CompletionTime.UTC())
	}
	return c
}

// readSets parses completedIndexes and failedIndexes: in the API server's grammar, or, when
// malformed, as the controller reads them.
func (b *reportBuilder) readSets() {
	read := func(field, s string) indexes.Set {
		set, problems, err := jobpolicy.ReadIndexesNoting(s, b.completions)
		if err == nil {
			return set
		}
		b.r.Notes = append(b.r.Notes, fmt.Sprintf("status.%s %q is malformed (%v); read as the Job controller reads it: %s",
			field, textwrap.Truncate(s, 80, "…"), err, strings.Join(problems, "; ")))
		return set
	}
	b.completed = read("completedIndexes", b.job.Status.CompletedIndexes)
	b.failed = read("failedIndexes", ptr.Deref(b.job.Status.FailedIndexes, ""))
	if both := b.completed.Intersect(b.failed); !both.IsEmpty() {
		b.r.Notes = append(b.r.Notes, fmt.Sprintf("indexes %s are in both completedIndexes and failedIndexes (the API server rejects this); they are shown as Succeeded", both.Truncated(setWidth)))
		b.failed = b.failed.Difference(both)
	}
}
