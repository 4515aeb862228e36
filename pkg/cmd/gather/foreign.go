package gather

import (
	"cmp"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// ForeignPods gathers the pods given in files (status -f, retry -f) that belong to another Job
// than Job: by their controller's UID, else by their controller-uid label. A Job saved without
// a UID (a manifest) has no pods of another Job.
type ForeignPods struct {
	Job   *batchv1.Job
	names []string
	owner string
}

// Check notes p when it belongs to another Job.
func (f *ForeignPods) Check(p *corev1.Pod) {
	job := f.Job
	other := ""
	if ref := metav1.GetControllerOfNoCopy(p); ref != nil && job.UID != "" && ref.UID != job.UID {
		other = fmt.Sprintf("%s %q", ref.Kind, ref.Name)
	} else if uid, ok := p.Labels[batchv1.ControllerUidLabel]; ok && job.UID != "" && uid != string(job.UID) {
		other = fmt.Sprintf("the Job of uid %s", uid)
		if n := p.Labels[batchv1.JobNameLabel]; n != "" {
			other = fmt.Sprintf("Job %q (uid %s)", n, uid)
		}
	}
	if other == "" {
		return
	}
	if f.owner == "" {
		f.owner = other
	}
	f.names = append(f.names, p.Name)
}

// Err is a usage error naming the pods of another Job checked (the first five), or nil when
// there are none.
func (f *ForeignPods) Err() error {
	job, names := f.Job, f.names
	if len(names) == 0 {
		return nil
	}
	shown := names
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(names)-5))
	}
	return exitcode.UsageError("%d of the pods given belong to another Job, not to Job %q (uid %s): %s (the first belongs to %s); give only this Job's pods: kubectl get pods -n %s -l %s=%s -o json",
		len(names), job.Name, job.UID, strings.Join(shown, ", "), f.owner, cmp.Or(job.Namespace, "NAMESPACE"), batchv1.ControllerUidLabel, job.UID)
}
