package gather

import (
	"context"
	"reflect"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// ReadJob answers alike from the cluster and from the same objects saved: the same pods and
// facts; only what files cannot know (the Job's events) is said to be missing.
func TestReadJobLiveAndFileAnswerAlike(t *testing.T) {
	at := time.Unix(1e9, 0)
	job := testutil.StartedJob("ns", "rj", 2, at)
	done := testutil.Terminate(testutil.IndexPod(job, 0, 0), 0, at.Add(time.Minute))
	running := testutil.IndexPod(job, 1, 0)
	now := func() time.Time { return at.Add(time.Hour) }
	ctx := context.Background()
	opts := ReadOptions{Name: "rj", Pods: PodRead{All: true, Once: true}, Now: now}
	live, err := (&Live{Client: fake.NewClientset(job, done, running), Namespace: "ns"}).ReadJob(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	file := &File{Files: "rj.json", Namespace: "ns", JobList: []*batchv1.Job{job}, PodList: []corev1.Pod{*done, *running}}
	saved, err := file.ReadJob(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	report := func(rd *JobRead) []indexstatus.State {
		var states []indexstatus.State
		for _, ix := range rd.Pods.Report(indexstatus.Options{Clock: indexstatus.FixedClock(now()), AllIndexes: true}).Indexes {
			states = append(states, ix.State)
		}
		return states
	}
	if a, b := report(live), report(saved); !reflect.DeepEqual(a, b) || len(a) != 2 {
		t.Errorf("index states: live %v, saved %v", a, b)
	}
	if live.Job.Name != saved.Job.Name || !reflect.DeepEqual(live.Shards, saved.Shards) || live.Lineage != nil || saved.Lineage != nil || live.Queue != nil || saved.Queue != nil {
		t.Errorf("facts differ: live %+v, saved %+v", live, saved)
	}
	if _, missing := IsMissing(saved.EventsErr); !missing || live.EventsErr != nil {
		t.Errorf("events: live error %v, saved error %v (want files to say they hold none)", live.EventsErr, saved.EventsErr)
	}
	if !saved.PodsGiven || saved.Captured.Before(at.Add(time.Minute)) {
		t.Errorf("saved: pods given %v, captured %v", saved.PodsGiven, saved.Captured)
	}
	if j, _, err := file.JobNamed(ctx, "gone"); j != nil || err != nil {
		t.Errorf("JobNamed of a Job the files do not hold: %v, %v", j, err)
	}
}
