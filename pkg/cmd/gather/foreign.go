package gather

import (
	"cmp"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// ForeignPods gathers the pods given in files (status -f, retry -f) that belong to another Job
// than Job (indexstatus.OwnerUID). A Job saved without a UID (a manifest) has no pods of
// another Job.
type ForeignPods struct {
	Job   *batchv1.Job
	names []string
	owner string
}

// Check notes p when it belongs to another Job.
func (f *ForeignPods) Check(p *corev1.Pod) {
	uid := indexstatus.OwnerUID(p)
	if f.Job.UID == "" || uid == "" || uid == string(f.Job.UID) {
		return
	}
	if f.owner == "" {
		f.owner = indexstatus.OwnerName(p)
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
