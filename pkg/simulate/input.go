package simulate

import (
	"fmt"
	"io"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// ReadJob reads the one Indexed Job of path: a Job, a CronJob's jobTemplate, or the Job of a
// List (create's dry-run output, with its ConfigMap); cron says it came from a CronJob.
func ReadJob(path string, stdin io.Reader) (job *batchv1.Job, cron bool, err error) {
	docs, err := source.Read([]string{path}, source.Options{Stdin: stdin})
	if err != nil {
		return nil, false, fmt.Errorf("cannot read %w", err)
	}
	var jobs []*batchv1.Job
	crons := 0
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			return nil, false, fmt.Errorf("%s: %v", d.Location(), d.Err)
		}
		switch d.Kind() {
		case "Job":
			var j batchv1.Job
			if _, err := d.DecodeStrict(&j); err != nil {
				return nil, false, fmt.Errorf("%s: not a Job: %v", d.Location(), err)
			}
			jobs = append(jobs, &j)
		case "CronJob":
			var cj batchv1.CronJob
			if _, err := d.DecodeStrict(&cj); err != nil {
				return nil, false, fmt.Errorf("%s: not a CronJob: %v", d.Location(), err)
			}
			j := jobspec.JobOf(&cj)
			if j.Name == "" {
				j.Name = cj.Name
			}
			j.Namespace = cj.Namespace
			jobs = append(jobs, j)
			crons++
		}
	}
	switch len(jobs) {
	case 0:
		return nil, false, fmt.Errorf("%s: no Job or CronJob found", path)
	case 1:
		return jobs[0], crons == 1, nil
	default:
		return nil, false, fmt.Errorf("%s holds %d Jobs: simulate reads one Job per file (split the file, or use --compare)", path, len(jobs))
	}
}
