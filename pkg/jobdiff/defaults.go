package jobdiff

import (
	"math"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Default fills in, in place, every field the Kubernetes v1.37 API server defaults when a
// batch/v1 Job is created, so that a manifest that leaves a field unset compares equal to the
// stored Job that carries the default.
//
// It mirrors k8s.io/kubernetes v1.37.2 pkg/apis/batch/v1/zz_generated.defaults.go
// (SetObjectDefaults_Job), with the functions it calls from pkg/apis/batch/v1/defaults.go
// (SetDefaults_Job, SetDefaults_PodFailurePolicyOnPodConditionsPattern) and
// pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec, _Container, _Volume, _Probe, ...). The
// plugin module cannot import k8s.io/kubernetes, so the rules are copied; the e2e test
// TestDiffDefaultsMatchServer checks them against what a real API server stores.
//
// What Default does not do, because the server does it at create time from things a manifest
// does not hold: generate the selector and the controller-uid/job-name labels (they are
// ignored by the comparison instead), and copy the template labels to the Job's labels (done
// by the comparison, see normalize).
func Default(job *batchv1.Job) {
	if job == nil {
		return
	}
	defaultJobSpec(&job.Spec)
	if pfp := job.Spec.PodFailurePolicy; pfp != nil {
		for i := range pfp.Rules {
			for j := range pfp.Rules[i].OnPodConditions {
				if pfp.Rules[i].OnPodConditions[j].Status == "" {
					pfp.Rules[i].OnPodConditions[j].Status = corev1.ConditionTrue
				}
			}
		}
	}
	DefaultPodTemplate(&job.Spec.Template)
}

// defaultJobSpec is SetDefaults_Job without the label copy.
func defaultJobSpec(spec *batchv1.JobSpec) {
	if spec.Completions == nil && spec.Parallelism == nil {
		spec.Completions = ptrTo[int32](1)
		spec.Parallelism = ptrTo[int32](1)
	}
	if spec.Parallelism == nil {
		spec.Parallelism = ptrTo[int32](1)
	}
	if spec.BackoffLimit == nil {
		if spec.BackoffLimitPerIndex != nil {
			spec.BackoffLimit = ptrTo[int32](math.MaxInt32)
		} else {
			spec.BackoffLimit = ptrTo[int32](6)
		}
	}
	if spec.CompletionMode == nil {
		spec.CompletionMode = ptrTo(batchv1.NonIndexedCompletion)
	}
	if spec.Suspend == nil {
		spec.Suspend = ptrTo(false)
	}
	if spec.PodReplacementPolicy == nil {
		if spec.PodFailurePolicy != nil {
			spec.PodReplacementPolicy = ptrTo(batchv1.Failed)
		} else {
			spec.PodReplacementPolicy = ptrTo(batchv1.TerminatingOrFailed)
		}
	}
	if spec.ManualSelector == nil {
		spec.ManualSelector = ptrTo(false)
	}
}

// DefaultPodTemplate applies the pod template part of SetObjectDefaults_Job.
func DefaultPodTemplate(t *corev1.PodTemplateSpec) {
	spec := &t.Spec
	defaultPodSpec(spec)
	for i := range spec.Volumes {
		defaultVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		defaultContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		defaultContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		c := corev1.Container(spec.EphemeralContainers[i].EphemeralContainerCommon)
		defaultContainer(&c)
		spec.EphemeralContainers[i].EphemeralContainerCommon = corev1.EphemeralContainerCommon(c)
	}
	roundUpResources(spec.Overhead)
	if spec.Resources != nil {
		roundUpResources(spec.Resources.Limits)
		roundUpResources(spec.Resources.Requests)
	}
}

// defaultPodSpec is SetDefaults_PodSpec.
func defaultPodSpec(spec *corev1.PodSpec) {
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount //nolint:staticcheck // mirrors the server
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName //nolint:staticcheck // mirrors the server
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptrTo[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
}

// defaultContainer is SetDefaults_Container plus the per-container part of
// SetObjectDefaults_Job (ports, env, resources, probes, lifecycle handlers).
func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = defaultPullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for j := range c.Ports {
		if c.Ports[j].Protocol == "" {
			c.Ports[j].Protocol = corev1.ProtocolTCP
		}
	}
	for j := range c.Env {
		vf := c.Env[j].ValueFrom
		if vf == nil {
			continue
		}
		if vf.FieldRef != nil && vf.FieldRef.APIVersion == "" {
			vf.FieldRef.APIVersion = "v1"
		}
		if vf.FileKeyRef != nil && vf.FileKeyRef.Optional == nil {
			vf.FileKeyRef.Optional = ptrTo(false)
		}
	}
	roundUpResources(c.Resources.Limits)
	roundUpResources(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultProbe(p)
	}
	if c.Lifecycle != nil {
		if c.Lifecycle.PostStart != nil {
			defaultHTTPGet(c.Lifecycle.PostStart.HTTPGet)
		}
		if c.Lifecycle.PreStop != nil {
			defaultHTTPGet(c.Lifecycle.PreStop.HTTPGet)
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

func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	defaultHTTPGet(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptrTo("")
	}
}

func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

// defaultVolume is SetDefaults_Volume plus the per-volume-source defaults.
func defaultVolume(v *corev1.Volume) {
	if allVolumeSourcesNil(&v.VolumeSource) {
		v.VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	}
	s := &v.VolumeSource
	if s.Image != nil && s.Image.PullPolicy == "" {
		// ImageVolume is GA and locked on in v1.37.
		s.Image.PullPolicy = defaultPullPolicy(s.Image.Reference)
	}
	if s.HostPath != nil && s.HostPath.Type == nil {
		s.HostPath.Type = ptrTo(corev1.HostPathUnset)
	}
	if s.Secret != nil && s.Secret.DefaultMode == nil {
		s.Secret.DefaultMode = ptrTo(corev1.SecretVolumeSourceDefaultMode)
	}
	if s.ISCSI != nil && s.ISCSI.ISCSIInterface == "" {
		s.ISCSI.ISCSIInterface = "default"
	}
	if s.RBD != nil { //nolint:staticcheck // deprecated volume type, still defaulted by the server
		if s.RBD.RBDPool == "" {
			s.RBD.RBDPool = "rbd"
		}
		if s.RBD.RadosUser == "" {
			s.RBD.RadosUser = "admin"
		}
		if s.RBD.Keyring == "" {
			s.RBD.Keyring = "/etc/ceph/keyring"
		}
	}
	if s.DownwardAPI != nil {
		if s.DownwardAPI.DefaultMode == nil {
			s.DownwardAPI.DefaultMode = ptrTo(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		for j := range s.DownwardAPI.Items {
			defaultFieldRef(s.DownwardAPI.Items[j].FieldRef)
		}
	}
	if s.ConfigMap != nil && s.ConfigMap.DefaultMode == nil {
		s.ConfigMap.DefaultMode = ptrTo(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if d := s.AzureDisk; d != nil { //nolint:staticcheck // deprecated volume type, still defaulted by the server
		if d.CachingMode == nil {
			d.CachingMode = ptrTo(corev1.AzureDataDiskCachingReadWrite)
		}
		if d.FSType == nil {
			d.FSType = ptrTo("ext4")
		}
		if d.ReadOnly == nil {
			d.ReadOnly = ptrTo(false)
		}
		if d.Kind == nil {
			d.Kind = ptrTo(corev1.AzureSharedBlobDisk)
		}
	}
	if p := s.Projected; p != nil {
		if p.DefaultMode == nil {
			p.DefaultMode = ptrTo(corev1.ProjectedVolumeSourceDefaultMode)
		}
		for j := range p.Sources {
			src := &p.Sources[j]
			if src.DownwardAPI != nil {
				for k := range src.DownwardAPI.Items {
					defaultFieldRef(src.DownwardAPI.Items[k].FieldRef)
				}
			}
			if src.ServiceAccountToken != nil && src.ServiceAccountToken.ExpirationSeconds == nil {
				src.ServiceAccountToken.ExpirationSeconds = ptrTo[int64](3600)
			}
		}
	}
	if s.ScaleIO != nil { //nolint:staticcheck // deprecated volume type, still defaulted by the server
		if s.ScaleIO.StorageMode == "" {
			s.ScaleIO.StorageMode = "ThinProvisioned"
		}
		if s.ScaleIO.FSType == "" {
			s.ScaleIO.FSType = "xfs"
		}
	}
	if s.Ephemeral != nil && s.Ephemeral.VolumeClaimTemplate != nil {
		spec := &s.Ephemeral.VolumeClaimTemplate.Spec
		if spec.VolumeMode == nil {
			spec.VolumeMode = ptrTo(corev1.PersistentVolumeFilesystem)
		}
		roundUpResources(spec.Resources.Limits)
		roundUpResources(spec.Resources.Requests)
	}
}

func defaultFieldRef(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// allVolumeSourcesNil is ptr.AllPtrFieldsNil(&VolumeSource): every source pointer is nil.
func allVolumeSourcesNil(s *corev1.VolumeSource) bool {
	return *s == corev1.VolumeSource{}
}

// roundUpResources is SetDefaults_ResourceList: quantities are rounded up to milli-units.
func roundUpResources(list corev1.ResourceList) {
	for name, q := range list {
		q.RoundUp(resource.Milli)
		list[name] = q
	}
}

func ptrTo[T any](v T) *T { return &v }
