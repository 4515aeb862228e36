package indexstatus

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// listLimit is how many indexes a sentence names before it says "and N more".
const listLimit = 5

// setWidth is how many bytes of an interval string a sentence shows.
const setWidth = 60

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

// walkIndexes words every index's facts, folding the grid and the summary as it goes.
func (b *reportBuilder) walkIndexes() {
	r := b.r
	var omitted indexes.Builder
	var groups grouper
	defer func() { r.omitted = omitted.Set(); r.groups = groups.done(b) }()
	if b.opts.AllIndexes {
		// One allocation: growing by append copies the list many times over (about five
		// times its size at 100,000 indexes).
		r.Indexes = make([]IndexStatus, 0, len(b.facts))
	}
	for k := range b.facts {
		f := &b.facts[k]
		r.Summary.add(f.state, 1)
		if n := len(r.Grid); n > 0 && r.Grid[n-1].State == f.state && r.Grid[n-1].Last == f.index-1 {
			r.Grid[n-1].Last = f.index
		} else {
			r.Grid = append(r.Grid, Run{First: f.index, Last: f.index, State: f.state})
		}
		// An index's words are made only when it is listed: at 100,000 completions the
		// text view lists a few, and words for all the others were most of the report's
		// garbage.
		if needsAttention(f.state, int(f.count)) {
			groups.add(f)
		}
		switch {
		case b.opts.AllIndexes:
			r.Indexes = append(r.Indexes, b.indexStatus(f))
		case !needsAttention(f.state, int(f.count)):
		case b.opts.ListLimit > 0 && len(r.Indexes) >= b.opts.ListLimit:
			omitted.Add(f.index)
		default:
			r.Indexes = append(r.Indexes, b.indexStatus(f))
		}
	}
	for k := range r.Grid {
		r.Grid[k].Indexes = indexes.Range(r.Grid[k].First, r.Grid[k].Last).String()
	}
}

// needsAttention selects the indexes the text view lists when not every index is wanted, from
// an index's state and its number of pods.
func needsAttention(state State, pods int) bool {
	switch state {
	case StateSucceeded:
		return false
	case StatePending:
		return pods > 0
	case StateUnfinished:
		return pods > 0
	}
	return true
}

// indexStatus puts one index's facts into the report's fields and words.
func (b *reportBuilder) indexStatus(f *indexFacts) IndexStatus {
	st := IndexStatus{Index: f.index, State: f.state, Attempts: f.attempts, Pods: []string{},
		FailureCount: f.pol.FailureCount, IgnoredFailureCount: f.pol.IgnoredCount, RetriesLeft: f.pol.RetriesLeft}
	if f.unread && b.perIndex {
		// jobpolicy counted the pods read; the succeeded pod's own annotations were these.
		left := max(b.limit-f.unreadCounts[0], 0)
		st.FailureCount, st.IgnoredFailureCount, st.RetriesLeft = f.unreadCounts[0], f.unreadCounts[1], &left
	}
	if f.index < len(b.opts.ShardIDs) {
		st.ShardID = b.opts.ShardIDs[f.index]
	}
	st.Pods = make([]string, len(b.byIndex[f.index]))
	for k, p := range b.byIndex[f.index] {
		st.Pods[k] = p.Name
	}
	if lf := f.lastFinished; lf != nil && lf.exit != nil {
		code := lf.exit.code
		st.LastExitCode = &code
		st.LastReason, st.LastContainer = lf.exit.cause, lf.exit.container
	}
	if lf := f.lastFinished; lf != nil && st.LastReason == "" && lf.r().podReason != "" {
		st.LastReason = lf.r().podReason
	}
	if lf := f.lastFailed; lf != nil && lf.Match.Matched() {
		st.Rule = &RuleMatch{Index: lf.Match.Rule, Action: string(lf.Match.Action), On: lf.r().matchedBy}
	}
	if f.retrying || f.state == StateRetrying {
		ts, rs := int64(f.backoff/time.Second), int64((f.remaining+time.Second-1)/time.Second)
		st.BackoffSeconds, st.BackoffRemainingSeconds = &ts, &rs
	}
	st.Flaky = isFlaky(f)
	st.AttemptHistory, st.AttemptsNotListed = b.attemptHistory(f)
	st.Detail = b.detail(f, &st)
	return st
}

// detail says in words what happened to the index.
func (b *reportBuilder) detail(f *indexFacts, st *IndexStatus) string {
	current, term, lastFailed, succeeded := f.current, f.term, f.lastFailed, f.succeeded
	var d string
	switch st.State {
	case StateSucceeded:
		switch {
		case f.unread:
			// As with the pod read, without its name (--all-pods reads it).
			d = fmt.Sprintf("succeeded on attempt %d", st.Attempts)
		case succeeded != nil && f.pol.NotYetRecorded:
			d = fmt.Sprintf("pod %s succeeded; not yet recorded in status.completedIndexes", succeeded.Name)
		case succeeded != nil:
			d = fmt.Sprintf("succeeded on attempt %d (pod %s)", st.Attempts, succeeded.Name)
		case len(st.Pods) == 0:
			d = "succeeded (" + b.podsGone("its pods are gone") + ")"
		default:
			d = "succeeded"
		}
	case StateFailed:
		if f.pol.NotYetRecorded {
			d = "not yet recorded in status.failedIndexes: "
		}
		d += b.failureWords(st, f)
	case StateRunning, StatePending:
		switch {
		case current != nil && current.Phase == corev1.PodRunning:
			d = fmt.Sprintf("attempt %d running for %s (pod %s)", st.Attempts, b.age(current.startedAt(), current.Created()), current.Name)
			if !current.ready {
				d += ", not ready"
			}
			d += restartWords(current)
			if f.pol.LastAttempt {
				d += fmt.Sprintf("; last attempt: one more failure fails the index (backoffLimitPerIndex %d)", b.limit)
			}
		case current != nil:
			d = fmt.Sprintf("pod %s is %s", current.Name, strings.ToLower(string(current.Phase)))
			if current.r().waiting != "" {
				d += " (" + current.r().waiting + ")"
			}
			d += restartWords(current)
		case len(f.pol.Forgotten) > 0:
			d = b.forgottenWords(f)
		case b.phase == PhaseSuspended && lastFailed != nil:
			d = fmt.Sprintf("Job suspended; attempt %d failed (%s) and is retried after the Job resumes", st.Attempts, exitWords(lastFailed))
		case b.phase == PhaseSuspended:
			d = "Job suspended: no pod runs until it resumes"
		case f.remaining > 0:
			d = fmt.Sprintf("not started yet; the global backoff holds every new pod for about %s more", fmtDuration(f.remaining))
		default:
			d = "not started yet"
		}
		if st.FailureCount+st.IgnoredFailureCount > 0 && lastFailed != nil && current != nil {
			d += fmt.Sprintf("; the previous attempt failed (%s)", exitWords(lastFailed))
		}
	case StateRetrying:
		d = b.retryWords(f, st)
	case StateTerminating:
		d = b.terminatingWords(f, st) + restartWords(term)
	case StateUnfinished:
		switch {
		case lastFailed != nil && !lastFailed.Deleting && lastFailed.Match.Is(batchv1.PodFailurePolicyActionFailJob):
			d = fmt.Sprintf("no result: attempt %d failed (%s), which failed the whole Job", st.Attempts, exitWords(lastFailed))
		case lastFailed != nil && !lastFailed.Deleting:
			d = fmt.Sprintf("no result: attempt %d failed (%s) and the Job %s before it was retried", st.Attempts, exitWords(lastFailed), b.finishedVerb())
		case succeeded != nil:
			d = fmt.Sprintf("no result recorded: pod %s succeeded but the controller did not count it before the Job finished", succeeded.Name)
		case lastFailed != nil:
			d = fmt.Sprintf("no result: pod %s was killed when the Job %s", lastFailed.Name, b.finishedVerb())
		default:
			d = "no result and no pod left: " + b.goneWords()
			if b.opts.PodsNotGiven {
				d = "no result; " + notGiven
			}
		}
	}
	return d
}

// forgottenWords explains an index whose finished pods the controller no longer counts
// (calculateSucceededIndexes and calculateFailedIndexes only count pods with the tracking
// finalizer): it runs again.
func (b *reportBuilder) forgottenWords(f *indexFacts) string {
	names := strings.Join(f.pol.Forgotten, ", ")
	if f.succeeded != nil {
		return fmt.Sprintf("pod %s succeeded, but the index is not in status.completedIndexes and the pod lost its tracking finalizer (an elastic scale-down drops the index; scaling up again does not bring it back): the controller does not count it, and the index runs again", names)
	}
	// getPodsWithDelayedDeletionPerIndex hands counts on only from pods with the finalizer
	// (getValidPodsWithFilter, job_controller.go:2033); a failure counted before stays in
	// status.failed.
	return fmt.Sprintf("pod %s failed, and neither it (its tracking finalizer is gone) nor an active pod carries the index's failure count on (a replacement deleted by a suspension, or a finalizer removed by hand): the index runs again with its failure count back at 0", names)
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
func (b *reportBuilder) failureWords(st *IndexStatus, f *indexFacts) string {
	lastFailed := f.lastFailed
	if f.termFailedLast {
		t := f.term
		// TerminatingOrFailed: a pod being deleted is failed at once (isPodFailed), and on the
		// index's last attempt fails the index (isIndexFailed).
		return fmt.Sprintf("failed: pod %s, attempt %d of %d, is being deleted; under podReplacementPolicy TerminatingOrFailed that counts as a failure at once, backoffLimitPerIndex %d is exhausted, and the index is never started again",
			t.Name, t.Attempt()+1, b.limit+1+t.IgnoredCount, b.limit)
	}
	if lastFailed == nil {
		if len(st.Pods) == 0 {
			return "failed; " + b.podsGone("its pods are gone") + ", so the exit code and the reason are not known"
		}
		return "failed"
	}
	if lastFailed.Match.Is(batchv1.PodFailurePolicyActionFailIndex) {
		return fmt.Sprintf("failed at once: %s matched podFailurePolicy rule %d (FailIndex)", lastFailed.r().matchedBy, lastFailed.Match.Rule)
	}
	if b.perIndex {
		return fmt.Sprintf("failed after %d %s (%s), backoffLimitPerIndex %d exhausted",
			st.Attempts, textwrap.Plural(st.Attempts, "attempt", "attempts"), exitWords(lastFailed), b.limit)
	}
	return fmt.Sprintf("failed (%s)", exitWords(lastFailed))
}

// exitWords describes how a failed attempt ended: "exit code 1 in container worker".
func exitWords(p *podSummary) string {
	var parts []string
	if e := p.exit; e != nil {
		s := fmt.Sprintf("exit code %d in container %s", e.code, e.container)
		if e.cause != "" && e.cause != "Error" && e.cause != "Completed" {
			s += ", " + e.cause
		}
		parts = append(parts, s)
	}
	if p.r().podReason != "" {
		parts = append(parts, "pod "+p.r().podReason)
	}
	if p.r().condition != "" {
		parts = append(parts, p.r().condition)
	}
	if p.Match.Matched() {
		parts = append(parts, fmt.Sprintf("podFailurePolicy rule %d (%s)", p.Match.Rule, p.Match.Action))
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
	if p == nil || p.Restarts == 0 {
		return ""
	}
	s := fmt.Sprintf("; containers restarted %d %s", p.Restarts, textwrap.Plural(int(p.Restarts), "time", "times"))
	if e := p.exit; e != nil && e.code != 0 {
		s += fmt.Sprintf(" (last exit code %d in container %s)", e.code, e.container)
	}
	return s
}

// retryWords explains a Retrying index: the failed attempt and when the replacement comes.
func (b *reportBuilder) retryWords(f *indexFacts, st *IndexStatus) string {
	lastFailed := f.lastFailed
	d := fmt.Sprintf("attempt %d failed (%s)", st.Attempts, exitWords(lastFailed))
	if !lastFailed.Match.CountFailed() {
		d += "; ignored, not counted against the retry limits"
	}
	return d + b.replacementWords(f, st)
}

// replacementWords says when the replacement of a failed attempt is created: after the
// per-index backoff (getRemainingTimePerIndex) or the global one (backoffRecord.getRemainingTime).
func (b *reportBuilder) replacementWords(f *indexFacts, st *IndexStatus) string {
	estimate := ""
	if !b.perIndex {
		estimate = "about "
	}
	next := b.nextAttemptWords(st)
	if b.job.DeletionTimestamp != nil && !b.finishing {
		return "; no replacement: the Job is being deleted"
	}
	if b.waitsForSlot(f.index) {
		if f.remaining > 0 {
			return fmt.Sprintf("; the replacement waits for a free pod slot (lower pending indexes come first), and for its backoff for %s%s more%s", estimate, fmtDuration(f.remaining), next)
		}
		return "; the replacement waits for a free pod slot (lower pending indexes come first)" + next
	}
	if f.remaining > 0 {
		return fmt.Sprintf("; the replacement is created in %s%s (backoff %s)%s", estimate, fmtDuration(f.remaining), fmtDuration(f.backoff), next)
	}
	return fmt.Sprintf("; backoff %s over, the replacement is due now%s", fmtDuration(f.backoff), next)
}

// nextAttemptWords is ", attempt 2 of 2" under backoffLimitPerIndex.
func (b *reportBuilder) nextAttemptWords(st *IndexStatus) string {
	if !b.perIndex {
		return fmt.Sprintf(", attempt %d", st.Attempts+1)
	}
	maxAttempts := int(b.limit) + 1 + int(st.IgnoredFailureCount)
	return fmt.Sprintf(", attempt %d of %d", st.Attempts+1, maxAttempts)
}

// terminatingWords explains a pod being deleted: who deleted it, whether it counts as a
// failure, and when the index runs again.
func (b *reportBuilder) terminatingWords(f *indexFacts, st *IndexStatus) string {
	p := f.term
	age := fmtDuration(b.now.Sub(p.Finished()).Round(time.Second))
	switch b.phase {
	case PhaseFailing, PhaseFailed:
		return fmt.Sprintf("pod %s is being killed because the Job is failing (deleted %s ago)", p.Name, age)
	case PhaseCompleting, PhaseComplete:
		return fmt.Sprintf("pod %s is being deleted because the Job met its success policy (deleted %s ago)", p.Name, age)
	case PhaseSuspended:
		return fmt.Sprintf("pod %s is being deleted because the Job was suspended; not counted as a failure", p.Name)
	}
	if jobpolicy.OnlyReplaceFailedPods(b.job) {
		// firstPendingIndexes leaves out the index only while the pod is not terminal
		// (FilterTerminatingPods, indexed_job_utils.go:252-255); then the backoff counts from its
		// finish, and under backoffLimitPerIndex canRemoveFinalizer keeps its finalizer until the
		// replacement exists (job_controller.go:1461-1476).
		d := fmt.Sprintf("pod %s is being deleted; under podReplacementPolicy Failed its replacement is created once the pod has terminated (phase Failed) and the index's backoff has passed", p.Name)
		if b.perIndex {
			d += "; the controller keeps the pod's tracking finalizer until the replacement exists, which carries the index's failure count on (removing the finalizer by hand resets that count)"
		}
		return d
	}
	if !p.Tracked {
		// deleteJobPods removes the tracking finalizer before deleting, and such a pod is never
		// counted; a pod the controller already counted has lost the finalizer too.
		return fmt.Sprintf("pod %s is being deleted without its tracking finalizer: deleted by the controller itself (parallelism lowered, a duplicate index) it is not counted as failed, and the index is started again when parallelism allows", p.Name)
	}
	d := fmt.Sprintf("pod %s is being deleted; under podReplacementPolicy TerminatingOrFailed it counts as failed at once", p.Name)
	if !p.Match.CountFailed() {
		d = fmt.Sprintf("pod %s is being deleted; under podReplacementPolicy TerminatingOrFailed it is failed at once, but ignored by podFailurePolicy rule %d", p.Name, p.Match.Rule)
	}
	return d + b.replacementWords(f, st)
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

func set(bld *indexes.Builder) indexes.Set { return bld.Set() }

// --- Job level ---

// explain says why the Job is in its phase.
func (b *reportBuilder) explain() string {
	r := b.r
	m := b.completions
	succeeded := b.completed.Len()
	switch b.phase {
	case PhaseRunning:
		if b.job.Status.StartTime == nil && b.acc.Len() == 0 {
			return "The Job has not started yet: no pod exists."
		}
		// The count the Completeness line gives (status.completedIndexes); succeeded pods the
		// controller has not recorded yet are said apart, so the two lines agree.
		s := fmt.Sprintf("The Job is running: %d of %d indexes succeeded", succeeded, m)
		if n := set(&b.notRecorded).Len(); n > 0 {
			s += fmt.Sprintf(" (%d more whose %s succeeded, not yet recorded by the controller)", n, textwrap.Plural(n, "pod", "pods"))
		}
		for _, st := range []State{StateFailed, StateRunning, StatePending, StateRetrying, StateTerminating} {
			if n := r.Summary.Count(st); n > 0 {
				s += fmt.Sprintf(", %d %s", n, strings.ToLower(string(st)))
			}
		}
		s += "."
		if d, ok := b.pendingDecision(); ok {
			switch d.Kind {
			case jobpolicy.Fail:
				s += fmt.Sprintf(" No condition says so yet, but the next sync fails it (%s).", d.Reason)
			case jobpolicy.Succeed:
				s += fmt.Sprintf(" No condition says so yet, but the next sync completes it (%s).", d.Reason)
			}
		}
		return s
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
		if missing := b.completed.Complement(m); !missing.IsEmpty() {
			return b.contradiction(missing)
		}
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
			s += fmt.Sprintf(" (%d %s failed on %s own: %s)", b.ownFailedPods, textwrap.Plural(b.ownFailedPods, "pod", "pods"), textwrap.Plural(b.ownFailedPods, "its", "their"), b.ownFailureList())
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
		s := fmt.Sprintf("The controller is killing the running pods: %d %s terminating", terminating.Len(), textwrap.Plural(terminating.Len(), "index is", "indexes are"))
		if !terminating.IsEmpty() {
			s += " (" + terminating.Truncated(setWidth) + ")"
		}
		return s + "; they are counted as failed and their indexes get no result."
	}
	// status.failed holds no ignored failure (trackJobStatusAndRemoveFinalizers), so the pods
	// killed are what it counts beyond the counted failed pods left.
	killed := int(b.job.Status.Failed) - b.countedFailed
	s := ""
	if killed > 0 {
		s = fmt.Sprintf("The controller killed the running pods: status.failed counts %d failed %s of which %d %s left, so %d %s killed. ",
			b.job.Status.Failed, textwrap.Plural(int(b.job.Status.Failed), "pod", "pods"), b.countedFailed, textwrap.Plural(b.countedFailed, "is", "are"), killed, textwrap.Plural(killed, "was", "were"))
	}
	if unfinished.IsEmpty() {
		return s + "No index was left without a result."
	}
	return s + fmt.Sprintf("%d %s no result (%s).", unfinished.Len(), textwrap.Plural(unfinished.Len(), "index has", "indexes have"), unfinished.Truncated(setWidth))
}

// failedIndexList names the failed indexes with why they failed, one clause per cause
// (causeClauses): "indexes 1,4,7 failed after 2 attempts (exit code 1 in container worker),
// backoffLimitPerIndex 1 exhausted".
func (b *reportBuilder) failedIndexList() string {
	var c causeClauses
	for i := range b.failed.All() {
		if i >= len(b.facts) || b.facts[i].state != StateFailed {
			c.add(i, "", 1)
			continue
		}
		f := &b.facts[i]
		st := IndexStatus{Attempts: f.attempts, Pods: make([]string, f.count)}
		c.add(i, b.failureWords(&st, f), 1)
	}
	return c.join(func(ix indexes.Set, _ int, words string) string {
		if words == "" {
			return indexWords(ix)
		}
		return indexWords(ix) + " " + words
	})
}

// ownFailureList names the pods that failed on their own (not killed), one clause per cause:
// "exit code 1 in container embed: index 4 (3 pods)".
func (b *reportBuilder) ownFailureList() string {
	return b.podClauses(ownFailed, func(p *podSummary) (string, int) { return exitWords(p), 1 },
		func(ix indexes.Set, n int, words string) string {
			s := words + ": " + indexWords(ix)
			if n != ix.Len() {
				s += fmt.Sprintf(" (%d pods)", n)
			}
			return s
		})
}

// ownFailed: the pod failed on its own (not killed: not being deleted).
func ownFailed(p *podSummary) bool { return p.Failed && !p.Deleting }

// restarting: a pending or running pod whose containers restarted.
func restarting(p *podSummary) bool {
	return p.Restarts > 0 && (p.Phase == corev1.PodPending || p.Phase == corev1.PodRunning)
}

// restartList names the pending or running pods whose containers restarted, one clause per
// last exit: "index 1: 2 restarts, last exit code 1 in container worker".
func (b *reportBuilder) restartList() string {
	list := b.podClauses(restarting, func(p *podSummary) (string, int) {
		w := ""
		if e := p.exit; e != nil && e.code != 0 {
			w = fmt.Sprintf(", last exit code %d in container %s", e.code, e.container)
		}
		return w, int(p.Restarts)
	}, func(ix indexes.Set, n int, words string) string {
		return fmt.Sprintf("%s: %d %s%s", indexWords(ix), n, textwrap.Plural(n, "restart", "restarts"), words)
	})
	if list == "" {
		return "no pod left shows a restart"
	}
	return list
}

// podClauses words the pods below completions that keep selects, grouped by the words cause
// gives each (causeClauses, counting what it returns), in index order.
func (b *reportBuilder) podClauses(keep func(*podSummary) bool, cause func(*podSummary) (string, int), clause func(ix indexes.Set, n int, words string) string) string {
	var pods []*podSummary
	for k := range b.acc.pods {
		p := b.acc.pods[k]
		if p.Index < b.completions && keep(p) {
			pods = append(pods, p)
		}
	}
	// By index then creation; a tie in both goes to list order (attempt, then name), so that
	// the words do not follow the map's order.
	slices.SortFunc(pods, func(p, q *podSummary) int {
		return cmp.Or(cmp.Compare(p.Index, q.Index), p.Created().Compare(q.Created()), comparePods(p, q))
	})
	var c causeClauses
	for _, p := range pods {
		w, n := cause(p)
		c.add(p.Index, w, n)
	}
	return c.join(clause)
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
			if p.Name == name {
				return fmt.Sprintf(" (index %d)", p.Index)
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
	// The first pod in list order that matched a FailJob rule.
	var first *podSummary
	for _, p := range b.acc.pods {
		if p.Match.Is(batchv1.PodFailurePolicyActionFailJob) && (first == nil || cmp.Or(cmp.Compare(p.Index, first.Index), comparePods(p, first)) < 0) {
			first = p
		}
	}
	if p := first; p != nil {
		return fmt.Sprintf("Pod %s (index %d): %s matches podFailurePolicy rule %d (FailJob): the whole Job fails at once, without retries.",
			p.Name, p.Index, p.r().matchedBy, p.Match.Rule)
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
		s := fmt.Sprintf("%d %s to finish terminating", terminating, textwrap.Plural(terminating, "pod", "pods"))
		if ix := set(&b.terminatingIx); !ix.IsEmpty() {
			s += fmt.Sprintf(" (%s %s)", textwrap.Plural(ix.Len(), "index", "indexes"), ix.Truncated(setWidth))
		}
		parts = append(parts, s)
	}
	if u := b.job.Status.UncountedTerminatedPods; u != nil && len(u.Failed)+len(u.Succeeded) > 0 {
		parts = append(parts, fmt.Sprintf("the controller to count %d finished pods", len(u.Failed)+len(u.Succeeded)))
	}
	return parts, final
}

// contradiction explains a Job marked Complete (CompletionsReached) whose completedIndexes
// lacks some indexes: the built-in controller never writes that (it sets Complete only once
// every index is in completedIndexes, job_controller.go: syncJob / enactJobFinished), so the
// status was written by another controller (spec.managedBy) or by hand.
func (b *reportBuilder) contradiction(missing indexes.Set) string {
	who := "by something other than the built-in Job controller"
	if mb := b.job.Spec.ManagedBy; mb != nil && *mb != batchv1.JobControllerName {
		who = fmt.Sprintf("by %q (spec.managedBy)", *mb)
	}
	return fmt.Sprintf("The Job's status contradicts itself: the Complete condition says all %d completions were reached (CompletionsReached), but status.completedIndexes records only %d of them (no result for %s). The built-in Job controller never writes this; the status was written %s. Do not take the result as complete.",
		b.completions, b.completed.Len(), missing.Truncated(setWidth), who)
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
	case b.phase == PhaseComplete || b.phase == PhaseCompleting:
		c.Verdict = fmt.Sprintf("NOT complete: the Job is marked complete but only %d of %d indexes succeeded; no result for %s (its status contradicts itself)", n, m, missing.Truncated(setWidth))
	default:
		c.Verdict = fmt.Sprintf("incomplete so far: %d of %d indexes succeeded; no result yet for %s", n, m, missing.Truncated(setWidth))
	}
	return c
}

// explainEntry is the explanation as a typed entry.
func (b *reportBuilder) explainEntry() Entry {
	e := Entry{Text: b.explain()}
	switch b.phase {
	case PhaseRunning:
		e.Kind = EntryRunning
		if b.job.Status.StartTime == nil && b.acc.Len() == 0 {
			e.Kind = EntryNotStarted
		}
	case PhaseSuspended:
		e.Kind, e.Command = EntrySuspended, b.resumeCommand()
	default:
		e.Kind, e.Reason = EntryReason, b.r.Reason
		switch {
		case !b.failed.IsEmpty():
			e.Indexes = b.failed.String()
		case b.states[StateUnfinished].Set().Len() > 0:
			e.Indexes = b.states[StateUnfinished].Set().String()
		}
	}
	return e
}

func (b *reportBuilder) resumeCommand() string {
	return fmt.Sprintf("kubectl patch job %s -n %s --type=merge -p '{\"spec\":{\"suspend\":false}}'", b.job.Name, b.job.Namespace)
}

func count64(n int64) *int64 { return &n }

func timePtr(t time.Time) *time.Time {
	u := t.UTC().Truncate(time.Second)
	return &u
}

// kueueQueueLabel names the LocalQueue of a Job that Kueue admits (and suspends until then).
const kueueQueueLabel = "kueue.x-k8s.io/queue-name"

// next says what happens next: the facts of jobpolicy, as entries with their words.
func (b *reportBuilder) next() []Entry {
	var out []Entry
	job, pol := b.job, b.pol
	if mb := job.Spec.ManagedBy; mb != nil && *mb != batchv1.JobControllerName && b.phase != PhaseFailed && b.phase != PhaseComplete {
		// syncJob returns before acting on it (managedByExternalController): no built-in retry,
		// pod creation, counting or finishing.
		return append(out, Entry{Kind: EntryExternalController, Text: fmt.Sprintf("spec.managedBy is %q: the built-in Job controller does not act on this Job (it creates, retries, counts and finishes nothing); what runs next is up to that controller.", *mb)})
	}
	if job.DeletionTimestamp != nil && (b.phase == PhaseRunning || b.phase == PhaseSuspended) {
		// syncJob runs manageJob only when job.DeletionTimestamp == nil (job_controller.go:1139),
		// and canRemoveFinalizer lets every pod's finalizer go (1462).
		return append(out, Entry{Kind: EntryBeingDeleted, Text: "The Job is being deleted (metadata.deletionTimestamp is set): the controller creates and retries no pod any more, and removes the tracking finalizers of its pods (counting the ones that finished); with foreground deletion the Job goes once its pods are gone."})
	}
	switch b.phase {
	case PhaseFailed, PhaseComplete:
		e := Entry{Kind: EntryFinished, Text: "Nothing more will run: the Job is finished."}
		if ttl := job.Spec.TTLSecondsAfterFinished; ttl != nil {
			if c := b.cond; c != nil && !c.LastTransitionTime.IsZero() {
				at := c.LastTransitionTime.Add(time.Duration(*ttl) * time.Second)
				e.DueAt = timePtr(at)
				if at.After(b.now) {
					e.Text += fmt.Sprintf(" The Job and its pods are deleted in %s (ttlSecondsAfterFinished %d).", fmtDuration(at.Sub(b.now)), *ttl)
				} else {
					e.Text += fmt.Sprintf(" The Job and its pods are due for deletion (ttlSecondsAfterFinished %d).", *ttl)
				}
			}
		}
		return append(append(out, e), b.finishedActions()...)
	case PhaseFailing, PhaseCompleting:
		parts, final := b.waitParts()
		e := Entry{Kind: EntryFinishing, Indexes: set(&b.terminatingIx).String()}
		if len(parts) == 0 {
			e.Text = fmt.Sprintf("The controller adds the %s condition at its next sync.", final)
		} else {
			e.Text = fmt.Sprintf("The Job becomes %s after waiting for %s.", final, strings.Join(parts, " and "))
		}
		return append(out, e)
	case PhaseSuspended:
		left := b.completions - b.completed.Len() - pol.Failed.Difference(b.completed).Len()
		if q := job.Labels[kueueQueueLabel]; q != "" {
			// Kueue owns spec.suspend: it un-suspends the Job once its Workload is admitted.
			e := Entry{Kind: EntryAwaitingAdmission,
				Command: fmt.Sprintf("kubectl get workloads.kueue.x-k8s.io -n %s -l kueue.x-k8s.io/job-uid=%s", job.Namespace, job.UID),
				Text: fmt.Sprintf("The Job is waiting for admission by Kueue (LocalQueue %s): Kueue sets spec.suspend to false once its Workload is admitted, then the controller starts the %d %s without a result. Leave spec.suspend to Kueue.",
					q, left, textwrap.Plural(left, "index", "indexes"))}
			if kq := b.opts.Queue; kq != nil && kq.Next != "" {
				e.Text = fmt.Sprintf("%s Once admitted, the controller starts the %d %s without a result.", kq.Next, left, textwrap.Plural(left, "index", "indexes"))
			}
			return append(out, e)
		}
		// The command ends the text, as every entry's does, so that the text output prints it.
		e := Entry{Kind: EntryResume, Command: b.resumeCommand(), Text: fmt.Sprintf("Nothing runs until spec.suspend is set to false; then the controller starts the %d %s without a result (startTime is reset, so activeDeadlineSeconds counts from the resume). Resume it: %s",
			left, textwrap.Plural(left, "index", "indexes"), b.resumeCommand())}
		out = append(out, e)
		if failed := set(b.states[StateFailed]); !failed.IsEmpty() {
			out = append(out, Entry{Kind: EntryCannotSucceed, Indexes: failed.String(), Text: fmt.Sprintf("%s %s failed (backoffLimitPerIndex exhausted, counted while the Job is suspended): %s never started again.",
				textwrap.Plural(failed.Len(), "Index", "Indexes"), failed.Truncated(setWidth), textwrap.Plural(failed.Len(), "it is", "they are"))})
		}
		return out
	}
	// Running.
	if e, ok := b.nextSyncFinishes(); ok {
		return append(out, e)
	}
	unsched := b.unschedulable()
	out = append(out, unsched...)
	var waiting []int
	retrying := b.retrying[:0:0]
	for _, i := range b.retrying {
		if b.waitsForSlot(i) {
			waiting = append(waiting, i)
		} else {
			retrying = append(retrying, i)
		}
	}
	for k, i := range retrying {
		if k == listLimit {
			out = append(out, Entry{Kind: EntryRetry, Indexes: indexes.Of(retrying[k:]...).String(),
				Text: fmt.Sprintf("%d more retrying indexes are retried after their backoff.", len(retrying)-k)})
			break
		}
		f := &b.facts[i]
		st := IndexStatus{Attempts: f.attempts, IgnoredFailureCount: f.pol.IgnoredCount}
		attempt := strings.TrimPrefix(b.nextAttemptWords(&st), ", ")
		e := Entry{Kind: EntryRetry, Indexes: strconv.Itoa(i), DueAt: timePtr(b.now.Add(f.remaining))}
		switch {
		case b.perIndex && f.remaining > 0:
			e.Text = fmt.Sprintf("Index %d will be retried after %s (%s).", i, fmtDuration(f.remaining), attempt)
		case b.perIndex:
			e.Text = fmt.Sprintf("Index %d is due to be retried now (%s).", i, attempt)
		default:
			n := int32(0)
			if pol.Global != nil {
				n = pol.Global.Failures
			}
			e.Text = fmt.Sprintf("Index %d will be retried after about %s (global backoff after %d %s since the last success; %s).",
				i, fmtDuration(f.remaining), n, textwrap.Plural(int(n), "failure", "failures"), attempt)
		}
		out = append(out, e)
	}
	if len(waiting) > 0 {
		out = append(out, b.waitEntry(waiting))
	}
	for k, i := range b.lastAttempt {
		if k == listLimit {
			out = append(out, Entry{Kind: EntryLastAttempt, Indexes: indexes.Of(b.lastAttempt[k:]...).String(),
				Text: fmt.Sprintf("%d more running indexes are on their last attempt.", len(b.lastAttempt)-k)})
			break
		}
		out = append(out, Entry{Kind: EntryLastAttempt, Indexes: strconv.Itoa(i),
			Text: fmt.Sprintf("Index %d is on its last attempt: one more failure fails the index (backoffLimitPerIndex %d).", i, b.limit)})
	}
	if s := set(&b.forgotten); !s.IsEmpty() {
		text := fmt.Sprintf("%s %s finished pods without their tracking finalizer and no result in status.completedIndexes or status.failedIndexes: the controller does not take them into account for the %s, and the %s again",
			textwrap.Plural(s.Len(), "Index", "Indexes"), s.Truncated(setWidth)+textwrap.Plural(s.Len(), " has", " have"), textwrap.Plural(s.Len(), "index", "indexes"), textwrap.Plural(s.Len(), "index runs", "indexes run"))
		if b.forgottenFailed {
			// getValidPodsWithFilter (job_controller.go:2033) reads only pods with the
			// finalizer: no failure count is handed on, but status.failed keeps what it counted.
			text += "; a failed one hands no failure count on (the index runs with its failure count back at 0), but stays in status.failed if the controller counted it"
		}
		out = append(out, Entry{Kind: EntryRunsAgain, Indexes: s.String(), Text: text + "."})
	}
	running := b.r.Summary.Running + b.r.Summary.Pending - b.notStarted // indexes with an active pod
	for _, e := range unsched {
		running -= indexesLen(e.Indexes)
	}
	if b.perIndex {
		nFailed := pol.Failed.Len()
		if left := pol.FailedIndexesLeft; left != nil {
			k := max(*left, 1)
			out = append(out, Entry{Kind: EntryMaxFailed, Count: count64(k), Indexes: pol.Failed.String(), Text: fmt.Sprintf("%d more failed %s the Job (maxFailedIndexes %d, %d failed so far), killing its running pods.",
				k, textwrap.Plural(int(k), "index aborts", "indexes abort"), *job.Spec.MaxFailedIndexes, nFailed)})
		}
		if nFailed > 0 && pol.CanSucceed {
			out = append(out, Entry{Kind: EntryCanStillSucceed, Indexes: pol.Failed.String(), Text: fmt.Sprintf("Indexes %s failed, but the Job can still succeed: the controller fails it for failed indexes only once every index has a result, and the success policy is checked before that; if the policy is not met by then, it ends Failed (FailedIndexes).",
				pol.Failed.Truncated(setWidth))})
		} else if nFailed > 0 {
			out = append(out, Entry{Kind: EntryCannotSucceed, Indexes: pol.Failed.String(), Text: fmt.Sprintf("The Job cannot succeed any more (indexes %s failed): it ends Failed (FailedIndexes) once every other index has a result.", pol.Failed.Truncated(setWidth))})
		}
	}
	// With nothing running and pods the scheduler cannot place, no budget is being spent.
	if spec := pol.Spec; (!b.perIndex || spec.BackoffLimit != jobpolicy.UnlimitedBackoffLimit) && (running > 0 || len(unsched) == 0) {
		k := max(pol.FailuresLeft, 1)
		out = append(out, Entry{Kind: EntryBackoffLimit, Count: count64(k), Text: fmt.Sprintf("The global backoffLimit %d is %d %s away from failing the Job and killing its %d running %s.",
			spec.BackoffLimit, k, textwrap.Plural(int(k), "failure", "failures"), running, textwrap.Plural(running, "index", "indexes"))})
		if spec.RestartsCount() {
			k := max(pol.RestartsLeft, 1)
			words := fmt.Sprintf("%d more container %s", k, textwrap.Plural(int(k), "restart", "restarts"))
			if k == 1 {
				words = "The next container restart"
			}
			out = append(out, Entry{Kind: EntryRestartLimit, Count: count64(k), Text: fmt.Sprintf("%s in a pending or running pod %s the Job (restartPolicy OnFailure: %d %s so far against backoffLimit %d).",
				words, textwrap.Plural(int(k), "fails", "fail"), pol.Restarts, textwrap.Plural(int(pol.Restarts), "restart", "restarts"), spec.BackoffLimit)})
		}
	}
	if ads := job.Spec.ActiveDeadlineSeconds; ads != nil && !pol.DeadlineAt.IsZero() {
		at := pol.DeadlineAt
		e := Entry{Kind: EntryDeadline, DueAt: timePtr(at)}
		if at.After(b.now) {
			e.Text = fmt.Sprintf("activeDeadlineSeconds %d fails the Job in %s if it has not finished by then.", *ads, fmtDuration(at.Sub(b.now)))
		} else {
			e.Text = fmt.Sprintf("activeDeadlineSeconds %d has passed: the controller fails the Job at its next sync.", *ads)
		}
		out = append(out, e)
	}
	if pending := b.notStarted - b.forgotten.Set().Len(); pending > 0 {
		// Parallelism's slots are held by the indexes with an active pod (running or pending)
		// and by those waiting out a backoff, which the controller starts first (lowest first).
		active := b.r.Summary.Running + b.r.Summary.Pending - b.notStarted
		held := fmt.Sprintf("%d active", active)
		if r := b.r.Summary.Retrying; r > 0 {
			held += fmt.Sprintf(", %d retrying", r)
		}
		them := textwrap.Plural(pending, "it", "them")
		text := fmt.Sprintf("%d %s not started yet; the controller starts %s, lowest first, as active pods finish (parallelism %d: %s).",
			pending, textwrap.Plural(pending, "index is", "indexes are"), them, b.r.Parallelism, held)
		if active+b.r.Summary.Retrying < int(b.r.Parallelism) {
			// A slot is free: nothing waits for an active pod to finish.
			text = fmt.Sprintf("%d %s not started yet although parallelism %d leaves room (%s); the controller starts %s, lowest first, at a next sync, unless a quota or an admission webhook holds %s back.",
				pending, textwrap.Plural(pending, "index is", "indexes are"), b.r.Parallelism, held, them, them)
		}
		out = append(out, Entry{Kind: EntryNotStartedYet, Count: count64(int64(pending)), Text: text})
	}
	return out
}

// waitEntry says that retrying indexes wait for a free pod slot before their backoff matters.
func (b *reportBuilder) waitEntry(waiting []int) Entry {
	ix := indexes.Of(waiting...)
	var ahead []int
	for i := range b.considered {
		ahead = append(ahead, i)
	}
	slices.Sort(ahead)
	why := fmt.Sprintf("no pod slot is free now (parallelism %d)", b.r.Parallelism)
	if b.free > 0 {
		why = fmt.Sprintf("parallelism %d leaves %d free %s, which the controller fills with the lowest pending indexes first (%s %s)",
			b.r.Parallelism, b.free, textwrap.Plural(b.free, "slot", "slots"), textwrap.Plural(len(ahead), "index", "indexes"), indexes.Of(ahead...).Truncated(setWidth))
	}
	return Entry{Kind: EntryRetryWaits, Indexes: ix.String(), Text: fmt.Sprintf("%s %s %s for a free pod slot: %s. %s retried once a slot is free for %s and %s backoff has passed, not at a time known now.",
		textwrap.Plural(ix.Len(), "Index", "Indexes"), ix.Truncated(setWidth), textwrap.Plural(ix.Len(), "waits", "wait"), why,
		textwrap.Plural(ix.Len(), "It is", "They are"), textwrap.Plural(ix.Len(), "it", "them"), textwrap.Plural(ix.Len(), "its", "their"))}
}

// nextSyncFinishes is, for a Running Job without a finishing condition yet, what its next
// sync decides (jobpolicy's decision, syncJob's order): it sets FailureTarget or
// SuccessCriteriaMet and deletes the active pods (deleteActivePods, job_controller.go:1125),
// or, with every index succeeded, manageJob deletes the active pods (wantActive 0, 1781-1806)
// and the Job completes in the same sync (1154).
func (b *reportBuilder) nextSyncFinishes() (Entry, bool) {
	d, ok := b.pendingDecision()
	if !ok {
		return Entry{}, false
	}
	n := b.activePods
	pods := fmt.Sprintf("%d running %s", n, textwrap.Plural(n, "pod", "pods"))
	e := Entry{Kind: EntryNextSyncFinishes, Reason: d.Reason}
	switch d.Reason {
	case batchv1.JobReasonCompletionsReached:
		e.Text = "Every index succeeded: the next sync completes the Job (CompletionsReached)"
		if n > 0 {
			e.Text += fmt.Sprintf(", after it deletes the %d %s still running (at or above completions after a scale-down, or extra pods of an index) without counting %s as failed",
				n, textwrap.Plural(n, "pod", "pods"), textwrap.Plural(n, "it", "them"))
		}
		e.Text += "."
	case batchv1.JobReasonSuccessPolicy:
		e.Text = fmt.Sprintf("The success policy is met: the next sync marks the Job succeeded (SuccessCriteriaMet, SuccessPolicy), deletes the %s without counting them as failed, and adds Complete once they are gone.", pods)
	default:
		e.Text = fmt.Sprintf("The next sync fails the Job (%s: %s): the controller adds the FailureTarget condition, deletes the %s and creates and retries nothing; Failed follows once the pods are gone.",
			d.Reason, b.failureCause(d.Reason), pods)
	}
	return e, true
}

// pendingDecision is the finishing condition the built-in controller's next sync sets on a
// Running Job that has none yet; not for a Job being deleted, one another controller manages,
// or a report made without the pods (whether pods still run is not known).
func (b *reportBuilder) pendingDecision() (jobpolicy.Decision, bool) {
	d := b.pol.Decision
	if d.Existing || (d.Kind != jobpolicy.Fail && d.Kind != jobpolicy.Succeed) || b.phase != PhaseRunning || b.opts.PodsNotGiven || b.job.DeletionTimestamp != nil {
		return d, false
	}
	if mb := b.job.Spec.ManagedBy; mb != nil && *mb != batchv1.JobControllerName {
		return d, false
	}
	return d, true
}

// failureCause says in a few words why the next sync fails the Job.
func (b *reportBuilder) failureCause(reason string) string {
	pol := b.pol
	switch reason {
	case batchv1.JobReasonPodFailurePolicy:
		var first *podSummary
		for _, p := range b.acc.pods {
			if p.Failed && p.Match.Is(batchv1.PodFailurePolicyActionFailJob) && (first == nil || cmp.Or(cmp.Compare(p.Index, first.Index), comparePods(p, first)) < 0) {
				first = p
			}
		}
		if first != nil {
			return fmt.Sprintf("pod %s (index %d) failed with %s, a FailJob rule", first.Name, first.Index, first.r().matchedBy)
		}
		return "a failed pod matches a FailJob rule of the podFailurePolicy"
	case batchv1.JobReasonBackoffLimitExceeded:
		if pol.Spec.RestartsCount() && pol.RestartsLeft <= 0 {
			return fmt.Sprintf("%d container restarts reach backoffLimit %d", pol.Restarts, pol.Spec.BackoffLimit)
		}
		return fmt.Sprintf("%d counted failures exceed backoffLimit %d", pol.CountedFailures, pol.Spec.BackoffLimit)
	case batchv1.JobReasonDeadlineExceeded:
		return fmt.Sprintf("activeDeadlineSeconds %d has passed", deref64(b.job.Spec.ActiveDeadlineSeconds))
	case batchv1.JobReasonMaxFailedIndexesExceeded:
		return fmt.Sprintf("%d indexes failed, more than maxFailedIndexes %d", pol.Failed.Len(), deref32(b.job.Spec.MaxFailedIndexes, 0))
	case batchv1.JobReasonFailedIndexes:
		return fmt.Sprintf("every index has a result and %d failed", pol.Failed.Len())
	}
	return reason
}

// unknown says what cannot be known from what is left.
func (b *reportBuilder) unknown() []Entry {
	var out []Entry
	if s := set(&b.failedGone); !s.IsEmpty() {
		e := Entry{Kind: EntryFailureGone, Indexes: s.String(), Text: fmt.Sprintf("Why %s %s failed (exit code, attempts): %s pods are gone (pod garbage collection, TTL, or deleted by hand).",
			textwrap.Plural(s.Len(), "index", "indexes"), s.Truncated(setWidth), textwrap.Plural(s.Len(), "its", "their"))}
		if b.opts.PodsNotGiven {
			e.Text = fmt.Sprintf("Why %s %s failed (exit code, attempts): %s.", textwrap.Plural(s.Len(), "index", "indexes"), s.Truncated(setWidth), notGiven)
		}
		out = append(out, e)
	}
	if s := set(&b.noPodLeft); !s.IsEmpty() {
		e := Entry{Kind: EntryRunUnknown, Indexes: s.String(), Text: fmt.Sprintf("Whether %s %s ran at all, and how far: no pod is left (%s).",
			textwrap.Plural(s.Len(), "index", "indexes"), s.Truncated(setWidth), b.goneWords())}
		if b.opts.PodsNotGiven {
			e.Text = fmt.Sprintf("Whether %s %s ran at all, and how far: %s.", textwrap.Plural(s.Len(), "index", "indexes"), s.Truncated(setWidth), notGiven)
		}
		out = append(out, e)
	}
	if !b.perIndex {
		seenFailed := b.countedFailed
		if int(b.job.Status.Failed) > seenFailed && b.phase != PhaseFailed && b.phase != PhaseFailing {
			out = append(out, Entry{Kind: EntryAttemptsUnknown, Text: fmt.Sprintf("status.failed counts %d failed pods but %d are left: attempts per index are counted from the pods still present.",
				b.job.Status.Failed, seenFailed)})
		} else if b.phase == PhaseFailed || b.phase == PhaseFailing {
			out = append(out, Entry{Kind: EntryAttemptsUnknown, Text: "Without backoffLimitPerIndex the attempts of an index are counted from its pods still present; killed and deleted pods are not seen."})
		}
		if len(b.retrying) > 0 || b.pol.Global != nil && b.phase == PhaseRunning && b.notStarted > 0 {
			out = append(out, Entry{Kind: EntryBackoffEstimate, Text: "Without backoffLimitPerIndex the retry delay is the controller's global backoff, which it keeps in memory (lost on restart); the times shown are estimates from the pods still present."})
		}
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
	if job.Spec.Suspend != nil && !*job.Spec.Suspend && jobpolicy.ConditionTrue(job, batchv1.JobSuspended) != nil && !b.finishing {
		out = append(out, "spec.suspend is false but the Suspended condition is still True: the controller has not resumed the Job yet.")
	}
	if s := set(&b.notRecorded); !s.IsEmpty() {
		out = append(out, fmt.Sprintf("%s %s a succeeded pod that the controller has not recorded in completedIndexes yet; shown as Succeeded.",
			textwrap.Plural(s.Len(), "Index", "Indexes"), s.Truncated(setWidth)+textwrap.Plural(s.Len(), " has", " have")))
	}
	if s := set(&b.duplicates); !s.IsEmpty() {
		out = append(out, fmt.Sprintf("%s %s more than one active pod; the controller deletes the extra ones.",
			textwrap.Plural(s.Len(), "Index", "Indexes"), s.Truncated(setWidth)+textwrap.Plural(s.Len(), " has", " have")))
	}
	if b.beyond > 0 {
		var kinds []string
		if n := b.beyondActive; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d active, which the controller deletes without counting %s as failed", n, textwrap.Plural(n, "it", "them")))
		}
		if n := b.beyondDeleting; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d being deleted", n))
		}
		if n := b.beyondSucceeded; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d succeeded, whose %s no longer counted in completedIndexes and succeeded", n, textwrap.Plural(n, "index is", "indexes are")))
		}
		if n := b.beyondFailed; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d failed, still counted in status.failed", n))
		}
		out = append(out, fmt.Sprintf("%d %s an index at or above completions %d (left from a scale-down) and %s not shown: %s.",
			b.beyond, textwrap.Plural(b.beyond, "pod has", "pods have"), b.completions, textwrap.Plural(b.beyond, "is", "are"), strings.Join(kinds, "; ")))
	}
	if n := len(b.acc.ignored); n > 0 {
		out = append(out, fmt.Sprintf("%d %s given %s ignored: they belong to another Job or carry no completion index.",
			n, textwrap.Plural(n, "pod", "pods"), textwrap.Plural(n, "was", "were")))
	}
	if ids := b.opts.ShardIDs; len(ids) > 0 && len(ids) != b.completions {
		out = append(out, fmt.Sprintf("The shard list has %d IDs but completions is %d: indexes without an entry show no shard ID.", len(ids), b.completions))
	}
	return out
}
