package jobspec

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// SetDefaultsJob is SetObjectDefaults_Job: Job fields, the template's labels on a Job without
// labels, and the full pod template defaults (the ones TestDiffDefaultsMatchServer checks
// against a real API server).
func TestSetDefaultsJob(t *testing.T) {
	j := testutil.EvaluationJob(func(j *batchv1.Job) {
		j.Spec.Template.Labels = map[string]string{"app": "eval"}
		j.Spec.Template.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
			HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}}}
		j.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "scratch"}}
	})
	SetDefaultsJob(j)
	if j.Labels["app"] != "eval" {
		t.Errorf("Job labels %v: want the template's", j.Labels)
	}
	ps := j.Spec.Template.Spec
	if ps.SchedulerName != corev1.DefaultSchedulerName || ps.SecurityContext == nil || ps.DNSPolicy != corev1.DNSClusterFirst {
		t.Errorf("pod spec defaults: schedulerName %q, securityContext %v, dnsPolicy %q", ps.SchedulerName, ps.SecurityContext, ps.DNSPolicy)
	}
	c := ps.Containers[0]
	if c.ImagePullPolicy != corev1.PullIfNotPresent || c.TerminationMessagePolicy != corev1.TerminationMessageReadFile {
		t.Errorf("container defaults: %q %q", c.ImagePullPolicy, c.TerminationMessagePolicy)
	}
	if p := c.ReadinessProbe; p.PeriodSeconds != 10 || p.HTTPGet.Path != "/" || p.HTTPGet.Scheme != corev1.URISchemeHTTP {
		t.Errorf("probe defaults: %+v", p)
	}
	if ps.Volumes[0].EmptyDir == nil {
		t.Errorf("a volume without a source becomes an emptyDir: %+v", ps.Volumes[0])
	}
	if j.Spec.Selector != nil || j.UID != "" {
		t.Errorf("SetDefaultsJob generated a selector or UID: %v %q", j.Spec.Selector, j.UID)
	}
}

// A CronJob's jobTemplate gets the nested defaults (pod template, podFailurePolicy patterns)
// but not SetDefaults_Job: completions, parallelism, backoffLimit... stay unset, as on the
// server.
func TestDefaultCronJobTemplate(t *testing.T) {
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly"},
		Spec: batchv1.CronJobSpec{Schedule: "0 2 * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}}}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "w", Image: "busybox"}}}},
		}}},
	}
	s := DefaultCronJob(cj).Spec.JobTemplate.Spec
	if s.Completions != nil || s.Parallelism != nil || s.BackoffLimit != nil || s.CompletionMode != nil || s.ManualSelector != nil {
		t.Errorf("jobTemplate got Job defaults: %+v", s)
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways || s.Template.Spec.Containers[0].ImagePullPolicy != corev1.PullAlways {
		t.Errorf("jobTemplate pod defaults: restartPolicy %q, imagePullPolicy %q", s.Template.Spec.RestartPolicy, s.Template.Spec.Containers[0].ImagePullPolicy)
	}
	if got := s.PodFailurePolicy.Rules[0].OnPodConditions[0].Status; got != corev1.ConditionTrue {
		t.Errorf("onPodConditions status %q, want True", got)
	}
}
