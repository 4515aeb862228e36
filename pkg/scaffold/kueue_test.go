package scaffold

import (
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
)

// create --queue: the Job names the LocalQueue and its priority class and is created
// suspended, so that it waits for Kueue's admission where no webhook suspends it.
func TestBuildQueue(t *testing.T) {
	m := manifest(t, "six.yaml")
	objs, err := Build(Options{Manifest: m, JobName: "eval", Namespace: "ml", Image: "img", Queue: "team-a", PriorityClass: "high"})
	if err != nil {
		t.Fatal(err)
	}
	j := objs.Job
	if j.Labels[kueue.QueueLabel] != "team-a" || j.Labels[kueue.PriorityClassLabel] != "high" {
		t.Errorf("labels %v", j.Labels)
	}
	if j.Spec.Suspend == nil || !*j.Spec.Suspend {
		t.Errorf("a queued Job is not created suspended")
	}
	plain, err := Build(Options{Manifest: m, JobName: "eval", Namespace: "ml", Image: "img"})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Job.Spec.Suspend != nil {
		t.Errorf("a Job without queue is suspended")
	}
}
