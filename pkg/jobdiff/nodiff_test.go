package jobdiff

import (
	"math"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestNoDifferences: an unset field and its default are equal; what the server generates,
// status and server metadata are not compared.
func TestNoDifferences(t *testing.T) {
	cases := []struct {
		name          string
		live, desired func(*batchv1.Job)
	}{
		{name: "the same manifest"},
		{name: "every Job default spelled out", desired: func(j *batchv1.Job) {
			j.Spec.BackoffLimit = ptrTo[int32](math.MaxInt32) // with backoffLimitPerIndex
			j.Spec.Suspend = ptrTo(false)
			j.Spec.PodReplacementPolicy = ptrTo(batchv1.TerminatingOrFailed)
			j.Spec.ManualSelector = ptrTo(false)
		}},
		{name: "NonIndexed default mode and backoffLimit 6", live: nonIndexed, desired: func(j *batchv1.Job) {
			nonIndexed(j)
			j.Spec.CompletionMode = ptrTo(batchv1.NonIndexedCompletion)
			j.Spec.BackoffLimit = ptrTo[int32](6)
		}},
		{name: "completions and parallelism both unset default to 1", live: func(j *batchv1.Job) {
			nonIndexed(j)
			j.Spec.Completions, j.Spec.Parallelism = nil, nil
		}, desired: func(j *batchv1.Job) {
			nonIndexed(j)
			j.Spec.Completions, j.Spec.Parallelism = ptrTo[int32](1), ptrTo[int32](1)
		}},
		{name: "podReplacementPolicy Failed is the default with a podFailurePolicy", live: pfp(42),
			desired: chain(pfp(42), func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = nil })},
		{name: "onPodConditions status defaults to True", live: func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}}}}
		}, desired: func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}}}}
		}},
		{name: "pod template defaults spelled out", desired: func(j *batchv1.Job) {
			s := &j.Spec.Template.Spec
			s.DNSPolicy = corev1.DNSClusterFirst
			s.SchedulerName = corev1.DefaultSchedulerName
			s.SecurityContext = &corev1.PodSecurityContext{}
			s.TerminationGracePeriodSeconds = ptrTo[int64](30)
			c := worker(j)
			c.ImagePullPolicy = corev1.PullIfNotPresent
			c.TerminationMessagePath = corev1.TerminationMessagePathDefault
			c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
		}},
		{name: "image without tag pulls Always", live: func(j *batchv1.Job) { worker(j).Image = "busybox" },
			desired: func(j *batchv1.Job) { worker(j).Image, worker(j).ImagePullPolicy = "busybox", corev1.PullAlways }},
		{name: "image :latest pulls Always", live: func(j *batchv1.Job) { worker(j).Image = "registry.example.com:5000/team/eval:latest" },
			desired: func(j *batchv1.Job) {
				worker(j).Image, worker(j).ImagePullPolicy = "registry.example.com:5000/team/eval:latest", corev1.PullAlways
			}},
		{name: "image by digest pulls IfNotPresent", live: func(j *batchv1.Job) {
			worker(j).Image = "busybox@sha256:7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa"
		}, desired: func(j *batchv1.Job) {
			worker(j).Image = "busybox@sha256:7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa"
			worker(j).ImagePullPolicy = corev1.PullIfNotPresent
		}},
		{name: "port protocol TCP", live: func(j *batchv1.Job) { worker(j).Ports = []corev1.ContainerPort{{ContainerPort: 8080}} },
			desired: func(j *batchv1.Job) {
				worker(j).Ports = []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
			}},
		{name: "probe defaults", live: func(j *batchv1.Job) {
			worker(j).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}}}
			worker(j).LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9090}}}
		}, desired: func(j *batchv1.Job) {
			worker(j).ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Port: intstr.FromInt32(8080), Path: "/", Scheme: corev1.URISchemeHTTP}},
				TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
			worker(j).LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9090, Service: ptrTo("")}},
				TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
		}},
		{name: "env fieldRef apiVersion v1", live: func(j *batchv1.Job) {
			worker(j).Env = []corev1.EnvVar{{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
		}, desired: func(j *batchv1.Job) {
			worker(j).Env = []corev1.EnvVar{{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}}
		}},
		{name: "volume defaults", live: func(j *batchv1.Job) {
			j.Spec.Template.Spec.Volumes = []corev1.Volume{
				{Name: "scratch"},
				{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
				{Name: "sec", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "sec"}}},
				{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}}},
				{Name: "tok", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}},
			}
		}, desired: func(j *batchv1.Job) {
			j.Spec.Template.Spec.Volumes = []corev1.Volume{
				{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, DefaultMode: ptrTo[int32](0o644)}}},
				{Name: "sec", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "sec", DefaultMode: ptrTo[int32](0o644)}}},
				{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data", Type: ptrTo(corev1.HostPathUnset)}}},
				{Name: "tok", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{DefaultMode: ptrTo[int32](0o644), Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptrTo[int64](3600)}}}}}},
			}
		}},
		{name: "quantities compare by value", desired: func(j *batchv1.Job) {
			worker(j).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("0.5")
		}},
		{name: "quantities are rounded up to milli-units", live: func(j *batchv1.Job) {
			worker(j).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1m")
		}, desired: func(j *batchv1.Job) {
			worker(j).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("0.0001")
		}},
		{name: "empty maps and lists equal unset", desired: func(j *batchv1.Job) {
			j.Spec.Template.Spec.NodeSelector = map[string]string{}
			j.Spec.Template.Spec.Tolerations = []corev1.Toleration{}
			j.Annotations = map[string]string{}
		}},
		{name: "serviceAccount alias", live: func(j *batchv1.Job) { j.Spec.Template.Spec.DeprecatedServiceAccount = "runner" }, //nolint:staticcheck // the alias is what is tested
			desired: func(j *batchv1.Job) { j.Spec.Template.Spec.ServiceAccountName = "runner" }},
		{name: "kubectl's last-applied annotation is ignored", desired: func(j *batchv1.Job) {
			j.Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: "{}"}
		}},
		{name: "a desired manifest without namespace"},
	}
	for _, tc := range cases {
		for _, st := range allStates {
			t.Run(tc.name+"/"+string(st), func(t *testing.T) {
				live := liveJob(st, tc.live)
				desired := desiredJob(tc.desired)
				desired.Namespace = ""
				desired.Spec.Suspend = live.Spec.Suspend
				r, err := Diff(live, desired, Options{Now: testNow})
				if err != nil {
					t.Fatal(err)
				}
				if r.HasDifferences() {
					t.Errorf("differences: %v", describeDiffs(r.Differences))
				}
				if len(r.Plan) != 0 {
					t.Errorf("plan without differences: %+v", r.Plan)
				}
			})
		}
	}
}

// TestLiveAgainstItself: the stored Job (status, generated labels and selector, server
// metadata, kubectl's annotation) compared with itself, as `kubectl get -o yaml` saves it.
func TestLiveAgainstItself(t *testing.T) {
	for _, st := range allStates {
		live := liveJob(st, nil)
		r, err := Diff(live, live.DeepCopy(), Options{Now: testNow})
		if err != nil {
			t.Fatal(err)
		}
		if r.HasDifferences() {
			t.Errorf("%s: %v", st, describeDiffs(r.Differences))
		}
	}
	// The desired Job saved from another Job (another UID): the generated parts differ and
	// must still not count.
	other := liveJob(stComplete, nil)
	other.UID = "11111111-2222-3333-4444-555555555555"
	for k := range other.Spec.Template.Labels {
		if k == "controller-uid" || k == "batch.kubernetes.io/controller-uid" {
			other.Spec.Template.Labels[k] = string(other.UID)
		}
	}
	other.Spec.Selector.MatchLabels["batch.kubernetes.io/controller-uid"] = string(other.UID)
	r, err := Diff(liveJob(stRunning, nil), other, Options{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if r.HasDifferences() {
		t.Errorf("another Job's generated labels counted: %v", describeDiffs(r.Differences))
	}
}

func TestDiffNeedsBothJobs(t *testing.T) {
	if _, err := Diff(nil, manifest(), Options{}); err == nil {
		t.Error("no error without a live Job")
	}
	if _, err := Diff(liveJob(stRunning, nil), nil, Options{}); err == nil {
		t.Error("no error without a desired Job")
	}
}

func TestDiffDoesNotModifyItsInputs(t *testing.T) {
	live, desired := liveJob(stRunning, nil), desiredJob(func(j *batchv1.Job) { j.Spec.Parallelism = nil })
	l0, d0 := live.DeepCopy(), desired.DeepCopy()
	if _, err := Diff(live, desired, Options{Now: testNow}); err != nil {
		t.Fatal(err)
	}
	if !equalJSON(t, live, l0) || !equalJSON(t, desired, d0) {
		t.Error("Diff modified its inputs")
	}
}

func describeDiffs(ds []Difference) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Path + ": " + showValue(d.Live) + " -> " + showValue(d.Desired)
	}
	return out
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ma, err := toMap(a)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := toMap(b)
	if err != nil {
		t.Fatal(err)
	}
	return equalValues(ma, mb)
}
