// Command lineagegen writes a saved lineage for `status --lineage -f` (test/browser draws its
// -o html page): the captured seed fixture (test/fixtures/seed: 6 indexes, index 2 failed by
// the FailIndex rule on exit 42, index 4 failed with exit 1) as the root, and its retry
// seed-r1 of indexes 2 and 4 in which index 0 (shard 2) failed again and index 1 (shard 4)
// succeeded, as pkg/lineage's tests build it (retryOf): the retry's pod for index 0 is seed's
// captured pod of index 2, moved to the retry; its status is set, not captured. One file, a
// List of the two Jobs and their pods.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

func main() {
	fixture := flag.String("fixture", "test/fixtures/seed", "the captured root Job's fixture directory")
	out := flag.String("out", "", "output file (a List of the Jobs and their pods)")
	flag.Parse()
	if err := run(*fixture, *out); err != nil {
		fmt.Fprintln(os.Stderr, "lineagegen:", err)
		os.Exit(1)
	}
}

func run(fixture, out string) error {
	var root batchv1.Job
	if err := readJSON(filepath.Join(fixture, "job.json"), &root); err != nil {
		return err
	}
	var pods corev1.PodList
	if err := readJSON(filepath.Join(fixture, "pods.json"), &pods); err != nil {
		return err
	}
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[shards.Prefix+"invalid-input-exit-code"] = "42"
	r1 := root.DeepCopy()
	r1.Name, r1.UID = root.Name+"-r1", types.UID("uid-r1")
	l := &lineage.Lineage{RootJob: root.Name, RootJobUID: string(root.UID), ParentJob: root.Name, ParentJobUID: string(root.UID), Attempt: 1, Original: indexes.Of(2, 4)}
	for k, v := range l.Annotations() {
		r1.Annotations[k] = v
	}
	if r1.Labels == nil {
		r1.Labels = map[string]string{}
	}
	for k, v := range l.Labels() {
		r1.Labels[k] = v
	}
	two := int32(2)
	r1.Spec.Completions = &two
	failed := "0"
	r1.Status.CompletedIndexes, r1.Status.FailedIndexes = "1", &failed
	r1.Status.Succeeded, r1.Status.Failed = 1, 1
	list := corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	add := func(o runtime.Object) { list.Items = append(list.Items, runtime.RawExtension{Object: o}) }
	root.APIVersion, root.Kind = "batch/v1", "Job"
	r1.APIVersion, r1.Kind = "batch/v1", "Job"
	add(&root)
	add(r1)
	for i := range pods.Items {
		p := &pods.Items[i]
		p.APIVersion, p.Kind = "v1", "Pod"
		add(p)
		if p.Annotations[batchv1.JobCompletionIndexAnnotation] != "2" {
			continue
		}
		q := p.DeepCopy()
		q.Name, q.UID = r1.Name+"-0-x", types.UID("uid-r1-pod-0")
		q.Annotations[batchv1.JobCompletionIndexAnnotation] = "0"
		q.Labels[batchv1.JobCompletionIndexAnnotation] = "0"
		q.Labels[batchv1.ControllerUidLabel] = string(r1.UID)
		q.Labels[batchv1.JobNameLabel] = r1.Name
		q.OwnerReferences[0].UID, q.OwnerReferences[0].Name = r1.UID, r1.Name
		add(q)
	}
	b, err := json.Marshal(&list)
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
