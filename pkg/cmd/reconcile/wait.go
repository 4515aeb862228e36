package reconcile

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// waitPoll is how often --wait reads the Jobs of the lineage: one GET of the Job (and of its
// root, when JOB is a retry) and one LIST of the root's retries by label. A retry is a new Job,
// which a watch of one Job would not see; the pods are read once, by the reconcile at the end.
const waitPoll = 2 * time.Second

// waitLineage blocks until every Job of the lineage of o.JobName (the Job, its root and every
// retry of the root) has a Complete or Failed condition, saying on standard error which Jobs
// it waits for whenever that changes. It returns the timeout's error when --timeout passed
// first (the caller still reconciles what is there), or the interruption's when a signal
// stopped it.
func (o *Options) waitLineage(ctx context.Context) (timedOut error, err error) {
	src := o.source()
	start := o.Clock.Now()
	var deadline <-chan time.Time
	if o.Timeout > 0 {
		t := o.Clock.NewTimer(o.Timeout)
		defer t.Stop()
		deadline = t.C()
	}
	what := fmt.Sprintf("the lineage of job %q", o.JobName)
	last := ""
	for first := true; ; first = false {
		running, err := o.unfinished(ctx, src)
		if err != nil {
			if ctx.Err() != nil {
				return nil, exitcode.Interrupted(ctx, "waiting for "+what+" to finish", "")
			}
			return nil, err
		}
		state := "every Job finished"
		if len(running) > 0 {
			state = "still running: " + strings.Join(running, ", ")
		}
		if state != last {
			_, _ = fmt.Fprintf(o.ErrOut, "+%s waiting for %s: %s\n", o.Clock.Since(start).Round(time.Second), what, state)
			last = state
		}
		if len(running) == 0 {
			return nil, nil
		}
		if first && o.timeoutSet && o.Timeout == 0 {
			return exitcode.TimedOut(o.Timeout, what, state, "the report above is of the results in so far"), nil
		}
		t := o.Clock.NewTimer(waitPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, exitcode.Interrupted(ctx, "waiting for "+what+" to finish", "("+state+")")
		case <-deadline:
			t.Stop()
			return exitcode.TimedOut(o.Timeout, what, state, "the report above is of the results in so far"), nil
		case <-t.C():
		}
	}
}

// unfinished names, in lineage order, the Jobs of o.JobName's lineage without a Complete or
// Failed condition. The lineage is the one reconcile reads (live): the root by name and UID
// (gone is not running), and the Jobs labelled as its retries that name the same root UID.
func (o *Options) unfinished(ctx context.Context, src *gather.Live) ([]string, error) {
	run, err := gather.ReadRun(ctx, src, o.JobName, o.Namespace)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, j := range lineageOrder(run) {
		if !jobpolicy.JobFinished(j) {
			out = append(out, j.Name)
		}
	}
	return out, nil
}
