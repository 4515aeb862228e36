package indexstatus

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// unreadReport is the report from the pods of job that did not succeed, as live status reads
// them (fieldSelector status.phase!=Succeeded), and what SucceededPodsNeeded said.
func unreadReport(t *testing.T, job *batchv1.Job, pods []corev1.Pod, opts Options) (*IndexedJobStatus, string) {
	t.Helper()
	acc, err := NewAccumulator(job)
	if err != nil {
		t.Fatal(err)
	}
	acc.LeaveOutSucceeded()
	for i := range pods {
		if pods[i].Status.Phase != corev1.PodSucceeded {
			acc.Add(&pods[i])
		}
	}
	need := acc.SucceededPodsNeeded()
	r := acc.Report(opts)
	acc.AddCaseCounts(r)
	return r, need
}

// withoutSucceededPods is r with what only a succeeded pod holds taken out, for the Succeeded
// indexes (the fields unread.go lists): the every-pod report, as the unread report must be.
func withoutSucceededPods(t *testing.T, r *IndexedJobStatus, podNames map[string]bool) map[string]any {
	t.Helper()
	c := *r
	c.Indexes = append([]IndexStatus(nil), r.Indexes...)
	for k := range c.Indexes {
		st := &c.Indexes[k]
		if st.State != StateSucceeded {
			continue
		}
		var keep []string
		for _, p := range st.Pods {
			if !podNames[p] {
				keep = append(keep, p)
			}
		}
		st.Pods = keep
		st.LastExitCode, st.LastReason, st.LastContainer, st.Cases = nil, "", "", nil
		st.Detail = ""
		// The succeeded attempt's pod, reason, container, node and times (its exit code, 0, is known).
		st.AttemptHistory = append([]Attempt(nil), st.AttemptHistory...)
		for a := range st.AttemptHistory {
			if h := &st.AttemptHistory[a]; h.Phase == string(corev1.PodSucceeded) {
				h.Pod, h.Reason, h.Container, h.Node, h.StartedAt, h.FinishedAt = "", "", "", "", nil, nil
			}
		}
	}
	c.Pods = PodCounts{}
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestUnreadSucceededSameReport: on every capture from the real control plane, the report from
// the pods that did not succeed is the report from every pod except the succeeded pods' own
// fields, whenever SucceededPodsNeeded does not ask for them; and it asks for them on the
// captures where they matter (a succeeded pod the Job's status does not account for).
func TestUnreadSucceededSameReport(t *testing.T) {
	fast, fell := 0, 0
	for _, name := range fixtureNames(t) {
		job, pods, capturedAt := readFixture(t, name)
		if CheckIndexed(job) != nil {
			continue
		}
		succeeded := map[string]bool{}
		for i := range pods {
			if pods[i].Status.Phase == corev1.PodSucceeded {
				succeeded[pods[i].Name] = true
			}
		}
		opts := Options{Clock: fixedClock(capturedAt), AllIndexes: true}
		all, err := Build(job, pods, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, need := unreadReport(t, job, pods, opts)
		if need != "" {
			fell++
			continue
		}
		fast++
		a, b := withoutSucceededPods(t, all, succeeded), withoutSucceededPods(t, got, succeeded)
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		if string(ja) != string(jb) {
			t.Errorf("%s: the report without the succeeded pods differs:\n--- every pod\n%s\n--- not succeeded\n%s", name, ja, jb)
		}
		// The details of the unread indexes say what they did, without a pod name.
		for k := range got.Indexes {
			st := &got.Indexes[k]
			if st.State == StateSucceeded && all.Indexes[k].Detail != st.Detail {
				if want := "succeeded on attempt " + itoa(st.Attempts); st.Detail != want {
					t.Errorf("%s index %d: detail %q, want %q (every pod: %q)", name, st.Index, st.Detail, want, all.Indexes[k].Detail)
				}
			}
		}
		if n := len(succeeded); n > 0 && got.Pods.NotRead == 0 && got.Summary.Succeeded > 0 {
			t.Errorf("%s: %d succeeded pods left out but pods.notRead is 0", name, n)
		}
		// The text says so too: "0 succeeded" alone would read as none having succeeded.
		var text strings.Builder
		if err := PrintText(&text, got, false); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%d succeeded not read (--all-pods reads them)", got.Pods.NotRead)
		if has := strings.Contains(strings.Join(strings.Fields(text.String()), " "), want); has != (got.Pods.NotRead > 0) {
			t.Errorf("%s: pods.notRead is %d but the text's Pods row says %q: %v\n%s", name, got.Pods.NotRead, want, has, text.String())
		}
	}
	if fast == 0 || fell == 0 {
		t.Errorf("%d captures read without their succeeded pods, %d asked for them: both should occur", fast, fell)
	}
	t.Logf("%d reads without the succeeded pods, %d asked for every pod", fast, fell)
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestSucceededPodsNeeded: each reason to read every pod, on a Job built to show it.
func TestSucceededPodsNeeded(t *testing.T) {
	base := func() *batchv1.Job { return newJob("j", 3, 3).j }
	for _, tc := range []struct {
		name string
		edit func(j *batchv1.Job)
		pods []corev1.Pod
		want string
	}{
		{"finished, every index succeeded", func(j *batchv1.Job) {
			j.Status.CompletedIndexes, j.Status.Succeeded = "0-2", 3
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
		}, nil, ""},
		{"made by create: receipts", func(j *batchv1.Job) {
			j.Annotations = map[string]string{shards.AnnotationShardsConfigMap: "j-shards"}
		}, nil, "made by kubectl indexed create"},
		{"uncounted pods", func(j *batchv1.Job) {
			j.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{Succeeded: []types.UID{"a"}}
		}, nil, "the controller has not counted 1 finished pods yet"},
		{"active count differs", func(j *batchv1.Job) { j.Status.Active = 1 }, nil, "status.active is 1 but 0 active pods were read"},
		{"counted failed pods gone under backoffLimitPerIndex", func(j *batchv1.Job) {
			j.Spec.BackoffLimitPerIndex = ptr.To[int32](1)
			j.Status.Failed = 1
		}, nil, "status.failed is 1 but 0 counted failed pods were read"},
		{"completions set after creation (a scale)", func(j *batchv1.Job) {
			scaled(j, time.Minute)
		}, nil, "it may have been scaled"},
		{"saved Job without managedFields, spec changed", func(j *batchv1.Job) {
			scaled(j, time.Minute)
			j.ManagedFields = nil
		}, nil, "it may have been scaled"},
		{"spec changed by another manager only (Kueue's suspend flip)", func(j *batchv1.Job) {
			scaled(j, 0)
		}, nil, ""},
		{"finished with an index in neither set and no pod", func(j *batchv1.Job) {
			j.Status.CompletedIndexes = "0-1"
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue}}
		}, nil, "index 2 of the finished Job has no result and no pod was read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := base()
			tc.edit(j)
			acc, err := NewAccumulator(j)
			if err != nil {
				t.Fatal(err)
			}
			acc.LeaveOutSucceeded()
			for i := range tc.pods {
				acc.Add(&tc.pods[i])
			}
			got := acc.SucceededPodsNeeded()
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// scaled gives j a second generation and the managedFields a server keeps: its creator set
// spec.completions `after` its creation, and Kueue later flipped spec.suspend (the entries' shape
// as the API server writes them: one per manager and operation, fieldsV1 in the "f:" form).
func scaled(j *batchv1.Job, after time.Duration) {
	created := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	set, later := metav1.NewTime(created.Add(after)), metav1.NewTime(created.Add(2*time.Minute))
	j.CreationTimestamp, j.Generation = created, 2
	j.ManagedFields = []metav1.ManagedFieldsEntry{
		{Manager: "kubectl-create", Operation: metav1.ManagedFieldsOperationUpdate, Time: &set,
			FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:completions":{},"f:parallelism":{},"f:completionMode":{}}}`)},
		{Manager: "kueue", Operation: metav1.ManagedFieldsOperationUpdate, Time: &later,
			FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:suspend":{}}}`)},
	}
}

// TestNoPodsLeft: a suspended Job with nothing counted has no pod to read; anything counted, an
// Ignore rule, or a status written before status.terminating (nil) means a LIST is needed.
func TestNoPodsLeft(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(j *batchv1.Job)
		want bool
	}{
		{"waiting for admission", func(*batchv1.Job) {}, true},
		{"running", func(j *batchv1.Job) { j.Spec.Suspend = ptr.To(false) }, false},
		{"terminating after an eviction", func(j *batchv1.Job) { j.Status.Terminating = ptr.To[int32](2) }, false},
		{"failed pods from before the eviction", func(j *batchv1.Job) { j.Status.Failed = 1 }, false},
		{"a succeeded index", func(j *batchv1.Job) { j.Status.Succeeded = 1 }, false},
		{"active not yet updated", func(j *batchv1.Job) { j.Status.Active = 1 }, false},
		{"uncounted", func(j *batchv1.Job) {
			j.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{Failed: []types.UID{"a"}}
		}, false},
		{"terminating not written", func(j *batchv1.Job) { j.Status.Terminating = nil }, false},
		{"an Ignore rule", func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore}}}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := newJob("j", 3, 3).j
			j.Spec.Suspend, j.Status.Terminating, j.Status.Ready = ptr.To(true), ptr.To[int32](0), ptr.To[int32](0)
			tc.edit(j)
			if got := NoPodsLeft(j); got != tc.want {
				t.Errorf("NoPodsLeft = %v, want %v", got, tc.want)
			}
		})
	}
}
