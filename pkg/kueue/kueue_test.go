package kueue

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var now = time.Date(2026, 12, 5, 16, 0, 0, 0, time.UTC)

func job(labels map[string]string) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ml", UID: types.UID("job-b"), Labels: labels}}
}

// workload is a Workload object map as the API server returns it (the messages are Kueue
// v0.17.0's: pkg/scheduler/preemption/preemption.go preemptionMessage, and the flavor
// assigner's "couldn't assign flavors" of a pending Workload).
func workload(conds []any, status map[string]any) map[string]any {
	st := map[string]any{"conditions": conds}
	for k, v := range status {
		st[k] = v
	}
	return map[string]any{
		"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
		"metadata": map[string]any{"name": "job-b-1a2b3", "namespace": "ml", "labels": map[string]any{JobUIDLabel: "job-b"},
			"ownerReferences": []any{map[string]any{"kind": "Job", "name": "b", "uid": "job-b", "apiVersion": "batch/v1"}}},
		"spec":   map[string]any{"queueName": "lq", "priority": 0, "podSets": []any{map[string]any{"name": "main", "count": 4, "minCount": 1}}},
		"status": st,
	}
}

func wcond(typ, status, reason, msg string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg, "lastTransitionTime": "2026-12-05T15:59:00Z"}
}

func interpret(t *testing.T, obj map[string]any, cq string) *Queue {
	t.Helper()
	w, err := FromObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	j := job(map[string]string{QueueLabel: "lq"})
	if got := OwnedBy(j, []*Workload{w}); got != w {
		t.Fatalf("OwnedBy did not find the Job's Workload")
	}
	return Interpret(Input{Job: j, Workload: w, ClusterQueue: cq, Now: now, PositionUnknown: "not served"})
}

func TestPending(t *testing.T) {
	q := interpret(t, workload([]any{wcond("QuotaReserved", "False", "Pending", "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 2 more needed")}, nil), "team")
	if q.State != "Pending" || q.ClusterQueue != "team" {
		t.Fatalf("state %q cq %q", q.State, q.ClusterQueue)
	}
	for _, want := range []string{"Kueue admits the Workload when ClusterQueue team has the quota", "(Pending): couldn't assign flavors", "Leave spec.suspend to Kueue"} {
		if !strings.Contains(q.Next, want) {
			t.Errorf("Next %q does not say %q", q.Next, want)
		}
	}
	if strings.Contains(q.Next, "suspend to false") {
		t.Errorf("Next tells the user to resume: %q", q.Next)
	}
	text := lines(q)
	if !strings.Contains(text, "Position: unknown: not served") || !strings.Contains(text, "LocalQueue lq → ClusterQueue team") {
		t.Errorf("lines:\n%s", text)
	}
}

func TestPreemptedAndRequeued(t *testing.T) {
	msg := "Preempted to accommodate a workload (UID: wl-c, JobUID: job-c) due to prioritization in the ClusterQueue; preemptor path: /team; preemptee path: /team"
	obj := workload([]any{
		wcond("QuotaReserved", "False", "Pending", "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 2 more needed"),
		wcond("Evicted", "False", "QuotaReserved", "Previously: "+msg),
		wcond("Preempted", "False", "QuotaReserved", "Previously: "+msg),
		wcond("Requeued", "True", "Preempted", msg),
	}, map[string]any{
		"requeueState":    map[string]any{"count": 1, "requeueAt": "2026-12-05T16:01:00Z"},
		"schedulingStats": map[string]any{"evictions": []any{map[string]any{"reason": "Preempted", "underlyingCause": "", "count": 1}}},
	})
	q := interpret(t, obj, "team")
	if q.PreemptedBy == nil || q.PreemptedBy.WorkloadUID != "wl-c" || q.PreemptedBy.JobUID != "job-c" {
		t.Fatalf("PreemptedBy %+v", q.PreemptedBy)
	}
	if !strings.Contains(q.Next, "requeues the Workload at 2026-12-05T16:01:00Z (in 1m0s, requeue 1)") || !strings.Contains(q.Next, "preempted by Workload UID wl-c") {
		t.Errorf("Next %q", q.Next)
	}
	if text := lines(q); !strings.Contains(text, "Evictions: Preempted ×1") || !strings.Contains(text, "Requeued: 1 times, next at 2026-12-05T16:01:00Z") {
		t.Errorf("lines:\n%s", text)
	}
}

func TestEvictedWhileHoldingQuota(t *testing.T) {
	msg := "Preempted to accommodate a workload (UID: wl-c, JobUID: job-c) due to prioritization in the ClusterQueue; preemptor path: /team; preemptee path: /team"
	obj := workload([]any{wcond("QuotaReserved", "True", "QuotaReserved", ""), wcond("Admitted", "True", "Admitted", ""), wcond("Evicted", "True", "Preempted", msg), wcond("Preempted", "True", "InClusterQueue", msg)},
		map[string]any{"admission": map[string]any{"clusterQueue": "team", "podSetAssignments": []any{map[string]any{"name": "main", "count": 2, "flavors": map[string]any{"cpu": "default-flavor"}}}}})
	q := interpret(t, obj, "")
	if q.State != "Evicted" || q.PreemptedBy.Reason != "InClusterQueue" {
		t.Fatalf("state %q preempted %+v", q.State, q.PreemptedBy)
	}
	if !strings.Contains(q.Next, "without counting them as failed") {
		t.Errorf("Next %q", q.Next)
	}
}

func TestPartialAdmission(t *testing.T) {
	obj := workload([]any{wcond("QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue team"), wcond("Admitted", "True", "Admitted", "The workload is admitted")},
		map[string]any{"admission": map[string]any{"clusterQueue": "team", "podSetAssignments": []any{map[string]any{"name": "main", "count": 2, "flavors": map[string]any{"cpu": "default-flavor"}}}}})
	q := interpret(t, obj, "")
	if q.State != "Admitted" || q.AdmittedParallelism == nil || *q.AdmittedParallelism != 2 || *q.RequestedParallelism != 4 {
		t.Fatalf("state %q admitted %v requested %v", q.State, q.AdmittedParallelism, q.RequestedParallelism)
	}
	if text := lines(q); !strings.Contains(text, "Partial: admitted parallelism 2 of 4 requested") || !strings.Contains(text, "Admitted: pod set main: 2 of 4 pods, flavors cpu=default-flavor") || strings.Contains(text, "Position") {
		t.Errorf("lines:\n%s", text)
	}
}

func TestUnreadAndNoWorkload(t *testing.T) {
	j := job(map[string]string{QueueLabel: "lq"})
	q := Interpret(Input{Job: j, WorkloadUnread: "not allowed to list workloads", Now: now})
	if q.State != "Unknown" || q.Workload != "" || !strings.Contains(lines(q), "Workload: not allowed to list workloads") {
		t.Errorf("unread: %+v", q)
	}
	if q := Interpret(Input{Job: j, Now: now}); q.State != "NoWorkload" {
		t.Errorf("no workload: state %q", q.State)
	}
	if Managed(job(nil)) {
		t.Errorf("a Job without queue label or managedBy is not Kueue's")
	}
	mk := "kueue.x-k8s.io/multikueue"
	jj := job(nil)
	jj.Spec.ManagedBy = &mk
	if !Managed(jj) {
		t.Errorf("a MultiKueue Job is Kueue's")
	}
}

func TestSuspendFor(t *testing.T) {
	if SuspendFor(nil) != nil || SuspendFor(map[string]string{QueueLabel: "lq"}) == nil || !*SuspendFor(map[string]string{QueueLabel: "lq"}) {
		t.Errorf("SuspendFor")
	}
}

func lines(q *Queue) string {
	var b strings.Builder
	for _, kv := range q.Lines() {
		b.WriteString(kv[0] + ": " + kv[1] + "\n")
	}
	return b.String()
}

// TestPendingNamesTheHolders: a pending Workload of ClusterQueue team names the Workloads of
// its namespace with quota reserved in team (status.admission.clusterQueue is set by Kueue's
// scheduler when it reserves quota, with QuotaReserved=True), and not one of another
// ClusterQueue, a finished one, or itself.
func TestPendingNamesTheHolders(t *testing.T) {
	pending := workload([]any{wcond("QuotaReserved", "False", "Pending", "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 2 more needed")}, nil)
	other := func(name, job, cq string, finished bool) *Workload {
		conds := []any{wcond("QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue "+cq), wcond("Admitted", "True", "Admitted", "The workload is admitted")}
		if finished {
			conds = append(conds, wcond("Finished", "True", "Succeeded", "Job finished successfully"))
		}
		obj := workload(conds, map[string]any{"admission": map[string]any{"clusterQueue": cq, "podSetAssignments": []any{map[string]any{"name": "main", "count": 2, "flavors": map[string]any{"cpu": "default-flavor"}}}}})
		md := obj["metadata"].(map[string]any)
		md["name"], md["uid"] = name, name
		md["ownerReferences"] = []any{map[string]any{"kind": "Job", "name": job, "uid": job, "apiVersion": "batch/v1"}}
		w, err := FromObject(obj)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w, err := FromObject(pending)
	if err != nil {
		t.Fatal(err)
	}
	ns := []*Workload{w, other("job-a-1", "a", "team", false), other("job-x-1", "x", "elsewhere", false), other("job-f-1", "f", "team", true)}
	q := Interpret(Input{Job: job(map[string]string{QueueLabel: "lq"}), Workload: w, ClusterQueue: "team", Namespace: ns, Now: now})
	if len(q.WaitsFor) != 1 || q.WaitsFor[0].Job != "a" || q.WaitsFor[0].Workload != "job-a-1" || q.WaitsFor[0].Pods != 2 {
		t.Fatalf("WaitsFor = %+v; want Job a's Workload job-a-1 with 2 pods", q.WaitsFor)
	}
	if !strings.Contains(q.Next, "it waits for Job a (Workload job-a-1, 2 pods, priority 0) to release it") {
		t.Errorf("Next does not name the holder: %q", q.Next)
	}
	var line string
	for _, kv := range q.Lines() {
		if kv[0] == "Waits for" {
			line = kv[1]
		}
	}
	if !strings.HasPrefix(line, "Job a (Workload job-a-1") {
		t.Errorf("no Waits for line naming Job a: %q", line)
	}
	// Admitted, it waits for no one.
	if q := Interpret(Input{Job: job(map[string]string{QueueLabel: "lq"}), Workload: ns[1], ClusterQueue: "team", Namespace: ns, Now: now}); len(q.WaitsFor) != 0 {
		t.Errorf("an admitted Workload waits for %+v", q.WaitsFor)
	}
}

// A holder Workload that no Job owns is named with its details in one pair of parentheses, as a
// Job's is (it printed "Workload w, 2 pods)" before).
func TestHolderWordsWithoutJob(t *testing.T) {
	prio := int32(5)
	got := holderWords([]Holder{
		{Job: "a", Workload: "job-a-1", Pods: 2},
		{Workload: "w", Pods: 1, Priority: &prio},
	})
	want := "Job a (Workload job-a-1, 2 pods), Workload w (1 pod, priority 5)"
	if got != want {
		t.Errorf("holderWords = %q, want %q", got, want)
	}
}
