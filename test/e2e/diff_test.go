//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobdiff"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
)

// diffManifest is the live Job of the classification tests as a user writes it: Indexed, 6
// indexes, per-index retries, a FailIndex rule, a deadline and a TTL, labels and annotations on
// the Job and its template, a node selector and a toleration, so that every row of the
// mutability table can be set, unset and changed.
func diffManifest(name string, runTime string) *batchv1.Job {
	return &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels:      map[string]string{"team": "a"},
			Annotations: map[string]string{"note": "x"},
		},
		Spec: batchv1.JobSpec{
			CompletionMode:          ptr.To(batchv1.IndexedCompletion),
			Completions:             ptr.To[int32](6),
			Parallelism:             ptr.To[int32](2),
			BackoffLimitPerIndex:    ptr.To[int32](1),
			MaxFailedIndexes:        ptr.To[int32](2),
			ActiveDeadlineSeconds:   ptr.To[int64](3600),
			TTLSecondsAfterFinished: ptr.To[int32](3600),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionFailIndex,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptr.To("worker"),
					Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
			}}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      map[string]string{"app": "diff"},
					Annotations: map[string]string{"note": "x", "scenario.indexed.kubectl.io/run-time": runTime},
				},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					NodeSelector:  map[string]string{"type": "kwok"},
					Tolerations:   []corev1.Toleration{{Key: "example.com/spot", Operator: corev1.TolerationOpExists}},
					Containers: []corev1.Container{{
						Name: "worker", Image: "shard-worker:1.0", Command: []string{"/bin/process-shard"},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}},
					}},
				},
			},
		},
	}
}

// prepareDBManifest is the seed's live Job: a global backoffLimit of 2 and no per-index limit.
func prepareDBManifest(name string) *batchv1.Job {
	j := diffManifest(name, "never")
	j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes, j.Spec.PodFailurePolicy = nil, nil, nil
	j.Spec.BackoffLimit = ptr.To[int32](2)
	return j
}

func dfYAML(t testing.TB, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// liveSubject is a live Job in one state, with the manifest it was created from.
type dfSubject struct {
	state    string
	ns, name string
	manifest *batchv1.Job
}

func (s dfSubject) get(t testing.TB) *batchv1.Job {
	t.Helper()
	j, err := env.Client.BatchV1().Jobs(s.ns).Get(context.Background(), s.name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get job %s/%s: %v", s.ns, s.name, err)
	}
	return j
}

// startSubjects creates the live Jobs and brings each into its state: running (pods active),
// suspended before it ever started, suspended after running (Suspended=True, pods gone),
// complete, and the seed's running prepare-db Job.
func dfStartSubjects(t *testing.T, ns string) []dfSubject {
	t.Helper()
	mk := func(state, name string, m *batchv1.Job) dfSubject {
		CreateJob(t, ns, dfYAML(t, m))
		return dfSubject{state: state, ns: ns, name: name, manifest: m}
	}
	running := mk("running", "running", diffManifest("running", "never"))
	suspM := diffManifest("suspended", "never")
	suspM.Spec.Suspend = ptr.To(true)
	suspended := mk("suspended", "suspended", suspM)
	after := mk("suspended-after-running", "after", diffManifest("after", "never"))
	compM := diffManifest("complete", "1s")
	compM.Spec.Parallelism = ptr.To[int32](6)
	complete := mk("complete", "complete", compM)
	seed := mk("prepare-db-running", "prepare-db", prepareDBManifest("prepare-db"))

	active := func(n int32) func(*batchv1.Job, []corev1.Pod) bool {
		return func(j *batchv1.Job, _ []corev1.Pod) bool { return j.Status.Active == n }
	}
	WaitForJob(t, ns, running.name, 2*time.Minute, "2 active pods", active(2))
	WaitForJob(t, ns, seed.name, 2*time.Minute, "2 active pods", active(2))
	WaitForCondition(t, ns, suspended.name, batchv1.JobSuspended, 2*time.Minute)
	WaitForJob(t, ns, after.name, 2*time.Minute, "2 active pods", active(2))
	MustKubectl(t, "patch", "job", after.name, "-n", ns, "--type=merge", "-p", `{"spec":{"suspend":true}}`)
	after.manifest.Spec.Suspend = ptr.To(true)
	WaitForJob(t, ns, after.name, 2*time.Minute, "Suspended=True and no active pods", func(j *batchv1.Job, _ []corev1.Pod) bool {
		c := Condition(j, batchv1.JobSuspended)
		return c != nil && c.Status == corev1.ConditionTrue && j.Status.Active == 0
	})
	WaitForCondition(t, ns, complete.name, batchv1.JobComplete, 3*time.Minute)
	return []dfSubject{running, suspended, after, complete, seed}
}

// variant is one desired Job: the live Job's manifest with one change (a row of the mutability
// table in one direction).
type dfVariant struct {
	name   string
	on     []string // states it applies to; all when empty
	mutate func(desired, live *batchv1.Job)
	// want is the class expected for the paths listed (others are only checked against the
	// server).
	want map[string]jobdiff.Class
	// keepSuspend: the variant is about spec.suspend.
	keepSuspend bool
}

func dfWorker(j *batchv1.Job) *corev1.Container { return &j.Spec.Template.Spec.Containers[0] }

const (
	clLive       = jobdiff.ClassLive
	clCond       = jobdiff.ClassConditional
	clNewJob     = jobdiff.ClassNewJob
	dfWorkerPath = "spec.template.spec.containers[name=worker]"
	dfMainJobs   = "running,suspended,suspended-after-running,complete"
)

func dfOnMain() []string { return strings.Split(dfMainJobs, ",") }

func dfVariants() []dfVariant {
	return []dfVariant{
		{name: "metadata.labels set", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) { d.Labels["owner"] = "b" },
			want: map[string]jobdiff.Class{"metadata.labels.owner": clLive}},
		{name: "metadata.labels unset", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) { delete(d.Labels, "team"); d.Labels["x"] = "y" }},
		{name: "metadata.labels change", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) { d.Labels["team"] = "b" }},
		{name: "metadata.annotations set/unset/change", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) {
			d.Annotations = map[string]string{"note": "y", "example.com/owner": "b"}
		}},
		{name: "parallelism change", mutate: func(d, _ *batchv1.Job) { d.Spec.Parallelism = ptr.To[int32](3) },
			want: map[string]jobdiff.Class{"spec.parallelism": clLive}},
		{name: "parallelism unset (default 1)", mutate: func(d, _ *batchv1.Job) { d.Spec.Parallelism = nil }},
		{name: "completions in tandem", mutate: func(d, _ *batchv1.Job) { d.Spec.Completions, d.Spec.Parallelism = ptr.To[int32](4), ptr.To[int32](4) },
			want: map[string]jobdiff.Class{"spec.completions": clCond, "spec.parallelism": clLive}},
		{name: "completions alone", mutate: func(d, _ *batchv1.Job) { d.Spec.Completions = ptr.To[int32](8) },
			want: map[string]jobdiff.Class{"spec.completions": clCond}},
		{name: "completions up with maxFailedIndexes above the old completions", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) {
			d.Spec.Completions, d.Spec.Parallelism, d.Spec.MaxFailedIndexes = ptr.To[int32](10), ptr.To[int32](10), ptr.To[int32](8)
		}},
		{name: "completions alone with maxFailedIndexes above the old completions", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) {
			d.Spec.Completions, d.Spec.MaxFailedIndexes = ptr.To[int32](10), ptr.To[int32](8)
		}, want: map[string]jobdiff.Class{"spec.completions": clCond, "spec.maxFailedIndexes": clCond}},
		{name: "activeDeadlineSeconds change", mutate: func(d, _ *batchv1.Job) { d.Spec.ActiveDeadlineSeconds = ptr.To[int64](7200) },
			want: map[string]jobdiff.Class{"spec.activeDeadlineSeconds": clLive}},
		{name: "activeDeadlineSeconds unset", mutate: func(d, _ *batchv1.Job) { d.Spec.ActiveDeadlineSeconds = nil }},
		{name: "backoffLimit set", mutate: func(d, _ *batchv1.Job) { d.Spec.BackoffLimit = ptr.To[int32](10) },
			want: map[string]jobdiff.Class{"spec.backoffLimit": clLive}},
		{name: "backoffLimit unset", on: []string{"prepare-db-running"}, mutate: func(d, _ *batchv1.Job) { d.Spec.BackoffLimit = nil }},
		{name: "backoffLimitPerIndex change", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) { d.Spec.BackoffLimitPerIndex = ptr.To[int32](2) },
			want: map[string]jobdiff.Class{"spec.backoffLimitPerIndex": clNewJob}},
		{name: "backoffLimitPerIndex unset", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) {
			d.Spec.BackoffLimitPerIndex, d.Spec.MaxFailedIndexes, d.Spec.PodFailurePolicy = nil, nil, nil
			d.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
			d.Spec.BackoffLimit = ptr.To[int32](2147483647)
		}, want: map[string]jobdiff.Class{"spec.backoffLimitPerIndex": clNewJob}},
		{name: "backoffLimitPerIndex set", on: []string{"prepare-db-running"}, mutate: func(d, _ *batchv1.Job) {
			d.Spec.BackoffLimitPerIndex = ptr.To[int32](1)
		}, want: map[string]jobdiff.Class{"spec.backoffLimitPerIndex": clNewJob}},
		{name: "the seed's fix: backoffLimitPerIndex and maxFailedIndexes", on: []string{"prepare-db-running"}, mutate: func(d, _ *batchv1.Job) {
			d.Spec.BackoffLimit = nil
			d.Spec.BackoffLimitPerIndex, d.Spec.MaxFailedIndexes = ptr.To[int32](1), ptr.To[int32](2)
		}, want: map[string]jobdiff.Class{"spec.backoffLimitPerIndex": clNewJob, "spec.maxFailedIndexes": clNewJob, "spec.backoffLimit": clLive}},
		{name: "maxFailedIndexes change", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) { d.Spec.MaxFailedIndexes = ptr.To[int32](3) },
			want: map[string]jobdiff.Class{"spec.maxFailedIndexes": clLive}},
		{name: "maxFailedIndexes unset", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) { d.Spec.MaxFailedIndexes = nil },
			want: map[string]jobdiff.Class{"spec.maxFailedIndexes": clLive}},
		{name: "podFailurePolicy change", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) {
			d.Spec.PodFailurePolicy.Rules[0].OnExitCodes.Values = []int32{43}
		}, want: map[string]jobdiff.Class{"spec.podFailurePolicy": clNewJob}},
		{name: "podFailurePolicy unset", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) {
			d.Spec.PodFailurePolicy = nil
			d.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
		}, want: map[string]jobdiff.Class{"spec.podFailurePolicy": clNewJob}},
		{name: "podFailurePolicy set", on: []string{"prepare-db-running"}, mutate: func(d, _ *batchv1.Job) {
			d.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}}}}
		}, want: map[string]jobdiff.Class{"spec.podFailurePolicy": clNewJob}},
		{name: "successPolicy set", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) {
			d.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr.To("0")}}}
		}, want: map[string]jobdiff.Class{"spec.successPolicy": clNewJob}},
		{name: "managedBy set", mutate: func(d, _ *batchv1.Job) { d.Spec.ManagedBy = ptr.To("example.com/batch") },
			want: map[string]jobdiff.Class{"spec.managedBy": clNewJob}},
		{name: "completionMode NonIndexed", on: []string{"prepare-db-running"}, mutate: func(d, _ *batchv1.Job) { d.Spec.CompletionMode = nil },
			want: map[string]jobdiff.Class{"spec.completionMode": clNewJob}},
		{name: "suspend", keepSuspend: true, mutate: func(d, l *batchv1.Job) { d.Spec.Suspend = ptr.To(!ptr.Deref(l.Spec.Suspend, false)) },
			want: map[string]jobdiff.Class{"spec.suspend": clLive}},
		{name: "ttlSecondsAfterFinished change", mutate: func(d, _ *batchv1.Job) { d.Spec.TTLSecondsAfterFinished = ptr.To[int32](7200) },
			want: map[string]jobdiff.Class{"spec.ttlSecondsAfterFinished": clLive}},
		{name: "ttlSecondsAfterFinished unset", mutate: func(d, _ *batchv1.Job) { d.Spec.TTLSecondsAfterFinished = nil }},
		{name: "podReplacementPolicy away from Failed with a podFailurePolicy", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) {
			d.Spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		}, want: map[string]jobdiff.Class{"spec.podReplacementPolicy": clNewJob}},
		{name: "podReplacementPolicy Failed", on: []string{"prepare-db-running"}, mutate: func(d, _ *batchv1.Job) {
			d.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
		}, want: map[string]jobdiff.Class{"spec.podReplacementPolicy": clLive}},
		{name: "manualSelector set, the same selector", mutate: func(d, l *batchv1.Job) {
			d.Spec.ManualSelector = ptr.To(true)
			d.Spec.Selector = l.Spec.Selector.DeepCopy()
			for k, v := range l.Spec.Template.Labels {
				d.Spec.Template.Labels[k] = v
			}
		}, want: map[string]jobdiff.Class{"spec.manualSelector": clLive}},
		{name: "selector of its own", mutate: func(d, _ *batchv1.Job) {
			d.Spec.ManualSelector = ptr.To(true)
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "diff"}}
		}, want: map[string]jobdiff.Class{"spec.selector": clNewJob}},

		// The pod template.
		{name: "template label set/change", mutate: func(d, _ *batchv1.Job) {
			d.Spec.Template.Labels["app"] = "diff2"
			d.Spec.Template.Labels["tier"] = "batch"
		}, want: map[string]jobdiff.Class{"spec.template.metadata.labels.app": clCond, "spec.template.metadata.labels.tier": clCond}},
		{name: "template label unset", mutate: func(d, _ *batchv1.Job) { delete(d.Spec.Template.Labels, "app") }},
		{name: "template annotation set/unset/change", mutate: func(d, _ *batchv1.Job) {
			delete(d.Spec.Template.Annotations, "note")
			d.Spec.Template.Annotations["example.com/x"] = "1"
		}},
		{name: "resources change", mutate: func(d, _ *batchv1.Job) {
			dfWorker(d).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("200m")
		}, want: map[string]jobdiff.Class{dfWorkerPath + ".resources.requests.cpu": clCond}},
		{name: "resources set", mutate: func(d, _ *batchv1.Job) {
			dfWorker(d).Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")}
		}, want: map[string]jobdiff.Class{dfWorkerPath + ".resources.limits.memory": clCond}},
		{name: "resources unset", mutate: func(d, _ *batchv1.Job) { delete(dfWorker(d).Resources.Requests, corev1.ResourceMemory) }},
		{name: "nodeSelector set/change", mutate: func(d, _ *batchv1.Job) {
			d.Spec.Template.Spec.NodeSelector = map[string]string{"type": "kwok2", "kubernetes.io/os": "linux"}
		}},
		{name: "nodeSelector unset", mutate: func(d, _ *batchv1.Job) { d.Spec.Template.Spec.NodeSelector = nil },
			want: map[string]jobdiff.Class{"spec.template.spec.nodeSelector.type": clCond}},
		{name: "tolerations change", mutate: func(d, _ *batchv1.Job) {
			d.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "example.com/gpu", Operator: corev1.TolerationOpExists}}
		}, want: map[string]jobdiff.Class{"spec.template.spec.tolerations": clCond}},
		{name: "tolerations unset", mutate: func(d, _ *batchv1.Job) { d.Spec.Template.Spec.Tolerations = nil }},
		{name: "schedulingGates set", mutate: func(d, _ *batchv1.Job) {
			d.Spec.Template.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
		}, want: map[string]jobdiff.Class{"spec.template.spec.schedulingGates": clCond}},
		{name: "nodeAffinity set", mutate: func(d, _ *batchv1.Job) {
			d.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: "type", Operator: corev1.NodeSelectorOpIn, Values: []string{"kwok"}}}}}}}}
		}},
		{name: "podAffinity set", mutate: func(d, _ *batchv1.Job) {
			d.Spec.Template.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname"}}}}}
		}},
		{name: "image change", mutate: func(d, _ *batchv1.Job) { dfWorker(d).Image = "shard-worker:1.1" },
			want: map[string]jobdiff.Class{dfWorkerPath + ".image": clNewJob}},
		{name: "command change", mutate: func(d, _ *batchv1.Job) { dfWorker(d).Command = []string{"/bin/other"} }},
		{name: "env set", mutate: func(d, _ *batchv1.Job) { dfWorker(d).Env = []corev1.EnvVar{{Name: "SHARDS", Value: "6"}} }},
		{name: "container added", mutate: func(d, _ *batchv1.Job) {
			d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "sidecar", Image: "busybox:1.36"})
		}, want: map[string]jobdiff.Class{"spec.template.spec.containers": clNewJob}},
		{name: "pod-level resources set", mutate: func(d, _ *batchv1.Job) {
			d.Spec.Template.Spec.Resources = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}}
		}},
		{name: "terminationGracePeriodSeconds change", mutate: func(d, _ *batchv1.Job) {
			d.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To[int64](5)
		}},
		{name: "scheduling set (alpha WorkloadWithJob: this server drops it)", on: []string{"running"}, mutate: func(d, _ *batchv1.Job) {
			d.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
				Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{MinCount: ptr.To[int32](2)}}}
		}, want: map[string]jobdiff.Class{"spec.scheduling": clNewJob}},
		{name: "everything at once", on: dfOnMain(), mutate: func(d, _ *batchv1.Job) {
			d.Spec.Parallelism = ptr.To[int32](3)
			d.Spec.MaxFailedIndexes = ptr.To[int32](1)
			d.Spec.BackoffLimitPerIndex = ptr.To[int32](2)
			dfWorker(d).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("300m")
			dfWorker(d).Image = "shard-worker:2.0"
			d.Labels["owner"] = "c"
		}},
	}
}

// agreement counts differences whose dry-run probe agreed with the classification.
type dfAgreement struct{ agreed, total int }

// TestDiffClassificationAgreesWithServer is the acceptance test of kubectl indexed diff: for
// live Jobs in each state and a desired Job per row of the mutability table and direction,
// every difference's classification is checked by a server-side dry-run update of the live
// Job: the changes that hold now together (accepted), each other change alone (rejected).
func TestDiffClassificationAgreesWithServer(t *testing.T) {
	ns := NewNamespace(t)
	subjects := dfStartSubjects(t, ns)
	table := map[string]map[jobdiff.Class]*dfAgreement{}
	ctx := context.Background()
	for _, s := range subjects {
		for _, v := range dfVariants() {
			if len(v.on) > 0 && !dfContains(v.on, s.state) {
				continue
			}
			t.Run(s.state+"/"+v.name, func(t *testing.T) {
				liveJob := s.get(t)
				desired := s.manifest.DeepCopy()
				desired.Namespace = ""
				if desired.Labels == nil {
					desired.Labels = map[string]string{}
				}
				if !v.keepSuspend {
					desired.Spec.Suspend = liveJob.Spec.Suspend
				}
				v.mutate(desired, liveJob)
				report, err := jobdiff.Diff(liveJob, desired, jobdiff.Options{Now: time.Now()})
				if err != nil {
					t.Fatal(err)
				}
				if !report.HasDifferences() {
					t.Fatalf("no differences found")
				}
				got := map[string]jobdiff.Difference{}
				for _, d := range report.Differences {
					got[d.Path] = d
				}
				finished := jobdiff.StateOf(liveJob).Finished()
				for p, cl := range v.want {
					d, ok := got[p]
					// A finished Job is never synced again (job-semantics §2.3): a conditional
					// change that does not hold can never take effect, so it needs a new Job.
					// The server still rejects it alone, which the probes below confirm.
					if ok && finished && cl == jobdiff.ClassConditional && !d.HoldsNow {
						cl = jobdiff.ClassNewJob
					}
					if !ok {
						t.Errorf("no difference at %s: %v", p, dfKeys(got))
					} else if d.Class != cl {
						t.Errorf("%s: class %s, want %s", p, d.Class, cl)
					}
				}
				probes, err := report.Probes(liveJob)
				if err != nil {
					t.Fatal(err)
				}
				results := map[string]jobdiff.ProbeResult{}
				for _, p := range probes {
					job := p.Job.DeepCopy()
					job.ResourceVersion = ""
					ret, err := env.Client.BatchV1().Jobs(s.ns).Update(ctx, job, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
					var res jobdiff.ProbeResult
					switch {
					case err == nil:
						res = p.Judge(ret, "")
					case apierrors.IsInvalid(err):
						res = p.Judge(nil, err.Error())
					default:
						t.Fatalf("dry-run update %s: %v", p.Name, err)
					}
					t.Logf("probe %q %v: expected %s, server %s %s", p.Name, p.Paths, res.Expected, res.Outcome, firstLine(res.Message))
					if res.Agrees && res.Outcome == jobdiff.OutcomeRejected && !rejectedForTheRightField(res.Message, p.Paths) {
						t.Errorf("probe %q %v was rejected, but not for its own fields: %s", p.Name, p.Paths, res.Message)
					}
					if !res.Agrees {
						t.Errorf("DISAGREEMENT on %s (%v): expected %s, server %s: %s", p.Name, p.Paths, res.Expected, res.Outcome, res.Message)
					}
					for _, path := range p.Paths {
						results[path] = res
					}
				}
				for _, d := range report.Differences {
					res, ok := results[d.Path]
					if !ok {
						t.Errorf("%s was not probed", d.Path)
						continue
					}
					row := table[s.state]
					if row == nil {
						row = map[jobdiff.Class]*dfAgreement{}
						table[s.state] = row
					}
					a := row[d.Class]
					if a == nil {
						a = &dfAgreement{}
						row[d.Class] = a
					}
					a.total++
					if res.Agrees {
						a.agreed++
					}
				}
			})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-26s %-14s %-14s %-14s\n", "state", "Live", "Conditional", "NewJob")
	states := make([]string, 0, len(table))
	for st := range table {
		states = append(states, st)
	}
	sort.Strings(states)
	for _, st := range states {
		cell := func(cl jobdiff.Class) string {
			a := table[st][cl]
			if a == nil {
				return "-"
			}
			return fmt.Sprintf("%d/%d agree", a.agreed, a.total)
		}
		fmt.Fprintf(&b, "%-26s %-14s %-14s %-14s\n", st, cell(clLive), cell(clCond), cell(clNewJob))
	}
	t.Logf("classification vs. server dry-run updates (differences whose probe agreed / differences):\n%s", b.String())
}

// TestDiffDefaultsMatchServer: a Job whose template leaves every defaulted field unset,
// created on the real API server, compares equal to its manifest: the defaults jobspec mirrors
// (which diff and lint share) are the ones the server applies.
func TestDiffDefaultsMatchServer(t *testing.T) {
	ns := NewNamespace(t)
	m := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "defaults"},
		Spec: batchv1.JobSpec{
			Suspend:              ptr.To(true), // no pods: the service account and images need not exist
			CompletionMode:       ptr.To(batchv1.IndexedCompletion),
			Completions:          ptr.To[int32](3),
			BackoffLimitPerIndex: ptr.To[int32](1),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}},
			}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "defaults"}},
				Spec: corev1.PodSpec{
					RestartPolicy:            corev1.RestartPolicyNever,
					DeprecatedServiceAccount: "runner",
					InitContainers: []corev1.Container{{Name: "fetch", Image: "busybox",
						Env: []corev1.EnvVar{{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}}},
					Containers: []corev1.Container{
						{Name: "worker", Image: "registry.example.com:5000/team/worker:latest",
							Ports: []corev1.ContainerPort{{ContainerPort: 8080}, {Name: "metrics", ContainerPort: 9090}},
							Resources: corev1.ResourceRequirements{
								Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0.5"), corev1.ResourceMemory: resource.MustParse("1000Mi")},
								Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000m"), corev1.ResourceMemory: resource.MustParse("2.5Gi")},
							},
							ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}}},
							LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9090}}},
							StartupProbe:   &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}},
							Lifecycle:      &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}}},
							VolumeMounts:   []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}, {Name: "cfg", MountPath: "/cfg"}},
						},
						{Name: "pinned", Image: "busybox@sha256:7cc4b5aefd1d0cadf8d97d4350462ba51c694ebca145b08d7d41b41acc8db5aa"},
						{Name: "tagged", Image: "busybox:1.36"},
					},
					Volumes: []corev1.Volume{
						{Name: "scratch"},
						{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
						{Name: "sec", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "sec"}}},
						{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}}},
						{Name: "down", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{
							{Path: "name", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}}},
						{Name: "proj", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
							{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
							{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "ns", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}},
						}}}},
						{Name: "eph", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
							Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
								Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}}}},
						{Name: "img", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "registry.example.com/data:latest"}}},
					},
				},
			},
		},
	}
	created := CreateJob(t, ns, dfYAML(t, m))
	r, err := jobdiff.Diff(created, m, jobdiff.Options{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range r.Differences {
		t.Errorf("the server's default differs from jobdiff's: %s: stored %s, jobdiff %s", d.Path, dfJSON(d.Live), dfJSON(d.Desired))
	}
	// And the other way round: what jobspec fills in is what the server stored, field by field.
	mine := m.DeepCopy()
	jobspec.SetDefaultsJob(mine)
	if g, w := dfJSON(created.Spec.Template.Spec.Containers), dfJSON(mine.Spec.Template.Spec.Containers); g != w {
		t.Errorf("containers:\nserver  %s\njobspec %s", g, w)
	}
	if g, w := dfJSON(created.Spec.Template.Spec.Volumes), dfJSON(mine.Spec.Template.Spec.Volumes); g != w {
		t.Errorf("volumes:\nserver  %s\njobspec %s", g, w)
	}
	if g, w := dfJSON(created.Spec.PodFailurePolicy), dfJSON(mine.Spec.PodFailurePolicy); g != w {
		t.Errorf("podFailurePolicy:\nserver  %s\njobspec %s", g, w)
	}
	for _, f := range []struct{ name, server, mine string }{
		{"backoffLimit", dfJSON(created.Spec.BackoffLimit), dfJSON(mine.Spec.BackoffLimit)},
		{"parallelism", dfJSON(created.Spec.Parallelism), dfJSON(mine.Spec.Parallelism)},
		{"podReplacementPolicy", dfJSON(created.Spec.PodReplacementPolicy), dfJSON(mine.Spec.PodReplacementPolicy)},
		{"manualSelector", dfJSON(created.Spec.ManualSelector), dfJSON(mine.Spec.ManualSelector)},
		{"template securityContext", dfJSON(created.Spec.Template.Spec.SecurityContext), dfJSON(mine.Spec.Template.Spec.SecurityContext)},
		{"template dnsPolicy", string(created.Spec.Template.Spec.DNSPolicy), string(mine.Spec.Template.Spec.DNSPolicy)},
		{"template schedulerName", created.Spec.Template.Spec.SchedulerName, mine.Spec.Template.Spec.SchedulerName},
		{"template terminationGracePeriodSeconds", dfJSON(created.Spec.Template.Spec.TerminationGracePeriodSeconds), dfJSON(mine.Spec.Template.Spec.TerminationGracePeriodSeconds)},
		{"template serviceAccountName", created.Spec.Template.Spec.ServiceAccountName, mine.Spec.Template.Spec.ServiceAccountName},
	} {
		if f.server != f.mine {
			t.Errorf("%s: server %s, jobspec %s", f.name, f.server, f.mine)
		}
	}
}

// rejectedForTheRightField: the server's rejection names the field the probe changed (its
// top-level spec field, or spec.template), or the field the classification gave as the reason
// (backoffLimitPerIndex for maxFailedIndexes, completions for the tandem rule).
func rejectedForTheRightField(msg string, paths []string) bool {
	for _, p := range paths {
		parts := strings.SplitN(p, ".", 3)
		if len(parts) >= 2 {
			top := strings.SplitN(parts[0]+"."+parts[1], "[", 2)[0]
			if strings.Contains(msg, top+":") || strings.Contains(msg, top+".") {
				return true
			}
		}
		if strings.HasPrefix(p, "spec.maxFailedIndexes") &&
			(strings.Contains(msg, "spec.backoffLimitPerIndex:") || strings.Contains(msg, "spec.completions:")) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if len(s) > 240 {
		s = s[:240] + "..."
	}
	return s
}

func dfJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestDiffCLISeedFix runs the plugin on the seed's case: a running Job with backoffLimit 2 and
// no per-index limit, and a desired Job with backoffLimitPerIndex and maxFailedIndexes.
func TestDiffCLISeedFix(t *testing.T) {
	ns := NewNamespace(t)
	m := prepareDBManifest("prepare-db")
	CreateJob(t, ns, dfYAML(t, m))
	WaitForJob(t, ns, "prepare-db", 2*time.Minute, "2 active pods", func(j *batchv1.Job, _ []corev1.Pod) bool { return j.Status.Active == 2 })

	// The manifest it was created from: no differences, exit 0.
	same := dfWriteTemp(t, "same.yaml", dfYAML(t, m))
	if r := KubectlIndexed(t, "diff", "prepare-db", "-n", ns, "-f", same); r.ExitCode != 0 || !strings.Contains(r.Stdout, "No differences") {
		t.Errorf("same manifest:\n%s", r)
	}

	fix := m.DeepCopy()
	fix.Spec.BackoffLimit = nil
	fix.Spec.BackoffLimitPerIndex, fix.Spec.MaxFailedIndexes = ptr.To[int32](1), ptr.To[int32](2)
	fixFile := dfWriteTemp(t, "fix.yaml", dfYAML(t, fix))
	r := KubectlIndexed(t, "diff", "prepare-db", "-n", ns, "-f", fixFile, "--server-dry-run", "-o", "json")
	if r.ExitCode != 1 {
		t.Fatalf("want exit 1:\n%s", r)
	}
	var rep jobdiff.Report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	classes := map[string]jobdiff.Class{}
	for _, d := range rep.Differences {
		classes[d.Path] = d.Class
	}
	want := map[string]jobdiff.Class{"spec.backoffLimit": clLive, "spec.backoffLimitPerIndex": clNewJob, "spec.maxFailedIndexes": clNewJob}
	if fmt.Sprint(classes) != fmt.Sprint(want) {
		t.Errorf("classes %v, want %v", classes, want)
	}
	if rep.Server == nil || rep.Server.Disagreements != 0 || len(rep.Server.Probes) != 3 {
		t.Errorf("server check: %s", dfJSON(rep.Server))
	}
	warned := false
	for _, w := range rep.Warnings {
		if w.Code == jobdiff.WarnPrepareDBMode && w.Side == jobdiff.SideLive {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no PrepareDBMode warning on the live side: %s", dfJSON(rep.Warnings))
	}
	// Every command of the plan is accepted by the server (dry run), the new Job's create
	// included (it renames the manifest, so it does not hit AlreadyExists); none patches the
	// backoffLimit 2147483647 the UnlimitedRetries warning is about.
	patches := 0
	for _, s := range rep.Plan {
		for _, c := range s.Commands {
			if strings.Contains(c, "delete") {
				t.Errorf("the plan deletes: %s", c)
			}
			if strings.Contains(c, "2147483647") {
				t.Errorf("the plan patches the unlimited backoffLimit onto the live Job: %s", c)
			}
			patches++
			if r := dfRunPlanCommand(t, c, true); r.ExitCode != 0 {
				t.Errorf("plan command rejected:\n%s", r)
			}
		}
	}
	if patches == 0 {
		t.Errorf("no command in the plan: %s", dfJSON(rep.Plan))
	}

	// The text report ends with the plan.
	r = KubectlIndexed(t, "diff", "prepare-db", "-n", ns, "-f", fixFile)
	if r.ExitCode != 1 || !strings.Contains(r.Stdout, "Plan:") || !strings.Contains(r.Stdout, "! Prepare-db mode: the live Job:") {
		t.Errorf("text:\n%s", r)
	}
	if i, j := strings.Index(r.Stdout, "Differences"), strings.Index(r.Stdout, "Plan:"); i < 0 || j < i {
		t.Errorf("the plan is not at the end:\n%s", r.Stdout)
	}

	// Offline: the live Job saved with kubectl get, both sides from files; the same differences.
	liveFile := dfWriteTemp(t, "live.json", string(JobJSON(t, ns, "prepare-db")))
	r = KubectlIndexed(t, "diff", "--live-file", liveFile, "-f", fixFile, "-o", "json")
	if r.ExitCode != 1 {
		t.Fatalf("offline:\n%s", r)
	}
	var off jobdiff.Report
	if err := json.Unmarshal([]byte(r.Stdout), &off); err != nil {
		t.Fatal(err)
	}
	if dfJSON(dfPaths(off.Differences)) != dfJSON(dfPaths(rep.Differences)) {
		t.Errorf("offline differences %v, live %v", dfPaths(off.Differences), dfPaths(rep.Differences))
	}
	// The desired Job from stdin.
	r = Run(t, Cmd{Args: []string{"indexed", "diff", "prepare-db", "-n", ns, "-f", "-"}, Stdin: dfYAML(t, fix)})
	if r.ExitCode != 1 {
		t.Errorf("stdin:\n%s", r)
	}
	// A Job that does not exist: exit 4.
	if r := KubectlIndexed(t, "diff", "nope", "-n", ns, "-f", fixFile); r.ExitCode != 4 || !strings.Contains(r.Stderr, `job "nope" not found`) {
		t.Errorf("missing Job:\n%s", r)
	}
}

// TestDiffCLITemplateWhileSuspended: on a suspended Job the plan's single patch changes the
// template and resumes it, and the server takes it; on the running Job the plan suspends first.
func TestDiffCLITemplateWhileSuspended(t *testing.T) {
	ns := NewNamespace(t)
	m := diffManifest("tmpl", "never")
	m.Spec.Suspend = ptr.To(true)
	CreateJob(t, ns, dfYAML(t, m))
	WaitForCondition(t, ns, "tmpl", batchv1.JobSuspended, 2*time.Minute)
	d := m.DeepCopy()
	d.Spec.Suspend = ptr.To(false)
	dfWorker(d).Resources.Requests[corev1.ResourceCPU] = resource.MustParse("250m")
	d.Spec.Template.Spec.NodeSelector["kubernetes.io/os"] = "linux"
	r := KubectlIndexed(t, "diff", "tmpl", "-n", ns, "-f", dfWriteTemp(t, "d.yaml", dfYAML(t, d)), "--server-dry-run", "-o", "json")
	if r.ExitCode != 1 {
		t.Fatalf("%s", r)
	}
	var rep jobdiff.Report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Server == nil || rep.Server.Disagreements != 0 {
		t.Errorf("server check: %s", dfJSON(rep.Server))
	}
	if len(rep.Plan) != 1 || len(rep.Plan[0].Commands) != 1 || rep.Plan[0].Kind != jobdiff.StepPatch {
		t.Fatalf("plan %s", dfJSON(rep.Plan))
	}
	args := dfShellWords(t, rep.Plan[0].Commands[0])[1:]
	if r := Kubectl(t, args...); r.ExitCode != 0 {
		t.Fatalf("applying the plan's patch:\n%s", r)
	}
	if r := KubectlIndexed(t, "diff", "tmpl", "-n", ns, "-f", dfWriteTemp(t, "d2.yaml", dfYAML(t, d))); r.ExitCode != 0 {
		t.Errorf("after the patch, still differences:\n%s", r)
	}
}

// TestDiffCLICreateFlags: "what would change if I re-ran create", with create's own flags and
// with the List create prints.
func TestDiffCLICreateFlags(t *testing.T) {
	ns := NewNamespace(t)
	cases := dfWriteTemp(t, "cases.txt", "a\nb\nc\nd\ne\nf\n")
	r := KubectlIndexed(t, "shards", "split", "--cases", cases, "--shards", "3", "--name", "diff-e2e", "--revision", "1")
	if r.ExitCode != 0 {
		t.Fatalf("shards split:\n%s", r)
	}
	manifest := dfWriteTemp(t, "manifest.yaml", r.Stdout)
	createArgs := []string{"--manifest", manifest, "--image", "shard-worker:1.0", "--", "/bin/process-shard"}
	if r := KubectlIndexed(t, append([]string{"create", "viacreate", "-n", ns}, createArgs...)...); r.ExitCode != 0 {
		t.Fatalf("create:\n%s", r)
	}
	if r := KubectlIndexed(t, append([]string{"diff", "viacreate", "-n", ns}, createArgs...)...); r.ExitCode != 0 {
		t.Errorf("the same create flags:\n%s", r)
	}
	r = KubectlIndexed(t, "diff", "viacreate", "-n", ns, "--parallelism", "1", "--manifest", manifest, "--image", "shard-worker:1.1", "--", "/bin/process-shard")
	if r.ExitCode != 1 || !strings.Contains(r.Stdout, "spec.parallelism") || !strings.Contains(r.Stdout, "containers[name=worker].image") ||
		!strings.Contains(r.Stdout, "kubectl indexed create viacreate-2 -n "+ns+" --image=shard-worker:1.1 --manifest="+manifest+" --parallelism=1 -- /bin/process-shard") {
		t.Errorf("other create flags:\n%s", r)
	}
	printed := KubectlIndexed(t, append([]string{"create", "viacreate", "-n", ns, "--dry-run=client", "-o", "yaml"}, createArgs...)...)
	if printed.ExitCode != 0 {
		t.Fatalf("create --dry-run=client:\n%s", printed)
	}
	if r := Run(t, Cmd{Args: []string{"indexed", "diff", "viacreate", "-n", ns, "-f", "-"}, Stdin: printed.Stdout}); r.ExitCode != 0 {
		t.Errorf("create's List from stdin:\n%s", r)
	}
}

func dfPaths(ds []jobdiff.Difference) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Path
	}
	return out
}

func dfKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func dfContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dfRunPlanCommand runs a command the plan prints: kubectl words, possibly a pipeline of them
// ("kubectl patch --local ... -o yaml | kubectl create -f -"). With dryRun, the commands that
// write (patch of the live Job, create) get --dry-run=server.
func dfRunPlanCommand(t *testing.T, c string, dryRun bool) Result {
	t.Helper()
	var r Result
	for i, seg := range strings.Split(c, " | ") {
		words := dfShellWords(t, seg)
		if len(words) < 2 || words[0] != "kubectl" {
			t.Fatalf("not a kubectl command: %q in %q", seg, c)
		}
		args := words[1:]
		if dryRun && !dfContains(args, "--local") && (args[0] == "patch" || args[0] == "create") {
			args = append(args, "--dry-run=server")
		}
		stdin := ""
		if i > 0 {
			stdin = r.Stdout
		}
		r = Run(t, Cmd{Args: args, Stdin: stdin})
		if r.ExitCode != 0 {
			return r
		}
	}
	return r
}

// TestDiffCLIFinishedJobNewName: a Complete Job takes no conditional change (it is never synced
// again, job-semantics §2.3): the plan is one step, create a new Job, under a name no Job has.
// Following the printed plan for real creates that Job; a second diff then suggests the next
// free name.
func TestDiffCLIFinishedJobNewName(t *testing.T) {
	ns := NewNamespace(t)
	m := diffManifest("fin", "1s")
	CreateJob(t, ns, dfYAML(t, m))
	WaitForCondition(t, ns, "fin", batchv1.JobComplete, 2*time.Minute)

	d := m.DeepCopy()
	d.Spec.Parallelism = ptr.To[int32](3)
	dfWorker(d).Image = "shard-worker:1.1"
	d.Spec.Template.Spec.NodeSelector["kubernetes.io/os"] = "linux"
	desired := dfWriteTemp(t, "fin.yaml", dfYAML(t, d))
	r := KubectlIndexed(t, "diff", "fin", "-n", ns, "-f", desired, "--server-dry-run", "-o", "json")
	if r.ExitCode != 1 {
		t.Fatalf("want exit 1:\n%s", r)
	}
	var rep jobdiff.Report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	if rep.Server == nil || rep.Server.Disagreements != 0 {
		t.Errorf("server check: %s", dfJSON(rep.Server))
	}
	for _, df := range rep.Differences {
		if df.Class == jobdiff.ClassConditional && !df.HoldsNow {
			t.Errorf("%s is conditional on a Complete Job: %s", df.Path, df.Condition)
		}
	}
	if len(rep.Plan) != 1 || rep.Plan[0].Kind != jobdiff.StepNewJob || len(rep.Plan[0].Commands) != 1 {
		t.Fatalf("plan %s, want one new-job step with one command", dfJSON(rep.Plan))
	}
	if !strings.Contains(rep.Plan[0].Commands[0], `"name":"fin-2"`) {
		t.Errorf("the new Job is not named fin-2: %s", rep.Plan[0].Commands[0])
	}
	// Follow the plan for real.
	if r := dfRunPlanCommand(t, rep.Plan[0].Commands[0], false); r.ExitCode != 0 {
		t.Fatalf("following the plan:\n%s", r)
	}
	got, err := env.Client.BatchV1().Jobs(ns).Get(context.Background(), "fin-2", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the plan's new Job: %v", err)
	}
	if got.Spec.Template.Spec.Containers[0].Image != "shard-worker:1.1" {
		t.Errorf("the new Job runs %s", got.Spec.Template.Spec.Containers[0].Image)
	}
	// The text plan fits on a screen, and the next diff suggests the next free name.
	r = KubectlIndexed(t, "diff", "fin", "-n", ns, "-f", desired)
	plan := r.Stdout[strings.Index(r.Stdout, "\nPlan:")+1:]
	if n := strings.Count(strings.TrimRight(plan, "\n"), "\n") + 1; r.ExitCode != 1 || n > 20 || !strings.Contains(plan, `"name":"fin-3"`) {
		t.Errorf("second diff (plan %d lines, want fin-3):\n%s", n, r)
	}
}

func dfWriteTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// shellWords splits a command the plan prints: words separated by spaces, single-quoted words
// with '\” for a quote.
func dfShellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, inQuote := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQuote && c == '\'':
			inQuote = false
		case inQuote:
			cur.WriteByte(c)
		case c == '\'':
			inQuote, inWord = true, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inQuote {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
