package status

import (
	"maps"
	"slices"
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// readOffline reads -f into the source Run reads: one Job, alone (kubectl get job -o
// json|yaml) or with its pods and ConfigMaps in a List or a stream of documents (kubectl get
// job,pods -l batch.kubernetes.io/job-name=NAME -o json); --pods-file is left to the source's
// Pods, which streams it; --shards-file's ConfigMap gives the shard IDs.
func (o *Options) readOffline() error {
	src := &gather.File{Files: o.Filename, PodsFile: o.PodsFile, Stdin: o.In}
	for _, f := range o.jobFiles {
		if _, err := src.Read(f, "the Job (kubectl get job -o json), optionally with its pods and the ConfigMap of a retry's index map"); err != nil {
			return err
		}
	}
	if err := o.recordAsPodsFile(src); err != nil {
		return err
	}
	switch {
	case len(src.JobList) == 0:
		return exitcode.UsageError("%s: no Job found (save it with kubectl get job NAME -o json)", o.Filename)
	case len(src.JobList) > 1:
		return exitcode.UsageError("%s: holds more than one Job (%q and %q); give one Job and its pods (kubectl get job,pods -l batch.kubernetes.io/job-name=NAME -o json)", o.Filename, src.JobList[0].Name, src.JobList[1].Name)
	case src.PodsFile != "" && len(src.PodList) > 0:
		return exitcode.UsageError("%s already holds pods: give them there or with --pods-file, not both", o.Filename)
	}
	src.Namespace = src.JobList[0].Namespace
	if o.ShardsFile != "" {
		f := &gather.File{Stdin: o.In}
		n, err := f.Read(o.ShardsFile, "the shard ConfigMap (kubectl get configmap -o json)", "ConfigMap")
		if err == nil && n != 1 {
			err = exitcode.UsageError("%s: holds %d ConfigMaps; give the Job's shard ConfigMap only", o.ShardsFile, n)
		}
		if err != nil {
			return err
		}
		src.ShardsConfigMap = slices.Collect(maps.Values(f.ConfigMaps))[0]
	}
	o.src = src
	return nil
}

// recordAsPodsFile makes the record given with -f the source's pods file, read as --pods-file
// reads one (streamed, checked to be the Job's record or its lineage's): one Job's pods come
// from one place.
func (o *Options) recordAsPodsFile(src *gather.File) error {
	switch {
	case len(o.records) == 0:
		return nil
	case o.PodsFile != "":
		return exitcode.UsageError("%s is a record of pods and --pods-file %s gives pods too: give the Job's pods once", o.records[0], o.PodsFile)
	case len(o.records) > 1:
		return exitcode.UsageError("%s and %s are both records of pods: give one Job's record once (a watch run again appends to the same file)", o.records[0], o.records[1])
	}
	src.PodsFile = o.records[0]
	return nil
}

// offlineClock is the clock of an offline report: --now, else the capture time (a note only
// when the objects carry no time at all); --now before the capture time is a usage error
// (indexstatus.OfflineTime).
func (o *Options) offlineClock(at time.Time) (indexstatus.FixedClock, string, error) {
	t, wall, err := indexstatus.OfflineTime(o.Now, at, o.Clock.Now())
	if err != nil {
		return indexstatus.FixedClock{}, "", exitcode.Wrap(exitcode.Usage, err)
	}
	if wall {
		return indexstatus.FixedClock(t), "The objects carry no timestamp: ages and backoff are computed at the current time (give --now to set the time they were saved).", nil
	}
	// No note: live and offline reports of the same objects are the same; observedAt says
	// the time.
	return indexstatus.FixedClock(t), "", nil
}
