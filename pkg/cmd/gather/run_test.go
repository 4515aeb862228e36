package gather

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

func retryJob(name, root, rootUID string) *batchv1.Job {
	j := testutil.StartedJob("ns", name, 1, time.Unix(1e9, 0))
	l := lineage.Lineage{RootJob: root, RootJobUID: rootUID, ParentJob: root, ParentJobUID: rootUID, Attempt: 1, Original: indexes.Of(2)}
	j.Annotations, j.Labels = l.Annotations(), l.Labels()
	return j
}

// ReadRun is the one lineage read of status --lineage and reconcile: asked about a retry, it
// finds the root by name and UID; a Job of the root's name with another UID (the root deleted
// and made again) is Replaced, not the root, and the retries labelled with the root's name are
// split by the root UID they record.
func TestReadRun(t *testing.T) {
	root := testutil.StartedJob("ns", "lr", 6, time.Unix(1e9, 0))
	mine := retryJob("lr-r1", "lr", "uid-old")
	theirs := retryJob("lr-r2", "lr", "uid-lr")
	read := func(name string, objs ...runtime.Object) *Run {
		t.Helper()
		r, err := ReadRun(context.Background(), &Live{Client: fake.NewClientset(objs...), Namespace: "ns"}, name, "ns")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// lr now has uid-lr: lr-r1 (root uid-old) is of an earlier run whose root is gone.
	r := read("lr-r1", root, mine, theirs)
	if r.Root != nil || r.Replaced == nil || r.Replaced.UID != "uid-lr" || r.ID != (lineage.RunID{Root: "lr", RootUID: "uid-old"}) {
		t.Errorf("retry of a replaced root: root %v replaced %v id %v", r.Root, r.Replaced, r.ID)
	}
	if len(r.Retries) != 1 || r.Retries[0].Name != "lr-r1" || len(r.Others) != 1 || r.Others[0].Name != "lr-r2" {
		t.Errorf("retries %v others %v", r.Retries, r.Others)
	}
	// Asked about the root: it is its own run, and lr-r2 is its retry.
	r = read("lr", root, mine, theirs)
	if r.Root == nil || r.Root.UID != types.UID("uid-lr") || len(r.Retries) != 1 || r.Retries[0].Name != "lr-r2" {
		t.Errorf("root: %v retries %v", r.Root, r.Retries)
	}
	// The root gone: no error, no root.
	r = read("lr-r2", theirs)
	if r.Root != nil || r.Replaced != nil || len(r.Retries) != 1 {
		t.Errorf("root gone: %+v", r)
	}
	// The Job asked about missing: the API's error, worded.
	if _, err := ReadRun(context.Background(), &Live{Client: fake.NewClientset(), Namespace: "ns"}, "nope", "ns"); err == nil || err.Error() != `job "nope" not found in namespace "ns"` {
		t.Errorf("missing Job: %v", err)
	}
}
