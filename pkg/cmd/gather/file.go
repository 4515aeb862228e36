package gather

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podrecord"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podstream"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// StdinBuffer is the buffer a command puts in front of standard input, so that File.Pods can
// peek at it (is it JSON to stream?), and the one of a file.
const StdinBuffer = 256 << 10

// File answers from objects read from files (-f, --pods-file, --shards-file): nothing contacts a
// cluster. An object they do not hold is a *Missing error.
type File struct {
	// Files names the files read, as errors name them ("job.json and shards.json").
	Files string
	// Namespace, when set, is the namespace of the objects looked for: a ConfigMap saved from
	// another namespace is not found (one saved without a namespace, as a manifest, is).
	Namespace string
	JobList   []*batchv1.Job
	// PodList are the pods the files hold: every one is given to Pods' add, the Job's or not
	// (the Accumulator leaves out and counts those of another Job, as a report of the pods
	// given says).
	PodList    []corev1.Pod
	ConfigMaps map[string]*corev1.ConfigMap
	// ShardsConfigMap, when set, is the shard ConfigMap given apart (status --shards-file):
	// ReadJob takes the Job's shard IDs from it.
	ShardsConfigMap *corev1.ConfigMap
	// WorkloadList are the Kueue Workloads the files hold (kueue.x-k8s.io), as object maps.
	WorkloadList []map[string]any
	// PodsFile, when set, is where Pods reads the pods instead (- for Stdin): a JSON file is
	// streamed, each pod decoded and handed on as it is read, never all held.
	PodsFile string
	Stdin    io.Reader
	// Notes say what reading PodsFile found that the report should say: a record's torn last
	// line, skipped.
	Notes []string
}

var _ Source = (*File)(nil)

func (f *File) InNamespace() string { return f.Namespace }

// Read adds to f the Jobs, Pods and ConfigMaps that path (- for Stdin) holds, alone, in Lists or
// in a stream of documents; any other kind, or one not in kinds when given, is an error. Its
// errors are usage errors (exit 2) that say what path should hold: what, as "the Job (kubectl
// get job NAME -o json)". n is how many objects path held.
func (f *File) Read(path, what string, kinds ...string) (n int, err error) {
	docs, err := source.Read([]string{path}, source.Options{Stdin: f.Stdin})
	if err != nil {
		return 0, exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read %s: %w", what, err))
	}
	if kinds == nil {
		kinds = []string{"Job", "Pod", "ConfigMap", "Workload"}
	}
	if f.ConfigMaps == nil {
		f.ConfigMaps = map[string]*corev1.ConfigMap{}
	}
	for i := range docs {
		d := &docs[i]
		err := d.Err
		switch {
		case err != nil:
		case !slices.Contains(kinds, d.Kind()):
			return 0, exitcode.UsageError("%s: expected %s, found kind %q", d.Location(), what, d.Kind())
		case d.Kind() == "Job":
			job := &batchv1.Job{}
			_, err = d.DecodeStrict(job)
			f.JobList = append(f.JobList, job)
		case d.Kind() == "Workload":
			f.WorkloadList = append(f.WorkloadList, d.Object)
		case d.Kind() == "Pod":
			var p corev1.Pod
			_, err = d.DecodeStrict(&p)
			f.PodList = append(f.PodList, p)
		default:
			cm := &corev1.ConfigMap{}
			_, err = d.DecodeStrict(cm)
			f.ConfigMaps[cm.Name] = cm
		}
		if err != nil {
			return 0, exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read %s: %s: %w", what, d.Location(), err))
		}
	}
	return len(docs), nil
}

// Missing is the error of an object the files do not hold; apierrors.IsNotFound says true.
type Missing struct {
	Files, Resource, Name string
}

func (m *Missing) Error() string {
	return fmt.Sprintf("%s does not hold %s %q", m.Files, m.Resource, m.Name)
}

// Status makes a Missing an apierrors.APIStatus of reason NotFound.
func (m *Missing) Status() metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound, Message: m.Error(),
		Details: &metav1.StatusDetails{Name: m.Name, Kind: m.Resource}}
}

// IsMissing says whether err is a *Missing, and returns it.
func IsMissing(err error) (*Missing, bool) {
	var m *Missing
	return m, errors.As(err, &m)
}

func (f *File) missing(resource, name string) error {
	return &Missing{Files: f.Files, Resource: resource, Name: name}
}

// Job is the Job named name, or with name "" the first Job read.
func (f *File) Job(_ context.Context, name string) (*batchv1.Job, error) {
	for _, j := range f.JobList {
		if name == "" || j.Name == name {
			return j, nil
		}
	}
	return nil, f.missing("jobs", name)
}

func (f *File) Jobs(_ context.Context, labelSelector string) ([]batchv1.Job, error) {
	sel, err := labels.Parse(labelSelector)
	if err != nil {
		return nil, err
	}
	var out []batchv1.Job
	for _, j := range f.JobList {
		if sel.Matches(labels.Set(j.Labels)) {
			out = append(out, *j)
		}
	}
	return out, nil
}

func (f *File) ConfigMap(_ context.Context, name string) (*corev1.ConfigMap, error) {
	cm := f.ConfigMaps[name]
	if cm == nil || cm.Namespace != "" && f.Namespace != "" && cm.Namespace != f.Namespace {
		return nil, f.missing("configmaps", name)
	}
	return cm, nil
}

// Events: files hold none.
func (f *File) Events(context.Context, string) ([]corev1.Event, error) {
	return nil, f.missing("events", "")
}

// Pods hands every pod of PodList, or of PodsFile, whose phase and name match fieldSelector to
// add. Its errors are usage errors (exit 2).
func (f *File) Pods(_ context.Context, job *batchv1.Job, fieldSelector string, add func(*corev1.Pod)) (string, error) {
	sel, err := fields.ParseSelector(fieldSelector)
	if err != nil {
		return "", exitcode.Wrap(exitcode.Usage, err)
	}
	if !sel.Empty() {
		all := add
		add = func(p *corev1.Pod) {
			if sel.Matches(fields.Set{"metadata.name": p.Name, "metadata.namespace": p.Namespace, "status.phase": string(p.Status.Phase)}) {
				all(p)
			}
		}
	}
	if f.PodsFile == "" {
		return "", each(f.PodList, add)
	}
	// One open, and peeks at its start, choose the reader: a record (status --record) is read
	// line by line as it was written; a JSON pod list is streamed, each pod handed on as it
	// is decoded, never all held; anything else (YAML) takes the general reader.
	br, h, done := f.podsReader(f.PodsFile)
	defer done()
	switch {
	case h != nil:
		return "", f.readRecord(br, h, f.PodsFile, job, add)
	case br != nil && startsJSONObject(br):
		// podstream.EachJSON decodes the part of a pod the report reads and drops it once add
		// returns.
		if err := podstream.EachJSON(br, add); err != nil {
			return "", exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the pods: %s: %w", f.PodsFile, err))
		}
		return "", nil
	}
	pods, err := source.ReadPods(f.PodsFile, f.Stdin)
	if err != nil {
		return "", PodsReadError(err, fmt.Sprintf("kubectl get pods -n %s -l %s=%s -o json", cmp.Or(job.Namespace, "NAMESPACE"), batchv1.JobNameLabel, cmp.Or(job.Name, "NAME")))
	}
	return "", each(pods, add)
}

// PodsReadError is the error of a pods file that could not be read. One that holds no object
// at all (an empty file, as a failed kubectl get pods > pods.json leaves, or only null) is not
// "no pods": the report would then say the pods are gone. It says what was expected instead.
// command is the kubectl command that saves the pods expected.
func PodsReadError(err error, command string) error {
	if errors.Is(err, source.ErrNoObject) {
		return exitcode.UsageError("cannot read the pods: %v: expected the pods as %s writes them (a List, with no items when no pod exists)", err, command)
	}
	return exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the pods: %w", err))
}

// podsReader opens path once, buffered for the peeks that choose how to read it, or gives
// the command's standard input when path is "-" and that input is buffered (peeking then leaves
// what was read in that buffer for the general reader). br is nil when the file cannot be
// opened (the general reader then says why) or standard input is not buffered (a peek would
// lose its bytes). h is the header of the record of terminal pods (status --record) br starts
// with, nil when it is not one. done closes what was opened.
func (f *File) podsReader(path string) (br *bufio.Reader, h *podrecord.Header, done func()) {
	done = func() {}
	if path == source.StdinName {
		br, _ = f.Stdin.(*bufio.Reader) // nil when not buffered
	} else if file, err := os.Open(path); err == nil {
		br, done = bufio.NewReaderSize(file, StdinBuffer), func() { _ = file.Close() }
	}
	if br != nil {
		h = podrecord.Peek(br)
	}
	return br, h, done
}

// ReadRecord adds to PodList the pods of the record at path, when path is a record of job's
// terminal pods (ok); otherwise it reads nothing.
func (f *File) ReadRecord(path string, job *batchv1.Job) (ok bool, err error) {
	br, h, done := f.podsReader(path)
	defer done()
	if h == nil {
		return false, nil
	}
	return true, f.readRecord(br, h, path, job, func(p *corev1.Pod) { f.PodList = append(f.PodList, *p) })
}

// readRecord reads a record of terminal pods (podrecord, written by status --watch|--wait
// --record) of header h from br, read from path. A record of another Job (its UID) than job, and not of
// the lineage of job's run, is refused: its pods would explain indexes of a run they are not
// of. From the record of a lineage (status --lineage --record), job's own pods are read.
func (f *File) readRecord(br *bufio.Reader, h *podrecord.Header, path string, job *batchv1.Job, add func(*corev1.Pod)) error {
	if job != nil {
		if !recordOfRun(h, lineage.RunOf(job), []*batchv1.Job{job}) {
			return exitcode.UsageError("%s is the record of %s, not of job %q (uid %s): give the record of this Job, or of its lineage", path, h.Describe(), job.Name, job.UID)
		}
		if h.Lineage {
			all := add
			add = func(p *corev1.Pod) {
				if indexstatus.Owns(job, p) {
					all(p)
				}
			}
		}
	}
	return f.readPods(br, path, add)
}

// readPods hands the pods of the record br, read from path, to add, and notes in the report
// that it ends in a torn line.
func (f *File) readPods(br *bufio.Reader, path string, add func(*corev1.Pod)) error {
	h, err := podrecord.Read(br, add, nil)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the pods: %s: %w", path, err))
	}
	if h.Torn > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%s ends in a torn line (%d bytes, a write cut short when its writer was killed): skipped; the pods before it are read.", path, h.Torn))
	}
	return nil
}

// startsJSONObject reports whether the input's first non-space byte, in its first 4 KiB, is '{'.
func startsJSONObject(br *bufio.Reader) bool {
	b, _ := br.Peek(4096)
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}
