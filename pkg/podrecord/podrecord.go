// Package podrecord keeps the evidence of a Job's terminal pods in a file that outlives them:
// the pod garbage collector (kube-controller-manager's --terminated-pod-gc-threshold) and the
// Job controller delete finished pods, and with them the exit code and the reason of every
// failed attempt. status --watch|--wait --record FILE appends each terminal pod as it sees it
// (with --lineage, the pods of every Job of the run, in one file); status -f and retry -f read
// the file back next to the Job (one of -f's files, or --pods-file), as they read kubectl's pod
// lists.
//
// The file is JSON Lines: a PodRecord header, then one Pod per line, each written whole with
// one write to a file opened for appending, so a killed writer leaves at most one torn last
// line, which a reader skips and the next writer cuts off. A pod is written once, by UID: a
// writer that opens an existing record learns the UIDs in it, so a watch restarted on the same
// file adds nothing twice. Memory is the set of UIDs, not the pods.
package podrecord

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
)

// MaxLine bounds one line of a record: a pod's status with the termination messages of its
// containers (4 KiB each, 12 KiB in all by the kubelet's limits) is far below it.
const MaxLine = 4 << 20

// SyncEvery bounds how often a writer fsyncs: at most once per this, and on Close.
const SyncEvery = time.Second

// Header is the first line of a record: which Job's pods it holds.
type Header struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Job        contract.JobRef `json:"job"`
	// Lineage says that Job is the root of a run and the file holds the terminal pods of every
	// Job of its lineage, the root and each retry (status --lineage --record); each pod's Job
	// is its controller.
	Lineage bool `json:"lineage,omitempty"`
	// Created is when the file was started.
	Created metav1.Time `json:"created"`
	// Torn, set by Read, is the size of a last line without its newline (a write cut short by
	// a killed writer), skipped; 0 when the file ends whole.
	Torn int `json:"-"`
}

// Terminal says whether p has finished: its evidence is final and worth keeping.
func Terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// Writer appends terminal pods to a record.
type Writer struct {
	path     string
	f        *os.File
	seen     sets.Set[types.UID]
	lastSync time.Time
	now      func() time.Time
	// Written counts the pods this writer appended; Kept those the file held when opened.
	Written, Kept int
	// Notes say what opening found: a torn last line cut off.
	Notes []string
}

// Describe names what a record with header h holds, for messages: "job NS/NAME (uid UID)", or
// "the lineage of job NS/NAME (uid UID)".
func (h *Header) Describe() string {
	s := fmt.Sprintf("job %s/%s", h.Job.Namespace, h.Job.Name)
	if h.Job.UID != "" {
		s += fmt.Sprintf(" (uid %s)", h.Job.UID)
	}
	if h.Lineage {
		s = "the lineage of " + s
	}
	return s
}

// Open opens the record at path for job: an existing record must be one of job (same UID), and
// its pods are not written again; a missing or empty file is started with a header.
func Open(path string, job *batchv1.Job, now func() time.Time) (*Writer, error) {
	return open(path, Header{Job: contract.JobRef{Name: job.Name, Namespace: job.Namespace, UID: string(job.UID)}}, now)
}

// OpenLineage opens the record at path for the lineage of the run whose root is root (its name
// and UID, the UID the retries record): the pods of every Job of the run go in it. An existing
// record must be one of the same run.
func OpenLineage(path string, root contract.JobRef, now func() time.Time) (*Writer, error) {
	return open(path, Header{Job: root, Lineage: true}, now)
}

func open(path string, want Header, now func() time.Time) (*Writer, error) {
	w := &Writer{path: path, seen: sets.New[types.UID](), now: now}
	// O_APPEND: every write lands at the end of the file as it is then, so a line is never
	// written over another, even when a second writer (a watch started twice) appends too.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot open the record: %w", err)
	}
	w.f = f
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("cannot open the record: %w", err)
	}
	if fi.Size() > 0 {
		if err := w.resume(&want, fi.Size()); err != nil {
			_ = f.Close()
			return nil, err
		}
		return w, nil
	}
	h := want
	h.APIVersion, h.Kind, h.Created = contract.APIVersion, contract.PodRecord, metav1.NewTime(now().UTC().Truncate(time.Second))
	if err := w.writeLine(h); err != nil {
		_ = f.Close()
		return nil, err
	}
	return w, w.sync()
}

// resume reads the record already at w.path: the header must be want's (the same Job, or the
// same run's lineage), the pods' UIDs are learnt, and a torn last line (no newline: the writer
// before was killed in its write) is cut off. size is the file's size.
func (w *Writer) resume(want *Header, size int64) error {
	var good int64 // bytes up to the end of the last whole line
	h, err := Read(w.f, func(p *corev1.Pod) { w.seen.Insert(p.UID); w.Kept++ }, &good)
	if err != nil {
		return err
	}
	if !h.sameAs(want) {
		other := want.Describe()
		if !want.Lineage {
			other = "this " + other
		}
		return fmt.Errorf("%s is the record of %s, not of %s: give another file", w.path, h.Describe(), other)
	}
	if good < size {
		if err := w.f.Truncate(good); err != nil {
			return fmt.Errorf("cannot cut the torn last line of %s: %w", w.path, err)
		}
		w.Notes = append(w.Notes, fmt.Sprintf("%s ended in a torn line (%d bytes, a write cut short): it was cut off; its pod is written again if it is still there", w.path, size-good))
	}
	_, err = w.f.Seek(0, io.SeekEnd)
	return err
}

// sameAs says whether h and want are the records of the same Job, or of the same run's lineage:
// by UID when both know it, else by name.
func (h *Header) sameAs(want *Header) bool {
	if h.Lineage != want.Lineage || h.Job.Namespace != want.Job.Namespace && h.Job.Namespace != "" && want.Job.Namespace != "" {
		return false
	}
	if h.Job.UID != "" && want.Job.UID != "" {
		return h.Job.UID == want.Job.UID
	}
	return h.Job.Name == want.Job.Name
}

// Add appends p when it is terminal and not in the record yet.
func (w *Writer) Add(p *corev1.Pod) error {
	if !Terminal(p) || p.UID == "" || w.seen.Has(p.UID) {
		return nil
	}
	if err := w.writeLine(slim(p)); err != nil {
		return err
	}
	w.seen.Insert(p.UID)
	w.Written++
	if now := w.now(); now.Sub(w.lastSync) >= SyncEvery {
		w.lastSync = now
		return w.sync()
	}
	return nil
}

// Close flushes the record to disk and closes it.
func (w *Writer) Close() error {
	err := w.sync()
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("cannot close the record %s: %w", w.path, cerr)
	}
	return err
}

func (w *Writer) sync() error {
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("cannot write the record %s: %w", w.path, err)
	}
	return nil
}

// writeLine writes v and its newline with one write: a reader never sees half a line but the
// last, and only when the process died in the write.
func (w *Writer) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := w.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("cannot write the record %s: %w", w.path, err)
	}
	return nil
}

// slim is the part of p the reports read: its metadata without managedFields, the names of its
// containers and where it ran, and its whole status (phase, reason, conditions, every
// container's state with exit code, reason and termination message, times).
func slim(p *corev1.Pod) *corev1.Pod {
	out := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: *p.ObjectMeta.DeepCopy(), Status: *p.Status.DeepCopy()}
	out.ManagedFields = nil
	out.Spec.NodeName, out.Spec.RestartPolicy = p.Spec.NodeName, p.Spec.RestartPolicy
	for _, c := range p.Spec.InitContainers {
		out.Spec.InitContainers = append(out.Spec.InitContainers, corev1.Container{Name: c.Name, RestartPolicy: c.RestartPolicy})
	}
	for _, c := range p.Spec.Containers {
		out.Spec.Containers = append(out.Spec.Containers, corev1.Container{Name: c.Name})
	}
	return out
}

// ErrNotARecord says that a file does not start with a PodRecord header.
var ErrNotARecord = errors.New("not a PodRecord")

// Peek is the header of the record br starts with, or nil when br does not start with a
// PodRecord header line (it peeks, reading nothing).
func Peek(br *bufio.Reader) *Header {
	line, _ := br.Peek(4096)
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	var h Header
	if json.Unmarshal(line, &h) != nil || h.Kind != contract.PodRecord {
		return nil
	}
	return &h
}

// Read reads a record from r: its header, then every pod, handed to add one at a time (add may
// keep it). A last line without its newline (torn by a killed writer) is skipped; good, when
// not nil, is set to the bytes up to the end of the last whole line.
func Read(r io.Reader, add func(*corev1.Pod), good *int64) (*Header, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var h *Header
	var offset int64
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= MaxLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > MaxLine {
				return nil, fmt.Errorf("line %d: longer than %d bytes: not a pod record", n, MaxLine)
			}
			line = long
		}
		if err == io.EOF {
			// No newline: the end, or a line torn by a killed writer, skipped.
			if h == nil && len(bytes.TrimSpace(line)) > 0 {
				return nil, fmt.Errorf("%w: its first line is not whole", ErrNotARecord)
			}
			if h != nil {
				h.Torn = len(line)
			}
			break
		}
		if err != nil {
			return nil, err
		}
		if h == nil {
			h = &Header{}
			if json.Unmarshal(line, h) != nil || h.Kind != contract.PodRecord {
				return nil, fmt.Errorf("%w: its first line is not a header with kind %s (status --watch --record writes one)", ErrNotARecord, contract.PodRecord)
			}
			if h.APIVersion != contract.APIVersion {
				return nil, fmt.Errorf("a PodRecord of apiVersion %q: this plugin reads %s", h.APIVersion, contract.APIVersion)
			}
		} else {
			p := &corev1.Pod{}
			if err := json.Unmarshal(line, p); err != nil {
				return nil, fmt.Errorf("line %d: not a pod: %v", n, err)
			}
			if p.Kind != "Pod" {
				return nil, fmt.Errorf("line %d: not a pod: kind %q", n, p.Kind)
			}
			add(p)
		}
		offset += int64(len(line))
		if good != nil {
			*good = offset
		}
	}
	if h == nil {
		return nil, fmt.Errorf("%w: the file is empty", ErrNotARecord)
	}
	return h, nil
}
