package kueue

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilptr "k8s.io/utils/ptr"
)

// fakeReader answers ReadQueue's reads and records them.
type fakeReader struct {
	workloads []map[string]any
	listErr   error
	cq        string
	pos       *int32
	posErr    error
	reads     []string
}

func (f *fakeReader) Workloads(_ context.Context, sel string) ([]map[string]any, error) {
	f.reads = append(f.reads, "list workloads "+sel)
	return f.workloads, f.listErr
}

func (f *fakeReader) LocalQueueClusterQueue(_ context.Context, name string) (string, error) {
	f.reads = append(f.reads, "get localqueue "+name)
	return f.cq, nil
}

func (f *fakeReader) PendingPosition(_ context.Context, lq, w string) (*int32, error) {
	f.reads = append(f.reads, "position "+lq+" "+w)
	return f.pos, f.posErr
}

// ReadQueue's plan: a running Job's Workload by its UID label alone; a suspended one's from the
// namespace's Workloads, then the LocalQueue and the visibility API; offline only the Workloads;
// nothing for a Job Kueue does not manage. What cannot be read is one line of the Queue.
func TestReadQueuePlan(t *testing.T) {
	ctx := context.Background()
	pending := workload([]any{wcond("QuotaReserved", "False", "Pending", "couldn't assign flavors")}, nil)
	notServed := apierrors.NewNotFound(schema.GroupResource{Group: "visibility.kueue.x-k8s.io", Resource: "pendingworkloads"}, "x")
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "workloads"}, "", nil)

	if q := ReadQueue(ctx, &fakeReader{}, job(nil), now, ""); q != nil {
		t.Errorf("a Job Kueue does not manage: %+v", q)
	}

	running := job(map[string]string{QueueLabel: "lq"})
	r := &fakeReader{workloads: []map[string]any{pending}}
	ReadQueue(ctx, r, running, now, "")
	if want := []string{"list workloads kueue.x-k8s.io/job-uid=job-b", "get localqueue lq", "position lq job-b-1a2b3"}; strings.Join(r.reads, "; ") != strings.Join(want, "; ") {
		t.Errorf("running: reads %q, want %q", r.reads, want)
	}

	suspended := job(map[string]string{QueueLabel: "lq"})
	yes := true
	suspended.Spec.Suspend = &yes
	r = &fakeReader{workloads: []map[string]any{pending}, cq: "cq", pos: utilptr.To[int32](3)}
	q := ReadQueue(ctx, r, suspended, now, "")
	if want := []string{"list workloads ", "get localqueue lq", "position lq job-b-1a2b3"}; strings.Join(r.reads, "; ") != strings.Join(want, "; ") {
		t.Errorf("suspended: reads %q, want %q", r.reads, want)
	}
	if q.ClusterQueue != "cq" || q.Position == nil || *q.Position != 3 || q.PositionUnknown != "" {
		t.Errorf("suspended: %+v", q)
	}

	r = &fakeReader{workloads: []map[string]any{pending}, posErr: notServed}
	if q := ReadQueue(ctx, r, suspended, now, ""); !strings.Contains(q.PositionUnknown, "is not served by this cluster") {
		t.Errorf("visibility not served: %q", q.PositionUnknown)
	}

	r = &fakeReader{listErr: forbidden}
	if q := ReadQueue(ctx, r, suspended, now, ""); !strings.HasPrefix(q.WorkloadUnread, "not allowed to list workloads.kueue.x-k8s.io in namespace ml") || len(r.reads) != 1 {
		t.Errorf("forbidden: %+v after %q", q, r.reads)
	}

	r = &fakeReader{}
	q = ReadQueue(ctx, r, suspended, now, "job.json")
	if len(r.reads) != 1 || q.PositionUnknown != "not in saved files" || !strings.HasPrefix(q.WorkloadUnread, "not in job.json (save it with kubectl get workloads") {
		t.Errorf("offline: %+v after %q", q, r.reads)
	}
}
