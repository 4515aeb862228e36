package status

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
)

// lineagePoll is how often --lineage --wait and --lineage --watch read the Jobs of the lineage
// (one GET of the root and one LIST of its retries by label): a retry is a new Job, which a
// watch of one Job would not see. The pods are read, for the full report, only when the Jobs
// changed on a terminal and once at the end.
const lineagePoll = 2 * time.Second

// watchLineage follows the lineage of o.JobName until every Job of it (the root and each retry)
// has finished, then prints the lineage report once and exits by its verdict (--exit-code,
// --wait). Meanwhile: on a terminal the report is redrawn when a Job changed; off one, --watch
// prints a line per change of the Jobs; --wait prints its progress on standard error.
func (o *Options) watchLineage(ctx context.Context) error {
	start := o.Clock.Now()
	deadline, stop := o.deadline()
	defer stop()
	what := fmt.Sprintf("the lineage of job %q", o.JobName)
	tty := isTerminal(o.Out) && !o.Wait
	var progress *waitProgress
	if o.Wait {
		progress = &waitProgress{w: o.ErrOut, what: what, start: start, timeout: o.Timeout}
	}
	var recorder *lineageRecorder // --record: the pods' watch (lineagerecord.go)
	defer func() { recorder.stop() }()
	lastKey, lines := "", 0
	for first := true; ; first = false {
		run, jobs, notes, err := o.src.Lineage(ctx, o.JobName)
		if err != nil {
			if o.ExitCode && ctx.Err() != nil {
				return stoppedWaiting(ctx, what, "its Jobs not read")
			}
			return err
		}
		if first {
			if recorder, err = o.startLineageRecorder(ctx, run); err != nil {
				return err
			}
		}
		if err := recorder.failed(); err != nil {
			return err
		}
		state, finished := lineageState(jobs)
		if finished {
			return o.endLineage(ctx, run, jobs, notes, lines > 0 && !tty)
		}
		now := o.Clock.Now()
		key := strings.Join(state, "; ")
		if key != lastKey {
			switch {
			case tty:
				rd, err := o.src.ReadLineage(ctx, run, jobs, notes, o.podRead())
				if err != nil {
					return err
				}
				r, err := o.lineageReport(rd)
				if err != nil {
					return err
				}
				var buf bytes.Buffer
				buf.WriteString(clearScreen + fmt.Sprintf("Watching for %s.\n\n", indexstatus.FormatDuration(now.Sub(start))))
				if err := o.printLineage(&buf, r); err != nil {
					return err
				}
				if _, err := o.Out.Write(buf.Bytes()); err != nil {
					return err
				}
			case !o.Wait:
				line := fmt.Sprintf("+%s %s", indexstatus.FormatDuration(now.Sub(start)), key)
				if first {
					line += fmt.Sprintf(" (lineage of job %s/%s; a line per change, the report at the end)", o.src.InNamespace(), run.Root)
				}
				if err := o.printChange(line, &lines); err != nil {
					return err
				}
			}
			lastKey = key
		}
		if progress != nil {
			warnSuspended(progress, jobs, o)
			progress.update(now, key, key)
		}
		if first && o.timeoutSet && o.Timeout == 0 {
			return o.lineageTimedOut(ctx, run, jobs, notes, lines > 0 && !tty, key)
		}
		t := o.Clock.NewTimer(lineagePoll)
		select {
		case <-ctx.Done():
			t.Stop()
			if o.ExitCode {
				return stoppedWaiting(ctx, what, key)
			}
			return nil
		case <-deadline:
			t.Stop()
			return o.lineageTimedOut(ctx, run, jobs, notes, lines > 0 && !tty, key)
		case <-t.C():
		}
	}
}

// endLineage prints the lineage report (after a blank line when sep) and exits by its verdict.
func (o *Options) endLineage(ctx context.Context, run lineage.RunID, jobs []*batchv1.Job, notes []string, sep bool) error {
	rd, err := o.src.ReadLineage(ctx, run, jobs, notes, o.podRead())
	if err != nil {
		return err
	}
	r, err := o.lineageReport(rd)
	if err != nil {
		return err
	}
	if sep {
		if _, err := fmt.Fprintln(o.Out); err != nil {
			return err
		}
	}
	if err := o.printLineage(o.Out, r); err != nil {
		return err
	}
	return o.lineageExit(r)
}

// lineageTimedOut prints the lineage report as it stands and exits Timeout.
func (o *Options) lineageTimedOut(ctx context.Context, run lineage.RunID, jobs []*batchv1.Job, notes []string, sep bool, state string) error {
	if err := o.endLineage(ctx, run, jobs, notes, sep); err != nil && exitcode.Message(err) != "" {
		return err
	}
	return exitcode.TimedOut(o.Timeout, fmt.Sprintf("the lineage of job %q", o.JobName), state, "")
}

// lineageState is one phrase per Job of the lineage, from its status alone ("eval-r1 Running
// 1/2 succeeded, 1 active"), and whether every Job has finished.
func lineageState(jobs []*batchv1.Job) ([]string, bool) {
	finished := true
	out := make([]string, 0, len(jobs))
	for _, j := range jobs {
		done, _ := jobpolicy.StatusIndexes(j)
		phase, _ := indexstatus.DecidePhase(j)
		phrase := fmt.Sprintf("%s %s %d/%d succeeded", j.Name, phase, done.Len(), ptr.Deref(j.Spec.Completions, 0))
		if j.Status.FailedIndexes != nil && *j.Status.FailedIndexes != "" {
			phrase += ", failed indexes " + *j.Status.FailedIndexes
		}
		if !jobpolicy.JobFinished(j) {
			finished = false
			phrase += fmt.Sprintf(", %d active", j.Status.Active)
		}
		out = append(out, phrase)
	}
	return out, finished
}

// warnSuspended warns, once per suspension, of each Job of the lineage that is suspended, in
// the words of its report made from the Job alone (why: Kueue's admission or spec.suspend).
func warnSuspended(p *waitProgress, jobs []*batchv1.Job, o *Options) {
	for _, j := range jobs {
		if phase, _ := indexstatus.DecidePhase(j); phase != indexstatus.PhaseSuspended {
			delete(p.warned, j.Name)
			continue
		}
		acc, err := indexstatus.NewAccumulator(j)
		if err != nil {
			continue
		}
		p.suspended(j.Name, acc.Report(o.reportOptions(nil)))
	}
}
