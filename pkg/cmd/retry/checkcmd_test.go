package retry

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// checkSelector is the -l of the "check that this lists none" command in msg.
func checkSelector(t *testing.T, msg string) string {
	t.Helper()
	m := regexp.MustCompile(`check that this lists none: kubectl get jobs -n ml -l ('[^']*'|\S+)`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("no check command in:\n%s", msg)
	}
	return strings.Trim(strings.TrimSuffix(m[1], "."), "'") // the sentence's period
}

// TestLeftBehindCheckListsOnlyOtherJobs: when a retry's Job is refused after its ConfigMaps
// were created, the command it prints to check that no Job mounts them before deleting them
// lists, run on the cluster, no Job when none does: not the root retried (issue 26, item 11:
// it selected every Job of the manifest, so it always listed the root, and "lists none" never
// held). Another retry of the manifest, which may mount a retry's store, is still listed.
func TestLeftBehindCheckListsOnlyOtherJobs(t *testing.T) {
	job, cm, _ := seed(t)
	c := fake.NewClientset(job, cm)
	c.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "batch", Resource: "jobs"}, "seed-r1", fmt.Errorf("RBAC"))
	})
	r := run(t, c, "seed")
	if r.code != 4 || r.err == nil || !strings.Contains(r.err.Error(), "kubectl delete configmap") {
		t.Fatalf("exit %d: %v", r.code, r.err)
	}
	sel := checkSelector(t, r.err.Error())
	list := func() []string {
		l, err := c.BatchV1().Jobs("ml").List(context.Background(), metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			t.Fatalf("-l %s: %v", sel, err)
		}
		var names []string
		for _, j := range l.Items {
			names = append(names, j.Name)
		}
		return names
	}
	if got := list(); len(got) != 0 {
		t.Errorf("-l %s lists %v: want none", sel, got)
	}
	other := job.DeepCopy()
	other.Name, other.UID = "seed-r9", "uid-r9"
	other.Labels[shards.LabelRootJob] = "seed"
	if err := c.Tracker().Add(other); err != nil {
		t.Fatal(err)
	}
	if got := list(); len(got) != 1 || got[0] != "seed-r9" {
		t.Errorf("-l %s lists %v: want the other retry, seed-r9", sel, got)
	}
}
