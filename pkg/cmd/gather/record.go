package gather

import (
	"io"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podrecord"
)

// SplitRecords sorts the files of -f: the records of terminal pods (status --record, known by
// their first line) from the others (Jobs, pods, ConfigMaps as kubectl saves them), each in
// the order given. Standard input (-) is peeked only when stdin is buffered (a *bufio.Reader);
// a file that cannot be opened is left with the others, whose reader says why.
func SplitRecords(paths []string, stdin io.Reader) (others, records []string) {
	for _, p := range paths {
		if isRecordFile(p, stdin) {
			records = append(records, p)
		} else {
			others = append(others, p)
		}
	}
	return others, records
}

func isRecordFile(path string, stdin io.Reader) bool {
	_, h, done := (&File{Stdin: stdin}).podsReader(path)
	defer done()
	return h != nil
}

// ReadRunRecord adds to PodList every pod of the record at path for the lineage of run, whose
// Jobs are jobs (status --lineage -f JOBS -f RECORD): the record of that run's lineage, or of
// one of jobs. ok is false when path is not a record (nothing is read).
func (f *File) ReadRunRecord(path string, run lineage.RunID, jobs []*batchv1.Job) (ok bool, err error) {
	br, h, done := f.podsReader(path)
	defer done()
	if h == nil {
		return false, nil
	}
	if !recordOfRun(h, run, jobs) {
		return true, exitcode.UsageError("%s is the record of %s, not of the lineage of job %q (uid %s) given: give the record written by status %s --lineage --record", path, h.Describe(), run.Root, run.RootUID, run.Root)
	}
	return true, f.readPods(br, path, func(p *corev1.Pod) { f.PodList = append(f.PodList, *p) })
}

// recordOfRun says whether the record of header h holds pods of run: it is the record of the
// lineage of run, or of one of jobs (the same UID, or the same name when either UID is
// unknown) in run.
func recordOfRun(h *podrecord.Header, run lineage.RunID, jobs []*batchv1.Job) bool {
	if h.Lineage {
		return h.Job.Name == run.Root && (run.RootUID == "" || h.Job.UID == "" || run.RootUID == h.Job.UID)
	}
	return slices.ContainsFunc(jobs, func(j *batchv1.Job) bool {
		same := h.Job.Name == j.Name
		if h.Job.UID != "" && j.UID != "" {
			same = h.Job.UID == string(j.UID)
		}
		return same && (run.RootUID == "" || lineage.InRun(j, run))
	})
}

// RecordWithoutJob is the usage error of records given with no Job: a record holds pods, and a
// report needs the Job they ran for.
func RecordWithoutJob(path string, stdin io.Reader) error {
	what := "a record of terminal pods (status --record)"
	_, h, done := (&File{Stdin: stdin}).podsReader(path)
	defer done()
	if h != nil {
		what = "the record of the terminal pods of " + h.Describe()
		if h.Job.Name != "" {
			return exitcode.UsageError("%s is %s, and no Job is given: give the Job with it, e.g. kubectl get job %s -n %s -o json > job.json, then -f job.json -f %s", path, what, h.Job.Name, h.Job.Namespace, path)
		}
	}
	return exitcode.UsageError("%s is %s, and no Job is given: give the Job with it (-f JOB_FILE -f %s)", path, what, path)
}
