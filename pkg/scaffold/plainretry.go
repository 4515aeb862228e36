package scaffold

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// A plain Job (one kubectl indexed create did not make) takes its shard from its completion
// index: the variable JOB_COMPLETION_INDEX, which the Job controller adds to every container and
// init container only when the container does not define it (addCompletionIndexEnvVariable,
// pkg/controller/job/indexed_job_utils.go, the mirrored release (pkg/version)), or a downward-API fieldRef to the
// completion-index label or annotation, which the controller sets on each pod. A retry of
// plain Job index r is therefore one Job of one index whose pod template pins all of those to
// r: the worker sees r with its image, command and args unchanged.

// AnnotationPinnedIndex, on the pod template of a plain retry, holds the original completion
// index; its downward-API volume items that read the completion index read this instead
// (a volume item cannot hold a literal, and the controller overwrites the label and
// annotation batch.kubernetes.io/job-completion-index with the retry's own index, 0).
const AnnotationPinnedIndex = shards.Prefix + "completion-index"

// completionIndexPaths are the fieldRef paths that read a pod's completion index.
var completionIndexPaths = map[string]bool{
	"metadata.labels['" + batchv1.JobCompletionIndexAnnotation + "']":      true,
	"metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']": true,
}

// readsIndex reports whether e reads the pod's completion index through a fieldRef.
func readsIndex(e corev1.EnvVar) bool {
	return e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && completionIndexPaths[e.ValueFrom.FieldRef.FieldPath]
}

// RetrySet identifies one retry: the parent Job (its UID) and the parent indexes chosen. Every
// Job of a plain retry carries it (annotation lineage.AnnotationRetrySet), so a second run of
// the same command recognises the Jobs the first one made and creates only the rest.
func RetrySet(parentUID string, chosen indexes.Set) string {
	h := sha256.Sum256([]byte(parentUID + "\n" + chosen.String()))
	return hex.EncodeToString(h[:])[:HashLength]
}

// BuildPlainRetry returns the Jobs of a retry of a plain Job, one per chosen index, in the
// order of o.Indexes: Job k is the parent's (cleaned as for a retry) with one completion,
// lineage annotations mapping its index 0 to the k-th root index of o.Lineage.Original, the
// retry-set annotation, and the completion index pinned to that root index (PinCompletionIndex).
// Its name is o.JobName, "-" and the root index. ParentConfigMaps and IndexMap are
// not used.
//
// Policy: parallelism 1; backoffLimit and backoffLimitPerIndex the parent's (one index, so a
// global limit is a per-index one) unless --backoff-limit-per-index is given; no
// maxFailedIndexes and no successPolicy (one index); the deadlines as for any retry.
func BuildPlainRetry(o RetryOptions) ([]*batchv1.Job, []string, error) {
	if err := o.check(); err != nil {
		return nil, nil, err
	}
	p, n := o.Parent, o.Indexes.Len()
	if n > shards.MaxPlainRetryJobs {
		return nil, nil, fmt.Errorf("job %q was not made by kubectl indexed create, so a retry runs each index as a Job of its own, and %d indexes would be %d Jobs, over the limit of %d; nothing was created. Retry at most %d at a time with --indexes (for example --indexes %s), or re-create the run with kubectl indexed create --from-job, whose retries are one Job at any size",
			p.Name, n, n, shards.MaxPlainRetryJobs, shards.MaxPlainRetryJobs, o.Indexes.First(shards.MaxPlainRetryJobs))
	}
	if p.Spec.ManualSelector != nil && *p.Spec.ManualSelector {
		return nil, nil, fmt.Errorf("job %q sets manualSelector: the Jobs of its retry would select each other's pods; nothing was created", p.Name)
	}
	var notes []string
	if p.Spec.SuccessPolicy != nil {
		notes = append(notes, fmt.Sprintf("job %q has a successPolicy; each Job of the retry runs one index, so it has none", p.Name))
	}
	set := RetrySet(string(p.UID), o.Indexes)
	jobs := make([]*batchv1.Job, 0, n)
	for r := range o.Lineage.Original.All() {
		l := *o.Lineage
		l.Original, l.OriginalFrom = indexes.Of(r), nil
		job := retryJob(o, &l, o.JobName+"-"+strconv.Itoa(r))
		job.Annotations[lineage.AnnotationRetrySet] = set
		spec := &job.Spec
		spec.Completions, spec.Parallelism = ptr.To(int32(1)), ptr.To(int32(1))
		spec.Suspend, spec.SuccessPolicy, spec.MaxFailedIndexes = kueue.SuspendFor(job.Labels), nil, nil
		if rp := spec.PodReplacementPolicy; rp != nil && *rp == jobpolicy.DefaultPodReplacementPolicy(spec) {
			// The live Job carries the server's default; left out, the server sets the same,
			// and lint of the retry reads it as the default it is, not as the user's choice.
			spec.PodReplacementPolicy = nil
		}
		if o.BackoffLimitPerIndex != nil {
			spec.BackoffLimitPerIndex, spec.BackoffLimit = ptr.To(*o.BackoffLimitPerIndex), nil
		}
		if o.MaxFailedIndexes != nil && spec.BackoffLimitPerIndex != nil {
			spec.MaxFailedIndexes = RetryBudget(*o.MaxFailedIndexes, 1)
		}
		PinCompletionIndex(&spec.Template, r)
		jobs = append(jobs, job)
	}
	return jobs, notes, nil
}

// PinCompletionIndex makes every place a worker of tmpl can read its completion index from
// say r: JOB_COMPLETION_INDEX in every container and init container (added, or its value
// replaced: a retry of a retry carries the literal its parent pinned), any other env var whose fieldRef reads the
// completion-index label or annotation, and downward-API volume items (plain or projected)
// that read them, which then read AnnotationPinnedIndex, set to r on the template.
func PinCompletionIndex(tmpl *corev1.PodTemplateSpec, r int) {
	v := strconv.Itoa(r)
	pinEnv := func(c *corev1.Container) {
		has := false
		for i := range c.Env {
			e := &c.Env[i]
			switch {
			case e.Name == EnvCompletionIndex:
				e.Value, e.ValueFrom, has = v, nil, true
			case readsIndex(*e):
				e.Value, e.ValueFrom = v, nil
			}
		}
		if !has {
			c.Env = append(c.Env, corev1.EnvVar{Name: EnvCompletionIndex, Value: v})
		}
	}
	for i := range tmpl.Spec.InitContainers {
		pinEnv(&tmpl.Spec.InitContainers[i])
	}
	for i := range tmpl.Spec.Containers {
		pinEnv(&tmpl.Spec.Containers[i])
	}
	pinned := false
	pinItems := func(items []corev1.DownwardAPIVolumeFile) {
		for i := range items {
			if f := items[i].FieldRef; f != nil && completionIndexPaths[f.FieldPath] {
				f.FieldPath = "metadata.annotations['" + AnnotationPinnedIndex + "']"
				pinned = true
			}
		}
	}
	for i := range tmpl.Spec.Volumes {
		vs := &tmpl.Spec.Volumes[i].VolumeSource
		if vs.DownwardAPI != nil {
			pinItems(vs.DownwardAPI.Items)
		}
		if vs.Projected != nil {
			for j := range vs.Projected.Sources {
				if d := vs.Projected.Sources[j].DownwardAPI; d != nil {
					pinItems(d.Items)
				}
			}
		}
	}
	if pinned {
		if tmpl.Annotations == nil {
			tmpl.Annotations = map[string]string{}
		}
		tmpl.Annotations[AnnotationPinnedIndex] = v
	}
}
