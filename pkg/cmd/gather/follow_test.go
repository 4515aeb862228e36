package gather

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// A watch the server ends with 410 Gone is not resumed from its old resourceVersion: Follow asks
// for a read (Relisted) and watches from the read's resourceVersion, with the watcher's own
// selector; a closed watch resumes from the last event, and a refused one (403) is passed on.
func TestFollowReadsAgainAfterGone(t *testing.T) {
	var mu sync.Mutex
	var rvs []string
	watchers := make(chan *watch.RaceFreeFakeWatcher, 10)
	lw := &cache.ListWatch{WatchFuncWithContext: func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		opts.FieldSelector = "metadata.name=run"
		mu.Lock()
		rvs = append(rvs, opts.ResourceVersion+" "+opts.FieldSelector)
		n := len(rvs)
		mu.Unlock()
		if n == 3 {
			return nil, apierrors.NewForbidden(corev1.Resource("pods"), "", nil)
		}
		w := watch.NewRaceFreeFake()
		watchers <- w
		return w, nil
	}}
	f := follow(context.Background(), "10", &corev1.Pod{}, lw)
	defer f.Stop()
	next := func() Event {
		t.Helper()
		select {
		case ev := <-f.Events():
			return ev
		case <-time.After(20 * time.Second):
			t.Fatal("no event")
		}
		return Event{}
	}
	w1 := <-watchers
	w1.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "11"}})
	if ev := next(); ev.Type != watch.Added || ev.Object.(*corev1.Pod).Name != "a" {
		t.Fatalf("first event %+v, want ADDED a", ev)
	}
	gone := apierrors.NewResourceExpired("too old resource version: 11 (30)").ErrStatus
	w1.Error(&gone)
	ev := next()
	if ev.Type != Relisted || ev.Relist == nil {
		t.Fatalf("after 410: %+v, want a Relisted request", ev)
	}
	ev.Relist("30", nil)
	w2 := <-watchers
	w2.Modify(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "31"}})
	if ev := next(); ev.Type != watch.Modified {
		t.Fatalf("event on the new watch %+v, want MODIFIED", ev)
	}
	w2.Stop() // the server closes the watch; the next WATCH is refused
	if ev := next(); ev.Type != watch.Error || !apierrors.IsForbidden(apierrors.FromObject(ev.Object)) {
		t.Fatalf("after 403: %+v, want the error passed on", ev)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(rvs) < 3 || rvs[0] != "10 metadata.name=run" || rvs[1] != "30 metadata.name=run" || rvs[2] != "31 metadata.name=run" {
		t.Errorf("WATCHes from %q, want from 10, after the read from 30, then resumed from 31, by metadata.name=run", rvs)
	}
}
