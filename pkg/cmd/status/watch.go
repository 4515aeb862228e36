package status

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// clearScreen moves the cursor home and clears a terminal, to redraw in place.
const clearScreen = "\x1b[H\x1b[2J"

// maxDrain bounds how many queued events are applied before a redraw.
const maxDrain = 1000

// watcher follows a Job and its pods with one Job watch and one pod watch (gather's FollowJob
// and FollowPods), from the resourceVersions of the initial read; it reads again only when
// the server says a watch expired.
type watcher struct {
	o    *Options
	st   *liveState
	jobW *gather.Follower
	podW *gather.Follower
	tty  bool
	last []byte

	// start is when the watch began (elapsed times, --timeout); lines counts the change lines
	// printed off a terminal and state is the last one's (changeLine); progress is --wait's.
	start    time.Time
	lines    int
	state    *jobState
	progress *waitProgress

	// shownRunsAgain are the indexes the last frame shown said run again; holdUntil, when
	// set, is the end of the grace of a frame held back (see hold), and wake fires then.
	shownRunsAgain indexes.Set
	holdUntil      time.Time
	holdTimer      clock.Timer
	wake           <-chan time.Time
}

// deadline is the channel --timeout fires on (nil without a positive --timeout: never), and
// the function that stops its timer; --watch, --wait and the lineage's wait share it.
func (o *Options) deadline() (<-chan time.Time, func()) {
	if !o.timeoutSet || o.Timeout <= 0 {
		return nil, func() {}
	}
	t := o.Clock.NewTimer(o.Timeout)
	return t.C(), func() { t.Stop() }
}

func (o *Options) watch(ctx context.Context) error {
	start := o.Clock.Now()
	deadline, stop := o.deadline()
	defer stop()
	rd, err := o.src.ReadJob(ctx, o.readOptions())
	var st *liveState
	if err == nil {
		st, err = o.state(rd)
	}
	if err != nil {
		if o.ExitCode && ctx.Err() != nil {
			return stoppedWaiting(ctx, fmt.Sprintf("job %q", o.JobName), "not read yet")
		}
		return err
	}
	// --wait draws no frame on a terminal either: the report is printed once, at the end.
	w := &watcher{o: o, st: st, tty: isTerminal(o.Out) && !o.Wait, start: start}
	if o.Wait {
		w.progress = &waitProgress{w: o.ErrOut, what: fmt.Sprintf("job %q", o.JobName), start: start, timeout: o.Timeout}
	}
	r, err := w.show(st.report(o), true)
	if err != nil || r.Phase.Terminal() {
		if err != nil {
			return err
		}
		return o.exitError(r)
	}
	w.report(r)
	if o.timeoutSet && o.Timeout == 0 {
		// As kubectl wait --timeout 0: look once, do not wait.
		return w.timedOut(r)
	}
	defer w.stop()
	if err := w.startWatches(ctx); err != nil {
		return err
	}
	// Time moves on its own (backoff countdowns, ages, the elapsed time): a terminal is
	// redrawn every second, other outputs only on changes of the Job or its pods; --wait's
	// progress is looked at every progressEvery.
	var tick, progressTick <-chan time.Time
	if w.tty {
		t := o.Clock.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C()
	}
	if w.progress != nil {
		t := o.Clock.NewTicker(progressEvery)
		defer t.Stop()
		progressTick = t.C()
	}
	for {
		select {
		case <-ctx.Done():
			return w.end(ctx, r)
		case <-deadline:
			return w.timedOut(r)
		case ev := <-w.jobW.Events():
			err = w.onJob(ctx, ev)
		case ev := <-w.podW.Events():
			err = w.onPod(ctx, ev)
		case <-tick:
		case <-progressTick:
		case <-w.wake:
			w.wake = nil
		}
		if err == nil {
			err = w.drain(ctx)
		}
		if err != nil && ctx.Err() != nil {
			return w.end(ctx, r)
		}
		if err != nil {
			return err
		}
		next := w.st.report(o)
		if next.Phase.Terminal() {
			// The Job and its pods come on two watches: a pod's last event may still be on its
			// way when the Job's final condition arrives. The final report reads the pods again.
			acc, _, err := o.src.JobPods(ctx, w.st.Job, o.podRead())
			if err != nil {
				if ctx.Err() != nil {
					return w.end(ctx, r)
				}
				return err
			}
			w.st.Pods = acc
			next = w.st.report(o)
		}
		w.report(next)
		if !next.Phase.Terminal() && w.hold(next) {
			continue
		}
		if r, err = w.show(next, false); err != nil {
			return err
		}
		if r.Phase.Terminal() {
			return o.exitError(r)
		}
	}
}

// report gives --wait's progress the report r: a warning when the Job is suspended, and a
// progress line when the rate allows.
func (w *watcher) report(r *indexstatus.IndexedJobStatus) {
	if w.progress == nil || r.Phase.Terminal() {
		return
	}
	w.progress.suspended(w.o.JobName, r)
	s := stateOf(w.st.Job, r)
	w.progress.update(w.o.Clock.Now(), s.key(), s.counts())
}

// what names the Job in messages.
func (w *watcher) what() string { return fmt.Sprintf("job %q", w.o.JobName) }

// timedOut ends a watch at --timeout: the last report (off a terminal; on one it is drawn),
// then exit Timeout.
func (w *watcher) timedOut(r *indexstatus.IndexedJobStatus) error {
	if err := w.final(r); err != nil {
		return err
	}
	return exitcode.TimedOut(w.o.Timeout, w.what(), stateOf(w.st.Job, r).counts(), "")
}

// final prints the full report r at the end of a watch that did not see the Job finish:
// --wait's only report, --watch's after its change lines (on a terminal, r is drawn already).
func (w *watcher) final(r *indexstatus.IndexedJobStatus) error {
	if w.tty || r.Phase.Terminal() {
		return nil
	}
	var out bytes.Buffer
	if w.lines > 0 {
		out.WriteString("\n")
	}
	if err := w.o.print(&out, r); err != nil {
		return err
	}
	_, err := w.o.Out.Write(out.Bytes())
	return err
}

// runsAgainGrace is how long a frame that newly says indexes run again (finished pods no longer
// counted) is held back for the Job's status to catch up with the pods.
//
// The controller writes a finished pod's index into status.completedIndexes (or
// failedIndexes) and only then removes the pod's tracking finalizer
// (trackJobStatusAndRemoveFinalizers, flushUncountedAndRemoveFinalizers in
// pkg/controller/job): on the server the Job is always ahead. But the Job and its pods come
// on two watches, and the pod's event can arrive first; drawn then, the frame would say a
// succeeded index was forgotten and runs again, and the next Job event would take it back.
// Such a frame waits for the next event (which redraws without it once the Job has caught
// up) or for the grace to pass (then the claim is real and is shown).
const runsAgainGrace = 2 * time.Second

// hold reports whether the frame r must wait: it says indexes run again that the last frame
// shown did not, and the grace since it first did has not passed. A timer wakes the loop at
// the end of the grace.
func (w *watcher) hold(r *indexstatus.IndexedJobStatus) bool {
	fresh := runsAgain(r).Difference(w.shownRunsAgain)
	if fresh.IsEmpty() {
		w.holdUntil = time.Time{}
		return false
	}
	now := w.o.Clock.Now()
	if w.holdUntil.IsZero() {
		w.holdUntil = now.Add(runsAgainGrace)
		if w.holdTimer != nil {
			w.holdTimer.Stop()
		}
		w.holdTimer = w.o.Clock.NewTimer(runsAgainGrace)
		w.wake = w.holdTimer.C()
		return true
	}
	return now.Before(w.holdUntil)
}

// runsAgain is the set of indexes the report says run again.
func runsAgain(r *indexstatus.IndexedJobStatus) indexes.Set {
	for _, e := range r.NextEntries {
		if e.Kind == indexstatus.EntryRunsAgain {
			return e.Indexes
		}
	}
	return indexes.Set{}
}

// drain applies the events already queued, so that a burst redraws once.
func (w *watcher) drain(ctx context.Context) error {
	for range maxDrain {
		select {
		case ev := <-w.jobW.Events():
			if err := w.onJob(ctx, ev); err != nil {
				return err
			}
		case ev := <-w.podW.Events():
			if err := w.onPod(ctx, ev); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// end is the exit of a watch that stops before the Job finished (the context is done: SIGINT
// or SIGTERM): the last report, off a terminal; then, for --wait and --watch --exit-code, exit
// 130 or 143 with a line that says so (a plain --watch the user stops exits 0).
func (w *watcher) end(ctx context.Context, r *indexstatus.IndexedJobStatus) error {
	if err := w.final(r); err != nil {
		return err
	}
	if w.o.ExitCode && !r.Phase.Terminal() {
		return stoppedWaiting(ctx, w.what(), stateOf(w.st.Job, r).counts())
	}
	return w.o.exitError(r)
}

// show writes the report r when it changed (always when force): on a terminal a frame that
// replaces the last; off one, for a Job not finished, a line saying what changed, and the full
// report once the Job finished; with --wait only the report of a finished Job.
func (w *watcher) show(r *indexstatus.IndexedJobStatus, force bool) (*indexstatus.IndexedJobStatus, error) {
	w.shownRunsAgain = runsAgain(r)
	if w.o.Wait && !r.Phase.Terminal() {
		return r, nil
	}
	if !w.tty && !r.Phase.Terminal() {
		return r, w.changeLine(r)
	}
	var buf bytes.Buffer
	now := w.o.Clock.Now()
	if w.tty {
		buf.WriteString(frameHeader(r, now.Sub(w.start), now))
	}
	if err := w.o.print(&buf, r); err != nil {
		return nil, err
	}
	if !force && bytes.Equal(buf.Bytes(), w.last) {
		return r, nil
	}
	w.last = buf.Bytes()
	var out bytes.Buffer
	switch {
	case w.tty:
		out.WriteString(clearScreen)
	case w.lines > 0:
		out.WriteString("\n")
	}
	out.Write(buf.Bytes())
	_, err := w.o.Out.Write(out.Bytes())
	return r, err
}

// changeLine prints, off a terminal, one line when the Job's state changed since the last.
func (w *watcher) changeLine(r *indexstatus.IndexedJobStatus) error {
	s := stateOf(w.st.Job, r)
	if w.state != nil && w.state.key() == s.key() {
		return nil
	}
	line := changeLine(w.state, s, w.o.Clock.Now().Sub(w.start))
	if w.state == nil {
		line = fmt.Sprintf("%s (job %s/%s; a line per change, the full report at the end)", line, w.o.src.InNamespace(), w.o.JobName)
	}
	w.state = &s
	return w.o.printChange(line, &w.lines)
}

// printChange prints a change line of --watch off a terminal, counted in lines; when -o asks
// for something a program parses (json, yaml, name, a template, html), standard output holds
// the report alone and the line goes to standard error.
func (o *Options) printChange(line string, lines *int) error {
	if o.PrintFlags.IsMachine() {
		_, err := fmt.Fprintln(o.ErrOut, line)
		return err
	}
	*lines++
	_, err := fmt.Fprintln(o.Out, line)
	return err
}

func (w *watcher) stop() {
	if w.holdTimer != nil {
		w.holdTimer.Stop()
	}
	if w.jobW != nil {
		w.jobW.Stop()
	}
	if w.podW != nil {
		w.podW.Stop()
	}
}

// The Job and its pods are each followed by gather (FollowJob, FollowPods): client-go's Reflector and
// RetryWatcher resume a watch the server closed or failed with a retryable error (500, 504)
// from the last resourceVersion delivered, bookmarks included, and read again when that
// version is too old (410 Gone): the Job by the LIST of the field selector its watch uses,
// the pods as the first read did (JobPods). What is passed on for the command to decide: a
// refusal (403/401), the Job deleted or created again.

func (w *watcher) startWatches(ctx context.Context) error {
	o, live := w.o, w.o.src.(*gather.Live) // --watch is live only (Validate)
	w.jobW = live.FollowJob(watchLogContext(ctx, o.ErrOut, "job "+o.JobName), o.JobName, w.st.Job.ResourceVersion)
	var err error
	w.podW, err = live.FollowPods(watchLogContext(ctx, o.ErrOut, "the pods of job "+o.JobName), w.st.Job, w.st.PodsRV)
	return err
}

func (w *watcher) onJob(ctx context.Context, ev gather.Event) error {
	switch ev.Type {
	case gather.Relisted:
		// Too old to resume: read the Job again by the watch's own selector, and watch from
		// that list.
		job, rv, err := w.o.src.JobNamed(ctx, w.o.JobName)
		ev.Relist(rv, err)
		switch {
		case err != nil:
			return err
		case job == nil:
			return w.deleted()
		}
		return w.setJob(ctx, job)
	case watch.Added, watch.Modified:
		if job, isJob := ev.Object.(*batchv1.Job); isJob {
			return w.setJob(ctx, job)
		}
	case watch.Deleted:
		return w.deleted()
	case watch.Error:
		return exitcode.APIError(apierrors.FromObject(ev.Object), "watch", "jobs", w.o.JobName, w.o.src.InNamespace())
	}
	return nil
}

// setJob takes a newer version of the Job; a Job deleted and created again (another UID, seen
// on the watch or on the read after a 410) is another Job, and its pods are not those held.
func (w *watcher) setJob(ctx context.Context, job *batchv1.Job) error {
	if job.UID != w.st.Job.UID {
		return w.recreated()
	}
	if w.st.Queue != nil && jobpolicy.Suspended(w.st.Job) != jobpolicy.Suspended(job) {
		// Kueue admitted the Job (spec.suspend false) or evicted it (true): the Queue block
		// would tell the old story.
		w.st.Queue = w.o.src.Queue(ctx, job, w.o.Clock.Now())
	}
	w.st.Job = job
	if err := w.st.Pods.SetJob(job); err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return nil
}

func (w *watcher) deleted() error {
	return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("job %q in namespace %q was deleted while watching", w.o.JobName, w.o.src.InNamespace()))
}

func (w *watcher) recreated() error {
	return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("job %q in namespace %q was deleted and created again while watching: run the command again to follow the new Job", w.o.JobName, w.o.src.InNamespace()))
}

func (w *watcher) onPod(ctx context.Context, ev gather.Event) error {
	switch ev.Type {
	case gather.Relisted:
		// Too old to resume: read the pods again as the first read did (replacing what was
		// held), and watch from that read.
		acc, rv, err := w.o.src.JobPods(ctx, w.st.Job, w.o.podRead())
		ev.Relist(rv, err)
		if err != nil {
			return err
		}
		w.st.Pods = acc
	case watch.Added, watch.Modified, watch.Deleted:
		pod, isPod := ev.Object.(*corev1.Pod)
		if !isPod {
			return nil
		}
		if w.o.recordPod(pod); w.o.recErr != nil {
			return w.o.recErr
		}
		if ev.Type == watch.Deleted {
			w.st.Pods.Remove(pod)
		} else {
			w.st.Pods.Add(pod)
		}
	case watch.Error:
		return fmt.Errorf("watching the pods of job %q: %w", w.o.JobName, exitcode.APIError(apierrors.FromObject(ev.Object), "watch", "pods", "", w.o.src.InNamespace()))
	}
	return nil
}

// isTerminal says whether w is a terminal (a variable: tests draw frames without one).
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
