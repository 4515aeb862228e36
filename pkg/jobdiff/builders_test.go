package jobdiff

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
)

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const testUID = types.UID("0f6c8a52-5d0e-4c55-9a33-3d0c1f3e2a10")

// manifest is the desired Job as a user writes it: Indexed, 6 completions, per-index retries.
func manifest() *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "eval", Namespace: "ml"},
		Spec: batchv1.JobSpec{
			CompletionMode:       ptrTo(batchv1.IndexedCompletion),
			Completions:          ptrTo[int32](6),
			Parallelism:          ptrTo[int32](2),
			BackoffLimitPerIndex: ptrTo[int32](1),
			MaxFailedIndexes:     ptrTo[int32](2),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "eval"}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name:    "worker",
						Image:   "busybox:1.36",
						Command: []string{"sh", "-c", "run-shard"},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
						},
					}},
				},
			},
		},
	}
}

// stored returns what the API server stores for the manifest j: defaults, the generated
// selector and labels, the Job's labels copied from the template, server metadata.
func stored(j *batchv1.Job) *batchv1.Job {
	s := j.DeepCopy()
	jobspec.SetDefaultsJob(s)
	s.UID = testUID
	s.ResourceVersion = "4242"
	s.Generation = 1
	s.CreationTimestamp = metav1.NewTime(testNow.Add(-time.Hour))
	if s.Spec.Template.Labels == nil {
		s.Spec.Template.Labels = map[string]string{}
	}
	if len(s.Labels) == 0 {
		s.Labels = s.Spec.Template.Labels // shared, as in SetDefaults_Job
	}
	for _, k := range []string{"batch.kubernetes.io/job-name", "job-name"} {
		s.Spec.Template.Labels[k] = s.Name
	}
	for _, k := range []string{"batch.kubernetes.io/controller-uid", "controller-uid"} {
		s.Spec.Template.Labels[k] = string(testUID)
	}
	if !*s.Spec.ManualSelector {
		if s.Spec.Selector == nil {
			s.Spec.Selector = &metav1.LabelSelector{}
		}
		if s.Spec.Selector.MatchLabels == nil {
			s.Spec.Selector.MatchLabels = map[string]string{}
		}
		s.Spec.Selector.MatchLabels["batch.kubernetes.io/controller-uid"] = string(testUID)
	}
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	s.Annotations[corev1.LastAppliedConfigAnnotation] = `{"apiVersion":"batch/v1","kind":"Job"}`
	return s
}

// liveState names the states the rules depend on.
type liveState string

const (
	stRunning          liveState = "running"
	stSuspended        liveState = "suspended-never-started"
	stSuspendedStarted liveState = "suspended-after-progress"
	stSuspending       liveState = "suspending-pods-active"
	stFailing          liveState = "failing"
	stComplete         liveState = "complete"
	stFailed           liveState = "failed"
)

var allStates = []liveState{stRunning, stSuspended, stSuspendedStarted, stSuspending, stFailing, stComplete, stFailed}

func cond(t batchv1.JobConditionType, reason string, at time.Time) batchv1.JobCondition {
	return batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, LastTransitionTime: metav1.NewTime(at)}
}

// inState sets the live Job's suspend flag and status as the Job controller leaves them in st.
func inState(j *batchv1.Job, st liveState) *batchv1.Job {
	started := metav1.NewTime(testNow.Add(-10 * time.Minute))
	j.Status = batchv1.JobStatus{Terminating: ptrTo[int32](0), Ready: ptrTo[int32](0)}
	if j.Spec.BackoffLimitPerIndex != nil {
		j.Status.FailedIndexes = ptrTo("")
	}
	switch st {
	case stRunning:
		j.Status.StartTime = &started
		j.Status.Active, j.Status.Succeeded, j.Status.Failed = 2, 1, 1
		j.Status.CompletedIndexes = "0"
	case stSuspended:
		j.Spec.Suspend = ptrTo(true)
		j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobSuspended, "JobSuspended", testNow.Add(-time.Hour))}
	case stSuspendedStarted:
		j.Spec.Suspend = ptrTo(true)
		j.Status.StartTime = &started // a Job suspended before the gate reset startTime
		j.Status.Succeeded = 2
		j.Status.CompletedIndexes = "0,1"
		j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobSuspended, "JobSuspended", testNow.Add(-time.Minute))}
	case stSuspending:
		j.Spec.Suspend = ptrTo(true)
		j.Status.StartTime = &started
		j.Status.Active = 2
	case stFailing:
		j.Status.StartTime = &started
		j.Status.Failed = 3
		j.Status.Terminating = ptrTo[int32](2)
		j.Status.FailedIndexes = ptrTo("2,4,5")
		j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobFailureTarget, "MaxFailedIndexesExceeded", testNow.Add(-time.Minute))}
	case stComplete:
		j.Status.StartTime = &started
		j.Status.Succeeded = 6
		j.Status.CompletedIndexes = "0-5"
		j.Status.CompletionTime = ptrTo(metav1.NewTime(testNow.Add(-2 * time.Minute)))
		j.Status.Conditions = []batchv1.JobCondition{
			cond(batchv1.JobSuccessCriteriaMet, "CompletionsReached", testNow.Add(-2*time.Minute)),
			cond(batchv1.JobComplete, "CompletionsReached", testNow.Add(-2*time.Minute)),
		}
	case stFailed:
		j.Status.StartTime = &started
		j.Status.Succeeded, j.Status.Failed = 4, 3
		j.Status.CompletedIndexes = "0,1,3,5"
		j.Status.FailedIndexes = ptrTo("2,4")
		j.Status.Conditions = []batchv1.JobCondition{
			cond(batchv1.JobFailureTarget, "FailedIndexes", testNow.Add(-2*time.Minute)),
			cond(batchv1.JobFailed, "FailedIndexes", testNow.Add(-2*time.Minute)),
		}
	}
	return j
}

// liveJob is the stored form of the manifest, changed by mut before it was created, in st.
func liveJob(st liveState, mut func(*batchv1.Job)) *batchv1.Job {
	m := manifest()
	if mut != nil {
		mut(m)
	}
	return inState(stored(m), st)
}

func desiredJob(mut func(*batchv1.Job)) *batchv1.Job {
	m := manifest()
	if mut != nil {
		mut(m)
	}
	return m
}

func worker(j *batchv1.Job) *corev1.Container { return &j.Spec.Template.Spec.Containers[0] }

func ptrTo[T any](v T) *T { return &v }
