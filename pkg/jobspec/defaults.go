package jobspec

import (
	"math"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
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
	if len(prefix) > maxGeneratedNameLength {
		prefix = prefix[:maxGeneratedNameLength]
	}
	return prefix + generatedSuffix
}

// Default returns a copy of job as the API server stores it before validation: name generated
// from generateName, UID filled in (PlaceholderUID), SetDefaults_Job and the pod template
// defaults applied, and the selector and template labels generated (strategy.go:
// generateSelector). job itself is not changed.
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

// SetDefaultsJob applies pkg/apis/batch/v1/defaults.go: SetDefaults_Job and the defaults of the
// nested types (pod template, podFailurePolicy patterns), in place.
func SetDefaultsJob(obj *batchv1.Job) {
	if obj.Spec.Completions == nil && obj.Spec.Parallelism == nil {
		obj.Spec.Completions = ptr.To[int32](1)
		obj.Spec.Parallelism = ptr.To[int32](1)
	}
	if obj.Spec.Parallelism == nil {
		obj.Spec.Parallelism = ptr.To[int32](1)
	}
	if obj.Spec.BackoffLimit == nil {
		if obj.Spec.BackoffLimitPerIndex != nil {
			obj.Spec.BackoffLimit = ptr.To[int32](math.MaxInt32)
		} else {
			obj.Spec.BackoffLimit = ptr.To[int32](6)
		}
	}
	labels := obj.Spec.Template.Labels
	if labels != nil && len(obj.Labels) == 0 {
		obj.Labels = labels
	}
	if obj.Spec.CompletionMode == nil {
		obj.Spec.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	}
	if obj.Spec.Suspend == nil {
		obj.Spec.Suspend = ptr.To(false)
	}
	if obj.Spec.PodReplacementPolicy == nil {
		if obj.Spec.PodFailurePolicy != nil {
			obj.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
		} else {
			obj.Spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		}
	}
	if obj.Spec.ManualSelector == nil {
		obj.Spec.ManualSelector = ptr.To(false)
	}
	SetDefaultsJobSpecNested(&obj.Spec)
}

// SetDefaultsJobSpecNested applies the defaults of the types nested in a JobSpec (the generated
// defaulters walk into them for Jobs and for CronJob jobTemplates alike): podFailurePolicy
// onPodConditions status, and the pod template.
func SetDefaultsJobSpecNested(spec *batchv1.JobSpec) {
	if spec.PodFailurePolicy != nil {
		for i := range spec.PodFailurePolicy.Rules {
			for j := range spec.PodFailurePolicy.Rules[i].OnPodConditions {
				p := &spec.PodFailurePolicy.Rules[i].OnPodConditions[j]
				if p.Status == "" {
					p.Status = corev1.ConditionTrue
				}
			}
		}
	}
	setDefaultsPodSpec(&spec.Template.Spec)
}

// setDefaultsPodSpec applies the parts of pkg/apis/core/v1/defaults.go that validation depends
// on: restartPolicy, dnsPolicy, terminationGracePeriodSeconds, container pull policy,
// termination message policy and port protocol.
func setDefaultsPodSpec(obj *corev1.PodSpec) {
	if obj.ServiceAccountName == "" {
		obj.ServiceAccountName = obj.DeprecatedServiceAccount //nolint:staticcheck // mirrors the server's defaulting
	}
	obj.DeprecatedServiceAccount = obj.ServiceAccountName //nolint:staticcheck // mirrors the server's defaulting
	if obj.DNSPolicy == "" {
		obj.DNSPolicy = corev1.DNSClusterFirst
	}
	if obj.RestartPolicy == "" {
		obj.RestartPolicy = corev1.RestartPolicyAlways
	}
	if obj.TerminationGracePeriodSeconds == nil {
		obj.TerminationGracePeriodSeconds = ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	for _, list := range [][]corev1.Container{obj.Containers, obj.InitContainers} {
		for i := range list {
			setDefaultsContainer(&list[i])
		}
	}
}

func setDefaultsContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		} else {
			c.ImagePullPolicy = corev1.PullIfNotPresent
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
}

// imageTag returns the tag of an image reference, "latest" when it has neither tag nor digest.
func imageTag(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
		if !strings.Contains(image[strings.LastIndex(image, "/")+1:], ":") {
			return ""
		}
	}
	last := image[strings.LastIndex(image, "/")+1:]
	if i := strings.LastIndex(last, ":"); i >= 0 {
		return last[i+1:]
	}
	return "latest"
}

// The labels the server puts on a Job's pod template besides the batch.kubernetes.io/ ones
// (pkg/apis/batch/types.go).
const (
	LegacyJobNameLabel       = "job-name"
	LegacyControllerUIDLabel = "controller-uid"
)

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
	if obj.Spec.Selector == nil {
		obj.Spec.Selector = &metav1.LabelSelector{}
	}
	if obj.Spec.Selector.MatchLabels == nil {
		obj.Spec.Selector.MatchLabels = make(map[string]string)
	}
	if _, found := obj.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !found {
		obj.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(obj.UID)
	}
}
