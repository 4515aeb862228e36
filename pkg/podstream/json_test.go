package podstream

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kjson "sigs.k8s.io/json"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// kept is the part of a fully decoded pod that EachJSON keeps (see its comment).
func kept(p *corev1.Pod) *corev1.Pod {
	out := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: p.Name, Namespace: p.Namespace, UID: p.UID, CreationTimestamp: p.CreationTimestamp,
		DeletionTimestamp: p.DeletionTimestamp, DeletionGracePeriodSeconds: p.DeletionGracePeriodSeconds,
		Labels: p.Labels, Annotations: p.Annotations, OwnerReferences: p.OwnerReferences, Finalizers: p.Finalizers,
	}}
	out.Spec.NodeName = p.Spec.NodeName
	for _, c := range p.Spec.InitContainers {
		out.Spec.InitContainers = append(out.Spec.InitContainers, corev1.Container{Name: c.Name, RestartPolicy: c.RestartPolicy})
	}
	st := &p.Status
	out.Status = corev1.PodStatus{Phase: st.Phase, Reason: st.Reason, StartTime: st.StartTime}
	for _, c := range st.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, corev1.PodCondition{Type: c.Type, Status: c.Status,
			Reason: c.Reason, Message: c.Message, LastProbeTime: c.LastProbeTime, LastTransitionTime: c.LastTransitionTime})
	}
	state := func(s corev1.ContainerState) corev1.ContainerState {
		var o corev1.ContainerState
		if s.Waiting != nil {
			o.Waiting = &corev1.ContainerStateWaiting{Reason: s.Waiting.Reason, Message: s.Waiting.Message}
		}
		if s.Running != nil {
			o.Running = &corev1.ContainerStateRunning{StartedAt: s.Running.StartedAt}
		}
		if t := s.Terminated; t != nil {
			o.Terminated = &corev1.ContainerStateTerminated{ExitCode: t.ExitCode, Reason: t.Reason, Message: t.Message, StartedAt: t.StartedAt, FinishedAt: t.FinishedAt}
		}
		return o
	}
	statuses := func(in []corev1.ContainerStatus) []corev1.ContainerStatus {
		var o []corev1.ContainerStatus
		for _, cs := range in {
			o = append(o, corev1.ContainerStatus{Name: cs.Name, RestartCount: cs.RestartCount, State: state(cs.State), LastTerminationState: state(cs.LastTerminationState)})
		}
		return o
	}
	out.Status.InitContainerStatuses = statuses(st.InitContainerStatuses)
	out.Status.ContainerStatuses = statuses(st.ContainerStatuses)
	return out
}

func eachJSON(t *testing.T, body []byte) ([]corev1.Pod, error) {
	t.Helper()
	var pods []corev1.Pod
	err := EachJSON(bytes.NewReader(body), func(p *corev1.Pod) { pods = append(pods, *p) })
	return pods, err
}

// TestEachJSONSameAsFullDecode: for every captured fixture, with managedFields, a sidecar init
// container and a field no release knows added, EachJSON gives exactly the kept fields of the
// pods as the general reader decodes them, and the same report.
func TestEachJSONSameAsFullDecode(t *testing.T) {
	forEachFixture(t, func(t *testing.T, job *batchv1.Job, full []corev1.Pod) {
		body, err := json.MarshalIndent(corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, Items: full}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		// A field of a newer release, in the metadata, the status and a container status.
		body = bytes.ReplaceAll(body, []byte("\"metadata\": {\n"), []byte(`"metadata": {"futureField": {"a": [1, 2.5e3, true, null, "x\"y"]},`+"\n"))
		body = bytes.ReplaceAll(body, []byte(`"restartCount":`), []byte(`"futureCount": -0.5, "restartCount":`))
		if n := bytes.Count(body, []byte("futureField")); n != len(full) {
			t.Fatalf("futureField added to %d of %d pods", n, len(full))
		}
		slim, err := eachJSON(t, body)
		if err != nil {
			t.Fatal(err)
		}
		if len(slim) != len(full) {
			t.Fatalf("%d pods of %d", len(slim), len(full))
		}
		for i := range slim {
			if want := kept(&full[i]); !reflect.DeepEqual(&slim[i], want) {
				got, _ := json.Marshal(&slim[i])
				w, _ := json.Marshal(want)
				t.Fatalf("pod %d:\n got %s\nwant %s", i, got, w)
			}
		}
		sameReport(t, job, full, slim)
	})
}

// TestEachJSONStreams: items arrive one read at a time (a reader of one byte per call) and the
// result is the same; escapes and non-ASCII text decode as encoding/json decodes them.
func TestEachJSONStreams(t *testing.T) {
	body := []byte(`{"apiVersion":"v1","items":[
 {"kind":"Pod","metadata":{"name":"a\u00e9\"b","labels":{"k\u0041":"v\\w"},"annotations":{"batch.kubernetes.io/job-completion-index":"3"}},"status":{"phase":"Failed","reason":"Évicted"}},
 {"metadata":{"name":"c","deletionGracePeriodSeconds":30,"ownerReferences":[{"kind":"Job","name":"j","uid":"u","controller":true,"blockOwnerDeletion":null}]},"spec":{"initContainers":[{"name":"s","restartPolicy":"Always","image":"x"}]}}
],"kind":"List","metadata":{"resourceVersion":""}}`)
	var got []corev1.Pod
	if err := EachJSON(oneByte{bytes.NewReader(body)}, func(p *corev1.Pod) { got = append(got, *p) }); err != nil {
		t.Fatal(err)
	}
	var list corev1.PodList
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d pods", len(got))
	}
	for i := range got {
		if want := kept(&list.Items[i]); !reflect.DeepEqual(&got[i], want) {
			t.Errorf("pod %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
}

type oneByte struct{ r *bytes.Reader }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// TestEachJSONErrors: fields the report does not read may hold anything well-formed (unknown
// fields, managedFields of any shape); a kept field of the wrong type, bad JSON anywhere and
// an item of another kind are errors naming the item, its line and the field.
func TestEachJSONErrors(t *testing.T) {
	list := func(items ...string) string {
		return "{\"kind\": \"PodList\",\n\"items\": [\n" + strings.Join(items, ",\n") + "\n]}"
	}
	ok := `{"kind":"Pod","metadata":{"name":"ok"}}`
	for name, tc := range map[string]struct{ body, want string }{
		"unknown fields":        {list(`{"kind":"Pod","metadata":{"name":"a","newField":{"x":1}},"spex":{},"status":{"resize":"x"}}`), ""},
		"managedFields ignored": {list(`{"metadata":{"name":"a","managedFields":"not even a list"}}`), ""},
		"restartCount string":   {list(ok, `{"status":{"containerStatuses":[{"name":"w","restartCount":"3"}]}}`), `items[1] (line 4): status.containerStatuses[0].restartCount: expected an integer, found a string`},
		"exitCode fraction":     {list(`{"status":{"initContainerStatuses":[{"state":{"terminated":{"exitCode":1.5}}}]}}`), `status.initContainerStatuses[0].state.terminated.exitCode: expected an integer of 32 bits, found 1.5`},
		"labels list":           {list(`{"metadata":{"labels":["a"]}}`), `items[0] (line 3): metadata.labels: expected an object, found a list`},
		"label value number":    {list(`{"metadata":{"labels":{"a":1}}}`), `metadata.labels.a: expected a string, found a number`},
		"bad time":              {list(`{"metadata":{"creationTimestamp":"yesterday"}}`), `metadata.creationTimestamp: expected an RFC 3339 time, found "yesterday"`},
		"controller string":     {list(`{"metadata":{"ownerReferences":[{"controller":"yes"}]}}`), `metadata.ownerReferences[0].controller: expected a boolean, found a string`},
		"not an object":         {list(`42`), `items[0] (line 3): expected an object, found a number`},
		"a job":                 {list(ok, `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"x"}}`), `items[1] (line 4): expected a Pod, found kind "Job"`},
		"bad skipped value":     {list(`{"spec":{"containers":[{"name":tru}]}}`), `items[0] (line 3): invalid JSON`},
		"bad escape":            {list(`{"spec":{"x":"\q"}}`), `invalid JSON`},
		"missing comma":         {list(`{"metadata":{"name":"a" "uid":"b"}}`), `invalid JSON`},
		"truncated":             {`{"kind":"PodList","items":[{"kind":"Pod","metadata":{"name":"a"`, `unexpected end of the file`},
		"no items":              {`{"kind":"PodList"}`, `expected a PodList or List with kind and items`},
		"other list":            {`{"kind":"ConfigMapList","items":[]}`, `found kind "ConfigMapList"`},
		"items null":            {`{"kind":"PodList","items":null}`, ""},
	} {
		pods, err := eachJSON(t, []byte(tc.body))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tc.want == "" && name != "items null" && (len(pods) != 1 || pods[0].Name != "a"):
			t.Errorf("%s: %+v", name, pods)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// TestEachJSONItemBound: one item larger than MaxJSONItem is an error, not a buffer that grows
// without end.
func TestEachJSONItemBound(t *testing.T) {
	body := `{"kind":"PodList","items":[{"metadata":{"name":"` + strings.Repeat("x", MaxJSONItem+10) + `"}}]}`
	if _, err := eachJSON(t, []byte(body)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("%v", err)
	}
}

// FuzzEachJSON: on any item, EachJSON does not panic, accepts only valid JSON, and where the
// API server's decoder (sigs.k8s.io/json, case-sensitive) reads the item as a Pod, gives
// exactly its kept fields. (Run: go test -fuzz FuzzEachJSON ./pkg/podstream/.)
func FuzzEachJSON(f *testing.F) {
	pods, err := source.ReadPods("../../test/fixtures/seed/pods.json", nil)
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range testutil.WithManagedFields(pods)[:2] {
		b, _ := json.Marshal(p)
		f.Add(b)
	}
	f.Add([]byte(`{"metadata":{"name":"a\u00e9","labels":{"a":"b","a":"c"}},"status":{"conditions":[],"containerStatuses":null}}`))
	f.Add([]byte(`{"status":{"containerStatuses":[{"state":{"terminated":{"exitCode":-1,"finishedAt":null}}}]}}`))
	f.Fuzz(func(t *testing.T, item []byte) {
		body := append(append([]byte(`{"kind":"PodList","items":[`), item...), "]}"...)
		var got []corev1.Pod
		err := EachJSON(bytes.NewReader(body), func(p *corev1.Pod) { got = append(got, *p) })
		if err != nil {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted invalid JSON %q", item)
		}
		var want corev1.Pod
		if strictErrs, err := kjson.UnmarshalStrict(item, &want, kjson.DisallowDuplicateFields); err != nil || len(strictErrs) > 0 {
			return // not a pod to the API server, or with duplicate fields (merged differently)
		}
		if want.Kind != "" && want.Kind != "Pod" {
			return
		}
		want.Kind = ""
		if len(got) != 1 {
			t.Fatalf("%d pods from %q", len(got), item)
		}
		// Semantic: an empty list and none are the same to the report.
		if w := kept(&want); !equality.Semantic.DeepEqual(&got[0], w) {
			t.Fatalf("%q:\n got %+v\nwant %+v", item, got[0], *w)
		}
	})
}

// TestEachJSONPodsAndStreams: a single Pod (kubectl get pod NAME -o json) and a stream of Pods
// and lists, read one byte at a time, give the pods in input order, as the general reader
// does; errors outside a list name the document and its line.
func TestEachJSONPodsAndStreams(t *testing.T) {
	pod := func(name string) string {
		return `{"apiVersion":"v1","metadata":{"name":"` + name + `","labels":{"a":"b"}},"spec":{"containers":[{"name":"w"}]},"kind":"Pod","status":{"phase":"Failed"}}`
	}
	for name, tc := range map[string]struct {
		body string
		want []string
	}{
		"one pod":           {pod("a"), []string{"a"}},
		"one pod, kind 1st": {`{"kind":"Pod","metadata":{"name":"a"}}`, []string{"a"}},
		"pods":              {pod("a") + "\n" + pod("b") + pod("c") + "\n\n", []string{"a", "b", "c"}},
		"lists and a pod":   {`{"apiVersion":"v1","items":[` + pod("a") + `],"kind":"List","metadata":{}}` + pod("b") + `{"kind":"PodList","items":[` + pod("c") + `]}`, []string{"a", "b", "c"}},
	} {
		var got []string
		err := EachJSON(oneByte{bytes.NewReader([]byte(tc.body))}, func(p *corev1.Pod) {
			if p.Kind != "" || p.Labels == nil && name != "one pod, kind 1st" {
				t.Errorf("%s: pod %+v", name, p)
			}
			got = append(got, p.Name)
		})
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: pods %v, err %v, want %v", name, got, err, tc.want)
		}
	}
	for name, tc := range map[string]struct{ body, want string }{
		"bad field of a pod":     {pod("a") + "\n" + `{"kind":"Pod","metadata":{"labels":[]}}`, `document 2 (line 2): metadata.labels: expected an object, found a list`},
		"pod without kind":       {`{"metadata":{"name":"a"}}`, `document 1 (line 1): expected a PodList or List with kind and items (kubectl get pods -o json), or a Pod, found no kind`},
		"pod with items":         {`{"kind":"Pod","items":[]}`, `a Pod has no items`},
		"items then kind Pod":    {`{"items":[],"kind":"Pod"}`, `a Pod has no items`},
		"another kind":           {pod("a") + `{"kind":"Job"}`, `found kind "Job"`},
		"not an object after":    {pod("a") + "\n[1]", `line 2: invalid JSON: unexpected '[' after an object`},
		"bad list field first":   {`{"metadata":{"x":tru},"kind":"List","items":[]}`, `invalid JSON`},
		"truncated second":       {pod("a") + `{"kind":"Pod"`, `unexpected end of the file`},
		"bad skipped pod field":  {`{"kind":"Pod","spec":{"x":[1,]}}`, `document 1 (line 1): invalid JSON`},
		"list without its items": {`{"kind":"List","metadata":{}}`, `expected a PodList or List with kind and items`},
	} {
		if _, err := eachJSON(t, []byte(tc.body)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
