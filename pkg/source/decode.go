package source

import (
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
)

// DecodeStrict decodes the object into out, a typed API object. Unknown and duplicate fields
// do not stop decoding; they are returned as the API server's strict field validation words
// them (`unknown field "spec.foo"`). err is set when the object does not fit out at all (a
// string where a number belongs, for example).
func (d *Document) DecodeStrict(out any) (strict []string, err error) {
	if d.Err != nil {
		return nil, d.Err
	}
	strictErrs, err := kjson.UnmarshalStrict(d.JSON, out, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return nil, fmt.Errorf("cannot decode %s %q: %s", d.Kind(), d.Name(), strings.TrimPrefix(err.Error(), "json: "))
	}
	for _, e := range strictErrs {
		strict = append(strict, e.Error())
	}
	return strict, nil
}

// ErrNoObject is the error of a ReadError for an input that holds no object at all: empty,
// only white space or comments, only null, or a directory without manifests. A List with no
// items is an object (an answer: there are none), not this.
var ErrNoObject = errors.New("holds no object (it is empty, or holds only null)")

// ReadPods reads Pods from path ("-" for stdin): a PodList or List as `kubectl get pods -o
// json|yaml` writes it, a Pod, or a stream of them. A List with no items gives no pods; an
// input with no object at all is a *ReadError wrapping ErrNoObject, since no pods and no
// answer are not the same (an empty file is what a failed `kubectl get pods > pods.json`
// leaves).
func ReadPods(path string, stdin io.Reader) ([]corev1.Pod, error) {
	var docs []Document
	objects := 0
	err := readInputs([]string{path}, Options{Stdin: stdin}, func(name string, data []byte) {
		d, n := parseObjects(name, data)
		docs, objects = append(docs, d...), objects+n
	}, nil)
	if err != nil {
		return nil, err
	}
	if objects == 0 {
		return nil, &ReadError{Path: path, Err: ErrNoObject}
	}
	pods := make([]corev1.Pod, 0, len(docs))
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			return nil, fmt.Errorf("%s: %w", d.Location(), d.Err)
		}
		if d.Kind() != "Pod" {
			return nil, fmt.Errorf("%s: expected Pods (a PodList as `kubectl get pods -o json` writes it), found kind %q", d.Location(), d.Kind())
		}
		var p corev1.Pod
		if _, err := d.DecodeStrict(&p); err != nil {
			return nil, fmt.Errorf("%s: %w", d.Location(), err)
		}
		pods = append(pods, p)
	}
	return pods, nil
}
