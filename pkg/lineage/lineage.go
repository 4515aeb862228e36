// Package lineage reads and writes the lineage of a retry Job (the keys of pkg/shards
// lineage.go), plans which indexes a retry runs, and folds the Jobs of a lineage into one
// report per original shard. It is pure: typed objects in, values out, no client.
package lineage

import (
	"fmt"
	"slices"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// MaxOriginalIndexesBytes bounds the original-indexes annotation. The API server allows 256 KiB
// for all of an object's annotations together (ValidateAnnotationsSize); half of it is left to
// the user's own annotations and kubectl's last-applied-configuration.
const MaxOriginalIndexesBytes = 128 << 10

// Lineage is where a retry Job comes from.
type Lineage struct {
	// RootJob and RootJobUID name the first Job of the lineage, whose completion indexes the
	// shard manifest was laid out for.
	RootJob    string `json:"rootJob"`
	RootJobUID string `json:"rootJobUID"`
	// ParentJob and ParentJobUID name the Job this one retries.
	ParentJob    string `json:"parentJob"`
	ParentJobUID string `json:"parentJobUID"`
	// Attempt is the retry's number in the lineage, from 1.
	Attempt int `json:"attempt"`
	// Original holds the root completion indexes the retry runs: retry index k runs the k-th
	// of them in ascending order.
	Original indexes.Set `json:"originalIndexes"`
	// OriginalFrom, when set, says the map is kept in a ConfigMap (a map too large for an
	// annotation): Original is then empty until Resolve reads it.
	OriginalFrom *MapRef `json:"originalIndexesFrom,omitempty"`
}

// IsRetry reports whether job carries lineage annotations (it was made by retry).
func IsRetry(job *batchv1.Job) bool {
	if job == nil {
		return false
	}
	_, ok := job.Annotations[shards.AnnotationRootJob]
	return ok
}

// Read returns the lineage job carries. ok is false, with no error, for a Job without the
// root-job annotation (a root Job). A Job with some lineage keys but not all, or with values
// that do not parse, is an error naming the key; so is an index map whose size differs from
// the Job's completions.
//
// When the map is kept in a ConfigMap (annotation original-indexes-from), Read sets
// OriginalFrom and leaves Original empty: Resolve (or ReadResolved) reads the map. The other
// fields (root, parent, attempt) are complete either way.
func Read(job *batchv1.Job) (l *Lineage, ok bool, err error) {
	if !IsRetry(job) {
		return nil, false, nil
	}
	a := job.Annotations
	get := func(key string) (string, error) {
		v, present := a[key]
		if !present || v == "" {
			return "", fmt.Errorf("job %q has annotation %s but not %s: its lineage annotations were changed by hand", job.Name, shards.AnnotationRootJob, key)
		}
		return v, nil
	}
	l = &Lineage{}
	for _, f := range []struct {
		key string
		dst *string
	}{
		{shards.AnnotationRootJob, &l.RootJob},
		{shards.AnnotationRootJobUID, &l.RootJobUID},
		{shards.AnnotationParentJob, &l.ParentJob},
		{shards.AnnotationParentJobUID, &l.ParentJobUID},
	} {
		if *f.dst, err = get(f.key); err != nil {
			return nil, true, err
		}
	}
	s, err := get(shards.AnnotationRetryAttempt)
	if err != nil {
		return nil, true, err
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || strconv.Itoa(n) != s {
		return nil, true, fmt.Errorf("job %q: annotation %s is %q, not a whole number from 1", job.Name, shards.AnnotationRetryAttempt, s)
	}
	l.Attempt = n
	if from, ok := a[shards.AnnotationOriginalIndexesFrom]; ok {
		// The map is in a ConfigMap: Resolve reads it.
		if _, both := a[shards.AnnotationOriginalIndexes]; both {
			return nil, true, fmt.Errorf("job %q has both annotations %s and %s: its lineage annotations were changed by hand", job.Name, shards.AnnotationOriginalIndexes, shards.AnnotationOriginalIndexesFrom)
		}
		ref, err := ParseMapRef(from)
		if err != nil {
			return nil, true, fmt.Errorf("job %q: annotation %s: %w", job.Name, shards.AnnotationOriginalIndexesFrom, err)
		}
		l.OriginalFrom = &ref
		return l, true, nil
	}
	if s, err = get(shards.AnnotationOriginalIndexes); err != nil {
		return nil, true, err
	}
	if len(s) > MaxOriginalIndexesBytes {
		return nil, true, fmt.Errorf("job %q: annotation %s holds %d bytes, more than the %d a retry writes", job.Name, shards.AnnotationOriginalIndexes, len(s), MaxOriginalIndexesBytes)
	}
	if l.Original, err = indexes.ParseRootIndexes(s); err != nil {
		return nil, true, fmt.Errorf("job %q: annotation %s: %w", job.Name, shards.AnnotationOriginalIndexes, err)
	}
	if err := checkCompletions(job, shards.AnnotationOriginalIndexes, l.Original); err != nil {
		return nil, true, err
	}
	return l, true, nil
}

// checkCompletions is an error when the map's size differs from the Job's completions.
func checkCompletions(job *batchv1.Job, where string, original indexes.Set) error {
	if c := job.Spec.Completions; c != nil && int(*c) != original.Len() {
		return fmt.Errorf("job %q: %s names %d indexes but the Job has %d completions", job.Name, where, original.Len(), *c)
	}
	return nil
}

// Annotations are the lineage annotations of a retry Job, exactly as Read reads them: the
// index map itself, or with OriginalFrom set, where it is.
func (l *Lineage) Annotations() map[string]string {
	a := map[string]string{
		shards.AnnotationRootJob:      l.RootJob,
		shards.AnnotationRootJobUID:   l.RootJobUID,
		shards.AnnotationParentJob:    l.ParentJob,
		shards.AnnotationParentJobUID: l.ParentJobUID,
		shards.AnnotationRetryAttempt: strconv.Itoa(l.Attempt),
	}
	if l.OriginalFrom != nil {
		a[shards.AnnotationOriginalIndexesFrom] = l.OriginalFrom.String()
	} else {
		a[shards.AnnotationOriginalIndexes] = l.Original.String()
	}
	return a
}

// Labels are the lineage labels of a retry Job.
func (l *Lineage) Labels() map[string]string {
	return map[string]string{shards.LabelRootJob: l.RootJob}
}

// RootIndex returns the root completion index that index k of a Job with lineage l runs; for
// a root Job (l nil) it is k itself. ok is false when k is out of range.
func (l *Lineage) RootIndex(k int) (int, bool) {
	if l == nil {
		return k, k >= 0
	}
	if k < 0 {
		return 0, false
	}
	for _, iv := range l.Original.Intervals() {
		if k < iv.Len() {
			return iv.First + k, true
		}
		k -= iv.Len()
	}
	return 0, false
}

// RootIndexes returns, in ascending order, the root completion index of every index of a retry
// Job with lineage l and n completions.
func (l *Lineage) RootIndexes(n int) []int {
	return slices.AppendSeq(make([]int, 0, n), l.Original.All())
}

// Compose returns the root indexes that the parent indexes chosen run: chosen are completion
// indexes of the parent (lineage parent, nil for a root Job with parentCompletions indexes).
// The result is ascending because both maps are.
func Compose(parent *Lineage, parentCompletions int, chosen indexes.Set) (indexes.Set, error) {
	if !parent.Resolved() {
		return indexes.Set{}, fmt.Errorf("the parent's index map is in ConfigMap %q and was not read", parent.OriginalFrom.ConfigMap)
	}
	if parent == nil {
		if m := chosen.Max(); m >= parentCompletions {
			return indexes.Set{}, fmt.Errorf("index %d is out of range: the Job has %d completions", m, parentCompletions)
		}
		return chosen, nil
	}
	// Walk both ascending sequences together: O(chosen + parent's intervals), no allocation
	// of the parent's whole map.
	ivs := parent.Original.Intervals()
	var b indexes.Builder
	iv, offset := 0, 0 // offset: parent index of ivs[iv].First
	for j := range chosen.All() {
		for iv < len(ivs) && j >= offset+ivs[iv].Len() {
			offset += ivs[iv].Len()
			iv++
		}
		if iv == len(ivs) {
			return indexes.Set{}, fmt.Errorf("index %d is out of range: the Job has %d completions", j, parent.Original.Len())
		}
		b.Add(ivs[iv].First + j - offset)
	}
	return b.Set(), nil
}

// AnnotationRetrySet, on every Job of a retry, identifies the retry: the first 10 hex digits
// of the SHA-256 of the parent Job's UID and the parent indexes chosen. A second run of the
// same retry finds its Jobs by it (their attempt number, and which exist already), and the
// one-retry-at-a-time check does not count them as another retry.
const AnnotationRetrySet = shards.Prefix + "retry-set"
