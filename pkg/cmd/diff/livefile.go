package diff

import (
	"fmt"
	"io"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// readLiveJob reads the Job of --live-file: a Job alone (kubectl get job -o yaml), or the v1
// List that create --save writes, whose ConfigMaps are left aside. Exactly one Job.
func readLiveJob(path string, stdin io.Reader) (*batchv1.Job, error) {
	docs, err := source.Read([]string{path}, source.Options{Stdin: stdin})
	if err != nil {
		return nil, err
	}
	var job *batchv1.Job
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			return nil, fmt.Errorf("%s: %w", d.Location(), d.Err)
		}
		switch d.Kind() {
		case "Job":
			if job != nil {
				return nil, fmt.Errorf("%s: holds more than one Job (%q and %q); give the live Job only", path, job.Name, d.Name())
			}
			job = &batchv1.Job{}
			if _, err := d.DecodeStrict(job); err != nil {
				return nil, fmt.Errorf("%s: %w", d.Location(), err)
			}
		case "ConfigMap":
			// create --save writes the Job's shard ConfigMaps with it.
		default:
			return nil, fmt.Errorf("%s: expected a Job (kubectl get job -o yaml, or the List create --save writes), found kind %q", d.Location(), d.Kind())
		}
	}
	if job == nil {
		return nil, fmt.Errorf("%s: no Job found", path)
	}
	return job, nil
}
