package jobspec

import (
	"fmt"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodTemplate mirrors the parts of pkg/apis/core/validation: ValidatePodTemplateSpec
// that Job manifests run into: template labels and annotations, containers present with valid,
// unique names and an image, pull and termination-message policies, ports, environment
// variable names, volume names and mounts, cpu/memory requests within limits, container
// restart policies, probes on init containers, the pod-level restartPolicy, activeDeadlineSeconds,
// serviceAccountName, nodeSelector, hostname/subdomain and ephemeral containers. The template
// must be defaulted (SetDefaultsJobSpecNested). Other pod rules (security contexts, volume
// sources, affinity, probes' handlers, topology spread, ...) are not mirrored: for them lint
// reports nothing and the server has the last word.
func ValidatePodTemplate(t *corev1.PodTemplateSpec, path *field.Path) []Violation {
	var vs violations
	vs.add(RulePodTemplate, metav1validation.ValidateLabels(t.Labels, path.Child("labels"))...)
	vs.add(RulePodTemplate, apimachineryvalidation.ValidateAnnotations(t.Annotations, path.Child("annotations"))...)
	for _, e := range validatePodSpec(&t.Spec, path.Child("spec")) {
		rule := RulePodTemplate
		if e.Field == path.Child("spec", "restartPolicy").String() {
			rule = RuleRestartPolicy
		}
		vs.add(rule, e)
	}
	if len(t.Spec.EphemeralContainers) > 0 {
		vs.add(RulePodTemplate, field.Forbidden(path.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return vs
}

func validatePodSpec(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	vols, errs := validateVolumes(spec.Volumes, path.Child("volumes"))
	errs = append(errs, validateContainers(spec.Containers, vols, path.Child("containers"))...)
	errs = append(errs, validateInitContainers(spec.InitContainers, spec.Containers, vols, path.Child("initContainers"))...)
	errs = append(errs, requiredOneOf(spec.RestartPolicy, path.Child("restartPolicy"),
		corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever)...)
	errs = append(errs, metav1validation.ValidateLabels(spec.NodeSelector, path.Child("nodeSelector"))...)
	if spec.ServiceAccountName != "" {
		errs = append(errs, invalid(path.Child("serviceAccountName"), spec.ServiceAccountName,
			apimachineryvalidation.NameIsDNSSubdomain(spec.ServiceAccountName, false))...)
	}
	if spec.ActiveDeadlineSeconds != nil {
		if v := *spec.ActiveDeadlineSeconds; v < 1 || v > math.MaxInt32 {
			errs = append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), v, utilvalidation.InclusiveRangeError(1, math.MaxInt32)))
		}
	}
	if spec.Hostname != "" {
		errs = append(errs, dns1123Label(spec.Hostname, path.Child("hostname"))...)
	}
	if spec.Subdomain != "" {
		errs = append(errs, dns1123Label(spec.Subdomain, path.Child("subdomain"))...)
	}
	return errs
}

// dns1123Label is Required for an empty value, else an Invalid error per way it is not a
// DNS-1123 label.
func dns1123Label(value string, path *field.Path) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	return invalid(path, value, utilvalidation.IsDNS1123Label(value))
}

// invalid is an Invalid error at path for each message of an apimachinery validation helper.
func invalid(path *field.Path, value any, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range msgs {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}

func validateVolumes(volumes []corev1.Volume, path *field.Path) (map[string]bool, field.ErrorList) {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, v := range volumes {
		np := path.Index(i).Child("name")
		el := dns1123Label(v.Name, np)
		if names[v.Name] {
			el = append(el, field.Duplicate(np, v.Name))
		}
		if len(el) == 0 {
			names[v.Name] = true
		}
		errs = append(errs, el...)
	}
	return names, errs
}

func validateContainers(containers []corev1.Container, vols map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(containers) == 0 {
		return field.ErrorList{field.Required(path, "")}
	}
	names := map[string]bool{}
	for i := range containers {
		c := &containers[i]
		p := path.Index(i)
		errs = append(errs, validateContainerCommon(c, vols, p)...)
		if names[c.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
		} else {
			names[c.Name] = true
		}
		errs = append(errs, validateContainerRestartPolicy(c.RestartPolicy, p)...)
	}
	return errs
}

// requiredOneOf is the server's check of a field that must be one of supported: Required when
// v is empty, else NotSupported (listing supported in the server's order) when it is none.
func requiredOneOf[T ~string](v T, path *field.Path, supported ...T) field.ErrorList {
	switch {
	case v == "":
		return field.ErrorList{field.Required(path, "")}
	case !slices.Contains(supported, v):
		return field.ErrorList{field.NotSupported(path, v, supported)}
	}
	return nil
}

// validateContainerRestartPolicy mirrors the policy part of validateContainerRestartPolicy
// (ContainerRestartRules on): Always, Never or OnFailure.
func validateContainerRestartPolicy(policy *corev1.ContainerRestartPolicy, path *field.Path) field.ErrorList {
	if policy == nil {
		return nil
	}
	supported := []corev1.ContainerRestartPolicy{
		corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartPolicyOnFailure}
	if slices.Contains(supported, *policy) {
		return nil
	}
	return field.ErrorList{field.NotSupported(path.Child("restartPolicy"), *policy, supported)}
}

func validateInitContainers(containers, regular []corev1.Container, vols map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for _, c := range regular {
		names[c.Name] = true
	}
	const notSidecar = "may not be set for init containers without restartPolicy=Always"
	for i := range containers {
		c := &containers[i]
		p := path.Index(i)
		errs = append(errs, validateContainerCommon(c, vols, p)...)
		// ContainerRestartRules is beta and on in the mirrored release: an init container may have any of the
		// container restart policies; only Always makes it a sidecar.
		errs = append(errs, validateContainerRestartPolicy(c.RestartPolicy, p)...)
		restartAlways := c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
		if names[c.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
		} else if c.Name != "" {
			names[c.Name] = true
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"lifecycle", c.Lifecycle != nil}, {"livenessProbe", c.LivenessProbe != nil}, {"readinessProbe", c.ReadinessProbe != nil}, {"startupProbe", c.StartupProbe != nil}} {
			if f.set && !restartAlways {
				errs = append(errs, field.Forbidden(p.Child(f.name), notSidecar))
			}
		}
	}
	return errs
}

func validateContainerCommon(c *corev1.Container, vols map[string]bool, path *field.Path) field.ErrorList {
	errs := dns1123Label(c.Name, path.Child("name"))
	if c.Image == "" {
		errs = append(errs, field.Required(path.Child("image"), ""))
	}
	errs = append(errs, requiredOneOf(c.TerminationMessagePolicy, path.Child("terminationMessagePolicy"),
		corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError)...)
	errs = append(errs, validateContainerPorts(c.Ports, path.Child("ports"))...)
	errs = append(errs, validateEnv(c.Env, path.Child("env"))...)
	errs = append(errs, validateVolumeMounts(c.VolumeMounts, vols, path.Child("volumeMounts"))...)
	errs = append(errs, requiredOneOf(c.ImagePullPolicy, path.Child("imagePullPolicy"), corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever)...)
	errs = append(errs, validateResources(&c.Resources, path.Child("resources"))...)
	return errs
}

func validateContainerPorts(ports []corev1.ContainerPort, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		p := path.Index(i)
		if port.Name != "" {
			if msgs := utilvalidation.IsValidPortName(port.Name); len(msgs) != 0 {
				errs = append(errs, invalid(p.Child("name"), port.Name, msgs)...)
			} else if names[port.Name] {
				errs = append(errs, field.Duplicate(p.Child("name"), port.Name))
			} else {
				names[port.Name] = true
			}
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(p.Child("containerPort"), ""))
		} else {
			errs = append(errs, invalid(p.Child("containerPort"), port.ContainerPort,
				utilvalidation.IsValidPortNum(int(port.ContainerPort)))...)
		}
		if port.HostPort != 0 {
			errs = append(errs, invalid(p.Child("hostPort"), port.HostPort,
				utilvalidation.IsValidPortNum(int(port.HostPort)))...)
		}
		errs = append(errs, requiredOneOf(port.Protocol, p.Child("protocol"), corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP)...)
	}
	return errs
}

func validateEnv(vars []corev1.EnvVar, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ev := range vars {
		p := path.Index(i).Child("name")
		if ev.Name == "" {
			errs = append(errs, field.Required(p, ""))
			continue
		}
		errs = append(errs, invalid(p, ev.Name, utilvalidation.IsRelaxedEnvVarName(ev.Name))...)
	}
	return errs
}

func validateVolumeMounts(mounts []corev1.VolumeMount, vols map[string]bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, m := range mounts {
		p := path.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if !vols[m.Name] {
			errs = append(errs, field.NotFound(p.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(p.Child("mountPath"), ""))
		}
		if seen[m.MountPath] {
			errs = append(errs, field.Invalid(p.Child("mountPath"), m.MountPath, "must be unique"))
		}
		seen[m.MountPath] = true
	}
	return errs
}

// validateResources checks cpu and memory: non-negative, and requests not above limits.
func validateResources(r *corev1.ResourceRequirements, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	limPath, reqPath := path.Child("limits"), path.Child("requests")
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := r.Limits[name]; ok && q.Sign() < 0 {
			errs = append(errs, field.Invalid(limPath.Key(string(name)), q.String(), "must be greater than or equal to 0"))
		}
		q, ok := r.Requests[name]
		if !ok {
			continue
		}
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(reqPath.Key(string(name)), q.String(), "must be greater than or equal to 0"))
		}
		if lim, ok := r.Limits[name]; ok && q.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
		}
	}
	return errs
}
