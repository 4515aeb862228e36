package scaffold

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// Objects are what create sends, in the order it sends them.
type Objects struct {
	// ConfigMap is the shard store's head, the one the Job names in its
	// shards-configmap annotation; Parts are the rest of a store too big for one ConfigMap
	// (nil otherwise). All of them are sent before the Job.
	ConfigMap *corev1.ConfigMap
	Parts     []*corev1.ConfigMap
	// IndexMap is, for a retry whose index map is too large for an annotation, the immutable
	// ConfigMap holding it (not mounted by the pods); nil otherwise. Sent after the store.
	IndexMap *corev1.ConfigMap
	Job      *batchv1.Job
	// Notes say what create replaced in a --from-job Job (completions, backoffLimit), for
	// standard error.
	Notes []string
}

// ConfigMaps returns the head, the parts and the index map, in the order they are sent.
func (o *Objects) ConfigMaps() []*corev1.ConfigMap {
	out := append([]*corev1.ConfigMap{o.ConfigMap}, o.Parts...)
	if o.IndexMap != nil {
		out = append(out, o.IndexMap)
	}
	return out
}

// Annotations the API server or the Job controller writes, dropped from a --from-job object
// (they belong to the Job they were read from), as are the generated labels
// (jobspec.GeneratedLabels).
var serverAnnotations = []string{
	"kubectl.kubernetes.io/last-applied-configuration",
	"batch.kubernetes.io/job-tracking",
}

// Build returns the ConfigMap and the Job for o. The Job is not linted here; create runs lint
// on it before sending anything.
func Build(o Options) (*Objects, error) {
	if o.Manifest == nil {
		return nil, errors.New("no shard manifest")
	}
	if err := o.Manifest.Validate(); err != nil {
		return nil, err
	}
	if o.JobName == "" {
		return nil, errors.New("no Job name")
	}
	cms, st, err := BuildConfigMaps(o.Manifest, o.Namespace)
	if err != nil {
		return nil, err
	}
	job, notes, err := buildJob(o, configMapNames(cms), st.ManifestMounted)
	if err != nil {
		return nil, err
	}
	return &Objects{ConfigMap: cms[0], Parts: cms[1:], Job: job, Notes: append(slices.Clone(o.BaseNotes), notes...)}, nil
}

func configMapNames(cms []*corev1.ConfigMap) []string {
	names := make([]string, len(cms))
	for i, cm := range cms {
		names[i] = cm.Name
	}
	return names
}

func buildJob(o Options, cmNames []string, manifestMounted bool) (job *batchv1.Job, notes []string, err error) {
	cmName := cmNames[0]
	m := o.Manifest
	n := int32(len(m.Shards))
	from := "--from-job"
	if o.BaseSource != "" {
		from = "--from-job " + o.BaseSource
	}
	job = &batchv1.Job{}
	code := DefaultInvalidInputExitCode
	containerName := o.ContainerName
	if o.Base != nil {
		// A Job made by an earlier create records its choices; keep them unless a flag says
		// otherwise.
		if v, ok := o.Base.Annotations[AnnotationInvalidInputExitCode]; ok {
			c, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: annotation %s is %q, not an exit code", from, AnnotationInvalidInputExitCode, v)
			}
			code = int32(c)
		}
		containerName = cmp.Or(containerName, o.Base.Annotations[AnnotationWorkerContainer])
		job = cleanBase(o.Base)
		if err := checkBaseSpec(&job.Spec, n, from); err != nil {
			return nil, nil, err
		}
		notes = adoptNotes(&job.Spec, n, from, o.BackoffLimitPerIndex != nil)
	}
	job.TypeMeta = metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}
	job.Name = o.JobName
	job.Namespace = o.Namespace

	// Labels and annotations: the user's, then the manifest's labels, then ours.
	labels := job.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range manifestLabels(m) {
		if old, ok := labels[k]; ok && old != v && !strings.HasPrefix(k, shards.Prefix) {
			return nil, nil, fmt.Errorf("%s sets label %q to %q but the shard manifest sets it to %q: remove one of them", from, k, old, v)
		}
		labels[k] = v
	}
	if o.Queue != "" {
		labels[kueue.QueueLabel] = o.Queue
	}
	if o.PriorityClass != "" {
		labels[kueue.PriorityClassLabel] = o.PriorityClass
	}
	if s := kueue.SuspendFor(labels); s != nil {
		job.Spec.Suspend = s
	}
	job.Labels = labels
	ann := manifestAnnotations(m)
	for k, v := range job.Annotations {
		if !strings.HasPrefix(k, shards.Prefix) {
			ann[k] = v
		}
	}
	ann[shards.AnnotationShardsConfigMap] = cmName

	// The spec.
	spec := &job.Spec
	spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	spec.Completions = ptr.To(n)
	switch {
	case o.Parallelism != nil:
		spec.Parallelism = ptr.To(*o.Parallelism)
	case spec.Parallelism == nil:
		spec.Parallelism = ptr.To(n)
	}
	spec.BackoffLimit = nil
	switch {
	case o.BackoffLimitPerIndex != nil:
		spec.BackoffLimitPerIndex = ptr.To(*o.BackoffLimitPerIndex)
	case spec.BackoffLimitPerIndex == nil:
		spec.BackoffLimitPerIndex = ptr.To(DefaultBackoffLimitPerIndex)
	}
	switch {
	case o.MaxFailedIndexes != nil:
		spec.MaxFailedIndexes = o.MaxFailedIndexes.Resolve(int(n))
		if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > n {
			return nil, nil, fmt.Errorf("--max-failed-indexes %s is more than the %d shards of manifest %q", o.MaxFailedIndexes, n, m.Metadata.Name)
		}
	case spec.MaxFailedIndexes == nil:
		spec.MaxFailedIndexes = DefaultMaxFailedIndexes.Resolve(int(n))
	case *spec.MaxFailedIndexes > n:
		return nil, nil, fmt.Errorf("%s sets maxFailedIndexes %d, more than the %d shards of manifest %q: give --max-failed-indexes", from, *spec.MaxFailedIndexes, n, m.Metadata.Name)
	}
	setDeadlines(spec, o.ActiveDeadlineSeconds, o.TTLSecondsAfterFinished)
	code = ptr.Deref(o.InvalidInputExitCode, code)
	if code < 1 || code > 255 {
		return nil, nil, fmt.Errorf("--invalid-input-exit-code must be from 1 to 255, not %d", code)
	}
	spec.PodReplacementPolicy = ptr.To(batchv1.Failed)

	// The pod template and the worker container.
	tmpl := &spec.Template
	tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	tmpl.Spec.ServiceAccountName = cmp.Or(o.ServiceAccountName, tmpl.Spec.ServiceAccountName)
	wi, err := workerIndex(tmpl.Spec.Containers, containerName, from)
	if err != nil {
		return nil, nil, err
	}
	if wi < 0 {
		name := cmp.Or(containerName, DefaultContainerName)
		tmpl.Spec.Containers = append([]corev1.Container{{Name: name}}, tmpl.Spec.Containers...)
		wi = 0
	}
	w := &tmpl.Spec.Containers[wi]
	w.Image = cmp.Or(o.Image, w.Image)
	if w.Image == "" {
		return nil, nil, fmt.Errorf("no image for the worker container %q: give --image", w.Name)
	}
	if len(o.Command) > 0 {
		w.Command = append([]string(nil), o.Command...)
		w.Args = nil
	}
	env, err := workerEnv(m, code, manifestMounted, w.Env, o.Env, from)
	if err != nil {
		return nil, nil, err
	}
	w.Env = env
	setResources(&w.Resources, o.Requests, o.Limits)
	if err := mountShards(&tmpl.Spec, wi, cmNames, from); err != nil {
		return nil, nil, err
	}
	ann[AnnotationInvalidInputExitCode] = strconv.Itoa(int(code))
	ann[AnnotationWorkerContainer] = w.Name
	job.Annotations = ann

	// The pod failure policy: ours first, then the user's own rules (without copies of ours,
	// which a Job made by an earlier create carries).
	rules := []batchv1.PodFailurePolicyRule{
		{
			// A preempted or evicted pod is not the shard's fault: retry it without
			// spending the index's retry budget.
			Action: batchv1.PodFailurePolicyActionIgnore,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
				{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue},
			},
		},
		{
			// The worker said its shard's input is invalid: a retry cannot help.
			Action: batchv1.PodFailurePolicyActionFailIndex,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
				ContainerName: ptr.To(w.Name),
				Operator:      batchv1.PodFailurePolicyOnExitCodesOpIn,
				Values:        []int32{code},
			},
		},
	}
	ours := len(rules)
	if spec.PodFailurePolicy != nil {
		for _, r := range spec.PodFailurePolicy.Rules {
			if !slices.ContainsFunc(rules[:ours], func(o batchv1.PodFailurePolicyRule) bool { return reflect.DeepEqual(o, r) }) {
				rules = append(rules, r)
			}
		}
	}
	if len(rules) > 20 {
		return nil, nil, fmt.Errorf("%s has %d podFailurePolicy rules; with the %d kubectl indexed adds that is more than the 20 the API allows", from, len(rules)-ours, ours)
	}
	spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: rules}
	return job, notes, nil
}

// adoptNotes says what create replaces in a --from-job Job so that it runs shards: completions
// (always the number of shards) and a global backoffLimit (one shard's failures would kill
// the others; backoffLimitPerIndex replaces it). Build replaces both; the notes go to stderr.
func adoptNotes(spec *batchv1.JobSpec, n int32, from string, perIndexFlag bool) []string {
	var notes []string
	if spec.Completions != nil && *spec.Completions != n {
		notes = append(notes, fmt.Sprintf("%s sets completions %d; the manifest has %d shards, so the Job gets completions %d", from, *spec.Completions, n, n))
	}
	if spec.BackoffLimit != nil && *spec.BackoffLimit != jobpolicy.UnlimitedBackoffLimit {
		per := "backoffLimitPerIndex " + strconv.Itoa(int(DefaultBackoffLimitPerIndex)) + " (create's default)"
		switch {
		case perIndexFlag:
			per = "the --backoff-limit-per-index given"
		case spec.BackoffLimitPerIndex != nil:
			per = "its backoffLimitPerIndex " + strconv.Itoa(int(*spec.BackoffLimitPerIndex))
		}
		notes = append(notes, fmt.Sprintf("%s sets a global backoffLimit %d (one shard's failures would kill the others); the Job has no backoffLimit and uses %s instead", from, *spec.BackoffLimit, per))
	}
	return notes
}

// cleanBase copies base without what the API server and the controllers wrote on it: identity,
// status, the generated selector and its labels.
func cleanBase(base *batchv1.Job) *batchv1.Job {
	b := base.DeepCopy()
	b.ObjectMeta = metav1.ObjectMeta{Labels: b.Labels, Annotations: b.Annotations}
	b.Status = batchv1.JobStatus{}
	b.Spec.Template.ObjectMeta = metav1.ObjectMeta{Labels: b.Spec.Template.Labels, Annotations: b.Spec.Template.Annotations}
	for _, k := range jobspec.GeneratedLabels {
		delete(b.Labels, k)
		delete(b.Spec.Template.Labels, k)
	}
	for _, k := range serverAnnotations {
		delete(b.Annotations, k)
	}
	b.Labels = nilIfEmpty(b.Labels)
	b.Annotations = nilIfEmpty(b.Annotations)
	b.Spec.Template.Labels = nilIfEmpty(b.Spec.Template.Labels)
	b.Spec.Template.Annotations = nilIfEmpty(b.Spec.Template.Annotations)
	if b.Spec.ManualSelector == nil || !*b.Spec.ManualSelector {
		b.Spec.Selector = nil
	}
	return b
}

// checkBaseSpec refuses what a --from-job Job sets that cannot work with shards.
func checkBaseSpec(spec *batchv1.JobSpec, n int32, from string) error {
	var errs []string
	add := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if spec.CompletionMode != nil && *spec.CompletionMode != batchv1.IndexedCompletion {
		add("completionMode is %q: shards need completionMode Indexed (remove the field)", *spec.CompletionMode)
	}
	if spec.SuccessPolicy != nil {
		add("successPolicy is set: it lets the Job succeed before every shard has run, so results would be incomplete (remove it)")
	}
	if spec.PodReplacementPolicy != nil && *spec.PodReplacementPolicy != batchv1.Failed {
		add("podReplacementPolicy is %q: a pod failure policy requires \"Failed\" (remove the field)", *spec.PodReplacementPolicy)
	}
	if spec.ManualSelector != nil && *spec.ManualSelector {
		add("manualSelector is true: a manual selector ties pods to one Job; let the API server generate it (remove selector and manualSelector)")
	}
	if rp := spec.Template.Spec.RestartPolicy; rp != "" && rp != corev1.RestartPolicyNever {
		add("restartPolicy is %q: a pod failure policy requires \"Never\", and with OnFailure per-index retries never see a failure (remove it or set Never)", rp)
	}
	if spec.Template.Spec.NodeName != "" {
		add("nodeName is %q: it would put every shard on one node; use a nodeSelector or affinity", spec.Template.Spec.NodeName)
	}
	if len(errs) == 0 {
		return nil
	}
	if len(errs) == 1 {
		return fmt.Errorf("%s cannot be used: %s", from, errs[0])
	}
	return fmt.Errorf("%s cannot be used:\n  %s", from, strings.Join(errs, "\n  "))
}

// workerIndex finds the worker container: -1 when a new one must be added.
func workerIndex(cs []corev1.Container, name, from string) (int, error) {
	named := func(n string) int {
		return slices.IndexFunc(cs, func(c corev1.Container) bool { return c.Name == n })
	}
	if name != "" {
		if i := named(name); i >= 0 || len(cs) == 0 {
			return i, nil
		}
		return 0, fmt.Errorf("%s has no container named %q (it has %s): give --container one of those", from, name, containerNames(cs))
	}
	if i := named(DefaultContainerName); i >= 0 {
		return i, nil
	}
	switch len(cs) {
	case 0:
		return -1, nil
	case 1:
		return 0, nil
	}
	return 0, fmt.Errorf("%s has %d containers and none is named %q: say which one is the worker with --container (one of %s)", from, len(cs), DefaultContainerName, containerNames(cs))
}

func containerNames(cs []corev1.Container) string {
	names := make([]string, len(cs))
	for i := range cs {
		names[i] = strconv.Quote(cs[i].Name)
	}
	return strings.Join(names, ", ")
}

// workerEnv is the worker's environment: the contract's variables first (JOB_COMPLETION_INDEX
// before the variables that expand it), then the --from-job container's own, then --env.
func workerEnv(m *shards.Manifest, code int32, manifestMounted bool, base, extra []corev1.EnvVar, from string) ([]corev1.EnvVar, error) {
	idx := "$(" + EnvCompletionIndex + ")"
	ours := []corev1.EnvVar{
		{Name: EnvCompletionIndex, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			APIVersion: "v1", FieldPath: "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']",
		}}},
		{Name: EnvShardFile, Value: MountPath + "/index-" + idx + ".cases"},
		{Name: EnvShardIDFile, Value: MountPath + "/index-" + idx + ".id"},
		{Name: EnvManifestFile, Value: MountPath + "/" + shards.KeyManifest},
		{Name: EnvManifestName, Value: m.Metadata.Name},
		{Name: EnvManifestRevision, Value: string(m.Revision)},
		{Name: EnvManifestHash, Value: m.Hash()},
		{Name: EnvInvalidInputCode, Value: strconv.Itoa(int(code))},
	}
	reserved := map[string]bool{}
	for _, e := range ours {
		reserved[e.Name] = true
	}
	if !manifestMounted {
		// The manifest is too big to mount (a split store): the variable is not set.
		ours = slices.DeleteFunc(ours, func(e corev1.EnvVar) bool { return e.Name == EnvManifestFile })
	}
	env := ours
	for _, e := range base {
		if e.Name == EnvCompletionIndex && !readsIndex(e) {
			return nil, fmt.Errorf("%s sets %s in the worker container to something other than the completion index; remove it: kubectl indexed sets it", from, EnvCompletionIndex)
		}
		if reserved[e.Name] {
			continue // set by an earlier create: ours replaces it
		}
		env = append(env, e)
	}
	for _, e := range extra {
		if reserved[e.Name] {
			return nil, fmt.Errorf("--env %s: kubectl indexed sets %s itself (see the worker contract in docs/create.md)", e.Name, e.Name)
		}
		replaced := false
		for i := range env {
			if env[i].Name == e.Name {
				env[i], replaced = e, true
			}
		}
		if !replaced {
			env = append(env, e)
		}
	}
	return env, nil
}

// setDeadlines sets the deadlines the flags give (nil: left as they are).
func setDeadlines(spec *batchv1.JobSpec, active *int64, ttl *int32) {
	if active != nil {
		spec.ActiveDeadlineSeconds = ptr.To(*active)
	}
	if ttl != nil {
		spec.TTLSecondsAfterFinished = ptr.To(*ttl)
	}
}

func setResources(r *corev1.ResourceRequirements, requests, limits corev1.ResourceList) {
	if len(requests) > 0 && r.Requests == nil {
		r.Requests = corev1.ResourceList{}
	}
	maps.Copy(r.Requests, requests)
	if len(limits) > 0 && r.Limits == nil {
		r.Limits = corev1.ResourceList{}
	}
	maps.Copy(r.Limits, limits)
}

// mountShards adds the shard volume and mounts it read-only at MountPath in the worker: a
// ConfigMap volume for a store of one ConfigMap, a projected volume of every ConfigMap of a
// split store. A volume or mount of that name left by an earlier create is replaced; anything
// else in the way is an error.
func mountShards(ps *corev1.PodSpec, wi int, cmNames []string, from string) error {
	vols := ps.Volumes[:0:0]
	for _, v := range ps.Volumes {
		if v.Name == VolumeName {
			if v.ConfigMap == nil && v.Projected == nil {
				return fmt.Errorf("%s has a volume named %q that is not a ConfigMap: kubectl indexed uses that name for the shards; rename it", from, VolumeName)
			}
			continue
		}
		vols = append(vols, v)
	}
	vols = append(vols, ShardVolume(cmNames))
	ps.Volumes = vols
	w := &ps.Containers[wi]
	mounts := w.VolumeMounts[:0:0]
	for _, vm := range w.VolumeMounts {
		if vm.Name == VolumeName {
			continue
		}
		if strings.TrimSuffix(vm.MountPath, "/") == MountPath {
			return fmt.Errorf("%s mounts volume %q at %s in container %q: kubectl indexed mounts the shards there; move it", from, vm.Name, MountPath, w.Name)
		}
		mounts = append(mounts, vm)
	}
	mounts = append(mounts, corev1.VolumeMount{Name: VolumeName, MountPath: MountPath, ReadOnly: true})
	w.VolumeMounts = mounts
	return nil
}

// ShardVolume is the volume holding the shard files: ConfigMap names[0], or all of names
// projected into one directory.
func ShardVolume(names []string) corev1.Volume {
	if len(names) == 1 {
		return corev1.Volume{Name: VolumeName, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: names[0]},
		}}}
	}
	srcs := make([]corev1.VolumeProjection, len(names))
	for i, n := range names {
		srcs[i] = corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: n}}}
	}
	return corev1.Volume{Name: VolumeName, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: srcs}}}
}

// ShardConfigMapNames returns the ConfigMaps the shard volume of spec mounts (head first), or
// nil when it has no shard volume.
func ShardConfigMapNames(spec *corev1.PodSpec) []string {
	for _, v := range spec.Volumes {
		if v.Name != VolumeName {
			continue
		}
		switch {
		case v.ConfigMap != nil:
			return []string{v.ConfigMap.Name}
		case v.Projected != nil:
			var names []string
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil {
					names = append(names, s.ConfigMap.Name)
				}
			}
			return names
		}
	}
	return nil
}

func nilIfEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}
