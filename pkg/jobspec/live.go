package jobspec

import (
	"maps"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// IsLive reports whether job was read back from a server as kubectl get job -o yaml prints it:
// a UID or resourceVersion together with a status (or managedFields). A manifest that kept the
// old UID but dropped the status is what a user creates again, and the server rejects its
// selector: that one is checked as written (test/lint/corpus/125-err-exported.yaml).
func IsLive(job *batchv1.Job) bool {
	st := &job.Status
	status := st.StartTime != nil || len(st.Conditions) > 0 || st.Active > 0 || st.Succeeded > 0 ||
		st.Failed > 0 || st.Terminating != nil || st.Ready != nil || st.CompletedIndexes != "" ||
		st.FailedIndexes != nil || st.UncountedTerminatedPods != nil
	return (job.UID != "" || job.ResourceVersion != "") && (status || len(job.ManagedFields) > 0)
}

// DesiredSpec returns the Job a live object came from: what the server set is taken out
// (strategy.go: generateSelector and PrepareForCreate, ObjectMeta's system fields), so that it
// is linted as the manifest that created it would be. The selector and the generated labels go
// only when they carry this Job's own UID and name, as the server generated them; a selector the
// user chose (manualSelector, or other keys) stays and is checked. job itself is not changed.
func DesiredSpec(job *batchv1.Job) *batchv1.Job {
	if !IsLive(job) {
		return job
	}
	j := job.DeepCopy()
	uid, name := string(job.UID), job.Name
	generated := map[string]string{
		batchv1.ControllerUidLabel: uid,
		LegacyControllerUIDLabel:   uid,
		batchv1.JobNameLabel:       name,
		LegacyJobNameLabel:         name,
	}
	if serverSelector(j.Spec.Selector, uid) && (j.Spec.ManualSelector == nil || !*j.Spec.ManualSelector) {
		j.Spec.Selector, j.Spec.ManualSelector = nil, nil
		// A generated label goes when its value is the generated one.
		isGenerated := func(k, v string) bool {
			g, ok := generated[k]
			return ok && g == v
		}
		for _, labels := range []*map[string]string{&j.Spec.Template.Labels, &j.Labels} {
			maps.DeleteFunc(*labels, isGenerated)
			if len(*labels) == 0 {
				*labels = nil
			}
		}
	}
	dropDefaults(j)
	j.UID, j.ResourceVersion, j.Generation = "", "", 0
	j.ManagedFields, j.CreationTimestamp = nil, metav1.Time{}
	j.DeletionTimestamp, j.DeletionGracePeriodSeconds = nil, nil
	j.Status = batchv1.JobStatus{}
	return j
}

// dropDefaults unsets each spec field that the server would have given its value had it been
// left out (SetDefaults_Job), so that rules about a field "set explicitly" read the manifest's
// intent: a live object carries every default.
func dropDefaults(j *batchv1.Job) {
	dropDefault(j, func(s *batchv1.JobSpec) **int32 { return &s.BackoffLimit })
	dropDefault(j, func(s *batchv1.JobSpec) **batchv1.PodReplacementPolicy { return &s.PodReplacementPolicy })
	dropDefault(j, func(s *batchv1.JobSpec) **int32 { return &s.Parallelism })
	dropDefault(j, func(s *batchv1.JobSpec) **bool { return &s.Suspend })
	dropDefault(j, func(s *batchv1.JobSpec) **bool { return &s.ManualSelector })
}

// dropDefault unsets the spec field of j that field points to when Default would give it the
// same value without it (ptr.Equal: the defaulted side is always set, setDefaultsJobSpec).
func dropDefault[T comparable](j *batchv1.Job, field func(*batchv1.JobSpec) **T) {
	probe := j.DeepCopy()
	*field(&probe.Spec) = nil
	if ptr.Equal(*field(&j.Spec), *field(&Default(probe).Spec)) {
		*field(&j.Spec) = nil
	}
}

// serverSelector reports whether sel is the one generateSelector makes for the Job with this UID:
// matchLabels holding only the controller-uid label (either spelling) with that UID.
func serverSelector(sel *metav1.LabelSelector, uid string) bool {
	if sel == nil || uid == "" || len(sel.MatchExpressions) > 0 || len(sel.MatchLabels) == 0 {
		return false
	}
	for k, v := range sel.MatchLabels {
		if (k != batchv1.ControllerUidLabel && k != LegacyControllerUIDLabel) || v != uid {
			return false
		}
	}
	return true
}
