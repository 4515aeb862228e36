package status

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// What --watch prints off a terminal, and what --wait prints on standard error while it waits.
//
// Off a terminal (a pipe, a file, a CI log) --watch prints one line per change of the Job's
// state (phase, indexes succeeded, failed pods, active pods, failed indexes, conditions, and
// the report's claim that finished pods run again), with the time since the watch began, and
// the full report once at the end. The state is the Job's status, not the pods: a pod event
// that changes none of it (a pod created, scheduled, started) prints nothing, so the lines are
// bounded by the Job's status updates, which the controller batches, not by pod events.

// progressEvery bounds the rate of --wait's progress lines: at most one per interval, and one
// only when the state changed since the last or progressQuiet passed without a line.
const (
	progressEvery = 10 * time.Second
	progressQuiet = time.Minute
)

// jobState is what a change line compares: the Job's status in a few numbers.
type jobState struct {
	phase       indexstatus.Phase
	completions int32
	succeeded   int
	failedPods  int32
	active      int32
	failedIx    indexes.Set
	conditions  []string
	runsAgain   indexes.Set
}

func stateOf(job *batchv1.Job, r *indexstatus.IndexedJobStatus) jobState {
	s := jobState{phase: r.Phase, completions: r.Completions, succeeded: r.Completeness.Succeeded,
		failedPods: job.Status.Failed, active: job.Status.Active, runsAgain: runsAgain(r)}
	_, s.failedIx = jobpolicy.StatusIndexes(job)
	for _, c := range job.Status.Conditions {
		if c.Status == corev1.ConditionTrue {
			s.conditions = append(s.conditions, string(c.Type))
		}
	}
	return s
}

func (s jobState) key() string {
	return fmt.Sprintf("%s|%d|%d|%d|%s|%s|%s", s.phase, s.succeeded, s.failedPods, s.active, s.failedIx, strings.Join(s.conditions, ","), s.runsAgain)
}

// counts is "Running: 120/2000 succeeded, 3 failed pods, 50 active".
func (s jobState) counts() string {
	return fmt.Sprintf("%s: %d/%d succeeded, %s, %d active", s.phase, s.succeeded, s.completions,
		textwrap.Count(int(s.failedPods), "failed pod", "failed pods"), s.active)
}

// changeLine says what changed from prev (nil: the first line) to s, elapsed after the start:
// "+1m5s Running: 120/2000 succeeded (+20), 3 failed pods (+1), 50 active; index 17 failed;
// condition FailureTarget".
func changeLine(prev *jobState, s jobState, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "+%s %s", indexstatus.FormatDuration(elapsed), s.phase)
	fmt.Fprintf(&b, ": %d/%d succeeded%s, %s%s, %d active", s.succeeded, s.completions, delta(prev, s.succeeded, func(p jobState) int { return p.succeeded }),
		textwrap.Count(int(s.failedPods), "failed pod", "failed pods"), delta(prev, int(s.failedPods), func(p jobState) int { return int(p.failedPods) }), s.active)
	newly, conds := s.failedIx, s.conditions
	if prev != nil {
		newly = s.failedIx.Difference(prev.failedIx)
		conds = slices.DeleteFunc(slices.Clone(conds), func(c string) bool { return slices.Contains(prev.conditions, c) })
	}
	if !newly.IsEmpty() {
		fmt.Fprintf(&b, "; %s %s failed", textwrap.Plural(newly.Len(), "index", "indexes"), newly.Truncated(60))
	}
	if len(conds) > 0 {
		fmt.Fprintf(&b, "; %s %s", textwrap.Plural(len(conds), "condition", "conditions"), strings.Join(conds, ", "))
	}
	if !s.runsAgain.IsEmpty() && (prev == nil || !prev.runsAgain.Equal(s.runsAgain)) {
		// The report's RunsAgain: finished pods the Job's status does not count (watch.hold).
		verb := "indexes %s run again"
		if s.runsAgain.Len() == 1 {
			verb = "index %s runs again"
		}
		fmt.Fprintf(&b, "; "+verb+" (finished pods not counted by the Job)", s.runsAgain)
	}
	return b.String()
}

func delta(prev *jobState, now int, of func(jobState) int) string {
	if prev == nil || now == of(*prev) {
		return ""
	}
	return fmt.Sprintf(" (%+d)", now-of(*prev))
}

// eta estimates how long a running Job has left from the rate its indexes finished (succeeded,
// or failed for good) since it started: (completions - finished) × elapsed / finished. ok is
// false when it cannot be estimated (not running, no start time, nothing finished yet).
func eta(r *indexstatus.IndexedJobStatus, now time.Time) (left time.Duration, finished int, ok bool) {
	if r.Phase != indexstatus.PhaseRunning || r.Counters.StartTime == nil {
		return 0, 0, false
	}
	finished = r.Completeness.Succeeded + r.Summary.Failed
	rest := int(r.Completions) - finished
	ran := now.Sub(*r.Counters.StartTime)
	if finished == 0 || rest <= 0 || ran <= 0 {
		return 0, finished, false
	}
	return time.Duration(float64(ran) / float64(finished) * float64(rest)), finished, true
}

// frameHeader is the first line of a frame on a terminal: how long the watch has run and, when
// it can be estimated, the ETA.
func frameHeader(r *indexstatus.IndexedJobStatus, elapsed time.Duration, now time.Time) string {
	h := fmt.Sprintf("Watching for %s", indexstatus.FormatDuration(elapsed))
	if left, finished, ok := eta(r, now); ok {
		h += fmt.Sprintf("; %d of %d indexes finished, about %s left at the rate since the Job started", finished, r.Completions, indexstatus.FormatDuration(left))
	}
	return h + ".\n\n"
}

// waitProgress prints --wait's progress on standard error at a bounded rate, and warns once
// per suspension that the Job is suspended or waits for admission by Kueue.
type waitProgress struct {
	w       io.Writer
	what    string // "job NAME" or "the lineage of job NAME"
	start   time.Time
	timeout time.Duration // 0: none
	last    time.Time
	lastKey string
	printed bool
	// warned are the Jobs warned of as suspended, until they run again.
	warned map[string]bool
}

// update prints line (the state, keyed by key) when the rate allows: the first at once, then at
// most one per progressEvery, and only when key changed or progressQuiet passed.
func (p *waitProgress) update(now time.Time, key, line string) {
	if p.printed {
		since := now.Sub(p.last)
		if since < progressEvery || (key == p.lastKey && since < progressQuiet) {
			return
		}
	}
	p.printed, p.last, p.lastKey = true, now, key
	left := ""
	if p.timeout > 0 {
		left = fmt.Sprintf(", timeout in %s", indexstatus.FormatDuration(p.timeout-now.Sub(p.start)))
	}
	_, _ = fmt.Fprintf(p.w, "waiting for %s: %s (%s elapsed%s)\n", p.what, line, indexstatus.FormatDuration(now.Sub(p.start)), left)
}

// suspended warns, once until the Job runs again, that it is suspended: why (Kueue's admission,
// or spec.suspend) and what resumes it.
func (p *waitProgress) suspended(name string, r *indexstatus.IndexedJobStatus) {
	if r.Phase != indexstatus.PhaseSuspended {
		delete(p.warned, name)
		return
	}
	if p.warned[name] {
		return
	}
	if p.warned == nil {
		p.warned = map[string]bool{}
	}
	p.warned[name] = true
	for _, e := range r.NextEntries {
		switch e.Kind {
		case indexstatus.EntryAwaitingAdmission:
			_, _ = fmt.Fprintf(p.w, "warning: job %q is suspended, waiting for admission by Kueue: nothing runs until Kueue admits its Workload (%s)\n", name, e.Command)
			return
		case indexstatus.EntryResume:
			_, _ = fmt.Fprintf(p.w, "warning: job %q is suspended (spec.suspend: true): nothing runs until it is resumed (%s)\n", name, e.Command)
			return
		}
	}
	_, _ = fmt.Fprintf(p.w, "warning: job %q is suspended: nothing runs until it is resumed\n", name)
}

// stoppedWaiting is the error of a wait (--wait, or --watch --exit-code) stopped by SIGINT or
// SIGTERM: exit 130 or 143, one line on standard error.
func stoppedWaiting(ctx context.Context, what, state string) error {
	return exitcode.Interrupted(ctx, "waiting for "+what+" to finish", "("+state+")")
}
