package lineage

import (
	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// RunID names one run: the root Job a lineage starts from, by name and UID. The UID is what
// tells runs apart: a Job made again under the root's name after the root was deleted starts
// another run, and is not the root of the retries made before it (they record the old UID).
// status --lineage, list's nesting and reconcile all decide with it.
type RunID struct {
	Root    string
	RootUID string
}

// RunOf is the run job belongs to: for a retry, the root its lineage annotations record (read
// as they are, so that a Job whose other lineage keys do not parse still has a run); for any
// other Job, the Job itself.
func RunOf(job *batchv1.Job) RunID {
	if IsRetry(job) {
		return RunID{Root: job.Annotations[shards.AnnotationRootJob], RootUID: job.Annotations[shards.AnnotationRootJobUID]}
	}
	return RunID{Root: job.Name, RootUID: string(job.UID)}
}

// RunID is the run of a retry with lineage l.
func (l *Lineage) RunID() RunID { return RunID{Root: l.RootJob, RootUID: l.RootJobUID} }

// InRun reports whether job belongs to run r: it is r's root (same name and UID) or a retry
// that records them.
func InRun(job *batchv1.Job, r RunID) bool { return job != nil && RunOf(job) == r }
