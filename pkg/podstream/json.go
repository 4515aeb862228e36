package podstream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// EachJSON reads JSON pods from r and calls add for every pod as soon as its bytes have been
// read: the JSON twin of Each. The input is what kubectl writes and the general reader
// (pkg/source) accepts: a PodList or List (kubectl get pods -o json), a single Pod (kubectl
// get pod NAME -o json), or a stream of them, one object after another. A list's items are
// streamed: only one item's bytes are held at a time, and each is decoded (by
// github.com/go-json-experiment/json, into podFields) into the part of a Pod a report reads:
// metadata for ownership (name, namespace, uid, labels, annotations, owner references,
// finalizers, creation and deletion), the init containers' name and restartPolicy, the node the
// pod is bound to (spec.nodeName), and the status's phase, reason, start time, conditions and containers' name, state, last state and
// restart count. Everything else (managedFields, the spec, images, resources, fields this
// release does not know) is checked to be well-formed JSON and skipped: kubectl is not strict
// about fields either, and a pod from a newer server carries fields this release has never
// heard of. A kept field holding the wrong type, a JSON syntax error or an item of another
// kind is an error naming the item (items[N], or document N for a Pod outside a list) and the
// line.
//
// The pod add is given is reused for the next item: add must not keep it (copy *p to keep it;
// its strings, lists and maps are not reused).
//
// Keys match exactly (as the API server's decoder, sigs.k8s.io/json, matches them), the last
// of duplicated keys wins, and bytes that are not UTF-8 become U+FFFD, as encoding/json reads
// them.
func EachJSON(r io.Reader, add func(*corev1.Pod)) error {
	lines := &lineReader{r: r, line: 1}
	d := &jsonReader{lines: lines, dec: jsontext.NewDecoder(lines,
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))}
	if d.dec.PeekKind() != '{' {
		return errors.New("expected a JSON object (a PodList as kubectl get pods -o json writes it)")
	}
	p := &corev1.Pod{} // one for all pods: add must not keep it
	for doc := 1; ; doc++ {
		if err := d.object(doc, p, add); err != nil {
			return err
		}
		switch k := d.dec.PeekKind(); k {
		case '{':
		case 0:
			if _, err := d.dec.ReadToken(); !errors.Is(err, io.EOF) {
				return d.explain(err)
			}
			return nil
		default:
			return fmt.Errorf("line %d: invalid JSON: unexpected %q after an object (the input may hold objects one after another, nothing else)",
				lines.at(d.nextOffset()), byte(k))
		}
	}
}

// MaxJSONItem bounds one item of a JSON pod list: far more than any pod an API server stores
// (etcd's request limit is 1.5 MiB by default).
const MaxJSONItem = 16 << 20

type jsonReader struct {
	dec   *jsontext.Decoder
	lines *lineReader
	obj   []byte // the fields of an object before its items (object)
	pod   podFields
}

// object reads one object of the input: a PodList or List, whose items are streamed as they
// are read, or a Pod. Which one is known only from its kind, which kubectl writes after the
// items (keys in alphabetical order); so the fields before items are kept, as the Pod they may
// be, and dropped once items begins (in a list they are apiVersion, and maybe kind and
// metadata: a few bytes).
func (d *jsonReader) object(doc int, p *corev1.Pod, add func(*corev1.Pod)) error {
	line := d.lines.mark(d.nextOffset())
	fail := func(err error) error { return fmt.Errorf("document %d (line %d): %w", doc, line, d.explain(err)) }
	if _, err := d.dec.ReadToken(); err != nil { // {
		return fail(err)
	}
	kind, sawItems := "", false
	d.obj = append(d.obj[:0], '{')
	obj := d.obj
	defer func() { d.obj = obj[:0] }()
	for d.dec.PeekKind() != '}' {
		name, err := d.dec.ReadToken()
		if err != nil {
			return fail(err)
		}
		key := name.String()
		if key == "items" {
			if !sawItems && kind == "Pod" {
				return fmt.Errorf("document %d (line %d): a Pod has no items", doc, line)
			}
			sawItems = true
			if err := d.items(p, add); err != nil {
				return err
			}
			continue
		}
		raw, err := d.dec.ReadValue()
		if err != nil {
			return fail(err)
		}
		if key == "kind" {
			if err := jsonv2.Unmarshal(raw, &kind); err != nil {
				return fmt.Errorf("kind: %w", d.explain(err))
			}
			if kind != "Pod" && kind != "PodList" && kind != "List" {
				return fmt.Errorf("expected pods (a PodList or List as kubectl get pods -o json writes it, or a Pod), found kind %q", kind)
			}
		}
		if !sawItems {
			if len(obj) > 1 {
				obj = append(obj, ',')
			}
			obj, _ = jsontext.AppendQuote(obj, key)
			obj = append(append(obj, ':'), raw...)
			if len(obj) > MaxJSONItem {
				return fmt.Errorf("document %d (line %d): an object larger than %d MiB", doc, line, MaxJSONItem>>20)
			}
		}
	}
	if _, err := d.dec.ReadToken(); err != nil { // }
		return fail(err)
	}
	obj = append(obj, '}')
	switch {
	case sawItems && (kind == "PodList" || kind == "List"):
		return nil
	case !sawItems && kind == "Pod":
		d.pod.reset()
		if err := jsonv2.Unmarshal(obj, &d.pod, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)); err != nil {
			return fail(err)
		}
		*p = corev1.Pod{}
		d.pod.fill(p)
		add(p)
		return nil
	case kind == "Pod":
		return fmt.Errorf("document %d (line %d): a Pod has no items", doc, line)
	case kind == "":
		return fmt.Errorf("document %d (line %d): expected a PodList or List with kind and items (kubectl get pods -o json), or a Pod, found no kind", doc, line)
	default:
		return fmt.Errorf("document %d (line %d): expected a PodList or List with kind and items (kubectl get pods -o json), found no items", doc, line)
	}
}

// items reads the items' list, one pod at a time.
func (d *jsonReader) items(p *corev1.Pod, add func(*corev1.Pod)) error {
	switch d.dec.PeekKind() {
	case 'n', 0: // null, or an error the read says
		_, err := d.dec.ReadToken()
		return d.explain(err)
	case '[':
		if _, err := d.dec.ReadToken(); err != nil {
			return d.explain(err)
		}
	default:
		return errors.New("items: expected a list")
	}
	for n := 0; d.dec.PeekKind() != ']'; n++ {
		line := d.lines.mark(d.nextOffset())
		d.pod.reset()
		if err := jsonv2.UnmarshalDecode(d.dec, &d.pod); err != nil {
			return fmt.Errorf("items[%d] (line %d): %w", n, line, d.explainIn(err, 2))
		}
		if k := d.pod.Kind; k != "" && k != "Pod" {
			return fmt.Errorf("items[%d] (line %d): expected a Pod, found kind %q", n, line, k)
		}
		*p = corev1.Pod{}
		d.pod.fill(p)
		add(p)
	}
	_, err := d.dec.ReadToken() // ]
	return d.explain(err)
}

// nextOffset is the input offset of the next token: after the last one read, the white space
// and separators the decoder has not yet passed.
func (d *jsonReader) nextOffset() int64 {
	rest := d.dec.UnreadBuffer()
	skip := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n,:"))
	return d.dec.InputOffset() + int64(skip)
}

// explain words a decoding error: the field and what it holds for a value of the wrong type,
// the line for a syntax error.
func (d *jsonReader) explain(err error) error { return d.explainIn(err, 0) }

// explainIn is explain for an error of a value depth tokens down the decoder's JSON pointer
// (an item of a list: 2), which the field path leaves out.
func (d *jsonReader) explainIn(err error, depth int) error {
	var sem *jsonv2.SemanticError
	var syn *jsontext.SyntacticError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: unexpected end of the file")
	case errors.Is(err, errItemTooLarge):
		return errItemTooLarge
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON on line %d: %v", d.lines.at(syn.ByteOffset), syn.Err)
	case errors.As(err, &sem) && sem.GoType != nil:
		msg := fmt.Sprintf("expected %s, found %s", goKind(sem), jsonKind(sem))
		if path := fieldPath(sem.JSONPointer, depth); path != "" {
			msg = path + ": " + msg
		}
		return errors.New(msg)
	}
	return err
}

var timeType = reflect.TypeFor[time.Time]()

func goKind(e *jsonv2.SemanticError) string {
	t := e.GoType
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		return "an RFC 3339 time"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Bool:
		return "a boolean"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		if e.JSONKind == '0' {
			return fmt.Sprintf("an integer of %d bits", t.Bits())
		}
		return "an integer"
	case t.Kind() == reflect.Slice:
		return "a list"
	}
	return "an object"
}

func jsonKind(e *jsonv2.SemanticError) string {
	var pe *time.ParseError
	if errors.As(e.Err, &pe) {
		return strconv.Quote(pe.Value)
	}
	switch e.JSONKind {
	case '"', '0':
		if len(e.JSONValue) > 0 {
			return string(e.JSONValue)
		}
		if e.JSONKind == '"' {
			return "a string"
		}
		return "a number"
	case 't', 'f':
		return "a boolean"
	case '[':
		return "a list"
	case '{':
		return "an object"
	case 'n':
		return "null"
	}
	return "a value of another type"
}

// fieldPath writes a JSON pointer as Kubernetes writes field paths: status.containerStatuses[0].name.
func fieldPath(ptr jsontext.Pointer, depth int) string {
	var b strings.Builder
	for tok := range ptr.Tokens() {
		if depth > 0 {
			depth--
			continue
		}
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

var errItemTooLarge = fmt.Errorf("an item larger than %d MiB", MaxJSONItem>>20)

// lineReader passes r on to the decoder and keeps what it read since the last mark, so that
// an offset there can be given its line; it refuses to read on when that holds more than
// MaxJSONItem bytes (one item).
type lineReader struct {
	r     io.Reader
	buf   []byte // the input from offset off on
	off   int64
	start int // the mark: buf[start:] is kept
	line  int // the line of buf[start]
}

func (l *lineReader) Read(p []byte) (int, error) {
	if len(l.buf)-l.start > MaxJSONItem {
		return 0, errItemTooLarge
	}
	if l.start > len(l.buf)/2 {
		n := copy(l.buf, l.buf[l.start:])
		l.buf, l.off, l.start = l.buf[:n], l.off+int64(l.start), 0
	}
	n, err := l.r.Read(p)
	l.buf = append(l.buf, p[:n]...)
	return n, err
}

func (l *lineReader) index(off int64) int {
	return min(max(int(off-l.off), l.start), len(l.buf))
}

// at returns the line of input offset off, at or after the mark.
func (l *lineReader) at(off int64) int {
	return l.line + bytes.Count(l.buf[l.start:l.index(off)], []byte{'\n'})
}

// mark forgets the input before offset off and returns its line.
func (l *lineReader) mark(off int64) int {
	i := l.index(off)
	l.line += bytes.Count(l.buf[l.start:i], []byte{'\n'})
	l.start = i
	return l.line
}

// podFields is the part of a pod EachJSON keeps, as go-json-experiment/json decodes it.
type podFields struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name                       string                  `json:"name"`
		Namespace                  string                  `json:"namespace"`
		UID                        types.UID               `json:"uid"`
		Labels                     map[string]string       `json:"labels"`
		Annotations                map[string]string       `json:"annotations"`
		CreationTimestamp          time.Time               `json:"creationTimestamp"`
		DeletionTimestamp          *time.Time              `json:"deletionTimestamp"`
		DeletionGracePeriodSeconds *int64                  `json:"deletionGracePeriodSeconds"`
		Finalizers                 []string                `json:"finalizers"`
		OwnerReferences            []metav1.OwnerReference `json:"ownerReferences"`
	} `json:"metadata"`
	Spec struct {
		NodeName       string `json:"nodeName"`
		InitContainers []struct {
			Name          string                         `json:"name"`
			RestartPolicy *corev1.ContainerRestartPolicy `json:"restartPolicy"`
		} `json:"initContainers"`
	} `json:"spec"`
	Status struct {
		Phase      corev1.PodPhase `json:"phase"`
		Reason     string          `json:"reason"`
		StartTime  *time.Time      `json:"startTime"`
		Conditions []struct {
			Type               corev1.PodConditionType `json:"type"`
			Status             corev1.ConditionStatus  `json:"status"`
			Reason             string                  `json:"reason"`
			Message            string                  `json:"message"`
			LastProbeTime      time.Time               `json:"lastProbeTime"`
			LastTransitionTime time.Time               `json:"lastTransitionTime"`
		} `json:"conditions"`
		InitContainerStatuses []containerFields `json:"initContainerStatuses"`
		ContainerStatuses     []containerFields `json:"containerStatuses"`
	} `json:"status"`
}

type containerFields struct {
	Name                 string      `json:"name"`
	RestartCount         int32       `json:"restartCount"`
	State                stateFields `json:"state"`
	LastTerminationState stateFields `json:"lastState"`
}

type stateFields struct {
	Waiting *struct {
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"waiting"`
	Running *struct {
		StartedAt time.Time `json:"startedAt"`
	} `json:"running"`
	Terminated *struct {
		ExitCode   int32     `json:"exitCode"`
		Reason     string    `json:"reason"`
		Message    string    `json:"message"`
		StartedAt  time.Time `json:"startedAt"`
		FinishedAt time.Time `json:"finishedAt"`
	} `json:"terminated"`
}

// reset empties s for the next pod, keeping the capacity of the lists fill copies (the
// decoder appends to them, zeroing each element).
func (s *podFields) reset() {
	init, conds := s.Spec.InitContainers[:0], s.Status.Conditions[:0]
	initStatuses, statuses := s.Status.InitContainerStatuses[:0], s.Status.ContainerStatuses[:0]
	*s = podFields{}
	s.Spec.InitContainers, s.Status.Conditions = init, conds
	s.Status.InitContainerStatuses, s.Status.ContainerStatuses = initStatuses, statuses
}

// fill copies s into p, times as metav1.Time decodes them (in the local zone).
func (s *podFields) fill(p *corev1.Pod) {
	m := &s.Metadata
	p.ObjectMeta = metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
		Labels: m.Labels, Annotations: m.Annotations, CreationTimestamp: mtime(m.CreationTimestamp),
		DeletionTimestamp: mtimePtr(m.DeletionTimestamp), DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds,
		Finalizers: m.Finalizers, OwnerReferences: m.OwnerReferences}
	p.Spec.NodeName = s.Spec.NodeName
	for _, c := range s.Spec.InitContainers {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: c.Name, RestartPolicy: c.RestartPolicy})
	}
	st := &s.Status
	p.Status = corev1.PodStatus{Phase: st.Phase, Reason: st.Reason, StartTime: mtimePtr(st.StartTime)}
	if len(st.Conditions) > 0 {
		p.Status.Conditions = make([]corev1.PodCondition, len(st.Conditions))
		for i, c := range st.Conditions {
			p.Status.Conditions[i] = corev1.PodCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message,
				LastProbeTime: mtime(c.LastProbeTime), LastTransitionTime: mtime(c.LastTransitionTime)}
		}
	}
	p.Status.InitContainerStatuses = statuses(st.InitContainerStatuses)
	p.Status.ContainerStatuses = statuses(st.ContainerStatuses)
}

func statuses(in []containerFields) []corev1.ContainerStatus {
	if len(in) == 0 {
		return nil
	}
	out := make([]corev1.ContainerStatus, len(in))
	for i, c := range in {
		out[i] = corev1.ContainerStatus{Name: c.Name, RestartCount: c.RestartCount,
			State: c.State.state(), LastTerminationState: c.LastTerminationState.state()}
	}
	return out
}

func (s stateFields) state() corev1.ContainerState {
	var o corev1.ContainerState
	if w := s.Waiting; w != nil {
		o.Waiting = &corev1.ContainerStateWaiting{Reason: w.Reason, Message: w.Message}
	}
	if r := s.Running; r != nil {
		o.Running = &corev1.ContainerStateRunning{StartedAt: mtime(r.StartedAt)}
	}
	if t := s.Terminated; t != nil {
		o.Terminated = &corev1.ContainerStateTerminated{ExitCode: t.ExitCode, Reason: t.Reason, Message: t.Message,
			StartedAt: mtime(t.StartedAt), FinishedAt: mtime(t.FinishedAt)}
	}
	return o
}

func mtime(t time.Time) metav1.Time {
	if t.IsZero() {
		return metav1.Time{}
	}
	return metav1.NewTime(t.Local())
}

func mtimePtr(t *time.Time) *metav1.Time {
	if t == nil {
		return nil
	}
	m := mtime(*t)
	return &m
}
