package retry

import (
	"cmp"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
)

// readOffline reads the files given: the Job retried, its pods, and ConfigMaps (its shard store,
// a parent's index map). The file grammar is status -f's: one Job, alone or in a List or a
// stream of documents with its pods and ConfigMaps. Every problem is a usage error (exit 2):
// nothing else is read, and no cluster is contacted.
func (o *Options) readOffline() (*gather.File, error) {
	in := &gather.File{Files: o.Filename, Stdin: o.In}
	read := func(file, what string, kinds ...string) error {
		n, err := in.Read(file, what, kinds...)
		if err == nil && n == 0 {
			return exitcode.UsageError("%s: no objects found (save %s with kubectl get ... -o json)", file, what)
		}
		return err
	}
	files, records := gather.SplitRecords(o.Filenames, o.In)
	if len(files) == 0 {
		return nil, gather.RecordWithoutJob(records[0], o.In)
	}
	for _, f := range files {
		if err := read(f, "the Job (kubectl get job NAME -o json), with its pods and ConfigMaps if wanted"); err != nil {
			return nil, err
		}
	}
	if len(in.JobList) > 1 {
		return nil, exitcode.UsageError("%s: holds more than one Job (%q and %q); give the one to retry", o.Filename, in.JobList[0].Name, in.JobList[1].Name)
	}
	if len(in.JobList) == 0 {
		return nil, exitcode.UsageError("%s: no Job found (save it with kubectl get job NAME -o json)", o.Filename)
	}
	if len(records) > 0 && (len(in.PodList) > 0 || o.PodsFile != "" || len(records) > 1) {
		return nil, exitcode.UsageError("%s is a record of pods, and %s gives pods too: give the Job's pods once", records[0], cmp.Or(o.PodsFile, strings.Join(records[1:], " and "), "-f"))
	}
	for _, r := range records {
		// A record of the Job's terminal pods (status --record), or of its lineage's.
		if _, err := in.ReadRecord(r, in.JobList[0]); err != nil {
			return nil, err
		}
	}
	if o.PodsFile != "" {
		if len(in.PodList) > 0 {
			return nil, exitcode.UsageError("%s already holds pods: give them there or with --pods-file, not both", o.Filename)
		}
		// A record of the Job's terminal pods (status --record), or pods as kubectl saves them.
		if ok, err := in.ReadRecord(o.PodsFile, in.JobList[0]); err != nil {
			return nil, err
		} else if !ok {
			if err := read(o.PodsFile, "the pods (kubectl get pods -o json, or a status --record file)", "Pod"); err != nil {
				return nil, err
			}
		}
	}
	if o.ShardsFile != "" {
		if err := read(o.ShardsFile, "the shard ConfigMaps (kubectl get configmap -o json)", "ConfigMap"); err != nil {
			return nil, err
		}
	}
	job := in.JobList[0]
	foreign := gather.ForeignPods{Job: job}
	for i := range in.PodList {
		foreign.Check(&in.PodList[i])
	}
	if err := foreign.Err(); err != nil {
		return nil, err
	}
	if job.Namespace != "" && !o.namespaceGiven {
		o.Namespace = job.Namespace
	}
	return in, nil
}
