package reconcile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
	domain "github.com/kubectl-indexed/kubectl-indexed/pkg/reconcile"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// podPageSize is the page size of the pod LISTs.
const podPageSize = 500

// maxNamedPods bounds how many pods without a summary a note names.
const maxNamedPods = 10

// source is the cluster, where live reads.
func (o *Options) source() *gather.Live {
	return &gather.Live{Client: o.Client, Namespace: o.Namespace}
}

// live reads the Job (or its root, when JOB is a retry), the manifest from its shard
// ConfigMap, its retries and their pods' termination messages.
func (o *Options) live(ctx context.Context) (*domain.Reconciler, error) {
	src := o.source()
	run, err := gather.ReadRun(ctx, src, o.JobName, o.Namespace)
	if err != nil {
		return nil, err
	}
	var notes []string
	job, root, rootName, rootUID := run.Job, run.Root, run.ID.Root, run.ID.RootUID
	if job != root {
		if run.Replaced != nil {
			notes = append(notes, fmt.Sprintf("Job %q names root %q with UID %q, but the Job of that name now has UID %q (the root deleted and a Job of its name made again): that Job is not its root.", job.Name, rootName, rootUID, run.Replaced.UID))
		}
		notes = append(notes, fmt.Sprintf("Job %q is retry %s of %q: the whole lineage from %q is reconciled.", job.Name, job.Annotations[shards.AnnotationRetryAttempt], rootName, rootName))
	}
	manifestJob := root
	if root == nil {
		manifestJob = job
	}
	m, err := o.liveManifest(ctx, manifestJob, root == nil)
	if err != nil {
		return nil, err
	}
	if root == nil {
		cm, _ := shards.ConfigMapNameFromJob(job)
		from := fmt.Sprintf("the copy in shard ConfigMap %q of %q", cm, job.Name)
		if o.ManifestFile != "" {
			from = "--manifest " + o.ManifestFile
		}
		notes = append(notes, fmt.Sprintf("The root Job %q is gone (deleted by hand or by its TTL): the manifest, %d shards, is read from %s; a shard only the root ran has no result left and is missing.", rootName, len(m.Shards), from))
	}
	rec, err := o.newReconciler(m)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		rec.Note("%s", n)
	}
	for _, rj := range run.Others {
		rec.Note("Job %q is labelled as a retry of %q but names root UID %q, not %q (a Job of that name deleted and made again): ignored.", rj.Name, rootName, lineage.RunOf(rj).RootUID, rootUID)
	}
	completions := len(m.Shards)
	noSummary, running := &podList{}, &podList{}
	for _, j := range lineageOrder(run) {
		ref := domain.LineageJob{JobRef: contract.JobRef{Name: j.Name, UID: string(j.UID)}}
		toRoot := func(k int) (int, bool) { return k, k >= 0 && k < completions }
		if j != root {
			ref.RetryAttempt = attemptOf(j)
			set, err := o.originalIndexes(ctx, j, completions)
			if err != nil {
				rec.Note("Retry %q: its index map cannot be read (%v): its pods are not used.", j.Name, err)
				rec.AddJob(ref)
				continue
			}
			ref.OriginalIndexes = set
			orig := slices.Collect(set.All())
			toRoot = func(k int) (int, bool) {
				if k < 0 || k >= len(orig) {
					return 0, false
				}
				return orig[k], true
			}
		}
		rec.AddJob(ref)
		if err := o.readPods(ctx, j, m, toRoot, rec, noSummary, running); err != nil {
			return nil, err
		}
	}
	noSummary.note(rec, "finished %s left no receipt summary in the termination message")
	running.note(rec, "%s not finished yet: their shards' results are not in")
	return rec, nil
}

// originalIndexes reads the root indexes retry j runs: from its annotation, or from the
// ConfigMap its original-indexes-from annotation names (one GET). Each must be an index of
// the root, which has completions indexes.
func (o *Options) originalIndexes(ctx context.Context, j *batchv1.Job, completions int) (indexes.Set, error) {
	l, _, err := lineage.ReadResolved(j, func(name string) (*corev1.ConfigMap, error) {
		cm, err := o.source().ConfigMap(ctx, name)
		if err != nil {
			return nil, exitcode.APIError(err, "get", "configmaps", name, o.Namespace)
		}
		return cm, nil
	})
	switch {
	case err != nil:
		return indexes.Set{}, err
	case l == nil:
		return indexes.Set{}, fmt.Errorf("job %q has no annotation %s", j.Name, shards.AnnotationRootJob)
	case !l.Original.IsEmpty() && l.Original.Max() >= completions:
		return indexes.Set{}, fmt.Errorf("root index %d is out of range: the root has %d completions", l.Original.Max(), completions)
	}
	return l.Original, nil
}

// lineageOrder is the Jobs of run in lineage order: the root (unless it is gone), then the
// retries by attempt (byAttempt).
func lineageOrder(run *gather.Run) []*batchv1.Job {
	retries := slices.SortedStableFunc(slices.Values(run.Retries), byAttempt)
	if run.Root == nil {
		return retries
	}
	return append([]*batchv1.Job{run.Root}, retries...)
}

// byAttempt orders retries by attempt, then name. The attempts are compared, not subtracted:
// an annotation is any text, and a difference of two numbers near the int range wraps around.
func byAttempt(a, b *batchv1.Job) int {
	return cmp.Or(cmp.Compare(attemptOf(a), attemptOf(b)), strings.Compare(a.Name, b.Name))
}

func attemptOf(j *batchv1.Job) int {
	n, err := strconv.Atoi(j.Annotations[shards.AnnotationRetryAttempt])
	if err != nil {
		return 0
	}
	return n
}

// liveManifest reads the manifest from the Job's shard ConfigMap (and checks --manifest, when
// given, against the Job's manifest hash). rootGone says that job is a retry read in place of
// its root, which is gone.
func (o *Options) liveManifest(ctx context.Context, job *batchv1.Job, rootGone bool) (*shards.Manifest, error) {
	wantHash := shards.RecordedHash(job)
	if o.ManifestFile != "" {
		m, err := shards.Read(o.ManifestFile, o.In)
		if err != nil {
			return nil, exitcode.Wrap(exitcode.Usage, err)
		}
		if wantHash != "" && m.Hash() != wantHash {
			return nil, exitcode.UsageError("--manifest %s has hash %s but Job %q ran manifest %s", o.ManifestFile, m.Hash(), job.Name, wantHash)
		}
		return m, nil
	}
	name, ok := shards.ConfigMapNameFromJob(job)
	if !ok {
		return nil, exitcode.UsageError("job %q in namespace %q names no shard ConfigMap (annotation %s): it was not made by kubectl indexed create; give --manifest FILE", job.Name, o.Namespace, shards.AnnotationShardsConfigMap)
	}
	cm, err := o.source().ConfigMap(ctx, name)
	if err != nil {
		return nil, exitcode.APIError(err, "get", "configmaps", name, o.Namespace)
	}
	m, ok, err := shards.ManifestFromConfigMap(cm, wantHash)
	switch {
	case err != nil:
		return nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("job %q: %w; give --manifest FILE, the manifest it ran", job.Name, err))
	case !ok && rootGone:
		return nil, exitcode.UsageError("the root Job %q of %q is gone, and configmap %q holds no copy of the manifest (key %q; a manifest too large to be mounted is not copied): give --manifest FILE, the manifest the root ran",
			job.Annotations[shards.AnnotationRootJob], job.Name, name, shards.KeyManifest)
	case !ok && (cm.Data[shards.KeyShardIDs] != "" || len(cm.BinaryData[shards.KeyShardIDsGzip]) > 0):
		// create's store (it has the shard IDs) without the copy: create leaves the manifest
		// out when it does not fit next to the shards.
		return nil, exitcode.UsageError("configmap %q holds no copy of the manifest (key %q; a manifest too large to be stored next to its shards is not copied): give --manifest FILE, the manifest job %q ran", name, shards.KeyManifest, job.Name)
	case !ok:
		return nil, exitcode.UsageError("configmap %q has no key %q: it was not written by kubectl indexed create; give --manifest FILE", name, shards.KeyManifest)
	}
	return m, nil
}

// podList collects pods that finished without a usable summary, for one note.
type podList struct {
	names []string
	n     int
}

func (p *podList) add(s string) {
	p.n++
	if len(p.names) < maxNamedPods {
		p.names = append(p.names, s)
	}
}

// note adds "N <what>: names." where what has a %s for "pod" or "pods".
func (p *podList) note(rec *domain.Reconciler, what string) {
	if p.n == 0 {
		return
	}
	more := ""
	if p.n > len(p.names) {
		more = fmt.Sprintf(" and %d more", p.n-len(p.names))
	}
	rec.Note("%d %s: %s%s.", p.n, fmt.Sprintf(what, textwrap.Plural(p.n, "pod", "pods")), strings.Join(p.names, ", "), more)
}

// readPods pages through job's pods (gather.Live.Pods: protobuf, one pod decoded at a time)
// and adds the summary each finished pod left.
func (o *Options) readPods(ctx context.Context, job *batchv1.Job, m *shards.Manifest, toRoot func(int) (int, bool),
	rec *domain.Reconciler, noSummary, running *podList) error {
	container := job.Annotations[scaffold.AnnotationWorkerContainer]
	src := o.source()
	src.FirstPageSize, src.ChunkSize = podPageSize, podPageSize
	_, err := src.Pods(ctx, job, "", func(pod *corev1.Pod) {
		if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
			running.add(pod.Name)
			return
		}
		o.addPod(pod, job, m, container, toRoot, rec, noSummary)
	})
	return err
}

func (o *Options) addPod(pod *corev1.Pod, job *batchv1.Job, m *shards.Manifest, container string, toRoot func(int) (int, bool),
	rec *domain.Reconciler, noSummary *podList) {
	src := "pod/" + pod.Name
	k, err := strconv.Atoi(pod.Annotations[batchv1.JobCompletionIndexAnnotation])
	if err != nil {
		return
	}
	rootIndex, ok := toRoot(k)
	if !ok {
		rec.Note("Pod %q of Job %q runs index %d, which maps to no shard of the manifest.", pod.Name, job.Name, k)
		return
	}
	shardID := m.Shards[rootIndex].ID
	msg, _, ok := receipt.TerminationMessage(pod, container)
	s, err := receipt.Decode(src, msg)
	switch {
	case !ok || errors.Is(err, receipt.ErrNotSummary):
		noSummary.add(fmt.Sprintf("%s (shard %s, %s)", pod.Name, shardID, pod.Status.Phase))
	case err != nil:
		rec.Reject(src, shardID, err)
	default:
		rec.AddSummary(src, s, shardID)
	}
}
