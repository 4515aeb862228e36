package create

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// splitRun is a manifest whose shard store is split over a head and parts, and the names of
// those ConfigMaps, head first.
func splitRun(t *testing.T) (path string, names []string) {
	t.Helper()
	path = bigManifest(t, 2<<20)
	m, err := shards.Read(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := scaffold.Build(scaffold.Options{Manifest: m, JobName: "eval", Namespace: "ml", Image: "img"})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range objs.ConfigMaps() {
		names = append(names, cm.Name)
	}
	if len(names) < 3 {
		t.Fatalf("the store is not split in three or more: %v", names)
	}
	return path, names
}

// TestSplitStoreNamesEveryConfigMap: when the Job of a split shard store is not created after
// its ConfigMaps were (refused, a lost answer, a race for the name), the message names every
// ConfigMap this create made, head and parts, and the command that removes them deletes them
// all (issue 26, item 11).
func TestSplitStoreNamesEveryConfigMap(t *testing.T) {
	m, names := splitRun(t)
	all := strings.Join(names, " ")
	for _, tc := range []struct {
		name   string
		inject func(c *fake.Clientset)
		want   []string
	}{
		{"job refused", func(c *fake.Clientset) {
			c.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "batch", Resource: "jobs"}, "eval", nil)
			})
		}, []string{"configmaps " + strings.Join(names, ", ") + " were created", "To remove them: kubectl delete configmap " + all + " -n ml"}},
		{"job answer lost, none made", func(c *fake.Clientset) {
			lostAfter(c, "jobs", false, lost)
		}, []string{"The shard ConfigMap(s) " + strings.Join(names, ", ") + " stay"}},
		{"job answer lost, another job of the name", func(c *fake.Clientset) {
			c.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
				other := a.(k8stesting.CreateAction).GetObject().DeepCopyObject().(metav1.Object)
				other.SetAnnotations(nil)
				other.SetLabels(nil)
				if err := c.Tracker().Create(a.GetResource(), other.(runtime.Object), "ml"); err != nil {
					return true, nil, err
				}
				return true, nil, lost
			})
		}, []string{"configmaps " + strings.Join(names, ", ") + " were created", "To remove them: kubectl delete configmap " + all + " -n ml"}},
		{"last part's answer lost", func(c *fake.Clientset) {
			n := 0
			c.PrependReactor("create", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if n++; n < len(names) {
					return false, nil, nil
				}
				if err := c.Tracker().Create(a.GetResource(), a.(k8stesting.CreateAction).GetObject(), "ml"); err != nil {
					return true, nil, err
				}
				return true, nil, lost
			})
		}, []string{"The ConfigMap(s) " + strings.Join(names, ", ") + " stay"}},
	} {
		c := fake.NewClientset()
		tc.inject(c)
		r := run(t, c, "eval", "--manifest", m, "--image", "img")
		msg := errText(r.Err)
		if r.Code != exitcode.Cluster {
			t.Errorf("%s: exit %d\n%s", tc.name, r.Code, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message lacks %q:\n%s", tc.name, w, msg)
			}
		}
	}
}

// TestLeftBehindCheckListsOnlyJobsThatMayMount: the command create prints to check, before
// deleting the ConfigMap it left behind, that no Job mounts it, lists the Jobs create made of
// the same manifest (which mount it) and not their retries (which mount stores of their own),
// so that an empty list means none (issue 26, item 11).
func TestLeftBehindCheckListsOnlyJobsThatMayMount(t *testing.T) {
	m, man := manifestFile(t)
	objs, err := scaffold.Build(scaffold.Options{Manifest: man, JobName: "other", Namespace: "ml", Image: "img"})
	if err != nil {
		t.Fatal(err)
	}
	other := objs.Job
	retry := other.DeepCopy()
	retry.Name = "other-r1"
	retry.Labels[shards.LabelRootJob] = "other"
	c := fake.NewClientset(other, retry)
	c.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "batch", Resource: "jobs"}, "eval", nil)
	})
	r := run(t, c, "eval", "--manifest", m, "--image", "img")
	msg := errText(r.Err)
	const marker = "check that this lists none: kubectl get jobs -n ml -l "
	i := strings.Index(msg, marker)
	if r.Code != exitcode.Cluster || i < 0 {
		t.Fatalf("exit %d\n%s", r.Code, msg)
	}
	sel := strings.Fields(msg[i+len(marker):])[0]
	sel = strings.Trim(strings.TrimSuffix(sel, "."), "'")
	l, err := c.BatchV1().Jobs("ml").List(context.Background(), metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		t.Fatalf("-l %s: %v", sel, err)
	}
	if len(l.Items) != 1 || l.Items[0].Name != "other" {
		t.Errorf("-l %s lists %d Jobs, want only %q: %+v", sel, len(l.Items), "other", l.Items)
	}
}
