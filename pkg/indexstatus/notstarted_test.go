package indexstatus

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// The Next entry about indexes not started yet says what they wait for: when every slot of
// parallelism is held by an active pod (running or pending) they start as active pods finish;
// when a slot is free nothing waits for a pod to finish. Before, it said "as running ones
// finish" in both cases, also when no pod was running.
func TestNotStartedSaysWhatTheyWaitFor(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		parallelism int32
		pending     bool
		want        string
	}{
		{"slots full of pending pods", 2, true, "2 indexes are not started yet; the controller starts them, lowest first, as active pods finish (parallelism 2: 2 active)."},
		{"a slot free", 4, false, "2 indexes are not started yet although parallelism 4 leaves room (2 active); the controller starts them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := testutil.StartedJob("ns", "j", 4, start)
			job.Spec.Parallelism = ptr.To(tc.parallelism)
			job.Status.Active = 2
			var pods []corev1.Pod
			for i := range 2 {
				p := testutil.IndexPod(job, i, 0)
				if tc.pending {
					p.Status.Phase = corev1.PodPending
				}
				pods = append(pods, *p)
			}
			st, err := Build(job, pods, Options{})
			if err != nil {
				t.Fatal(err)
			}
			next := strings.Join(st.Next, "\n")
			if !strings.Contains(next, tc.want) || strings.Contains(next, "running ones finish") {
				t.Errorf("next:\n%s\nwant %q", next, tc.want)
			}
		})
	}
}
