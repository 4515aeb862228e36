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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// clearScreen moves the cursor home and clears a terminal, to redraw in place.
const clearScreen = "\x1b[H\x1b[2J"

// maxDrain bounds how many queued events are applied before a redraw.
const maxDrain = 1000

// watcher follows a Job and its pods with one Job watch and one pod watch, started from the
// resourceVersions of the initial read; it re-reads only when the server says a watch expired.
type watcher struct {
	o     *Options
	st    *liveState
	jobRV string
	podRV string
	jobW  watch.Interface
	podW  watch.Interface
	tty   bool
	last  []byte
}

func (o *Options) watch(ctx context.Context) error {
	st, err := o.load(ctx)
	if err != nil {
		return err
	}
	w := &watcher{o: o, st: st, jobRV: st.job.ResourceVersion, podRV: st.podsRV, tty: isTerminal(o.Out)}
	r, err := w.draw(true)
	if err != nil || r.Phase.Terminal() {
		if err != nil {
			return err
		}
		return o.exitError(r)
	}
	defer w.stop()
	if err := w.startJobWatch(ctx); err != nil {
		return err
	}
	if err := w.startPodWatch(ctx); err != nil {
		return err
	}
	// Time moves on its own (backoff countdowns, ages): a terminal is redrawn every second,
	// other outputs only on changes of the Job or its pods.
	var tick <-chan time.Time
	if w.tty {
		t := o.Clock.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C()
	}
	for {
		select {
		case <-ctx.Done():
			return o.exitError(r)
		case ev, ok := <-w.jobW.ResultChan():
			if err := w.onJob(ctx, ev, ok); err != nil {
				return err
			}
		case ev, ok := <-w.podW.ResultChan():
			if err := w.onPod(ctx, ev, ok); err != nil {
				return err
			}
		case <-tick:
		}
		if err := w.drain(ctx); err != nil {
			return err
		}
		if r, err = w.draw(false); err != nil {
			return err
		}
		if r.Phase.Terminal() {
			return o.exitError(r)
		}
	}
}

// drain applies the events already queued, so that a burst redraws once.
func (w *watcher) drain(ctx context.Context) error {
	for range maxDrain {
		select {
		case ev, ok := <-w.jobW.ResultChan():
			if err := w.onJob(ctx, ev, ok); err != nil {
				return err
			}
		case ev, ok := <-w.podW.ResultChan():
			if err := w.onPod(ctx, ev, ok); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// draw renders the report and writes it when it changed (always when force).
func (w *watcher) draw(force bool) (*indexstatus.IndexedJobStatus, error) {
	r := w.st.report(w.o)
	var buf bytes.Buffer
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
	case !force:
		out.WriteString("\n")
	}
	out.Write(buf.Bytes())
	_, err := w.o.Out.Write(out.Bytes())
	return r, err
}

func (w *watcher) stop() {
	if w.jobW != nil {
		w.jobW.Stop()
	}
	if w.podW != nil {
		w.podW.Stop()
	}
}

func (w *watcher) startJobWatch(ctx context.Context) error {
	o := w.o
	jw, err := o.Client.BatchV1().Jobs(o.Namespace).Watch(ctx, metav1.ListOptions{
		FieldSelector:       fields.OneTermEqualSelector("metadata.name", o.JobName).String(),
		ResourceVersion:     w.jobRV,
		AllowWatchBookmarks: true,
	})
	if err != nil {
		return exitcode.APIError(err, "watch", "jobs", o.JobName, o.Namespace)
	}
	w.jobW = jw
	return nil
}

func (w *watcher) startPodWatch(ctx context.Context) error {
	o := w.o
	sel, err := podSelector(w.st.job)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	pw, err := o.Client.CoreV1().Pods(o.Namespace).Watch(ctx, metav1.ListOptions{
		LabelSelector:       sel,
		ResourceVersion:     w.podRV,
		AllowWatchBookmarks: true,
	})
	if err != nil {
		return exitcode.APIError(err, "watch", "pods", "", o.Namespace)
	}
	w.podW = pw
	return nil
}

func (w *watcher) onJob(ctx context.Context, ev watch.Event, ok bool) error {
	if !ok {
		// The server closed the watch (timeout): resume from the last version seen.
		w.jobW.Stop()
		return w.startJobWatch(ctx)
	}
	switch ev.Type {
	case watch.Added, watch.Modified:
		job, isJob := ev.Object.(*batchv1.Job)
		if !isJob {
			return nil
		}
		w.jobRV = job.ResourceVersion
		if job.UID != w.st.job.UID {
			return w.recreated()
		}
		w.st.job = job
		if err := w.st.acc.SetJob(job); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	case watch.Deleted:
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("job %q in namespace %q was deleted while watching", w.o.JobName, w.o.Namespace))
	case watch.Bookmark:
		if m, err := metaOf(ev.Object); err == nil {
			w.jobRV = m.GetResourceVersion()
		}
	case watch.Error:
		if isExpired(ev.Object) {
			// Too old to resume: read the Job again (one GET) and watch from there.
			w.jobW.Stop()
			job, err := w.o.Client.BatchV1().Jobs(w.o.Namespace).Get(ctx, w.o.JobName, metav1.GetOptions{})
			if err != nil {
				return exitcode.APIError(err, "get", "jobs", w.o.JobName, w.o.Namespace)
			}
			// The same check as an update event: a Job deleted and created again while the
			// watch was down is another Job, and its pods are not the ones held here.
			if job.UID != w.st.job.UID {
				return w.recreated()
			}
			w.st.job, w.jobRV = job, job.ResourceVersion
			if err := w.st.acc.SetJob(job); err != nil {
				return exitcode.Wrap(exitcode.Usage, err)
			}
			return w.startJobWatch(ctx)
		}
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("watching job %q: %v", w.o.JobName, apierrors.FromObject(ev.Object)))
	}
	return nil
}

func (w *watcher) recreated() error {
	return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("job %q in namespace %q was deleted and created again while watching: run the command again to follow the new Job", w.o.JobName, w.o.Namespace))
}

func (w *watcher) onPod(ctx context.Context, ev watch.Event, ok bool) error {
	if !ok {
		w.podW.Stop()
		return w.startPodWatch(ctx)
	}
	switch ev.Type {
	case watch.Added, watch.Modified, watch.Deleted:
		pod, isPod := ev.Object.(*corev1.Pod)
		if !isPod {
			return nil
		}
		w.podRV = pod.ResourceVersion
		if ev.Type == watch.Deleted {
			w.st.acc.Remove(pod)
		} else {
			w.st.acc.Add(pod)
		}
	case watch.Bookmark:
		if m, err := metaOf(ev.Object); err == nil {
			w.podRV = m.GetResourceVersion()
		}
	case watch.Error:
		if isExpired(ev.Object) {
			// Too old to resume: list the pods again and watch from that list.
			w.podW.Stop()
			acc, err := indexstatus.NewAccumulator(w.st.job)
			if err != nil {
				return exitcode.Wrap(exitcode.Usage, err)
			}
			rv, err := w.o.listPods(ctx, w.st.job, acc)
			if err != nil {
				return err
			}
			w.st.acc, w.podRV = acc, rv
			return w.startPodWatch(ctx)
		}
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("watching the pods of job %q: %v", w.o.JobName, apierrors.FromObject(ev.Object)))
	}
	return nil
}

func metaOf(obj any) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("no metadata")
	}
	return m, nil
}

func isExpired(obj any) bool {
	st, ok := obj.(*metav1.Status)
	if !ok {
		return false
	}
	err := apierrors.FromObject(st)
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
