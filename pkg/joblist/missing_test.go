package joblist

import (
	"errors"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
)

func indexedJob(name string, n int32, failed string) batchv1.Job {
	indexed := batchv1.IndexedCompletion
	return batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ml", UID: types.UID("uid-" + name)},
		Spec:   batchv1.JobSpec{CompletionMode: &indexed, Completions: &n},
		Status: batchv1.JobStatus{FailedIndexes: &failed}}
}

// A retry's MISSING is in root shards (issue 36, item 8): the retry of shards 22 and 30, both
// failed again, says 22,30, not its own 0,1; whether its index map is in the annotation or in a
// ConfigMap (read through maps); a map that cannot be read leaves MISSING empty and says why.
func TestMissingInRootShards(t *testing.T) {
	root := indexedJob("eval", 50, "22,30")
	root.Status.CompletedIndexes = "0-21,23-29,31-49"
	small := indexedJob("eval-r1", 2, "0,1")
	l := &lineage.Lineage{RootJob: "eval", RootJobUID: "uid-eval", ParentJob: "eval", ParentJobUID: "uid-eval", Attempt: 1, Original: indexes.Of(22, 30)}
	small.Annotations, small.Labels = l.Annotations(), l.Labels()

	large := indexedJob("eval-r2", 2, "1")
	large.Status.CompletedIndexes = "0"
	im, err := lineage.NewIndexMap("eval", indexes.Of(22, 30))
	if err != nil {
		t.Fatal(err)
	}
	l2 := &lineage.Lineage{RootJob: "eval", RootJobUID: "uid-eval", ParentJob: "eval", ParentJobUID: "uid-eval", Attempt: 2, OriginalFrom: &im.Ref}
	large.Annotations, large.Labels = l2.Annotations(), l2.Labels()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: im.Ref.ConfigMap, Namespace: "ml"}, Data: im.Data, BinaryData: im.BinaryData}

	jobs := []batchv1.Job{root, small, large}
	got := BuildWithMaps(jobs, nil, nil, func(ns, name string) (*corev1.ConfigMap, error) {
		if ns != "ml" || name != cm.Name {
			t.Errorf("read ConfigMap %s/%s", ns, name)
		}
		return cm, nil
	})
	want := map[string]string{"eval": "22,30", "eval-r1": "22,30", "eval-r2": "30"}
	for _, r := range got.Items {
		if r.Missing.String() != want[r.Name] || r.Error != "" {
			t.Errorf("%s: missing %q (error %q), want %q", r.Name, r.Missing, r.Error, want[r.Name])
		}
	}
	// Without the maps (the default table does not show MISSING), nothing is read.
	for _, r := range Build(jobs, nil, nil).Items {
		if w := want[r.Name]; r.Name == "eval-r2" && r.Missing.String() != "" || r.Name != "eval-r2" && r.Missing.String() != w {
			t.Errorf("no maps: %s missing %q", r.Name, r.Missing)
		}
	}
	gone := BuildWithMaps(jobs, nil, nil, func(string, string) (*corev1.ConfigMap, error) { return nil, errors.New("not found") })
	if r := gone.Items[2]; r.Name != "eval-r2" || r.Missing.String() != "" || r.Error == "" {
		t.Errorf("map gone: %+v", r)
	}
}

// The Jobs of a retry of a plain Job (one per root index) are listed as read: -r1-4 before
// -r1-17.
func TestRowsSortNaturally(t *testing.T) {
	root := indexedJob("eval", 20, "")
	var jobs []batchv1.Job
	for _, i := range []int{17, 4, 100} {
		j := indexedJob("eval-r1-"+[]string{"17", "4", "100"}[len(jobs)], 1, "")
		l := &lineage.Lineage{RootJob: "eval", RootJobUID: "uid-eval", ParentJob: "eval", ParentJobUID: "uid-eval", Attempt: 1, Original: indexes.Of(i)}
		j.Annotations, j.Labels = l.Annotations(), l.Labels()
		jobs = append(jobs, j)
	}
	got := Build(append(jobs, root), nil, nil)
	var names []string
	for _, r := range got.Items {
		names = append(names, r.Name)
	}
	if len(names) != 4 || names[0] != "eval" || names[1] != "eval-r1-4" || names[2] != "eval-r1-17" || names[3] != "eval-r1-100" {
		t.Errorf("order %q", names)
	}
}

// RUN means one thing with or without --with-pods (issue 36, item 11): the Job's active pods,
// status.active; a pending pod counts as with the Job's own count, not only the running ones.
func TestRunningSameWithPods(t *testing.T) {
	j := indexedJob("eval", 4, "")
	j.Status.Active = 2
	j.Status.CompletedIndexes = "0"
	pod := func(name, index string, phase corev1.PodPhase) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ml",
			Labels:      map[string]string{batchv1.ControllerUidLabel: "uid-eval", batchv1.JobCompletionIndexAnnotation: index},
			Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: index}},
			Status: corev1.PodStatus{Phase: phase}}
	}
	pods := map[string][]corev1.Pod{"uid-eval": {pod("eval-1-a", "1", corev1.PodRunning), pod("eval-2-a", "2", corev1.PodPending)}}
	without := Build([]batchv1.Job{j}, nil, nil).Items[0]
	with := Build([]batchv1.Job{j}, pods, nil).Items[0]
	if without.Running != 2 || with.Running != without.Running || with.Attempts == nil {
		t.Errorf("RUN without pods %d, with pods %d (attempts %v)", without.Running, with.Running, with.Attempts)
	}
}

// Build is BuildWithMaps without index-map ConfigMaps.
func Build(jobs []batchv1.Job, podsByUID map[string][]corev1.Pod, clock indexstatus.Clock) *List {
	return BuildWithMaps(jobs, podsByUID, clock, nil)
}
