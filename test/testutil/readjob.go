package testutil

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// ReadJob reads the one Job of path (a fixture's job.json), strictly: an error when the file
// holds anything but exactly one Job.
func ReadJob(path string) (*batchv1.Job, error) {
	docs, err := source.Read([]string{path}, source.Options{})
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%s: %d objects, want one Job", path, len(docs))
	}
	d := &docs[0]
	if d.Err != nil {
		return nil, fmt.Errorf("%s: %w", d.Location(), d.Err)
	}
	if d.Kind() != "Job" {
		return nil, fmt.Errorf("%s: expected a Job, found kind %q", d.Location(), d.Kind())
	}
	job := &batchv1.Job{}
	if _, err := d.DecodeStrict(job); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Location(), err)
	}
	return job, nil
}
