// Package joblist makes the overview `kubectl indexed list` prints: one row per Indexed Job,
// with its phase, index counts and completeness from pkg/indexstatus (the same words and rules
// as status), and retry Jobs placed under the Job they retry (the lineage keys of pkg/shards,
// read by pkg/lineage). It is pure: the command lists the Jobs (and, with --with-pods, pods).
package joblist

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
)

// APIVersion and Kind identify the list in JSON and YAML.
const (
	APIVersion = contract.APIVersion
	Kind       = contract.IndexedJobList
)

// List is the overview.
type List struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []Row  `json:"items"`
	// WithPods says pods were read: Running, Attempts and Pods come from them.
	WithPods bool `json:"withPods"`
}

// Row is one Indexed Job.
type Row struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	Phase     indexstatus.Phase `json:"phase"`
	Reason    string            `json:"reason,omitempty"`
	// Succeeded and Failed count the indexes in status.completedIndexes and
	// status.failedIndexes; Running is status.active (the Job's pods pending or running, one per
	// index being run), with or without --with-pods; Total is completions.
	Succeeded int   `json:"succeeded"`
	Failed    int   `json:"failed"`
	Running   int   `json:"running"`
	Total     int32 `json:"total"`
	// Complete and Missing are status's completeness: every index succeeded, and which did not,
	// in root shards: for a retry, the root indexes its index map gives (a retry of shards 22
	// and 30 missing both says 22,30, not its own 0,1).
	Complete bool        `json:"complete"`
	Missing  indexes.Set `json:"missing,omitzero"`
	// Created is the Job's creation time.
	Created time.Time `json:"created"`
	// Parallelism and BackoffLimitPerIndex are from the spec (the wide view).
	Parallelism          int32  `json:"parallelism"`
	BackoffLimitPerIndex *int32 `json:"backoffLimitPerIndex,omitempty"`
	// Root and Parent name, for a retry Job, the first Job of its lineage and the Job it
	// retries; RetryAttempt is its number in the lineage. Depth is how many retries deep it is
	// shown (0 for a Job whose parent is not listed).
	Root         string `json:"root,omitempty"`
	Parent       string `json:"parent,omitempty"`
	RetryAttempt int    `json:"retryAttempt,omitempty"`
	Depth        int    `json:"depth"`
	// RetrySet identifies the retry the Job belongs to (lineage.AnnotationRetrySet): a retry of
	// a Job that create did not make is a Job per index, all with the same set.
	RetrySet string `json:"retrySet,omitempty"`
	// Attempts sums the attempts of every index and Pods counts the Job's pods present (with
	// pods only).
	Attempts *int `json:"attempts,omitempty"`
	Pods     *int `json:"pods,omitempty"`
	// Error says why the Job could not be summarised (a malformed status or lineage); the row
	// is still listed.
	Error string `json:"error,omitempty"`
	// Queue is the LocalQueue of a Job Kueue manages (label kueue.x-k8s.io/queue-name), and
	// Admission its Workload's state as pkg/kueue reads it (Pending, Admitted, Evicted, ...;
	// "unknown" when the Workloads could not be read). Set by the list command.
	Queue     string `json:"queue,omitempty"`
	Admission string `json:"admission,omitempty"`

	// run is the run the Job belongs to (lineage.RunOf): a retry nests only under a Job of
	// the same run.
	run lineage.RunID
}

// IsIndexed reports whether job is an Indexed Job.
func IsIndexed(job *batchv1.Job) bool {
	return job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion && job.Spec.Completions != nil
}

// ConfigMapGetter returns the ConfigMap name of namespace ns.
type ConfigMapGetter func(ns, name string) (*corev1.ConfigMap, error)

// BuildWithMaps makes the overview of the Indexed Jobs among jobs (others are left out).
// podsByUID, when not nil, holds the pods of each Job by the Job's UID (--with-pods). Rows come
// in namespace and name order, each retry right under the Job it retries. maps gets the
// ConfigMaps that hold the index maps of large retries (annotation original-indexes-from): a
// retry's Missing is in root shards, which its index map gives; without the map (maps nil, or
// the ConfigMap cannot be read) Missing is left empty and Error says why.
func BuildWithMaps(jobs []batchv1.Job, podsByUID map[string][]corev1.Pod, clock indexstatus.Clock, maps ConfigMapGetter) *List {
	var rows []Row
	for i := range jobs {
		j := &jobs[i]
		if !IsIndexed(j) {
			continue
		}
		rows = append(rows, row(j, podsByUID, clock, maps))
	}
	return &List{APIVersion: APIVersion, Kind: Kind, Items: tree(rows), WithPods: podsByUID != nil}
}

func row(j *batchv1.Job, podsByUID map[string][]corev1.Pod, clock indexstatus.Clock, maps ConfigMapGetter) Row {
	r := Row{
		Name: j.Name, Namespace: j.Namespace, Total: *j.Spec.Completions, Created: j.CreationTimestamp.UTC(),
		Parallelism: ptr.Deref(j.Spec.Parallelism, 1), BackoffLimitPerIndex: j.Spec.BackoffLimitPerIndex, run: lineage.RunOf(j),
	}
	l, ok, err := lineage.Read(j)
	if ok {
		if err != nil {
			r.Error = err.Error()
			l = nil
		} else {
			r.Root, r.Parent, r.RetryAttempt = l.RootJob, l.ParentJob, l.Attempt
			r.RetrySet = j.Annotations[lineage.AnnotationRetrySet]
		}
	}
	rep, err := indexstatus.Build(j, podsByUID[string(j.UID)], indexstatus.Options{Clock: clock, AllIndexes: podsByUID != nil})
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Phase, r.Reason = rep.Phase, rep.Reason
	r.Succeeded, r.Failed = rep.Summary.Succeeded, rep.Summary.Failed
	r.Complete = rep.Completeness.Complete
	r.Missing, err = rootMissing(j, l, rep.Completeness.Missing, maps)
	if err != nil && r.Error == "" {
		r.Error = err.Error()
	}
	// RUN means one thing with or without pods: the Job's active pods (status.active).
	r.Running = int(rep.Counters.Active)
	if podsByUID == nil {
		return r
	}
	attempts := 0
	for _, ix := range rep.Indexes {
		attempts += ix.Attempts
	}
	r.Attempts, r.Pods = &attempts, ptr.To(rep.Pods.Seen)
	return r
}

// rootMissing is missing, the indexes of job without a success, in root shards: for a retry
// (lineage l), the root indexes its index map gives them; for a root Job, missing itself.
func rootMissing(job *batchv1.Job, l *lineage.Lineage, missing indexes.Set, maps ConfigMapGetter) (indexes.Set, error) {
	if l == nil || missing.IsEmpty() {
		return missing, nil
	}
	if !l.Resolved() {
		if maps == nil {
			return indexes.Set{}, nil
		}
		cm, err := maps(job.Namespace, l.OriginalFrom.ConfigMap)
		if err != nil {
			return indexes.Set{}, fmt.Errorf("the missing root shards are unknown: job %q keeps its index map in ConfigMap %q: %w", job.Name, l.OriginalFrom.ConfigMap, err)
		}
		resolved := *l
		if err := resolved.Resolve(job, cm); err != nil {
			return indexes.Set{}, err
		}
		l = &resolved
	}
	return lineage.Compose(l, int(*job.Spec.Completions), missing)
}

// tree orders rows by namespace and name, each retry placed after the Job it retries (its
// parent, when listed; else its root; else where its name sorts), deeper by one per retry. A
// Job of the parent's or root's name nests the retry only when it is of the same run
// (lineage.RunOf): one made again under the root's name after the root was deleted is not.
func tree(rows []Row) []Row {
	slices.SortStableFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), lineage.NaturalCompare(a.Name, b.Name))
	})
	type key struct{ ns, name string }
	present := map[key]lineage.RunID{}
	for _, r := range rows {
		present[key{r.Namespace, r.Name}] = r.run
	}
	sameRun := func(r Row, name string) bool {
		run, ok := present[key{r.Namespace, name}]
		return ok && run == r.run
	}
	children := map[key][]int{}
	var tops []int
	for i, r := range rows {
		parent := ""
		switch {
		case r.Parent != "" && r.Parent != r.Name && sameRun(r, r.Parent):
			parent = r.Parent
		case r.Root != "" && r.Root != r.Name && sameRun(r, r.Root):
			parent = r.Root
		}
		if parent == "" {
			tops = append(tops, i)
			continue
		}
		k := key{r.Namespace, parent}
		children[k] = append(children[k], i)
	}
	out := make([]Row, 0, len(rows))
	seen := make([]bool, len(rows))
	var walk func(i, depth int)
	walk = func(i, depth int) {
		if seen[i] {
			return
		}
		seen[i] = true
		r := rows[i]
		r.Depth = depth
		out = append(out, r)
		kids := children[key{r.Namespace, r.Name}]
		slices.SortStableFunc(kids, func(a, b int) int {
			return cmp.Or(cmp.Compare(rows[a].RetryAttempt, rows[b].RetryAttempt), lineage.NaturalCompare(rows[a].Name, rows[b].Name))
		})
		for _, c := range kids {
			walk(c, depth+1)
		}
	}
	for _, i := range tops {
		walk(i, 0)
	}
	// A cycle of hand-edited parents has no top: list what is left flat.
	for i := range rows {
		walk(i, 0)
	}
	return out
}
