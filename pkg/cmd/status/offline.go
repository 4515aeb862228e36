package status

import (
	"errors"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// readOffline reads -f: one Job, alone (kubectl get job -o json|yaml) or with its pods in a
// List or a stream of documents (kubectl get job,pods -l batch.kubernetes.io/job-name=NAME
// -o json); then --pods-file. podsGiven says whether pods came from either.
func (o *Options) readOffline() (in *offlineInput, err error) {
	job, pods, podsGiven, cms, streamed, err := o.readOfflineObjects()
	if err != nil {
		return nil, err
	}
	if streamed != nil {
		streamed.configMaps = cms
		return streamed, nil
	}
	acc, err := indexstatus.NewAccumulator(job)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	acc.FoldSettled()
	for i := range pods {
		acc.Add(&pods[i])
	}
	return &offlineInput{job: job, acc: acc, podsGiven: podsGiven, captured: indexstatus.CaptureTime(job, pods), configMaps: cms}, nil
}

// offlineInput is what the offline report is made from: the Job, its pods reduced into an
// accumulator, and the newest time written in them.
type offlineInput struct {
	job       *batchv1.Job
	acc       *indexstatus.Accumulator
	podsGiven bool
	captured  time.Time
	// configMaps are the ConfigMaps -f holds, by name: where a retry's index map is found
	// when the Job keeps it in one.
	configMaps map[string]*corev1.ConfigMap
}

func (o *Options) readOfflineObjects() (job *batchv1.Job, pods []corev1.Pod, podsGiven bool, cms map[string]*corev1.ConfigMap, streamed *offlineInput, err error) {
	docs, err := source.Read([]string{o.Filename}, source.Options{Stdin: o.In})
	if err != nil {
		return nil, nil, false, nil, nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the Job: %w", err))
	}
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			return nil, nil, false, nil, nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the Job: %s: %w", d.Location(), d.Err))
		}
		switch d.Kind() {
		case "Job":
			if job != nil {
				return nil, nil, false, nil, nil, exitcode.UsageError("%s: holds more than one Job (%q and %q); give one Job and its pods (kubectl get job,pods -l batch.kubernetes.io/job-name=NAME -o json)", o.Filename, job.Name, d.Name())
			}
			job = &batchv1.Job{}
			if _, err := d.DecodeStrict(job); err != nil {
				return nil, nil, false, nil, nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the Job: %s: %w", d.Location(), err))
			}
		case "Pod":
			var p corev1.Pod
			if _, err := d.DecodeStrict(&p); err != nil {
				return nil, nil, false, nil, nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the pods: %s: %w", d.Location(), err))
			}
			pods = append(pods, p)
			podsGiven = true
		case "ConfigMap":
			// A retry's index map (or its shard ConfigMap, saved alongside).
			cm := &corev1.ConfigMap{}
			if _, err := d.DecodeStrict(cm); err != nil {
				return nil, nil, false, nil, nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the ConfigMap: %s: %w", d.Location(), err))
			}
			if cms == nil {
				cms = map[string]*corev1.ConfigMap{}
			}
			cms[cm.Name] = cm
		default:
			return nil, nil, false, nil, nil, exitcode.UsageError("%s: expected a Job (kubectl get job -o json), optionally with its pods and the ConfigMap of a retry's index map, found kind %q", d.Location(), d.Kind())
		}
	}
	if job == nil {
		return nil, nil, false, nil, nil, exitcode.UsageError("%s: no Job found (save it with kubectl get job NAME -o json)", o.Filename)
	}
	if o.PodsFile != "" {
		if podsGiven {
			return nil, nil, false, nil, nil, exitcode.UsageError("%s already holds pods: give them there or with --pods-file, not both", o.Filename)
		}
		// A JSON pod list is streamed: each pod reduced as it is decoded, never all held.
		if in, ok, err := o.streamPods(job); ok || err != nil {
			return nil, nil, false, cms, in, err
		}
		more, err := source.ReadPods(o.PodsFile, o.In)
		if err != nil {
			return nil, nil, false, nil, nil, podsReadError(err, fmt.Sprintf("kubectl get pods -n %s -l %s=%s -o json", orDefault(job.Namespace, "NAMESPACE"), batchv1.JobNameLabel, orDefault(job.Name, "NAME")))
		}
		pods, podsGiven = more, true
	}
	if err := foreignPods(job, pods); err != nil {
		return nil, nil, false, nil, nil, err
	}
	return job, pods, podsGiven, cms, nil, nil
}

// podsReadError is the error of a --pods-file that could not be read. One that holds no object
// at all (an empty file, as a failed kubectl get pods > pods.json leaves, or only null) is not
// "no pods": the report would then say the pods are gone. It says what was expected instead.
// command is the kubectl command that saves the pods expected.
func podsReadError(err error, command string) error {
	if errors.Is(err, source.ErrNoObject) {
		return exitcode.UsageError("cannot read the pods: %v: expected the pods as %s writes them (a List, with no items when no pod exists)", err, command)
	}
	return exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the pods: %w", err))
}

// foreignPods is an error naming the pods given that belong to another Job: their controller
// owner or their controller-uid label names another UID. A report mixing two Jobs' pods would
// be wrong without saying so.
func foreignPods(job *batchv1.Job, pods []corev1.Pod) error {
	var f foreign
	for i := range pods {
		f.check(job, &pods[i])
	}
	return f.err(job)
}

// foreign gathers the pods of another Job.
type foreign struct {
	names []string
	owner string
}

func (f *foreign) check(job *batchv1.Job, p *corev1.Pod) {
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

func (f *foreign) err(job *batchv1.Job) error {
	names, owner := f.names, f.owner
	if len(names) == 0 {
		return nil
	}
	shown := names
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(names)-5))
	}
	return exitcode.UsageError("%d of the pods given belong to another Job, not to Job %q (uid %s): %s (the first belongs to %s); give only this Job's pods: kubectl get pods -n %s -l %s=%s -o json",
		len(names), job.Name, job.UID, strings.Join(shown, ", "), owner, orDefault(job.Namespace, "NAMESPACE"), batchv1.ControllerUidLabel, job.UID)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
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
