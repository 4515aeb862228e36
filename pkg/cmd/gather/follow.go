package gather

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/klog/v2"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// Relisted asks for a new read: the watch's resourceVersion is too old (410 Gone). The
// receiver reads again as it first did (replacing all it held) and gives Event.Relist the
// read's resourceVersion, from which the watch goes on.
const Relisted watch.EventType = "RELISTED"

// Event is what a Follower passes on: a watch event (Error: a refusal, 403 or 401, for the caller
// to word), or a Relisted request.
type Event struct {
	watch.Event
	// Relist takes the new read's resourceVersion, or why the read failed (the watch then
	// waits for Stop), on a Relisted event.
	Relist func(rv string, err error)
}

// Follower is a running watch (FollowJob, FollowPods).
type Follower struct {
	events chan Event
	cancel context.CancelFunc
	done   chan struct{}
}

// Events are the changes, in order. The channel is never closed: the follower runs until Stop.
func (f *Follower) Events() <-chan Event { return f.events }

// Stop ends the watch and waits for it.
func (f *Follower) Stop() {
	f.cancel()
	<-f.done
}

// follow watches with watcher from resourceVersion rv, that of a read already made: a
// client-go Reflector (tools/cache) watches through a RetryWatcher (tools/watch), which
// resumes a watch the server closed or failed with a retryable error from the last
// resourceVersion delivered (bookmarks included); when the server says that version is too
// old (410 Gone), the Reflector lists again, by a Relisted event: the receiver reads again with
// its own read (the selectors and pages it first read with, watcher's selectors), on its own
// goroutine. Logs go to ctx's klog logger.
func follow(ctx context.Context, rv string, expected runtime.Object, watcher cache.WatcherWithContext) *Follower {
	ctx, cancel := context.WithCancel(ctx)
	f := &Follower{events: make(chan Event), cancel: cancel, done: make(chan struct{})}
	lw := &followLW{f: f, ctx: ctx, first: rv, watcher: watcher}
	logger := klog.FromContext(ctx)
	r := cache.NewReflectorWithOptions(lw, expected, nopStore{}, cache.ReflectorOptions{Logger: &logger})
	go func() {
		defer close(f.done)
		r.RunWithContext(ctx)
	}()
	return f
}

func (f *Follower) send(ctx context.Context, ev Event) bool {
	select {
	case f.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// followLW is the Reflector's ListerWatcher: its first list is the read already made, a later
// one a Relisted request.
type followLW struct {
	f       *Follower
	ctx     context.Context
	watcher cache.WatcherWithContext
	first   string // the first read's resourceVersion, until the Reflector starts from it
}

// IsWatchListSemanticsUnSupported keeps the Reflector on lists: a watch-list stream would send
// every object whole, where the receiver's read keeps what it needs.
func (l *followLW) IsWatchListSemanticsUnSupported() bool { return true }

func (l *followLW) ListWithContext(context.Context, metav1.ListOptions) (runtime.Object, error) {
	rv := l.first
	l.first = ""
	if rv == "" {
		// A failed read ends the watch: the receiver stops it, rather than have the Reflector
		// retry and log the error.
		got := make(chan string, 1)
		if l.f.send(l.ctx, Event{Event: watch.Event{Type: Relisted}, Relist: func(rv string, err error) {
			if err == nil {
				got <- rv
			}
		}}) {
			select {
			case rv = <-got:
			case <-l.ctx.Done():
			}
		}
		if rv == "" {
			return nil, l.ctx.Err()
		}
	}
	return &metav1.List{ListMeta: metav1.ListMeta{ResourceVersion: rv}}, nil
}

func (l *followLW) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, opts.ResourceVersion, l.watcher)
	if err != nil {
		return nil, err
	}
	return watch.Filter(rw, func(ev watch.Event) (watch.Event, bool) {
		if ev.Type == watch.Error {
			if err := apierrors.FromObject(ev.Object); apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				return ev, true // to the Reflector, which lists again
			}
		}
		l.f.send(l.ctx, Event{Event: ev})
		return ev, ev.Type != watch.Error
	}), nil
}

func (l *followLW) List(opts metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(l.ctx, opts)
}

func (l *followLW) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(l.ctx, opts)
}

// nopStore is the Reflector's store: follow passed the events on as they came, and holds
// nothing (the receiver holds what it needs).
type nopStore struct{ cache.Store }

func (nopStore) Add(any) error               { return nil }
func (nopStore) Update(any) error            { return nil }
func (nopStore) Delete(any) error            { return nil }
func (nopStore) Replace([]any, string) error { return nil }
func (nopStore) Resync() error               { return nil }

// jobByName selects Job name, for its watch and its LIST after a 410.
func jobByName(name string) string {
	return fields.OneTermEqualSelector("metadata.name", name).String()
}

// FollowJob follows Job name from rv (that of the read of it): its watch, like JobNamed, selects
// it by metadata.name.
func (l *Live) FollowJob(ctx context.Context, name, rv string) *Follower {
	return follow(ctx, rv, &batchv1.Job{}, &cache.ListWatch{WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		opts.FieldSelector = jobByName(name)
		return l.Client.BatchV1().Jobs(l.Namespace).Watch(ctx, opts)
	}})
}

// JobNamed reads Job name again for FollowJob's Relisted (nil when it is gone), and the list's
// resourceVersion.
func (l *Live) JobNamed(ctx context.Context, name string) (*batchv1.Job, string, error) {
	list, err := l.Client.BatchV1().Jobs(l.Namespace).List(ctx, metav1.ListOptions{FieldSelector: jobByName(name)})
	if err != nil {
		return nil, "", exitcode.APIError(err, "list", "jobs", "", l.Namespace)
	}
	for i := range list.Items {
		if list.Items[i].Name == name {
			return &list.Items[i], list.ResourceVersion, nil
		}
	}
	return nil, list.ResourceVersion, nil
}

// FollowPods follows job's pods from rv (that of Pods): its watch selects them as Pods does
// (PodSelector); on Relisted the caller reads them again with Pods.
func (l *Live) FollowPods(ctx context.Context, job *batchv1.Job, rv string) (*Follower, error) {
	sel, err := indexstatus.PodSelector(job)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return follow(ctx, rv, &corev1.Pod{}, &cache.ListWatch{WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		opts.LabelSelector = sel
		return l.Client.CoreV1().Pods(l.Namespace).Watch(ctx, opts)
	}}), nil
}

// WatchPods lists the namespace's pods whose labels match labelSelector page by page, handing
// each to add, then watches from that list until the watch ends (nil: the caller lists again;
// each pod may then be handed again) or add fails.
func (l *Live) WatchPods(ctx context.Context, labelSelector string, add func(*corev1.Pod) error) error {
	pods := l.Client.CoreV1().Pods(l.Namespace)
	opts := metav1.ListOptions{LabelSelector: labelSelector, Limit: PageSize}
	var rv string
	for {
		list, err := pods.List(ctx, opts)
		if err != nil {
			return exitcode.APIError(err, "list", "pods", "", l.Namespace)
		}
		for i := range list.Items {
			if err := add(&list.Items[i]); err != nil {
				return err
			}
		}
		if list.Continue == "" {
			rv = list.ResourceVersion
			break
		}
		opts.Continue = list.Continue
	}
	w, err := pods.Watch(ctx, metav1.ListOptions{LabelSelector: labelSelector, ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		return exitcode.APIError(err, "watch", "pods", "", l.Namespace)
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == watch.Error {
				return nil // closed, or expired: list again
			}
			if p, isPod := ev.Object.(*corev1.Pod); isPod && ev.Type != watch.Bookmark {
				if err := add(p); err != nil {
					return err
				}
			}
		}
	}
}

// JobNamed is Job name of the files, as Job (nil when they do not hold it).
func (f *File) JobNamed(ctx context.Context, name string) (*batchv1.Job, string, error) {
	job, err := f.Job(ctx, name)
	if _, ok := IsMissing(err); ok {
		return nil, "", nil
	}
	return job, "", err
}
