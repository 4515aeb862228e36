package indexstatus

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
)

// listLimit is how many indexes a sentence names before it says "and N more".
const listLimit = 5

// setWidth is how many bytes of an interval string a sentence shows.
const setWidth = 60

// Report makes the report from the Job and the pods added so far.
func (a *Accumulator) Report(opts Options) *IndexedJobStatus {
	b := &reportBuilder{acc: a, job: a.job, opts: opts, now: opts.now()}
	return b.build()
}

type reportBuilder struct {
	acc  *Accumulator
	job  *batchv1.Job
	opts Options
	now  time.Time
	r    *IndexedJobStatus

	completions int
	perIndex    bool
	limit       int32 // backoffLimitPerIndex
	completed   indexes.Set
	failed      indexes.Set
	byIndex     map[int][]*podSummary
	phase       Phase
	cond        *batchv1.JobCondition
	finishing   bool // FailureTarget, Failed, SuccessCriteriaMet or Complete

	// Gathered while walking the indexes.
	states        map[State]*indexes.Builder
	failedGone    indexes.Builder // Failed indexes without pods
	noPodLeft     indexes.Builder // Unfinished indexes without pods
	ownFailure    indexes.Builder // Unfinished indexes whose last attempt failed on its own
	terminatingIx indexes.Builder
	notRecorded   indexes.Builder // succeeded pod, index not in completedIndexes yet
	duplicates    indexes.Builder // more than one active pod
	retrying      []IndexStatus
	lastAttempt   []int // running indexes on their last attempt under backoffLimitPerIndex
	notStarted    int   // Pending indexes without a pod
	failedStatus  map[int]IndexStatus

	// Job-wide pod facts.
	ownFailedPods    int // failed pods that were not deleted (failed on their own)
	countedFailed    int // failed pods whose failure counts (not Ignore)
	uncountedFailed  int // counted failures not yet in status.failed (finalizer still on)
	activePods       int
	terminatingPods  int
	beyond           int // pods with index >= completions
	beyondActive     int // ... of which active (the controller deletes them)
	beyondDeleting   int // ... being deleted
	beyondSucceeded  int // ... succeeded (their index was dropped from completedIndexes)
	beyondFailed     int // ... failed (still counted in status.failed)
	globalFailures   int32
	globalLastFail   time.Time
	globalEstimation bool
}

func (b *reportBuilder) build() *IndexedJobStatus {
	job := b.job
	b.completions = int(*job.Spec.Completions)
	b.perIndex = job.Spec.BackoffLimitPerIndex != nil
	if b.perIndex {
		b.limit = *job.Spec.BackoffLimitPerIndex
	}
	r := &IndexedJobStatus{
		APIVersion:  APIVersion,
		Kind:        Kind,
		Job:         JobRef{Name: job.Name, Namespace: job.Namespace, UID: string(job.UID)},
		ObservedAt:  b.now.UTC().Truncate(time.Second),
		Completions: *job.Spec.Completions,
		Parallelism: deref32(job.Spec.Parallelism, 1),
		Policy:      policyOf(job),
		Counters:    countersOf(job),
		Indexes:     []IndexStatus{},
		Grid:        []Run{},
	}
	b.r = r
	b.readSets()
	b.groupPods()
	b.phase, b.cond = decidePhase(job)
	b.finishing = b.phase == PhaseFailing || b.phase == PhaseFailed || b.phase == PhaseCompleting || b.phase == PhaseComplete
	r.Phase = b.phase
	if b.cond != nil {
		r.Reason, r.Message = b.cond.Reason, b.cond.Message
	}
	if r.Phase == PhaseComplete && r.Reason == "" {
		// Clusters before the success-policy work left the reason of Complete empty.
		if c := findCondition(job, batchv1.JobSuccessCriteriaMet); c != nil {
			r.Reason, r.Message = c.Reason, c.Message
		}
	}
	b.globalBackoff()
	b.walkIndexes()
	r.Explanation = b.explain()
	r.WaitingFor = b.waitingFor()
	r.Completeness = b.completeness()
	r.Next = b.next()
	r.Unknown = b.unknown()
	r.Notes = append(b.notes(), r.Notes...)
	r.Notes = append(r.Notes, b.opts.Notes...)
	if len(b.opts.ShardIDs) > 0 {
		r.Shards = &ShardInfo{ConfigMap: b.opts.ShardsConfigMap, Count: len(b.opts.ShardIDs)}
	}
	return r
}

func deref32(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func policyOf(job *batchv1.Job) Policy {
	p := Policy{
		BackoffLimit:          job.Spec.BackoffLimit,
		BackoffLimitPerIndex:  job.Spec.BackoffLimitPerIndex,
		MaxFailedIndexes:      job.Spec.MaxFailedIndexes,
		ActiveDeadlineSeconds: job.Spec.ActiveDeadlineSeconds,
		Suspend:               job.Spec.Suspend != nil && *job.Spec.Suspend,
		RestartPolicy:         string(job.Spec.Template.Spec.RestartPolicy),
	}
	if job.Spec.PodReplacementPolicy != nil {
		p.PodReplacementPolicy = string(*job.Spec.PodReplacementPolicy)
	}
	if job.Spec.PodFailurePolicy != nil {
		p.PodFailurePolicyRules = len(job.Spec.PodFailurePolicy.Rules)
	}
	if job.Spec.SuccessPolicy != nil {
		p.SuccessPolicyRules = len(job.Spec.SuccessPolicy.Rules)
	}
	if job.Spec.ManagedBy != nil {
		p.ManagedBy = *job.Spec.ManagedBy
	}
	return p
}

func countersOf(job *batchv1.Job) Counters {
	st := job.Status
	c := Counters{
		Active:           st.Active,
		Ready:            deref32(st.Ready, 0),
		Terminating:      deref32(st.Terminating, 0),
		Succeeded:        st.Succeeded,
		Failed:           st.Failed,
		CompletedIndexes: st.CompletedIndexes,
		FailedIndexes:    st.FailedIndexes,
	}
	if st.StartTime != nil {
		t := st.StartTime.UTC()
		c.StartTime = &t
	}
	if st.CompletionTime != nil {
		t := st.CompletionTime.UTC()
		c.CompletionTime = &t
	}
	return c
}

// readSets parses completedIndexes and failedIndexes: in the API server's grammar, or, when
// malformed, as the controller reads them.
func (b *reportBuilder) readSets() {
	read := func(field, s string) indexes.Set {
		set, err := indexes.Parse(s, b.completions)
		if err == nil {
			return set
		}
		set, problems := indexes.ParseLenient(s, b.completions)
		b.r.Notes = append(b.r.Notes, fmt.Sprintf("status.%s %q is malformed (%v); read as the Job controller reads it: %s",
			field, truncate(s, 80), err, strings.Join(problems, "; ")))
		return set
	}
	b.completed = read("completedIndexes", b.job.Status.CompletedIndexes)
	if b.job.Status.FailedIndexes != nil {
		b.failed = read("failedIndexes", *b.job.Status.FailedIndexes)
	}
	if both := b.completed.Intersect(b.failed); !both.IsEmpty() {
		b.r.Notes = append(b.r.Notes, fmt.Sprintf("indexes %s are in both completedIndexes and failedIndexes (the API server rejects this); they are shown as Succeeded", both.Truncated(setWidth)))
		b.failed = b.failed.Difference(both)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// groupPods sorts the pod summaries by index and, within an index, by attempt then creation.
func (b *reportBuilder) groupPods() {
	b.byIndex = map[int][]*podSummary{}
	for k := range b.acc.pods {
		p := b.acc.pods[k]
		ps := &p
		switch {
		case p.active():
			b.activePods++
		case p.terminating():
			b.terminatingPods++
		}
		if p.failed && !p.deleting {
			b.ownFailedPods++
		}
		if p.failed && p.countFailed {
			b.countedFailed++
		}
		b.r.Pods.Seen++
		switch {
		case p.active():
			b.r.Pods.Active++
		case p.terminating():
			b.r.Pods.Terminating++
		case p.phase == corev1.PodSucceeded:
			b.r.Pods.Succeeded++
		case p.phase == corev1.PodFailed:
			b.r.Pods.Failed++
		}
		if p.index >= b.completions {
			b.beyond++
			switch {
			case p.active():
				b.beyondActive++
			case p.terminating():
				b.beyondDeleting++
			case p.phase == corev1.PodSucceeded:
				b.beyondSucceeded++
			case p.phase == corev1.PodFailed:
				b.beyondFailed++
			}
			continue
		}
		b.byIndex[p.index] = append(b.byIndex[p.index], ps)
	}
	b.r.Pods.Ignored = len(b.acc.ignored)
	uncounted := map[string]bool{}
	if u := b.job.Status.UncountedTerminatedPods; u != nil {
		for _, uid := range u.Failed {
			uncounted[string(uid)] = true
		}
		b.uncountedFailed = len(u.Failed)
	}
	for _, pods := range b.byIndex {
		sort.Slice(pods, func(i, j int) bool {
			if pods[i].attempt() != pods[j].attempt() {
				return pods[i].attempt() < pods[j].attempt()
			}
			if !pods[i].created.Equal(pods[j].created) {
				return pods[i].created.Before(pods[j].created)
			}
			return pods[i].name < pods[j].name
		})
		for _, p := range pods {
			// getNewFinishedPods: failed pods still carrying the finalizer, not yet in
			// uncountedTerminatedPods, are about to be counted.
			if p.failed && p.countFailed && p.tracked && !uncounted[p.uid] {
				b.uncountedFailed++
			}
		}
	}
}

func findCondition(job *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		c := &job.Status.Conditions[i]
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// decidePhase picks the phase and the condition that decided it.
func decidePhase(job *batchv1.Job) (Phase, *batchv1.JobCondition) {
	if c := findCondition(job, batchv1.JobComplete); c != nil {
		return PhaseComplete, c
	}
	if c := findCondition(job, batchv1.JobFailed); c != nil {
		return PhaseFailed, c
	}
	if c := findCondition(job, batchv1.JobFailureTarget); c != nil {
		return PhaseFailing, c
	}
	if c := findCondition(job, batchv1.JobSuccessCriteriaMet); c != nil {
		return PhaseCompleting, c
	}
	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		c := findCondition(job, batchv1.JobSuspended)
		if c == nil {
			c = &batchv1.JobCondition{Type: batchv1.JobSuspended, Reason: "JobSuspended", Message: "spec.suspend is true; the controller has not acted on it yet"}
		}
		return PhaseSuspended, c
	}
	return PhaseRunning, nil
}

// globalBackoff estimates the controller's in-memory backoff record for Jobs without
// backoffLimitPerIndex: failures after the last success and the time of the last failure.
func (b *reportBuilder) globalBackoff() {
	if b.perIndex {
		return
	}
	var lastSuccess time.Time
	for _, p := range b.acc.pods {
		if p.phase == corev1.PodSucceeded && p.finished.After(lastSuccess) {
			lastSuccess = p.finished
		}
	}
	for _, p := range b.acc.pods {
		if p.failed && p.finished.After(lastSuccess) {
			b.globalFailures++
			if p.finished.After(b.globalLastFail) {
				b.globalLastFail = p.finished
			}
		}
	}
}

// walkIndexes computes every index's state, folding the grid and the summary as it goes.
func (b *reportBuilder) walkIndexes() {
	b.states = map[State]*indexes.Builder{}
	for _, s := range States {
		b.states[s] = &indexes.Builder{}
	}
	b.failedStatus = map[int]IndexStatus{}
	r := b.r
	for i := 0; i < b.completions; i++ {
		st := b.index(i)
		r.Summary.add(st.State, 1)
		b.states[st.State].Add(i)
		if n := len(r.Grid); n > 0 && r.Grid[n-1].State == st.State && r.Grid[n-1].Last == i-1 {
			r.Grid[n-1].Last = i
		} else {
			r.Grid = append(r.Grid, Run{First: i, Last: i, State: st.State})
		}
		if b.opts.AllIndexes || needsAttention(&st) {
			r.Indexes = append(r.Indexes, st)
		}
	}
	for k := range r.Grid {
		r.Grid[k].Indexes = indexes.Range(r.Grid[k].First, r.Grid[k].Last).String()
	}
}

// needsAttention selects the indexes the text view lists when not every index is wanted.
func needsAttention(st *IndexStatus) bool {
	switch st.State {
	case StateSucceeded:
		return false
	case StatePending:
		return len(st.Pods) > 0
	case StateUnfinished:
		return len(st.Pods) > 0
	}
	return true
}

// index computes one index's status.
func (b *reportBuilder) index(i int) IndexStatus {
	st := IndexStatus{Index: i, Pods: []string{}}
	if i < len(b.opts.ShardIDs) {
		st.ShardID = b.opts.ShardIDs[i]
	}
	pods := b.byIndex[i]
	var current, term, lastFailed, lastFinished, succeeded *podSummary
	activeCount := 0
	for _, p := range pods {
		st.Pods = append(st.Pods, p.name)
		switch {
		case p.active():
			activeCount++
			current = p // the latest attempt wins
		case p.terminating():
			term = p
		}
		if p.failed && !p.terminating() {
			if lastFailed == nil || laterAttempt(p, lastFailed) {
				lastFailed = p
			}
		}
		if p.phase == corev1.PodSucceeded {
			succeeded = p
		}
		if (p.phase == corev1.PodSucceeded || p.phase == corev1.PodFailed) && (lastFinished == nil || laterAttempt(p, lastFinished)) {
			lastFinished = p
		}
	}
	if activeCount > 1 {
		b.duplicates.Add(i)
	}

	// Attempts and failure counts.
	if len(pods) > 0 {
		if b.perIndex {
			latest := pods[len(pods)-1]
			st.Attempts = int(latest.attempt()) + 1
			st.FailureCount, st.IgnoredFailureCount = latest.failureCount, latest.ignoredCount
			if latest.failed && latest.phase == corev1.PodFailed {
				if latest.countFailed {
					st.FailureCount++
				} else {
					st.IgnoredFailureCount++
				}
			}
		} else {
			st.Attempts = len(pods)
			for _, p := range pods {
				if p.failed && p.phase == corev1.PodFailed {
					if p.countFailed {
						st.FailureCount++
					} else {
						st.IgnoredFailureCount++
					}
				}
			}
		}
	}
	if lastFinished != nil && lastFinished.hasExit {
		code := lastFinished.exitCode
		st.LastExitCode = &code
		st.LastReason, st.LastContainer = lastFinished.exitCause, lastFinished.container
	}
	if lastFinished != nil && st.LastReason == "" && lastFinished.podReason != "" {
		st.LastReason = lastFinished.podReason
	}
	if lastFailed != nil && lastFailed.rule >= 0 {
		st.Rule = &RuleMatch{Index: lastFailed.rule, Action: string(lastFailed.action), On: lastFailed.matchedBy}
	}

	// State.
	unrecorded := false
	latestFailedIsLast := lastFailed != nil && current == nil && term == nil && (succeeded == nil || laterAttempt(lastFailed, succeeded))
	switch {
	case b.completed.Has(i):
		st.State = StateSucceeded
	case b.failed.Has(i):
		st.State = StateFailed
	case current != nil:
		st.State = StateRunning
		if current.phase != corev1.PodRunning {
			st.State = StatePending
		}
	case term != nil:
		st.State = StateTerminating
		b.terminatingIx.Add(i)
	case b.finishing:
		st.State = StateUnfinished
	case latestFailedIsLast && b.phase == PhaseSuspended:
		st.State = StatePending
	case latestFailedIsLast && b.wouldFailIndex(lastFailed):
		st.State = StateFailed
		st.Detail = "not yet recorded in status.failedIndexes: "
	case latestFailedIsLast:
		st.State = StateRetrying
	case succeeded != nil:
		st.State = StateSucceeded
		unrecorded = true
		b.notRecorded.Add(i)
	default:
		st.State = StatePending
	}
	if st.State == StatePending && current == nil {
		b.notStarted++
	}

	if b.perIndex {
		left := b.limit - st.FailureCount
		if left < 0 || st.State == StateFailed {
			left = 0
		}
		st.RetriesLeft = &left
	}
	b.describe(&st, current, term, lastFailed, succeeded, unrecorded)
	return st
}

// laterAttempt orders attempts: by the attempt annotation, then by finish or creation time.
func laterAttempt(p, q *podSummary) bool {
	if p.attempt() != q.attempt() {
		return p.attempt() > q.attempt()
	}
	if !p.created.Equal(q.created) {
		return p.created.After(q.created)
	}
	return p.finished.After(q.finished)
}

// wouldFailIndex is the controller's isIndexFailed for a failed pod.
func (b *reportBuilder) wouldFailIndex(p *podSummary) bool {
	if !b.perIndex || !p.failed {
		return false
	}
	if p.action == batchv1.PodFailurePolicyActionFailIndex {
		return true
	}
	return p.countFailed && p.failureCount >= b.limit
}

// describe writes the index's detail and gathers what the Job-level sentences need.
func (b *reportBuilder) describe(st *IndexStatus, current, term, lastFailed, succeeded *podSummary, unrecorded bool) {
	var d string
	switch st.State {
	case StateSucceeded:
		switch {
		case succeeded != nil && unrecorded:
			d = fmt.Sprintf("pod %s succeeded; not yet recorded in status.completedIndexes", succeeded.name)
		case succeeded != nil:
			d = fmt.Sprintf("succeeded on attempt %d (pod %s)", st.Attempts, succeeded.name)
		case len(st.Pods) == 0:
			d = "succeeded (its pods are gone)"
		default:
			d = "succeeded"
		}
	case StateFailed:
		d = st.Detail + b.failureWords(st, lastFailed)
		if len(st.Pods) == 0 {
			b.failedGone.Add(st.Index)
		}
	case StateRunning, StatePending:
		switch {
		case current != nil && current.phase == corev1.PodRunning:
			d = fmt.Sprintf("attempt %d running for %s (pod %s)", st.Attempts, b.age(current.started, current.created), current.name)
			if !current.ready {
				d += ", not ready"
			}
			d += restartWords(current)
			if b.perIndex && st.RetriesLeft != nil && *st.RetriesLeft == 0 {
				d += fmt.Sprintf("; last attempt: one more failure fails the index (backoffLimitPerIndex %d)", b.limit)
				b.lastAttempt = append(b.lastAttempt, st.Index)
			}
		case current != nil:
			d = fmt.Sprintf("pod %s is %s", current.name, strings.ToLower(string(current.phase)))
			if current.waiting != "" {
				d += " (" + current.waiting + ")"
			}
		case b.phase == PhaseSuspended && lastFailed != nil:
			d = fmt.Sprintf("Job suspended; attempt %d failed (%s) and is retried after the Job resumes", st.Attempts, exitWords(lastFailed))
		case b.phase == PhaseSuspended:
			d = "Job suspended: no pod runs until it resumes"
		default:
			d = "not started yet"
		}
		if st.FailureCount+st.IgnoredFailureCount > 0 && lastFailed != nil && current != nil {
			d += fmt.Sprintf("; the previous attempt failed (%s)", exitWords(lastFailed))
		}
	case StateRetrying:
		d = b.retryWords(st, lastFailed)
		b.retrying = append(b.retrying, *st)
	case StateTerminating:
		d = b.terminatingWords(term) + restartWords(term)
	case StateUnfinished:
		switch {
		case lastFailed != nil && !lastFailed.deleting && lastFailed.action == batchv1.PodFailurePolicyActionFailJob:
			d = fmt.Sprintf("no result: attempt %d failed (%s), which failed the whole Job", st.Attempts, exitWords(lastFailed))
			b.ownFailure.Add(st.Index)
		case lastFailed != nil && !lastFailed.deleting:
			d = fmt.Sprintf("no result: attempt %d failed (%s) and the Job %s before it was retried", st.Attempts, exitWords(lastFailed), b.finishedVerb())
			b.ownFailure.Add(st.Index)
		case succeeded != nil:
			d = fmt.Sprintf("no result recorded: pod %s succeeded but the controller did not count it before the Job finished", succeeded.name)
		case lastFailed != nil:
			d = fmt.Sprintf("no result: pod %s was killed when the Job %s", lastFailed.name, b.finishedVerb())
		default:
			b.noPodLeft.Add(st.Index)
			d = "no result and no pod left: " + b.goneWords()
		}
	}
	st.Detail = d
	if st.State == StateFailed && len(b.failedStatus) < listLimit {
		b.failedStatus[st.Index] = *st
	}
}

func (b *reportBuilder) finishedVerb() string {
	switch b.phase {
	case PhaseComplete, PhaseCompleting:
		return "met its success policy"
	}
	return "failed"
}

// goneWords explains, for a finished Job, why an index without a result has no pod.
func (b *reportBuilder) goneWords() string {
	switch b.phase {
	case PhaseComplete, PhaseCompleting:
		return "pods still running when the success policy was met are deleted without being counted as failed, or it never started"
	}
	return "running pods are killed and deleted when a Job fails, or it never started"
}

// failureWords explains why an index failed.
func (b *reportBuilder) failureWords(st *IndexStatus, lastFailed *podSummary) string {
	if lastFailed == nil {
		if len(st.Pods) == 0 {
			return "failed; its pods are gone, so the exit code and the reason are not known"
		}
		return "failed"
	}
	if lastFailed.action == batchv1.PodFailurePolicyActionFailIndex {
		return fmt.Sprintf("failed at once: %s matched podFailurePolicy rule %d (FailIndex)", lastFailed.matchedBy, lastFailed.rule)
	}
	if b.perIndex {
		return fmt.Sprintf("failed after %d %s (%s), backoffLimitPerIndex %d exhausted",
			st.Attempts, plural(st.Attempts, "attempt", "attempts"), exitWords(lastFailed), b.limit)
	}
	return fmt.Sprintf("failed (%s)", exitWords(lastFailed))
}

// exitWords describes how a failed attempt ended: "exit code 1 in container worker".
func exitWords(p *podSummary) string {
	var parts []string
	if p.hasExit {
		s := fmt.Sprintf("exit code %d in container %s", p.exitCode, p.container)
		if p.exitCause != "" && p.exitCause != "Error" && p.exitCause != "Completed" {
			s += ", " + p.exitCause
		}
		parts = append(parts, s)
	}
	if p.podReason != "" {
		parts = append(parts, "pod "+p.podReason)
	}
	if p.condition != "" {
		parts = append(parts, p.condition)
	}
	if p.rule >= 0 {
		parts = append(parts, fmt.Sprintf("podFailurePolicy rule %d (%s)", p.rule, p.action))
	}
	if len(parts) == 0 {
		return "no exit code recorded"
	}
	return strings.Join(parts, "; ")
}

// restartWords says how often a pod's containers were restarted in place (restartPolicy
// OnFailure); the controller counts these restarts against backoffLimit while the pod is pending
// or running (pastBackoffLimitOnFailure).
func restartWords(p *podSummary) string {
	if p == nil || p.restarts == 0 {
		return ""
	}
	s := fmt.Sprintf("; containers restarted %d %s", p.restarts, plural(int(p.restarts), "time", "times"))
	if p.hasExit && p.exitCode != 0 {
		s += fmt.Sprintf(" (last exit code %d in container %s)", p.exitCode, p.container)
	}
	return s
}

// retryWords explains a Retrying index and records its backoff.
func (b *reportBuilder) retryWords(st *IndexStatus, lastFailed *podSummary) string {
	var total, remaining time.Duration
	estimate := ""
	if b.perIndex {
		total, remaining = backoff(lastFailed.attempt()+1, lastFailed.finished, b.now)
	} else {
		total, remaining = backoff(b.globalFailures, b.globalLastFail, b.now)
		estimate = "about "
		b.globalEstimation = true
	}
	ts, rs := int64(total/time.Second), int64((remaining+time.Second-1)/time.Second)
	st.BackoffSeconds, st.BackoffRemainingSeconds = &ts, &rs
	d := fmt.Sprintf("attempt %d failed (%s)", st.Attempts, exitWords(lastFailed))
	if !lastFailed.countFailed {
		d += "; ignored, not counted against the retry limits"
	}
	next := b.nextAttemptWords(st)
	if remaining > 0 {
		return d + fmt.Sprintf("; the replacement is created in %s%s (backoff %s)%s", estimate, fmtDuration(remaining), fmtDuration(total), next)
	}
	return d + fmt.Sprintf("; backoff %s over, the replacement is due now%s", fmtDuration(total), next)
}

// nextAttemptWords is ", attempt 2 of 2" under backoffLimitPerIndex.
func (b *reportBuilder) nextAttemptWords(st *IndexStatus) string {
	if !b.perIndex {
		return fmt.Sprintf(", attempt %d", st.Attempts+1)
	}
	maxAttempts := int(b.limit) + 1 + int(st.IgnoredFailureCount)
	return fmt.Sprintf(", attempt %d of %d", st.Attempts+1, maxAttempts)
}

func (b *reportBuilder) terminatingWords(p *podSummary) string {
	age := fmtDuration(b.now.Sub(p.finished).Round(time.Second))
	switch b.phase {
	case PhaseFailing, PhaseFailed:
		return fmt.Sprintf("pod %s is being killed because the Job is failing (deleted %s ago)", p.name, age)
	case PhaseCompleting, PhaseComplete:
		return fmt.Sprintf("pod %s is being deleted because the Job met its success policy (deleted %s ago)", p.name, age)
	case PhaseSuspended:
		return fmt.Sprintf("pod %s is being deleted because the Job was suspended; not counted as a failure", p.name)
	}
	if onlyReplaceFailedPods(b.job) {
		return fmt.Sprintf("pod %s is being deleted; with podReplacementPolicy Failed its replacement is created once it is gone", p.name)
	}
	return fmt.Sprintf("pod %s is being deleted; it counts as failed and is replaced at once (podReplacementPolicy TerminatingOrFailed)", p.name)
}

func (b *reportBuilder) age(started, created time.Time) string {
	t := started
	if t.IsZero() {
		t = created
	}
	if t.IsZero() {
		return "an unknown time"
	}
	return fmtDuration(b.now.Sub(t))
}

// fmtDuration rounds to seconds: "20s", "1m40s", "2h0m0s".
func fmtDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return d.Round(time.Second).String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func set(bld *indexes.Builder) indexes.Set { return bld.Set() }

// --- Job level ---

// explain says why the Job is in its phase.
func (b *reportBuilder) explain() string {
	r := b.r
	m := b.completions
	succeeded := b.completed.Len()
	switch b.phase {
	case PhaseRunning:
		if b.job.Status.StartTime == nil && len(b.acc.pods) == 0 {
			return "The Job has not started yet: no pod exists."
		}
		s := fmt.Sprintf("The Job is running: %d of %d indexes succeeded", r.Summary.Succeeded, m)
		for _, st := range []State{StateFailed, StateRunning, StatePending, StateRetrying, StateTerminating} {
			if n := r.Summary.Count(st); n > 0 {
				s += fmt.Sprintf(", %d %s", n, strings.ToLower(string(st)))
			}
		}
		return s + "."
	case PhaseSuspended:
		return fmt.Sprintf("The Job is suspended (spec.suspend is true): the controller runs no pods, deletes running ones without counting them as failed, and stops the activeDeadlineSeconds clock. %d of %d indexes succeeded so far.", succeeded, m)
	}
	reason := ""
	if b.cond != nil {
		reason = b.cond.Reason
	}
	if b.phase == PhaseComplete && r.Reason != "" {
		reason = r.Reason
	}
	switch reason {
	case batchv1.JobReasonCompletionsReached:
		return fmt.Sprintf("All %d indexes succeeded.", m)
	case batchv1.JobReasonSuccessPolicy:
		return fmt.Sprintf("Success policy %s was met, so the Job counts as succeeded although only %d of %d indexes succeeded; pods still running were deleted without being counted as failed.",
			b.successRuleWords(), succeeded, m)
	case batchv1.JobReasonFailedIndexes:
		return fmt.Sprintf("Every index has a result and %d failed: %s. With backoffLimitPerIndex a failed index does not stop the others; the Job fails once every index has a result and not all succeeded.",
			b.failed.Len(), b.failedIndexList())
	case batchv1.JobReasonMaxFailedIndexesExceeded:
		return fmt.Sprintf("%d indexes failed (%s), more than maxFailedIndexes %d allows, so the whole Job fails: %s. %s",
			b.failed.Len(), b.failed.Truncated(setWidth), deref32(b.job.Spec.MaxFailedIndexes, 0), b.failedIndexList(), b.killedWords())
	case batchv1.JobReasonBackoffLimitExceeded:
		if b.job.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyOnFailure && b.ownFailedPods == 0 {
			return fmt.Sprintf("Container restarts reached backoffLimit %d, so the whole Job fails: restartPolicy OnFailure counts the restarts of the containers of pending and running pods (%s). %s",
				deref32(b.job.Spec.BackoffLimit, 6), b.restartList(), b.killedWords())
		}
		s := fmt.Sprintf("More than backoffLimit %d pod failures were counted, so the whole Job fails", deref32(b.job.Spec.BackoffLimit, 6))
		if b.ownFailedPods > 0 {
			s += fmt.Sprintf(" (%d %s failed on %s own: %s)", b.ownFailedPods, plural(b.ownFailedPods, "pod", "pods"), plural(b.ownFailedPods, "its", "their"), b.ownFailureList())
		}
		return s + ". " + b.killedWords()
	case batchv1.JobReasonDeadlineExceeded:
		start := "its start"
		if b.job.Status.StartTime != nil {
			start = b.job.Status.StartTime.UTC().Format(time.RFC3339)
		}
		return fmt.Sprintf("The Job ran longer than activeDeadlineSeconds %d (started %s), so it fails whatever its indexes were doing. %s",
			deref64(b.job.Spec.ActiveDeadlineSeconds), start, b.killedWords())
	case batchv1.JobReasonPodFailurePolicy:
		return b.failJobWords() + " " + b.killedWords()
	}
	if b.cond != nil {
		return fmt.Sprintf("Condition %s is True with reason %q: %s.", b.cond.Type, b.cond.Reason, b.cond.Message)
	}
	return ""
}

func deref64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// killedWords says what the controller did to the other indexes when the Job failed.
func (b *reportBuilder) killedWords() string {
	unfinished := set(b.states[StateUnfinished])
	terminating := set(&b.terminatingIx)
	if b.phase == PhaseFailing {
		s := fmt.Sprintf("The controller is killing the running pods: %d %s terminating", terminating.Len(), plural(terminating.Len(), "index is", "indexes are"))
		if !terminating.IsEmpty() {
			s += " (" + terminating.Truncated(setWidth) + ")"
		}
		return s + "; they are counted as failed and their indexes get no result."
	}
	killed := int(b.job.Status.Failed) - b.ownFailedPods
	if b.perIndex {
		// Failed pods of failed indexes are counted too.
		killed = int(b.job.Status.Failed) - b.countedFailed
	}
	s := ""
	if killed > 0 {
		s = fmt.Sprintf("The controller killed the running pods: status.failed counts %d failed %s of which %d %s left, so %d %s killed. ",
			b.job.Status.Failed, plural(int(b.job.Status.Failed), "pod", "pods"), b.countedFailed, plural(b.countedFailed, "is", "are"), killed, plural(killed, "was", "were"))
	}
	if unfinished.IsEmpty() {
		return s + "No index was left without a result."
	}
	return s + fmt.Sprintf("%d %s no result (%s).", unfinished.Len(), plural(unfinished.Len(), "index has", "indexes have"), unfinished.Truncated(setWidth))
}

// failedIndexList names up to listLimit failed indexes with why they failed.
func (b *reportBuilder) failedIndexList() string {
	var parts []string
	n := 0
	for i := range b.failed.All() {
		if n == listLimit {
			parts = append(parts, fmt.Sprintf("and %d more", b.failed.Len()-n))
			break
		}
		n++
		st, ok := b.failedStatus[i]
		if !ok {
			parts = append(parts, fmt.Sprintf("index %d", i))
			continue
		}
		parts = append(parts, fmt.Sprintf("index %d %s", i, strings.TrimPrefix(st.Detail, "not yet recorded in status.failedIndexes: ")))
	}
	return strings.Join(parts, "; ")
}

// ownFailureList names the pods that failed on their own (not killed).
func (b *reportBuilder) ownFailureList() string {
	return b.podList(func(p *podSummary) bool { return p.failed && !p.deleting }, func(p *podSummary) string {
		return fmt.Sprintf("index %d %s", p.index, exitWords(p))
	})
}

// restartList names the pending or running pods whose containers restarted, by index.
func (b *reportBuilder) restartList() string {
	list := b.podList(func(p *podSummary) bool {
		return p.restarts > 0 && (p.phase == corev1.PodPending || p.phase == corev1.PodRunning)
	}, func(p *podSummary) string {
		w := fmt.Sprintf("index %d: %d %s", p.index, p.restarts, plural(int(p.restarts), "restart", "restarts"))
		if p.hasExit && p.exitCode != 0 {
			w += fmt.Sprintf(", last exit code %d in container %s", p.exitCode, p.container)
		}
		return w
	})
	if list == "" {
		return "no pod left shows a restart"
	}
	return list
}

// podList words the pods below completions that keep selects, by index then creation time, at
// most listLimit of them ("and N more" for the rest), joined by commas.
func (b *reportBuilder) podList(keep func(*podSummary) bool, words func(*podSummary) string) string {
	var pods []*podSummary
	for k := range b.acc.pods {
		p := b.acc.pods[k]
		if p.index < b.completions && keep(&p) {
			pods = append(pods, &p)
		}
	}
	sort.Slice(pods, func(i, j int) bool {
		if pods[i].index != pods[j].index {
			return pods[i].index < pods[j].index
		}
		return pods[i].created.Before(pods[j].created)
	})
	var parts []string
	for k, p := range pods {
		if k == listLimit {
			parts = append(parts, fmt.Sprintf("and %d more", len(pods)-k))
			break
		}
		parts = append(parts, words(p))
	}
	return strings.Join(parts, ", ")
}

var (
	failJobContainerRE = regexp.MustCompile(`^Container (\S+) for pod (\S+)/(\S+) failed with exit code (-?\d+) matching FailJob rule at index (\d+)$`)
	failJobConditionRE = regexp.MustCompile(`^Pod (\S+)/(\S+) has condition (\S+) matching FailJob rule at index (\d+)$`)
)

// failJobWords explains a PodFailurePolicy failure from the condition's message.
func (b *reportBuilder) failJobWords() string {
	msg := ""
	if b.cond != nil {
		msg = b.cond.Message
	}
	indexOf := func(name string) string {
		for _, p := range b.acc.pods {
			if p.name == name {
				return fmt.Sprintf(" (index %d)", p.index)
			}
		}
		return ""
	}
	if m := failJobContainerRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("Container %s of pod %s%s exited with code %s, which matches podFailurePolicy rule %s (FailJob): the whole Job fails at once, without retries.",
			m[1], m[3], indexOf(m[3]), m[4], m[5])
	}
	if m := failJobConditionRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("Pod %s%s has condition %s, which matches podFailurePolicy rule %s (FailJob): the whole Job fails at once, without retries.",
			m[2], indexOf(m[2]), m[3], m[4])
	}
	for _, p := range b.acc.pods {
		if p.action == batchv1.PodFailurePolicyActionFailJob {
			return fmt.Sprintf("Pod %s (index %d): %s matches podFailurePolicy rule %d (FailJob): the whole Job fails at once, without retries.",
				p.name, p.index, p.matchedBy, p.rule)
		}
	}
	return fmt.Sprintf("A pod matched a FailJob rule of the podFailurePolicy: %s.", msg)
}

var successRuleRE = regexp.MustCompile(`^Matched rules at index (\d+)$`)

// successRuleWords describes the success policy rule that matched.
func (b *reportBuilder) successRuleWords() string {
	msg := ""
	if b.cond != nil {
		msg = b.cond.Message
	}
	m := successRuleRE.FindStringSubmatch(msg)
	sp := b.job.Spec.SuccessPolicy
	if m == nil || sp == nil {
		return fmt.Sprintf("(%s)", msg)
	}
	k, _ := strconv.Atoi(m[1])
	if k >= len(sp.Rules) {
		return "rule " + m[1]
	}
	rule := sp.Rules[k]
	var parts []string
	if rule.SucceededIndexes != nil {
		parts = append(parts, fmt.Sprintf("succeededIndexes %q", *rule.SucceededIndexes))
	}
	if rule.SucceededCount != nil {
		parts = append(parts, fmt.Sprintf("succeededCount %d", *rule.SucceededCount))
	}
	return fmt.Sprintf("rule %d (%s)", k, strings.Join(parts, ", "))
}

// waitingFor says what a Failing or Completing Job waits for.
func (b *reportBuilder) waitingFor() string {
	if b.phase != PhaseFailing && b.phase != PhaseCompleting {
		return ""
	}
	parts, final := b.waitParts()
	if len(parts) == 0 {
		return fmt.Sprintf("the controller's next sync to add the %s condition", final)
	}
	return fmt.Sprintf("%s; then the controller adds the %s condition (a pod stuck terminating, e.g. on a lost node, keeps the Job here and ttlSecondsAfterFinished does not start)",
		strings.Join(parts, " and "), final)
}

// waitParts lists what a finishing Job waits for, and the condition it then gets.
func (b *reportBuilder) waitParts() (parts []string, final string) {
	final = "Failed"
	if b.phase == PhaseCompleting {
		final = "Complete"
	}
	terminating := max(int(deref32(b.job.Status.Terminating, 0)), b.terminatingPods)
	if terminating > 0 {
		s := fmt.Sprintf("%d %s to finish terminating", terminating, plural(terminating, "pod", "pods"))
		if ix := set(&b.terminatingIx); !ix.IsEmpty() {
			s += fmt.Sprintf(" (%s %s)", plural(ix.Len(), "index", "indexes"), ix.Truncated(setWidth))
		}
		parts = append(parts, s)
	}
	if u := b.job.Status.UncountedTerminatedPods; u != nil && len(u.Failed)+len(u.Succeeded) > 0 {
		parts = append(parts, fmt.Sprintf("the controller to count %d finished pods", len(u.Failed)+len(u.Succeeded)))
	}
	return parts, final
}

// completeness says whether the result can be used as complete.
func (b *reportBuilder) completeness() Completeness {
	m := b.completions
	n := b.completed.Len()
	missing := b.completed.Complement(m)
	c := Completeness{Succeeded: n, Completions: int32(m), Complete: n == m, Missing: missing.String()}
	switch {
	case n == m && b.phase != PhaseFailed && b.phase != PhaseFailing:
		c.Verdict = fmt.Sprintf("complete: all %d indexes succeeded", m)
	case b.phase == PhaseFailed || b.phase == PhaseFailing:
		c.Complete = false
		c.Verdict = fmt.Sprintf("NOT complete: the Job failed with %d of %d indexes succeeded; no result for %s", n, m, missing.Truncated(setWidth))
	case (b.phase == PhaseComplete || b.phase == PhaseCompleting) && b.r.Reason == batchv1.JobReasonSuccessPolicy:
		c.Verdict = fmt.Sprintf("NOT complete: the Job succeeded through its success policy with only %d of %d indexes succeeded; no result for %s", n, m, missing.Truncated(setWidth))
	default:
		c.Verdict = fmt.Sprintf("incomplete so far: %d of %d indexes succeeded; no result yet for %s", n, m, missing.Truncated(setWidth))
	}
	return c
}

// next says what happens next.
func (b *reportBuilder) next() []string {
	var out []string
	job := b.job
	switch b.phase {
	case PhaseFailed, PhaseComplete:
		s := "Nothing more will run: the Job is finished."
		if ttl := job.Spec.TTLSecondsAfterFinished; ttl != nil {
			if c := b.cond; c != nil && !c.LastTransitionTime.IsZero() {
				at := c.LastTransitionTime.Add(time.Duration(*ttl) * time.Second)
				if at.After(b.now) {
					s += fmt.Sprintf(" The Job and its pods are deleted in %s (ttlSecondsAfterFinished %d).", fmtDuration(at.Sub(b.now)), *ttl)
				} else {
					s += fmt.Sprintf(" The Job and its pods are due for deletion (ttlSecondsAfterFinished %d).", *ttl)
				}
			}
		}
		return append(out, s)
	case PhaseFailing, PhaseCompleting:
		parts, final := b.waitParts()
		if len(parts) == 0 {
			return append(out, fmt.Sprintf("The controller adds the %s condition at its next sync.", final))
		}
		return append(out, fmt.Sprintf("The Job becomes %s after waiting for %s.", final, strings.Join(parts, " and ")))
	case PhaseSuspended:
		left := b.completions - b.completed.Len() - b.failed.Len()
		return append(out, fmt.Sprintf("Nothing runs until spec.suspend is set to false; then the controller starts the %d %s without a result (startTime is reset, so activeDeadlineSeconds counts from the resume).",
			left, plural(left, "index", "indexes")))
	}
	// Running.
	for k, st := range b.retrying {
		if k == listLimit {
			out = append(out, fmt.Sprintf("%d more retrying indexes are retried after their backoff.", len(b.retrying)-k))
			break
		}
		attempt := strings.TrimPrefix(b.nextAttemptWords(&st), ", ")
		rem := time.Duration(*st.BackoffRemainingSeconds) * time.Second
		if b.perIndex {
			if rem > 0 {
				out = append(out, fmt.Sprintf("Index %d will be retried after %s (%s).", st.Index, fmtDuration(rem), attempt))
			} else {
				out = append(out, fmt.Sprintf("Index %d is due to be retried now (%s).", st.Index, attempt))
			}
		} else {
			out = append(out, fmt.Sprintf("Index %d will be retried after about %s (global backoff after %d %s since the last success; %s).",
				st.Index, fmtDuration(rem), b.globalFailures, plural(int(b.globalFailures), "failure", "failures"), attempt))
		}
	}
	for k, i := range b.lastAttempt {
		if k == listLimit {
			out = append(out, fmt.Sprintf("%d more running indexes are on their last attempt.", len(b.lastAttempt)-k))
			break
		}
		out = append(out, fmt.Sprintf("Index %d is on its last attempt: one more failure fails the index (backoffLimitPerIndex %d).", i, b.limit))
	}
	running := b.r.Summary.Running + b.r.Summary.Pending - b.notStarted // indexes with an active pod
	if b.perIndex {
		nFailed := b.failed.Len()
		if mfi := job.Spec.MaxFailedIndexes; mfi != nil {
			k := int(*mfi) - nFailed + 1
			out = append(out, fmt.Sprintf("%d more failed %s the Job (maxFailedIndexes %d, %d failed so far), killing its running pods.",
				k, plural(k, "index aborts", "indexes abort"), *mfi, nFailed))
		}
		if nFailed > 0 {
			out = append(out, fmt.Sprintf("The Job cannot succeed any more (indexes %s failed): it ends Failed (FailedIndexes) once every other index has a result.", b.failed.Truncated(setWidth)))
		}
	}
	if bl := job.Spec.BackoffLimit; bl != nil && (!b.perIndex || *bl != math.MaxInt32) {
		counted := int(job.Status.Failed) + b.uncountedFailed
		k := int(*bl) - counted + 1
		if k < 1 {
			k = 1
		}
		out = append(out, fmt.Sprintf("The global backoffLimit %d is %d %s away from failing the Job and killing its %d running %s.",
			*bl, k, plural(k, "failure", "failures"), running, plural(running, "index", "indexes")))
	}
	if ads := job.Spec.ActiveDeadlineSeconds; ads != nil && job.Status.StartTime != nil {
		at := job.Status.StartTime.Add(time.Duration(*ads) * time.Second)
		if at.After(b.now) {
			out = append(out, fmt.Sprintf("activeDeadlineSeconds %d fails the Job in %s if it has not finished by then.", *ads, fmtDuration(at.Sub(b.now))))
		} else {
			out = append(out, fmt.Sprintf("activeDeadlineSeconds %d has passed: the controller fails the Job at its next sync.", *ads))
		}
	}
	if pending := b.notStarted; pending > 0 {
		out = append(out, fmt.Sprintf("%d %s not started yet; the controller starts them, lowest first, as running ones finish (parallelism %d).",
			pending, plural(pending, "index is", "indexes are"), b.r.Parallelism))
	}
	return out
}

// unknown says what cannot be known from what is left.
func (b *reportBuilder) unknown() []string {
	var out []string
	if s := set(&b.failedGone); !s.IsEmpty() {
		out = append(out, fmt.Sprintf("Why %s %s failed (exit code, attempts): %s pods are gone (pod garbage collection, TTL, or deleted by hand).",
			plural(s.Len(), "index", "indexes"), s.Truncated(setWidth), plural(s.Len(), "its", "their")))
	}
	if s := set(&b.noPodLeft); !s.IsEmpty() {
		out = append(out, fmt.Sprintf("Whether %s %s ran at all, and how far: no pod is left (%s).",
			plural(s.Len(), "index", "indexes"), s.Truncated(setWidth), b.goneWords()))
	}
	if !b.perIndex {
		seenFailed := b.countedFailed
		if int(b.job.Status.Failed) > seenFailed && b.phase != PhaseFailed && b.phase != PhaseFailing {
			out = append(out, fmt.Sprintf("status.failed counts %d failed pods but %d are left: attempts per index are counted from the pods still present.",
				b.job.Status.Failed, seenFailed))
		} else if b.phase == PhaseFailed || b.phase == PhaseFailing {
			out = append(out, "Without backoffLimitPerIndex the attempts of an index are counted from its pods still present; killed and deleted pods are not seen.")
		}
	}
	if b.globalEstimation {
		out = append(out, "Without backoffLimitPerIndex the retry delay is the controller's global backoff, which it keeps in memory (lost on restart); the times shown are estimates from the pods still present.")
	}
	return out
}

// notes are other observations.
func (b *reportBuilder) notes() []string {
	var out []string
	job := b.job
	if job.DeletionTimestamp != nil {
		out = append(out, "The Job is being deleted.")
	}
	if mb := job.Spec.ManagedBy; mb != nil && *mb != batchv1.JobControllerName {
		out = append(out, fmt.Sprintf("spec.managedBy is %q: the built-in Job controller ignores this Job; its status is written by that controller.", *mb))
	}
	if job.Spec.Suspend != nil && !*job.Spec.Suspend && findCondition(job, batchv1.JobSuspended) != nil && !b.finishing {
		out = append(out, "spec.suspend is false but the Suspended condition is still True: the controller has not resumed the Job yet.")
	}
	if s := set(&b.notRecorded); !s.IsEmpty() {
		out = append(out, fmt.Sprintf("%s %s a succeeded pod that the controller has not recorded in completedIndexes yet; shown as Succeeded.",
			plural(s.Len(), "Index", "Indexes"), s.Truncated(setWidth)+plural(s.Len(), " has", " have")))
	}
	if s := set(&b.duplicates); !s.IsEmpty() {
		out = append(out, fmt.Sprintf("%s %s more than one active pod; the controller deletes the extra ones.",
			plural(s.Len(), "Index", "Indexes"), s.Truncated(setWidth)+plural(s.Len(), " has", " have")))
	}
	if b.beyond > 0 {
		var kinds []string
		if n := b.beyondActive; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d active, which the controller deletes without counting %s as failed", n, plural(n, "it", "them")))
		}
		if n := b.beyondDeleting; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d being deleted", n))
		}
		if n := b.beyondSucceeded; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d succeeded, whose %s no longer counted in completedIndexes and succeeded", n, plural(n, "index is", "indexes are")))
		}
		if n := b.beyondFailed; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d failed, still counted in status.failed", n))
		}
		out = append(out, fmt.Sprintf("%d %s an index at or above completions %d (left from a scale-down) and %s not shown: %s.",
			b.beyond, plural(b.beyond, "pod has", "pods have"), b.completions, plural(b.beyond, "is", "are"), strings.Join(kinds, "; ")))
	}
	if n := len(b.acc.ignored); n > 0 {
		out = append(out, fmt.Sprintf("%d %s given %s ignored: they belong to another Job or carry no completion index.",
			n, plural(n, "pod", "pods"), plural(n, "was", "were")))
	}
	if ids := b.opts.ShardIDs; len(ids) > 0 && len(ids) != b.completions {
		out = append(out, fmt.Sprintf("The shard list has %d IDs but completions is %d: indexes without an entry show no shard ID.", len(ids), b.completions))
	}
	return out
}
