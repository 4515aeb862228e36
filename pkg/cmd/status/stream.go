package status

import (
	"bufio"
	"fmt"
	"io"
	"os"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podstream"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// stdinBuffer is the buffer Complete puts in front of standard input, and the one of a file.
const stdinBuffer = 256 << 10

// streamPods reads --pods-file as the offline path's fast road when it is JSON: a PodList or
// List (what kubectl get pods -o json writes), a Pod (kubectl get pod NAME -o json), or a
// stream of them. A list's items are decoded one pod at a time and reduced into the
// accumulator as they are read, as the live path does with protobuf pages, so memory does not
// grow with the pods and the file is never held whole. ok is false, having read nothing that
// matters, when the file is not JSON (YAML): the caller then reads it the general way.
func (o *Options) streamPods(job *batchv1.Job) (in *offlineInput, ok bool, err error) {
	var r io.Reader
	if o.PodsFile == source.StdinName {
		// Complete buffered standard input; peeking leaves what was read in that buffer
		// for the general reader. Unbuffered (Run called without Complete), take the general
		// reader rather than lose the bytes a peek would read.
		br, buffered := o.In.(*bufio.Reader)
		if !buffered || !startsJSONObject(br) {
			return nil, false, nil
		}
		r = br
	} else {
		f, err := os.Open(o.PodsFile)
		if err != nil {
			return nil, false, nil // the general reader says why
		}
		defer func() { _ = f.Close() }()
		br := bufio.NewReaderSize(f, stdinBuffer)
		if !startsJSONObject(br) {
			return nil, false, nil
		}
		r = br
	}
	acc, err := indexstatus.NewAccumulator(job)
	if err != nil {
		return nil, true, exitcode.Wrap(exitcode.Usage, err)
	}
	// One pass over the file: the settled pods (the older retries) and the untracked
	// terminating ones are folded, not kept.
	acc.FoldSettled()
	in = &offlineInput{job: job, acc: acc, podsGiven: true, captured: indexstatus.CaptureTime(job, nil)}
	var f foreign
	add := func(p *corev1.Pod) {
		f.check(job, p)
		if t := indexstatus.PodTime(p); t.After(in.captured) {
			in.captured = t
		}
		acc.Add(p)
	}
	if err := decodePodList(r, add); err != nil {
		return nil, true, exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the pods: %s: %w", o.PodsFile, err))
	}
	if err := f.err(job); err != nil {
		return nil, true, err
	}
	return in, true, nil
}

// startsJSONObject reports whether the input's first non-space byte is '{'.
func startsJSONObject(br *bufio.Reader) bool {
	for n := 1; n <= 4096; n++ {
		b, err := br.Peek(n)
		if err != nil || len(b) < n {
			return false
		}
		switch b[n-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		default:
			return false
		}
	}
	return false
}

// decodePodList walks JSON pods (lists, Pods, or a stream of them) and calls add for every
// pod, decoded by podstream.EachJSON into the part of a pod the report reads and dropped once
// add returns. A build with the tag stdlibpods decodes with encoding/json's streaming decoder
// instead (stream_stdlib.go), the yardstick of make bench-status-decoder.
var decodePodList = podstream.EachJSON
