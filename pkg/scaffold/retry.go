package scaffold

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// RetryOptions are the inputs of BuildRetry: the Job retried (as read from the API server), its
// shard ConfigMap, the indexes chosen, and the overrides of `kubectl indexed retry`. Pointer
// fields are nil when the flag was not given.
type RetryOptions struct {
	// Parent is the Job retried; ParentConfigMaps the ConfigMaps of its shard store, the head
	// (the one its annotation names) first, then any parts its shard volume projects.
	Parent           *batchv1.Job
	ParentConfigMaps []*corev1.ConfigMap
	// Indexes are completion indexes of Parent, ascending: retry index k runs Parent's k-th.
	Indexes indexes.Set
	// Lineage of the new Job (root, parent, attempt and the root indexes it runs).
	Lineage *lineage.Lineage
	// JobName and Namespace name the retry Job.
	JobName   string
	Namespace string

	Parallelism             *int32
	BackoffLimitPerIndex    *int32
	MaxFailedIndexes        *Budget
	ActiveDeadlineSeconds   *int64
	TTLSecondsAfterFinished *int32

	// IndexMap says where the index map goes: IndexMapAuto ("" too) the annotation when it
	// fits, else a ConfigMap; IndexMapAnnotation or IndexMapConfigMap force one place.
	IndexMap IndexMapPlacement

	// PodAnnotations are set on the pod template (over the parent's); RemovePodAnnotations
	// are removed from it.
	PodAnnotations       map[string]string
	RemovePodAnnotations []string
}

// IndexMapPlacement is where a retry keeps its index map (retry index k -> root index).
type IndexMapPlacement string

// The places of the index map (retry --index-map).
const (
	IndexMapAuto       IndexMapPlacement = "auto"
	IndexMapAnnotation IndexMapPlacement = "annotation"
	IndexMapConfigMap  IndexMapPlacement = "configmap"
)

// IndexMapPlacements are the values of retry --index-map.
var IndexMapPlacements = []string{string(IndexMapAuto), string(IndexMapAnnotation), string(IndexMapConfigMap)}

// annotationMapLimit is the largest interval text "auto" writes in the annotation; tests lower
// it to make a small golden file of a map kept in a ConfigMap.
var annotationMapLimit = lineage.MaxOriginalIndexesBytes

// RetryConfigMapName names the head ConfigMap of a retry of the run of root Job root: the
// manifest's name, "-retry-" and the first HashLength hex digits of the SHA-256 of the root's
// name and the whole store's keys and values, so the same selection of the same shards in one
// run is one object, and no other content can take its name. The root is in the hash so that
// runs never share a store: the store carries its run's root-job label, and deleting a run by
// that label (kubectl delete jobs,configmaps -l indexed.kubectl.io/root-job=ROOT) must not take
// a store another run's retry mounts. Parts add "-<part number>".
func RetryConfigMapName(manifestName, root string, st *shards.Store) string {
	h := sha256.New()
	put := func(k string, v []byte) {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write(v)
		h.Write([]byte{0})
	}
	put("root-job", []byte(root))
	for _, k := range slices.Sorted(maps.Keys(st.Head)) {
		put(k, []byte(st.Head[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(st.HeadBinary)) {
		put("binary:"+k, st.HeadBinary[k])
	}
	for p, part := range st.Parts {
		for _, k := range slices.Sorted(maps.Keys(part)) {
			put("part"+strconv.Itoa(p)+":"+k, []byte(part[k]))
		}
	}
	return manifestName + "-retry-" + hex.EncodeToString(h.Sum(nil))[:HashLength]
}

// BuildRetry returns the immutable ConfigMap and the Job of a retry.
//
// The ConfigMap holds, under the keys of the worker contract, only the chosen shards: its
// index-<k>.cases and index-<k>.id are the parent's index-<j>.cases and index-<j>.id, where j
// is the k-th chosen index; shard-ids.json lists their IDs in that order; manifest.json is the
// parent's, unchanged. The worker reads the same paths as in the first run and gets the
// original shard's files. The parent and its ConfigMap are not modified.
//
// The Job is the parent's (image, command, env, resources, volumes, scheduling, pod failure
// policy) with completions the number of chosen indexes, the new ConfigMap in the shard volume,
// the lineage annotations, and the policy:
//   - backoffLimitPerIndex: the flag, else the parent's; a parent without it (a global
//     backoffLimit, "prepare-db" mode) gets create's default and no backoffLimit (noted);
//   - maxFailedIndexes: the flag (over the retry's indexes), else the parent's scaled to the
//     retry's size (rounded down), so the same share of failures trips it;
//   - parallelism: the flag, else the parent's, at most the number of indexes.
func BuildRetry(o RetryOptions) (*Objects, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if len(o.ParentConfigMaps) == 0 {
		return nil, errors.New("no shard ConfigMap")
	}
	p, n := o.Parent, o.Indexes.Len()
	pn := int(*p.Spec.Completions)
	if o.Indexes.Max() >= pn {
		return nil, fmt.Errorf("index %d is out of range: job %q has %d completions", o.Indexes.Max(), p.Name, pn)
	}
	l := *o.Lineage // the caller's is not changed
	l.OriginalFrom = nil
	var mapCM *corev1.ConfigMap
	text := l.Original.String()
	switch o.IndexMap {
	case IndexMapAnnotation:
		if len(text) > lineage.MaxOriginalIndexesBytes {
			return nil, fmt.Errorf("the index map of this retry takes %d bytes as an interval string, over the %d an annotation may hold: use --index-map=auto (a ConfigMap of its own), or retry fewer or more contiguous indexes at a time with --indexes", len(text), lineage.MaxOriginalIndexesBytes)
		}
	case IndexMapAuto, "", IndexMapConfigMap:
		if o.IndexMap == IndexMapConfigMap || len(text) > annotationMapLimit {
			im, err := lineage.NewIndexMap(l.RootJob, l.Original)
			if err != nil {
				return nil, err
			}
			l.OriginalFrom = &im.Ref
			mapCM = indexMapConfigMap(im, o, &l)
		}
	default:
		return nil, fmt.Errorf("index map placement %q is not one of %s", o.IndexMap, strings.Join(IndexMapPlacements, ", "))
	}

	cms, err := retryConfigMaps(o, pn)
	if err != nil {
		return nil, err
	}
	cm := cms[0]
	res := &Objects{ConfigMap: cm, Parts: cms[1:], IndexMap: mapCM}

	job := retryJob(o, &l, o.JobName)
	job.Annotations[shards.AnnotationShardsConfigMap] = cm.Name
	spec := &job.Spec
	n32 := int32(n)
	spec.Completions = ptr.To(n32)
	spec.Suspend = kueue.SuspendFor(job.Labels)
	switch {
	case o.Parallelism != nil:
		spec.Parallelism = ptr.To(*o.Parallelism)
	case spec.Parallelism == nil || *spec.Parallelism > n32:
		spec.Parallelism = ptr.To(n32)
	}
	prepareDB := spec.BackoffLimitPerIndex == nil
	spec.BackoffLimit = nil
	switch {
	case o.BackoffLimitPerIndex != nil:
		spec.BackoffLimitPerIndex = ptr.To(*o.BackoffLimitPerIndex)
	case prepareDB:
		spec.BackoffLimitPerIndex = ptr.To(DefaultBackoffLimitPerIndex)
	}
	switch {
	case o.MaxFailedIndexes != nil:
		spec.MaxFailedIndexes = RetryBudget(*o.MaxFailedIndexes, n)
		if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > n32 {
			return nil, fmt.Errorf("--max-failed-indexes %s is more than the %d indexes of the retry", o.MaxFailedIndexes, n)
		}
	case prepareDB:
		spec.MaxFailedIndexes = RetryBudget(DefaultMaxFailedIndexes, n)
	case spec.MaxFailedIndexes != nil:
		spec.MaxFailedIndexes = ptr.To(ScaleBudget(*spec.MaxFailedIndexes, pn, n))
	}
	if n == 1 && o.MaxFailedIndexes == nil && spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes >= 1 {
		// A budget scaled to one index is 1, which can never be exceeded: the Job behaves the
		// same without it (it fails when its one index does), and lint would call it
		// ineffective (max-failed-indexes-ineffective).
		spec.MaxFailedIndexes = nil
	}
	if prepareDB {
		res.Notes = append(res.Notes, fmt.Sprintf("job %q has no backoffLimitPerIndex (a global backoffLimit: one shard's failures can kill the others); the retry uses create's defaults instead: backoffLimitPerIndex %d, no backoffLimit, maxFailedIndexes %s",
			p.Name, *spec.BackoffLimitPerIndex, intOrNone(spec.MaxFailedIndexes)))
	}
	if spec.PodFailurePolicy != nil {
		spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
	}

	// The shard volume now holds the retry's ConfigMaps.
	tmpl := &spec.Template
	vi := slices.IndexFunc(tmpl.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == VolumeName })
	if vi < 0 {
		return nil, fmt.Errorf("job %q has no volume %q: it was not made by kubectl indexed create, so its workers do not read their shard from the files a retry can remap", p.Name, VolumeName)
	}
	tmpl.Spec.Volumes[vi] = ShardVolume(configMapNames(cms))
	if _, ok := cm.Data[shards.KeyManifest]; !ok {
		// No manifest.json in the retry's store: the worker must not be pointed at it.
		for i := range tmpl.Spec.Containers {
			c := &tmpl.Spec.Containers[i]
			c.Env = slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool {
				return e.Name == EnvManifestFile && e.Value == MountPath+"/"+shards.KeyManifest
			})
		}
	}
	res.Job = job
	return res, nil
}

// check refuses options either kind of retry cannot build from.
func (o RetryOptions) check() error {
	switch p := o.Parent; {
	case p == nil:
		return errors.New("no parent Job")
	case o.Lineage == nil:
		return errors.New("no lineage")
	case o.JobName == "":
		return errors.New("no Job name")
	case o.Indexes.IsEmpty():
		return errors.New("no indexes to retry")
	case p.Spec.Completions == nil:
		return fmt.Errorf("job %q has no completions", p.Name)
	case o.Indexes.Len() != o.Lineage.Original.Len():
		return fmt.Errorf("lineage names %d root indexes for %d retried indexes", o.Lineage.Original.Len(), o.Indexes.Len())
	}
	return nil
}

// retryConfigMaps copies the chosen shards' files out of the parent's store into a new one.
func retryConfigMaps(o RetryOptions, pn int) ([]*corev1.ConfigMap, error) {
	head := o.ParentConfigMaps[0]
	ids, err := shards.IDsFromConfigMap(head)
	if err != nil {
		return nil, err
	}
	if len(ids) != pn {
		return nil, fmt.Errorf("configmap %q lists %d shard IDs but job %q has %d completions", head.Name, len(ids), o.Parent.Name, pn)
	}
	lookup := func(key string) (string, bool) {
		for _, cm := range o.ParentConfigMaps {
			if v, ok := cm.Data[key]; ok {
				return v, true
			}
		}
		return "", false
	}
	n := o.Indexes.Len()
	files := make([]shards.IndexFiles, 0, n)
	chosen := make([]string, 0, n)
	var manifest []byte
	var m *shards.Manifest
	if raw, ok := head.Data[shards.KeyManifest]; ok {
		manifest = []byte(raw)
		// Trust the store only as far as the Job's manifest hash vouches for it (as reconcile
		// does): a ConfigMap deleted and made again with other cases keeps its name and labels.
		if m, err = shards.Parse(fmt.Sprintf("configmap %s key %s", head.Name, shards.KeyManifest), manifest); err != nil {
			return nil, err
		}
		if want := shards.RecordedHash(o.Parent); want != "" && m.Hash() != want {
			return nil, tampered(o, head.Name, fmt.Sprintf("its manifest.json has hash %s but job %q ran manifest %s", m.Hash(), o.Parent.Name, want))
		}
	}
	roots := slices.Collect(o.Lineage.Original.All())
	for k, j := range slices.Collect(o.Indexes.All()) {
		c, ok1 := lookup(shards.CasesKey(j))
		id, ok2 := lookup(shards.IDKey(j))
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("the shard ConfigMaps of job %q (%s) have no files for index %d: they were not written by kubectl indexed create", o.Parent.Name, strings.Join(configMapNames(o.ParentConfigMaps), ", "), j)
		}
		if m != nil {
			r := roots[k]
			if r >= len(m.Shards) {
				return nil, tampered(o, head.Name, fmt.Sprintf("index %d runs root index %d but the manifest has %d shards", j, r, len(m.Shards)))
			}
			if s := m.Shards[r]; c != shards.CasesText(s.Cases) || id != s.ID+"\n" || ids[j] != s.ID {
				return nil, tampered(o, head.Name, fmt.Sprintf("the files of index %d are not those of shard %q (root index %d) of the manifest", j, s.ID, r))
			}
		}
		files = append(files, shards.IndexFiles{Cases: c, ID: id})
		chosen = append(chosen, ids[j])
	}
	st, err := shards.BuildStore(files, chosen, manifest)
	if err != nil {
		return nil, fmt.Errorf("the retry's shards cannot be stored: %w", err)
	}
	name := cmp.Or(head.Annotations[shards.AnnotationManifestName], o.Lineage.RootJob)
	labels := map[string]string{}
	maps.Copy(labels, head.Labels)
	maps.Copy(labels, o.Lineage.Labels())
	ann := map[string]string{}
	for _, k := range []string{shards.AnnotationManifestName, shards.AnnotationManifestRevision, shards.AnnotationManifestHash} {
		if v, ok := head.Annotations[k]; ok {
			ann[k] = v
		}
	}
	return storeConfigMaps(st, RetryConfigMapName(name, o.Lineage.RootJob, st), o.Namespace, labels, nilIfEmpty(ann)), nil
}

// indexMapConfigMap is the immutable ConfigMap of an index map: the lineage labels (so that
// kubectl get jobs,configmaps -l indexed.kubectl.io/root-job=ROOT saves it with the Jobs) and
// the root Job's annotations.
func indexMapConfigMap(im *lineage.IndexMap, o RetryOptions, l *lineage.Lineage) *corev1.ConfigMap {
	return immutableConfigMap(metav1.ObjectMeta{Name: im.Ref.ConfigMap, Namespace: o.Namespace, Labels: l.Labels(),
		Annotations: map[string]string{shards.AnnotationRootJob: l.RootJob, shards.AnnotationRootJobUID: l.RootJobUID},
	}, im.Data, im.BinaryData)
}

func intOrNone(p *int32) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

// ScaleBudget is a retry's maxFailedIndexes from its parent's: the same share of its n
// indexes as parentMax is of the parent's pn, rounded up. Rounding down would give a small
// retry 0 (2 of 100 scaled to 3 indexes is 0.06), so its first failure would end it and stop
// the other shards; rounded up, a non-zero budget stays at least 1, and 0 (stop at the
// first failure, as the parent asked) stays 0. Never more than n.
func ScaleBudget(parentMax int32, pn, n int) int32 {
	if parentMax <= 0 || pn <= 0 || n <= 0 {
		return 0
	}
	v := (int64(parentMax)*int64(n) + int64(pn) - 1) / int64(pn)
	return int32(min(v, int64(n)))
}

// retryJob is the parent as a Job of either kind of retry, named name: cleaned (cleanBase),
// with l's lineage annotations (a parent whose index map was kept elsewhere must not leave
// both keys) and root-job label, the deadlines the flags give, and --pod-annotation set and
// removed on the pod template.
func retryJob(o RetryOptions, l *lineage.Lineage, name string) *batchv1.Job {
	job := cleanBase(o.Parent)
	job.TypeMeta = metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}
	job.Name, job.Namespace = name, o.Namespace
	ann := map[string]string{}
	maps.Copy(ann, job.Annotations)
	delete(ann, shards.AnnotationOriginalIndexes)
	delete(ann, shards.AnnotationOriginalIndexesFrom)
	maps.Copy(ann, l.Annotations())
	job.Annotations = ann
	if job.Labels == nil {
		job.Labels = map[string]string{}
	}
	maps.Copy(job.Labels, l.Labels())
	setDeadlines(&job.Spec, o.ActiveDeadlineSeconds, o.TTLSecondsAfterFinished)
	if tmpl := &job.Spec.Template; len(o.PodAnnotations) > 0 || len(o.RemovePodAnnotations) > 0 {
		a := map[string]string{}
		maps.Copy(a, tmpl.Annotations)
		for _, k := range o.RemovePodAnnotations {
			delete(a, k)
		}
		maps.Copy(a, o.PodAnnotations)
		tmpl.Annotations = nilIfEmpty(a)
	}
	return job
}

// RetryBudget resolves a budget over a retry's n indexes as Resolve does, except that a
// percentage is rounded up (ScaleBudget's rule): 10% of 3 indexes is 1, not 0.
func RetryBudget(b Budget, n int) *int32 {
	if b.Percent && !b.Unlimited {
		return ptr.To(ScaleBudget(b.Value, 100, n))
	}
	return b.Resolve(n)
}

// tampered is the error for a shard store that its Job's manifest does not vouch for.
func tampered(o RetryOptions, cm, why string) error {
	return fmt.Errorf("the shard ConfigMaps of job %q (%s) were changed since the Job was made: %s; nothing was created. Re-create the ConfigMaps from the manifest the Job ran (its hash is in annotation %s) with kubectl indexed create --dry-run=client --save FILE and kubectl create -f FILE, after deleting the changed ones",
		o.Parent.Name, cm, why, shards.AnnotationManifestHash)
}
