// Command statusgen writes a saved Job and its pods for the offline `status -f --pods-file`
// benchmark: it takes a captured fixture (test/fixtures/NAME/job.json and pods.json), sets the
// Job's completions to -pods, and writes one pod per index cloned from the fixture's pods in
// turn, with its name, UID, index annotation and label rewritten. The Job's status is kept as
// captured, so the report is about many indexes, not a claim about the controller.
//
// With -attempts K each index gets K pods: K-1 older attempts, failed (exit code 1, reason
// Error, phase Failed) and settled as the controller leaves a counted failure (no
// batch.kubernetes.io/job-tracking finalizer, no deletionTimestamp; under backoffLimitPerIndex
// the job-index-failure-count annotation is the attempt number), created 30s apart before the
// cloned pod, which comes last as the latest attempt. status.failed grows by the older attempts.
// With -attempts 1 (the default) the files are the same as before the flag existed.
//
// With -completions C (at least -pods) the Job has C completions (and parallelism) while pods
// are written for indexes 0 to pods-1 only, so that the pods can grow with the completions
// fixed; the status is kept as captured, as without the flag. Unset (0), completions is -pods.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

func main() {
	fixture := flag.String("fixture", "test/fixtures/completing", "captured fixture directory")
	n := flag.Int("pods", 5000, "completions (and pods with -attempts 1)")
	attempts := flag.Int("attempts", 1, "pods per index: attempts-1 failed older attempts, then the cloned pod")
	completions := flag.Int("completions", 0, "completions (and parallelism), at least -pods; 0: -pods")
	receipts := flag.Bool("receipts", false, "give every terminated container a receipt summary in its termination message (the CASES column)")
	dir := flag.String("dir", "", "output directory (job.json and pods.json)")
	flag.Parse()
	if err := run(*fixture, *n, *attempts, *completions, *receipts, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "statusgen:", err)
		os.Exit(1)
	}
}

func run(fixture string, n, attempts, completions int, receipts bool, dir string) error {
	if attempts < 1 {
		return fmt.Errorf("-attempts %d: at least 1", attempts)
	}
	if completions == 0 {
		completions = n
	}
	if completions < n {
		return fmt.Errorf("-completions %d: at least -pods %d", completions, n)
	}
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
	c := int32(completions)
	job.Spec.Completions, job.Spec.Parallelism = &c, &c
	job.Status.Failed += int32(n * (attempts - 1))
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
	first := true
	for i := range n {
		for a := range attempts {
			p := pod(&job, &list.Items[i%len(list.Items)], i, a, attempts)
			if receipts {
				if err := addReceipt(&job, p, i); err != nil {
					return err
				}
			}
			b, err := json.Marshal(p)
			if err != nil {
				return err
			}
			if !first {
				b = append([]byte{','}, b...)
			}
			first = false
			if _, err := f.Write(b); err != nil {
				return err
			}
		}
	}
	_, err = f.WriteString("]}\n")
	return err
}

// pod is attempt a of index i: the fixture pod tmpl renamed, and for an older attempt
// (a < attempts-1) failed and settled.
func pod(job *batchv1.Job, tmpl *corev1.Pod, i, a, attempts int) *corev1.Pod {
	p := tmpl.DeepCopy()
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
	if attempts == 1 {
		return p
	}
	if job.Spec.BackoffLimitPerIndex != nil {
		p.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(a)
	}
	if a == attempts-1 {
		return p
	}
	// An older attempt: created (attempts-1-a)×30s before the latest, failed a second later.
	p.Name = fmt.Sprintf("%s-%d-bench%d-a%d", job.Name, i, i, a)
	p.UID = types.UID(fmt.Sprintf("00000000-0000-0000-%04d-%012d", a+1, i))
	created := p.CreationTimestamp.Add(-time.Duration(attempts-1-a) * 30 * time.Second)
	p.CreationTimestamp = metav1.NewTime(created)
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = nil, nil
	p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == batchv1.JobTrackingFinalizer })
	p.Status.Phase, p.Status.Reason, p.Status.Message = corev1.PodFailed, "", ""
	start, end := metav1.NewTime(created), metav1.NewTime(created.Add(time.Second))
	p.Status.StartTime = &start
	for k := range p.Status.Conditions {
		c := &p.Status.Conditions[k]
		if c.Type == corev1.PodReady || c.Type == corev1.ContainersReady {
			c.Status, c.LastTransitionTime = corev1.ConditionFalse, end
		}
	}
	for k := range p.Status.ContainerStatuses {
		cs := &p.Status.ContainerStatuses[k]
		cs.Ready, cs.Started = false, new(false)
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 1, Reason: "Error", StartedAt: start, FinishedAt: end, ContainerID: cs.ContainerID}}
	}
	return p
}

// addReceipt writes the receipt summary a worker of shard i leaves (pkg/receipt) into the
// termination message of every terminated container of p: all 200 assigned cases completed.
func addReceipt(job *batchv1.Job, p *corev1.Pod, i int) error {
	s := &receipt.Summary{APIVersion: receipt.APIVersion, Kind: receipt.SummaryKind, Attempt: receipt.Attempt{
		Manifest: contract.ManifestRef{Name: job.Name, Revision: "1"}, ShardID: fmt.Sprintf("shard-%d", i),
		CompletionIndex: i, Job: contract.JobRef{Name: job.Name}, AttemptID: p.Name,
		Assigned: receipt.Assigned{Count: 200, Digest: shards.FormatHash(make([]byte, 32))}}, Completed: 200}
	b, err := receipt.Encode(s)
	if err != nil {
		return err
	}
	for k := range p.Status.ContainerStatuses {
		if t := p.Status.ContainerStatuses[k].State.Terminated; t != nil {
			t.Message = string(b)
		}
	}
	return nil
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
