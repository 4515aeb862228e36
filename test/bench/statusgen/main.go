// Command statusgen writes a saved Job and its pods for the offline `status -f --pods-file`
// benchmark: it takes a captured fixture (test/fixtures/NAME/job.json and pods.json), sets the
// Job's completions to -pods, and writes one pod per index cloned from the fixture's pods in
// turn, with its name, UID, index annotation and label rewritten. The Job's status is kept as
// captured, so the report is about many indexes, not a claim about the controller.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

func main() {
	fixture := flag.String("fixture", "test/fixtures/completing", "captured fixture directory")
	n := flag.Int("pods", 5000, "pods (and completions)")
	dir := flag.String("dir", "", "output directory (job.json and pods.json)")
	flag.Parse()
	if err := run(*fixture, *n, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "statusgen:", err)
		os.Exit(1)
	}
}

func run(fixture string, n int, dir string) error {
	var job batchv1.Job
	if err := readJSON(filepath.Join(fixture, "job.json"), &job); err != nil {
		return err
	}
	var list corev1.PodList
	if err := readJSON(filepath.Join(fixture, "pods.json"), &list); err != nil {
		return err
	}
	if len(list.Items) == 0 {
		return fmt.Errorf("%s: no pods", fixture)
	}
	c := int32(n)
	job.Spec.Completions, job.Spec.Parallelism = &c, &c
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "job.json"), &job); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "pods.json"))
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	// Written item by item: the generator itself holds one pod at a time.
	if _, err := f.WriteString(`{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[`); err != nil {
		return err
	}
	for i := range n {
		p := list.Items[i%len(list.Items)].DeepCopy()
		idx := strconv.Itoa(i)
		p.Name = fmt.Sprintf("%s-%d-bench%d", job.Name, i, i)
		p.UID = types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i))
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Annotations[batchv1.JobCompletionIndexAnnotation] = idx
		p.Labels[batchv1.JobCompletionIndexAnnotation] = idx
		p.Spec.Hostname = fmt.Sprintf("%s-%d", job.Name, i)
		b, err := json.Marshal(p)
		if err != nil {
			return err
		}
		if i > 0 {
			b = append([]byte{','}, b...)
		}
		if _, err := f.Write(b); err != nil {
			return err
		}
	}
	_, err = f.WriteString("]}\n")
	return err
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
