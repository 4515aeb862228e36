package status

import batchv1 "k8s.io/api/batch/v1"

// PodSelector is the label selector of the Job's pods that status lists (the controller-uid
// label, or the Job's own selector under manualSelector), for the other verbs that read a
// Job's pods (logs).
func PodSelector(job *batchv1.Job) (string, error) { return podSelector(job) }
