package status

import (
	"time"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
)

// readOffline reads -f: one Job, alone (kubectl get job -o json|yaml) or with its pods and
// ConfigMaps in a List or a stream of documents (kubectl get job,pods -l
// batch.kubernetes.io/job-name=NAME -o json); --pods-file is left to the source's Pods, which
// streams it. podsGiven says whether pods came from either.
func (o *Options) readOffline() (src *gather.File, podsGiven bool, err error) {
	src = &gather.File{Files: o.Filename, PodsFile: o.PodsFile, Stdin: o.In}
	if _, err := src.Read(o.Filename, "the Job (kubectl get job -o json), optionally with its pods and the ConfigMap of a retry's index map"); err != nil {
		return nil, false, err
	}
	switch {
	case len(src.JobList) == 0:
		return nil, false, exitcode.UsageError("%s: no Job found (save it with kubectl get job NAME -o json)", o.Filename)
	case len(src.JobList) > 1:
		return nil, false, exitcode.UsageError("%s: holds more than one Job (%q and %q); give one Job and its pods (kubectl get job,pods -l batch.kubernetes.io/job-name=NAME -o json)", o.Filename, src.JobList[0].Name, src.JobList[1].Name)
	case o.PodsFile != "" && len(src.PodList) > 0:
		return nil, false, exitcode.UsageError("%s already holds pods: give them there or with --pods-file, not both", o.Filename)
	}
	src.Namespace = src.JobList[0].Namespace
	return src, o.PodsFile != "" || len(src.PodList) > 0, nil
}

// offlineClock is the clock of an offline report: --now, else the capture time (a note only
// when the objects carry no time at all); --now before the capture time is a usage error
// (indexstatus.OfflineTime).
func (o *Options) offlineClock(at time.Time) (fixedClock, string, error) {
	t, wall, err := indexstatus.OfflineTime(o.Now, at, o.Clock.Now())
	if err != nil {
		return fixedClock{}, "", exitcode.Wrap(exitcode.Usage, err)
	}
	if wall {
		return fixedClock(t), "The objects carry no timestamp: ages and backoff are computed at the current time (give --now to set the time they were saved).", nil
	}
	// No note: live and offline reports of the same objects are the same; observedAt says
	// the time.
	return fixedClock(t), "", nil
}

// fixedClock always says the same time.
type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }
