package jobspec

import (
	"cmp"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
)

// PlaceholderUID stands for the UID the API server gives a new Job. Messages that name the UID
// (a selector or template label that must equal it) carry this value instead.
const PlaceholderUID types.UID = "00000000-0000-0000-0000-000000000000"

// generatedSuffix stands for the five random characters the API server appends to
// generateName (names.SimpleNameGenerator draws them from consonants and digits, so any choice
// here is as valid as the real one).
const generatedSuffix = "bcdfg"

// maxGeneratedNameLength is how much of generateName the server keeps (names.SimpleNameGenerator:
// 63 - 5 random characters).
const maxGeneratedNameLength = 58

// GenerateName returns the name the API server would give an object created with generateName
// (the prefix truncated to 58 characters, then five random characters; a fixed stand-in here).
func GenerateName(prefix string) string {
	return prefix[:min(len(prefix), maxGeneratedNameLength)] + generatedSuffix
}

// Default returns a copy of job as the API server stores it before validation: name generated
// from generateName, UID filled in (PlaceholderUID), SetDefaultsJob applied, and the selector
// and template labels generated (strategy.go: generateSelector). job itself is not changed.
func Default(job *batchv1.Job) *batchv1.Job {
	j := job.DeepCopy()
	if j.Name == "" && j.GenerateName != "" {
		j.Name = GenerateName(j.GenerateName)
	}
	j.UID = PlaceholderUID
	SetDefaultsJob(j)
	if !*j.Spec.ManualSelector {
		generateSelector(j)
	}
	j.Status = batchv1.JobStatus{}
	return j
}

// SetDefaultsJob fills in, in place, every field the mirrored Kubernetes API server (pkg/version) defaults when
// a batch/v1 Job is decoded on create, so that a manifest that leaves a field unset compares
// equal to the stored Job that carries the default, and is validated as the server validates
// it.
//
// It mirrors k8s.io/kubernetes (at the release in pkg/version) pkg/apis/batch/v1/zz_generated.defaults.go
// (SetObjectDefaults_Job), with the functions it calls from pkg/apis/batch/v1/defaults.go
// (SetDefaults_Job, SetDefaults_PodFailurePolicyOnPodConditionsPattern) and
// pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec, _Container, _Volume, _Probe, ...). The
// plugin module cannot import k8s.io/kubernetes, so the rules are copied; the e2e test
// TestDiffDefaultsMatchServer checks them against what a real API server stores.
//
// As SetDefaults_Job does, a Job without labels gets its template's labels (the same map).
// What SetDefaultsJob does not do, because the server does it later, in the Job strategy, from
// things a manifest does not hold: generate the name, the UID, the selector and the
// controller-uid/job-name labels (Default does that).
func SetDefaultsJob(obj *batchv1.Job) {
	setDefaultsJobSpec(&obj.Spec)
	labels := obj.Spec.Template.Labels
	if labels != nil && len(obj.Labels) == 0 {
		obj.Labels = labels
	}
	SetDefaultsJobSpecNested(&obj.Spec)
}

// setDefaultsJobSpec is the JobSpec part of SetDefaults_Job; the fields the Job controller
// reads are defaulted by jobpolicy's rules (rules.go), the one place they are written.
func setDefaultsJobSpec(spec *batchv1.JobSpec) {
	spec.Completions = jobpolicy.DefaultedCompletions(spec)
	spec.Parallelism = ptr.To(jobpolicy.DefaultedParallelism(spec))
	spec.BackoffLimit = ptr.To(jobpolicy.DefaultedBackoffLimit(spec))
	spec.PodReplacementPolicy = ptr.To(jobpolicy.DefaultedPodReplacementPolicy(spec))
	spec.CompletionMode = cmp.Or(spec.CompletionMode, ptr.To(batchv1.NonIndexedCompletion))
	spec.Suspend = cmp.Or(spec.Suspend, ptr.To(false))
	spec.ManualSelector = cmp.Or(spec.ManualSelector, ptr.To(false))
}

// SetDefaultsJobSpecNested applies the defaults of the types nested in a JobSpec, which the
// generated defaulters apply to a Job and to a CronJob's jobTemplate alike (a jobTemplate gets
// no SetDefaults_Job): podFailurePolicy onPodConditions status, and the pod template.
func SetDefaultsJobSpecNested(spec *batchv1.JobSpec) {
	if pfp := spec.PodFailurePolicy; pfp != nil {
		for i := range pfp.Rules {
			for j := range pfp.Rules[i].OnPodConditions {
				pc := &pfp.Rules[i].OnPodConditions[j]
				pc.Status = cmp.Or(pc.Status, corev1.ConditionTrue)
			}
		}
	}
	setDefaultsPodTemplate(&spec.Template)
}

// setDefaultsPodTemplate applies the pod template part of SetObjectDefaults_Job.
func setDefaultsPodTemplate(t *corev1.PodTemplateSpec) {
	spec := &t.Spec
	setDefaultsPodSpec(spec)
	for i := range spec.Volumes {
		setDefaultsVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		setDefaultsContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		setDefaultsContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		c := corev1.Container(spec.EphemeralContainers[i].EphemeralContainerCommon)
		setDefaultsContainer(&c)
		spec.EphemeralContainers[i].EphemeralContainerCommon = corev1.EphemeralContainerCommon(c)
	}
	roundUpResources(spec.Overhead)
	if spec.Resources != nil {
		roundUpResources(spec.Resources.Limits)
		roundUpResources(spec.Resources.Requests)
	}
}

// setDefaultsPodSpec is SetDefaults_PodSpec.
func setDefaultsPodSpec(spec *corev1.PodSpec) {
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount //nolint:staticcheck // mirrors the server's defaulting
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName //nolint:staticcheck // mirrors the server's defaulting
	spec.DNSPolicy = cmp.Or(spec.DNSPolicy, corev1.DNSClusterFirst)
	spec.RestartPolicy = cmp.Or(spec.RestartPolicy, corev1.RestartPolicyAlways)
	spec.SecurityContext = cmp.Or(spec.SecurityContext, &corev1.PodSecurityContext{})
	spec.TerminationGracePeriodSeconds = cmp.Or(spec.TerminationGracePeriodSeconds,
		ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds))
	spec.SchedulerName = cmp.Or(spec.SchedulerName, corev1.DefaultSchedulerName)
}

// setDefaultsContainer is SetDefaults_Container plus the per-container part of
// SetObjectDefaults_Job (ports, env, resources, probes, lifecycle handlers).
func setDefaultsContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = defaultPullPolicy(c.Image)
	}
	c.TerminationMessagePath = cmp.Or(c.TerminationMessagePath, corev1.TerminationMessagePathDefault)
	c.TerminationMessagePolicy = cmp.Or(c.TerminationMessagePolicy, corev1.TerminationMessageReadFile)
	for j := range c.Ports {
		c.Ports[j].Protocol = cmp.Or(c.Ports[j].Protocol, corev1.ProtocolTCP)
	}
	for j := range c.Env {
		vf := c.Env[j].ValueFrom
		if vf == nil {
			continue
		}
		setDefaultsFieldRef(vf.FieldRef)
		if vf.FileKeyRef != nil && vf.FileKeyRef.Optional == nil {
			vf.FileKeyRef.Optional = ptr.To(false)
		}
	}
	roundUpResources(c.Resources.Limits)
	roundUpResources(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		setDefaultsProbe(p)
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil {
				setDefaultsHTTPGet(h.HTTPGet)
			}
		}
	}
}

// defaultPullPolicy is the image pull policy default: Always for the tag "latest" (which an
// image without tag or digest gets), IfNotPresent otherwise, including images that do not
// parse.
func defaultPullPolicy(image string) corev1.PullPolicy {
	if imageTag(image) == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

func setDefaultsProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	p.TimeoutSeconds = cmp.Or(p.TimeoutSeconds, 1)
	p.PeriodSeconds = cmp.Or(p.PeriodSeconds, 10)
	p.SuccessThreshold = cmp.Or(p.SuccessThreshold, 1)
	p.FailureThreshold = cmp.Or(p.FailureThreshold, 3)
	setDefaultsHTTPGet(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptr.To("")
	}
}

func setDefaultsHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	h.Path = cmp.Or(h.Path, "/")
	h.Scheme = cmp.Or(h.Scheme, corev1.URISchemeHTTP)
}

// setDefaultsVolume is SetDefaults_Volume plus the per-volume-source defaults.
func setDefaultsVolume(v *corev1.Volume) {
	// The server's ptr.AllPtrFieldsNil(&VolumeSource): every source pointer is nil.
	if v.VolumeSource == (corev1.VolumeSource{}) {
		v.VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	}
	s := &v.VolumeSource
	if s.Image != nil && s.Image.PullPolicy == "" {
		// ImageVolume is GA and locked on in the mirrored release.
		s.Image.PullPolicy = defaultPullPolicy(s.Image.Reference)
	}
	if s.HostPath != nil && s.HostPath.Type == nil {
		s.HostPath.Type = ptr.To(corev1.HostPathUnset)
	}
	if s.Secret != nil && s.Secret.DefaultMode == nil {
		s.Secret.DefaultMode = ptr.To(corev1.SecretVolumeSourceDefaultMode)
	}
	if s.ISCSI != nil && s.ISCSI.ISCSIInterface == "" {
		s.ISCSI.ISCSIInterface = "default"
	}
	if r := s.RBD; r != nil { //nolint:staticcheck // deprecated volume type, still defaulted by the server
		r.RBDPool = cmp.Or(r.RBDPool, "rbd")
		r.RadosUser = cmp.Or(r.RadosUser, "admin")
		r.Keyring = cmp.Or(r.Keyring, "/etc/ceph/keyring")
	}
	if d := s.DownwardAPI; d != nil {
		d.DefaultMode = cmp.Or(d.DefaultMode, ptr.To(corev1.DownwardAPIVolumeSourceDefaultMode))
		for j := range d.Items {
			setDefaultsFieldRef(d.Items[j].FieldRef)
		}
	}
	if s.ConfigMap != nil && s.ConfigMap.DefaultMode == nil {
		s.ConfigMap.DefaultMode = ptr.To(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if d := s.AzureDisk; d != nil { //nolint:staticcheck // deprecated volume type, still defaulted by the server
		d.CachingMode = cmp.Or(d.CachingMode, ptr.To(corev1.AzureDataDiskCachingReadWrite))
		d.FSType = cmp.Or(d.FSType, ptr.To("ext4"))
		d.ReadOnly = cmp.Or(d.ReadOnly, ptr.To(false))
		d.Kind = cmp.Or(d.Kind, ptr.To(corev1.AzureSharedBlobDisk))
	}
	if p := s.Projected; p != nil {
		p.DefaultMode = cmp.Or(p.DefaultMode, ptr.To(corev1.ProjectedVolumeSourceDefaultMode))
		for j := range p.Sources {
			src := &p.Sources[j]
			if src.DownwardAPI != nil {
				for k := range src.DownwardAPI.Items {
					setDefaultsFieldRef(src.DownwardAPI.Items[k].FieldRef)
				}
			}
			if src.ServiceAccountToken != nil && src.ServiceAccountToken.ExpirationSeconds == nil {
				src.ServiceAccountToken.ExpirationSeconds = ptr.To[int64](3600)
			}
		}
	}
	if sio := s.ScaleIO; sio != nil { //nolint:staticcheck // deprecated volume type, still defaulted by the server
		sio.StorageMode = cmp.Or(sio.StorageMode, "ThinProvisioned")
		sio.FSType = cmp.Or(sio.FSType, "xfs")
	}
	if s.Ephemeral != nil && s.Ephemeral.VolumeClaimTemplate != nil {
		spec := &s.Ephemeral.VolumeClaimTemplate.Spec
		spec.VolumeMode = cmp.Or(spec.VolumeMode, ptr.To(corev1.PersistentVolumeFilesystem))
		roundUpResources(spec.Resources.Limits)
		roundUpResources(spec.Resources.Requests)
	}
}

func setDefaultsFieldRef(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// roundUpResources is SetDefaults_ResourceList: quantities are rounded up to milli-units.
func roundUpResources(list corev1.ResourceList) {
	for name, q := range list {
		q.RoundUp(resource.Milli)
		list[name] = q
	}
}

// The labels the server puts on a Job's pod template besides the batch.kubernetes.io/ ones
// (pkg/apis/batch/types.go).
const (
	LegacyJobNameLabel       = "job-name"
	LegacyControllerUIDLabel = "controller-uid"
)

// GeneratedLabels are the labels generateSelector puts on a Job's pod template (and, through
// the template labels copied to a Job without labels, on the Job). They carry the Job's UID
// and name, not anything the user chose.
var GeneratedLabels = []string{
	batchv1.ControllerUidLabel, // batch.kubernetes.io/controller-uid
	LegacyControllerUIDLabel,
	batchv1.JobNameLabel, // batch.kubernetes.io/job-name
	LegacyJobNameLabel,
}

// generateSelector mirrors pkg/registry/batch/job/strategy.go: generateSelector.
func generateSelector(obj *batchv1.Job) {
	if obj.Spec.Template.Labels == nil {
		obj.Spec.Template.Labels = make(map[string]string)
	}
	for _, key := range []string{LegacyJobNameLabel, batchv1.JobNameLabel} {
		if _, found := obj.Spec.Template.Labels[key]; !found {
			obj.Spec.Template.Labels[key] = obj.Name
		}
	}
	for _, key := range []string{LegacyControllerUIDLabel, batchv1.ControllerUidLabel} {
		if _, found := obj.Spec.Template.Labels[key]; !found {
			obj.Spec.Template.Labels[key] = string(obj.UID)
		}
	}
	obj.Spec.Selector = cmp.Or(obj.Spec.Selector, &metav1.LabelSelector{})
	if obj.Spec.Selector.MatchLabels == nil {
		obj.Spec.Selector.MatchLabels = make(map[string]string)
	}
	if _, found := obj.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !found {
		obj.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(obj.UID)
	}
}
