package jobdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
)

// IgnoredAnnotations are Job annotations written by tools and controllers, not by the user.
var IgnoredAnnotations = []string{
	corev1.LastAppliedConfigAnnotation,                // kubectl.kubernetes.io/last-applied-configuration
	"batch.kubernetes.io/job-tracking",                // written by the Job controller up to 1.26
	"batch.kubernetes.io/cronjob-scheduled-timestamp", // written by the CronJob controller
}

// normalized is a Job reduced to what the user controls, with defaults filled in: the typed
// object (for the rules) and its JSON form (for the comparison).
type normalized struct {
	job *batchv1.Job
	obj map[string]any
}

// normalize returns a defaulted copy of job reduced to its labels, annotations and spec,
// without the generated labels (jobspec.GeneratedLabels). The selector is left to pairSelectors.
func normalize(in *batchv1.Job) (*normalized, error) {
	job := in.DeepCopy()
	// As on the server, a Job without labels gets its template's labels (the same map).
	jobspec.SetDefaultsJob(job)
	for _, k := range jobspec.GeneratedLabels {
		delete(job.Labels, k)
		delete(job.Spec.Template.Labels, k)
	}
	for _, k := range IgnoredAnnotations {
		delete(job.Annotations, k)
	}
	obj, err := toMap(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Labels: job.Labels, Annotations: job.Annotations}, Spec: job.Spec})
	if err != nil {
		return nil, err
	}
	delete(obj, "status") // {}; the zero creationTimestamp is a null, dropped by toMap
	return &normalized{job: job, obj: obj}, nil
}

// toMap converts a typed object to its JSON form, with numbers kept exact.
func toMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return dropNulls(m).(map[string]any), nil
}

// dropNulls removes null map values: for the API a null field is an unset field.
func dropNulls(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
				continue
			}
			t[k] = dropNulls(e)
		}
	case []any:
		for i := range t {
			t[i] = dropNulls(t[i])
		}
	}
	return v
}

// isEmpty reports whether v means "unset": absent, null, an empty map or an empty list.
func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// equalValues compares two JSON values, taking unset, null, {} and [] as equal.
func equalValues(a, b any) bool {
	if isEmpty(a) && isEmpty(b) {
		return true
	}
	switch ta := a.(type) {
	case map[string]any:
		tb, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, va := range ta {
			if !equalValues(va, tb[k]) {
				return false
			}
		}
		for k, vb := range tb {
			if _, seen := ta[k]; !seen && !isEmpty(vb) {
				return false
			}
		}
		return true
	case []any:
		tb, ok := b.([]any)
		return ok && slices.EqualFunc(ta, tb, equalValues)
	default:
		return a == b
	}
}

// pairSelectors leaves out of the comparison the selector the server generates. A desired Job
// without manualSelector: true does not choose a selector (the server generates one on the
// Job's UID, validateGeneratedSelector), so selectors are compared only when the desired Job
// chooses its own, and then with the live selector exactly as it is.
func pairSelectors(live, desired *normalized) {
	if !*desired.job.Spec.ManualSelector {
		dropSelector(live)
		dropSelector(desired)
	}
}

func dropSelector(n *normalized) {
	n.job.Spec.Selector = nil
	if spec, ok := n.obj["spec"].(map[string]any); ok {
		delete(spec, "selector")
	}
}
