package podstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EachJSON reads JSON pods from r and calls add for every pod as soon as its bytes have been
// read: the JSON twin of Each. The input is what kubectl writes and the general reader
// (pkg/source) accepts: a PodList or List (kubectl get pods -o json), a single Pod (kubectl
// get pod NAME -o json), or a stream of them, one object after another. A list's items are
// streamed: only one item's bytes are held at a time, and each is decoded into the part of a Pod a report reads: metadata
// for ownership (name, namespace, uid, labels, annotations, owner references, finalizers,
// creation and deletion), the init containers' name and restartPolicy, the node the pod is bound
// to (spec.nodeName), and the status's phase,
// reason, start time, conditions and containers' name, state, last state and restart count.
// Everything else (managedFields, the spec, images, resources, volume mounts, fields this
// release does not know) is checked to be well-formed JSON and skipped without allocating for
// it: kubectl is not strict about fields either, and a pod from a newer server carries fields
// this release has never heard of. A kept field holding the wrong type, a JSON syntax error or
// an item of another kind is an error naming the item (items[N], or document N for a Pod
// outside a list) and the line.
//
// The pod add is given is reused for the next item: add must not keep it (copy *p to keep it;
// its strings, lists and maps are not reused).
//
// Keys match exactly (as the API server's decoder, sigs.k8s.io/json, matches them); strings
// with escapes or bytes that are not UTF-8 are decoded by encoding/json, so values are as
// encoding/json gives them.
func EachJSON(r io.Reader, add func(*corev1.Pod)) error {
	s := &jsonStream{r: r, buf: make([]byte, 0, 256<<10), line: 1}
	c, err := s.nonSpace()
	if err != nil || c != '{' {
		return errors.New("expected a JSON object (a PodList as kubectl get pods -o json writes it)")
	}
	p := &corev1.Pod{} // one for all pods: add must not keep it
	for doc := 1; ; doc++ {
		if err := s.object(doc, p, add); err != nil {
			return err
		}
		more, err := s.next()
		if err != nil || !more {
			return err
		}
	}
}

// object reads one object of the input, at '{': a PodList or List, whose items are streamed
// as they are read, or a Pod. Which one is known only from its kind, which kubectl writes after
// the items (keys in alphabetical order); so the fields before items are kept, as the Pod they
// may be, and dropped once items begins (in a list they are apiVersion, and maybe kind and
// metadata: a few bytes).
func (s *jsonStream) object(doc int, p *corev1.Pod, add func(*corev1.Pod)) error {
	line := s.lineAt(s.pos)
	s.pos++
	kind, sawItems := "", false
	s.obj = append(s.obj[:0], '{') // the fields before items, as JSON
	obj := s.obj
	defer func() { s.obj = obj[:0] }()
	for first := true; ; first = false {
		c, err := s.nonSpace()
		if err != nil {
			return err
		}
		if c == '}' {
			s.pos++
			break
		}
		if !first {
			if c != ',' {
				return s.syntax("expected , or } after a field of the object")
			}
			s.pos++
		}
		raw, err := s.value()
		if err != nil {
			return err
		}
		key, err := decodeString(raw)
		if err != nil {
			return s.syntax("expected a field name")
		}
		if !sawItems && key != "items" {
			if len(obj) > 1 {
				obj = append(obj, ',')
			}
			obj = append(append(obj, raw...), ':')
		}
		if c, err := s.nonSpace(); err != nil || c != ':' {
			return s.syntax("expected : after a field name")
		}
		s.pos++
		if key == "items" {
			if !sawItems && kind == "Pod" {
				return fmt.Errorf("document %d (line %d): a Pod has no items", doc, line)
			}
			sawItems = true
			if err := s.items(p, add); err != nil {
				return err
			}
			continue
		}
		raw, err = s.value()
		if err != nil {
			return err
		}
		switch {
		case key == "kind":
			if kind, err = decodeString(raw); err != nil {
				return fmt.Errorf("kind: %w", err)
			}
			if kind != "Pod" && kind != "PodList" && kind != "List" {
				return fmt.Errorf("expected pods (a PodList or List as kubectl get pods -o json writes it, or a Pod), found kind %q", kind)
			}
		case sawItems:
			if err := valid(raw); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			continue
		}
		if !sawItems {
			if obj = append(obj, raw...); len(obj) > MaxJSONItem {
				return fmt.Errorf("document %d (line %d): an object larger than %d MiB", doc, line, MaxJSONItem>>20)
			}
		}
	}
	obj = append(obj, '}')
	switch {
	case sawItems && (kind == "PodList" || kind == "List"):
		// The list's own fields before items (apiVersion, metadata) are checked, not kept.
		if err := valid(obj); err != nil {
			return err
		}
		return nil
	case !sawItems && kind == "Pod":
		*p = corev1.Pod{}
		if err := decodePod(obj, p, &s.scratch); err != nil {
			return fmt.Errorf("document %d (line %d): %w", doc, line, err)
		}
		p.Kind = ""
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

// MaxJSONItem bounds one item of a JSON pod list: far more than any pod an API server stores
// (etcd's request limit is 1.5 MiB by default).
const MaxJSONItem = 16 << 20

// items reads the items' list, one pod at a time.
func (s *jsonStream) items(p *corev1.Pod, add func(*corev1.Pod)) error {
	c, err := s.nonSpace()
	if err != nil {
		return err
	}
	if c == 'n' {
		raw, err := s.value()
		if err != nil {
			return err
		}
		if string(raw) != "null" {
			return errors.New("items: expected a list")
		}
		return nil
	}
	if c != '[' {
		return errors.New("items: expected a list")
	}
	s.pos++
	for n := 0; ; n++ {
		c, err := s.nonSpace()
		if err != nil {
			return err
		}
		if c == ']' {
			s.pos++
			return nil
		}
		if n > 0 {
			if c != ',' {
				return s.syntax(fmt.Sprintf("items[%d]: expected , or ] after an item", n-1))
			}
			s.pos++
			if _, err := s.nonSpace(); err != nil {
				return err
			}
		}
		line := s.lineAt(s.pos)
		raw, err := s.value()
		if err != nil {
			return fmt.Errorf("items[%d] (line %d): %w", n, line, err)
		}
		*p = corev1.Pod{}
		if err := decodePod(raw, p, &s.scratch); err != nil {
			return fmt.Errorf("items[%d] (line %d): %w", n, line, err)
		}
		if p.Kind != "" && p.Kind != "Pod" {
			return fmt.Errorf("items[%d] (line %d): expected a Pod, found kind %q", n, line, p.Kind)
		}
		p.Kind = ""
		add(p)
	}
}

// jsonStream holds the unread part of the input: buf[pos:], with line the line of buf[0].
type jsonStream struct {
	r    io.Reader
	buf  []byte
	pos  int
	line int
	eof  bool
	// linePos and lineNo cache lineAt: buf[linePos] is on line lineNo.
	linePos, lineNo int
	scratch         scratch
	// obj holds the fields of an object before its items (object).
	obj []byte
}

// scratch is what decoding reuses from one pod to the next: lists are gathered in it and
// copied out at their exact length, and strings repeated from pod to pod (phases, reasons,
// container names, label keys, the Job's name and UID) are allocated once.
type scratch struct {
	conds    []corev1.PodCondition
	statuses []corev1.ContainerStatus
	strs     map[string]string
}

// Interning bounds: strings longer than maxInterned are not interned, and once maxStrings
// are held, new ones are not added (names and UIDs unique to each pod fill it first; lookups
// of the common ones still hit).
const (
	maxInterned = 64
	maxStrings  = 4096
)

func (sc *scratch) intern(b []byte) string {
	if sc == nil || len(b) > maxInterned {
		return string(b)
	}
	if v, ok := sc.strs[string(b)]; ok {
		return v
	}
	v := string(b)
	if sc.strs == nil {
		sc.strs = map[string]string{}
	}
	if len(sc.strs) < maxStrings {
		sc.strs[v] = v
	}
	return v
}

// fill reads more input, dropping what is before keep (an index into buf); it returns the
// number of bytes dropped.
func (s *jsonStream) fill(keep int) (int, error) {
	if s.eof {
		return 0, io.ErrUnexpectedEOF
	}
	if keep > 0 {
		s.line += bytes.Count(s.buf[:keep], []byte{'\n'})
		if s.linePos >= keep {
			s.linePos -= keep
		} else {
			s.linePos, s.lineNo = 0, s.line
		}
		n := copy(s.buf, s.buf[keep:])
		s.buf = s.buf[:n]
		s.pos -= keep
	}
	if len(s.buf) == cap(s.buf) {
		if cap(s.buf) >= MaxJSONItem+1 {
			return keep, fmt.Errorf("an item larger than %d MiB", MaxJSONItem>>20)
		}
		nb := make([]byte, len(s.buf), min(2*cap(s.buf), MaxJSONItem+1))
		copy(nb, s.buf)
		s.buf = nb
	}
	n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	if err == io.EOF {
		s.eof = true
		if n == 0 {
			return keep, io.ErrUnexpectedEOF
		}
	} else if err != nil {
		return keep, err
	}
	return keep, nil
}

func (s *jsonStream) lineAt(pos int) int {
	if pos < s.linePos || s.lineNo == 0 {
		s.linePos, s.lineNo = 0, s.line
	}
	s.lineNo += bytes.Count(s.buf[s.linePos:pos], []byte{'\n'})
	s.linePos = pos
	return s.lineNo
}

func (s *jsonStream) syntax(msg string) error {
	return fmt.Errorf("line %d: invalid JSON: %s", s.lineAt(min(s.pos, len(s.buf))), msg)
}

// next skips white space to the next object of the input, at its '{': false at the end of the
// input. Anything else after an object is an error.
func (s *jsonStream) next() (bool, error) {
	for {
		for s.pos < len(s.buf) {
			switch s.buf[s.pos] {
			case ' ', '\t', '\r', '\n':
				s.pos++
			case '{':
				return true, nil
			default:
				return false, s.syntax(fmt.Sprintf("unexpected %q after an object (the input may hold objects one after another, nothing else)", s.buf[s.pos]))
			}
		}
		if _, err := s.fill(s.pos); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return false, nil
			}
			return false, err
		}
	}
}

// nonSpace skips white space and returns the next byte, not consuming it.
func (s *jsonStream) nonSpace() (byte, error) {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\r', '\n':
				s.pos++
			default:
				return c, nil
			}
		}
		if _, err := s.fill(s.pos); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, errors.New("unexpected end of the file")
			}
			return 0, err
		}
	}
}

// value returns the bytes of the next JSON value (white space before it skipped), found by
// bracket counting; decodePod and valid check its syntax. The bytes are valid until the next
// read.
func (s *jsonStream) value() ([]byte, error) {
	if _, err := s.nonSpace(); err != nil {
		return nil, err
	}
	start, i := s.pos, s.pos
	depth, inString := 0, false
	for {
		for i < len(s.buf) {
			c := s.buf[i]
			if inString {
				for i < len(s.buf) && !quoteOrEscape[s.buf[i]] {
					i++
				}
				if i == len(s.buf) {
					break
				}
				if s.buf[i] == '\\' {
					if i+1 >= len(s.buf) {
						break // the escaped byte is not read yet
					}
					i += 2
					continue
				}
				inString = false
				i++
				if depth == 0 {
					s.pos = i
					return s.buf[start:i], nil
				}
				continue
			}
			switch c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				if depth == 0 {
					if i == start {
						return nil, s.syntax(fmt.Sprintf("unexpected %q", c))
					}
					s.pos = i // the end of a scalar
					return s.buf[start:i], nil
				}
				depth--
				if depth == 0 {
					s.pos = i + 1
					return s.buf[start : i+1], nil
				}
			case ',', ' ', '\t', '\r', '\n', ':':
				if depth == 0 {
					if i == start {
						return nil, s.syntax(fmt.Sprintf("unexpected %q", c))
					}
					s.pos = i
					return s.buf[start:i], nil
				}
			}
			i++
		}
		dropped, err := s.fill(start)
		start, i = start-dropped, i-dropped
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				if depth == 0 && !inString && i > start {
					s.pos = i // a scalar at the very end
					return s.buf[start:i], nil
				}
				return nil, errors.New("unexpected end of the file")
			}
			return nil, err
		}
	}
}

// valid checks that raw is one well-formed JSON value.
func valid(raw []byte) error {
	d := decoder{b: raw}
	if err := d.skip(); err != nil {
		return err
	}
	d.space()
	if d.i != len(d.b) {
		return d.syntaxErr("after the value")
	}
	return nil
}

func decodeString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", errors.New("expected a string")
	}
	d := decoder{b: raw}
	return d.str()
}

// decodePod decodes one item into p (kind in p.Kind).
func decodePod(raw []byte, p *corev1.Pod, sc *scratch) error {
	d := decoder{b: raw, sc: sc}
	err := d.object(func(key []byte) error {
		switch string(key) {
		case "kind":
			return d.strInto(&p.Kind)
		case "metadata":
			return d.object(func(key []byte) error { return d.meta(key, &p.ObjectMeta) })
		case "spec":
			return d.object(func(key []byte) error {
				if string(key) == "nodeName" {
					return d.strInto(&p.Spec.NodeName)
				}
				if string(key) != "initContainers" {
					return d.skip()
				}
				return d.array(func() error {
					var c corev1.Container
					err := d.object(func(key []byte) error {
						switch string(key) {
						case "name":
							return d.strInto(&c.Name)
						case "restartPolicy":
							if d.null() {
								c.RestartPolicy = nil
								return nil
							}
							var rp corev1.ContainerRestartPolicy
							if err := d.strInto((*string)(&rp)); err != nil {
								return err
							}
							c.RestartPolicy = &rp
							return nil
						}
						return d.skip()
					})
					p.Spec.InitContainers = append(p.Spec.InitContainers, c)
					return err
				}, func() { p.Spec.InitContainers = nil })
			})
		case "status":
			return d.object(func(key []byte) error { return d.status(key, &p.Status) })
		}
		return d.skip()
	})
	if err != nil {
		return err
	}
	d.space()
	if d.i != len(d.b) {
		return d.syntaxErr("after the pod")
	}
	return nil
}

func (d *decoder) meta(key []byte, m *metav1.ObjectMeta) error {
	switch string(key) {
	case "name":
		return d.strInto(&m.Name)
	case "namespace":
		return d.strInto(&m.Namespace)
	case "uid":
		return d.strInto((*string)(&m.UID))
	case "creationTimestamp":
		return d.time(&m.CreationTimestamp)
	case "deletionTimestamp":
		return d.timePtr(&m.DeletionTimestamp)
	case "deletionGracePeriodSeconds":
		if d.null() {
			m.DeletionGracePeriodSeconds = nil
			return nil
		}
		var v int64
		if err := d.int(&v, 64); err != nil {
			return err
		}
		m.DeletionGracePeriodSeconds = &v
		return nil
	case "labels":
		return d.strMap(&m.Labels)
	case "annotations":
		return d.strMap(&m.Annotations)
	case "finalizers":
		return d.array(func() error {
			var f string
			err := d.strInto(&f)
			m.Finalizers = append(m.Finalizers, f)
			return err
		}, func() { m.Finalizers = nil })
	case "ownerReferences":
		return d.array(func() error {
			var r metav1.OwnerReference
			err := d.object(func(key []byte) error {
				switch string(key) {
				case "apiVersion":
					return d.strInto(&r.APIVersion)
				case "kind":
					return d.strInto(&r.Kind)
				case "name":
					return d.strInto(&r.Name)
				case "uid":
					return d.strInto((*string)(&r.UID))
				case "controller":
					return d.boolPtr(&r.Controller)
				case "blockOwnerDeletion":
					return d.boolPtr(&r.BlockOwnerDeletion)
				}
				return d.skip()
			})
			m.OwnerReferences = append(m.OwnerReferences, r)
			return err
		}, func() { m.OwnerReferences = nil })
	}
	return d.skip()
}

func (d *decoder) status(key []byte, st *corev1.PodStatus) error {
	switch string(key) {
	case "phase":
		return d.strInto((*string)(&st.Phase))
	case "reason":
		return d.strInto(&st.Reason)
	case "startTime":
		return d.timePtr(&st.StartTime)
	case "conditions":
		if d.null() {
			st.Conditions = nil
			return nil
		}
		var conds []corev1.PodCondition
		if d.sc != nil {
			conds = d.sc.conds[:0]
		}
		err := d.array(func() error {
			var c corev1.PodCondition
			err := d.object(func(key []byte) error {
				switch string(key) {
				case "type":
					return d.strInto((*string)(&c.Type))
				case "status":
					return d.strInto((*string)(&c.Status))
				case "reason":
					return d.strInto(&c.Reason)
				case "message":
					return d.strInto(&c.Message)
				case "lastProbeTime":
					return d.time(&c.LastProbeTime)
				case "lastTransitionTime":
					return d.time(&c.LastTransitionTime)
				}
				return d.skip()
			})
			conds = append(conds, c)
			return err
		}, func() {})
		if d.sc != nil {
			d.sc.conds = conds[:0]
		}
		st.Conditions = append(make([]corev1.PodCondition, 0, len(conds)), conds...)
		return err
	case "initContainerStatuses":
		return d.containerStatuses(&st.InitContainerStatuses)
	case "containerStatuses":
		return d.containerStatuses(&st.ContainerStatuses)
	}
	return d.skip()
}

func (d *decoder) containerStatuses(list *[]corev1.ContainerStatus) error {
	if d.null() {
		*list = nil
		return nil
	}
	var all []corev1.ContainerStatus
	if d.sc != nil {
		all = d.sc.statuses[:0]
	}
	err := d.array(func() error {
		var cs corev1.ContainerStatus
		err := d.object(func(key []byte) error {
			switch string(key) {
			case "name":
				return d.strInto(&cs.Name)
			case "restartCount":
				var v int64
				err := d.int(&v, 32)
				cs.RestartCount = int32(v)
				return err
			case "state":
				return d.containerState(&cs.State)
			case "lastState":
				return d.containerState(&cs.LastTerminationState)
			}
			return d.skip()
		})
		all = append(all, cs)
		return err
	}, func() {})
	if d.sc != nil {
		d.sc.statuses = all[:0]
	}
	*list = append(make([]corev1.ContainerStatus, 0, len(all)), all...)
	return err
}

func (d *decoder) containerState(st *corev1.ContainerState) error {
	return d.object(func(key []byte) error {
		switch string(key) {
		case "waiting":
			if d.null() {
				st.Waiting = nil
				return nil
			}
			w := &corev1.ContainerStateWaiting{}
			st.Waiting = w
			return d.object(func(key []byte) error {
				switch string(key) {
				case "reason":
					return d.strInto(&w.Reason)
				case "message":
					return d.strInto(&w.Message)
				}
				return d.skip()
			})
		case "running":
			if d.null() {
				st.Running = nil
				return nil
			}
			r := &corev1.ContainerStateRunning{}
			st.Running = r
			return d.object(func(key []byte) error {
				if string(key) == "startedAt" {
					return d.time(&r.StartedAt)
				}
				return d.skip()
			})
		case "terminated":
			if d.null() {
				st.Terminated = nil
				return nil
			}
			t := &corev1.ContainerStateTerminated{}
			st.Terminated = t
			return d.object(func(key []byte) error {
				switch string(key) {
				case "exitCode":
					var v int64
					err := d.int(&v, 32)
					t.ExitCode = int32(v)
					return err
				case "reason":
					return d.strInto(&t.Reason)
				case "message":
					return d.strInto(&t.Message)
				case "startedAt":
					return d.time(&t.StartedAt)
				case "finishedAt":
					return d.time(&t.FinishedAt)
				}
				return d.skip()
			})
		}
		return d.skip()
	})
}

// decoder decodes one JSON value held in b. Errors of a field are *FieldError, naming the
// field's path.
type decoder struct {
	b  []byte
	i  int
	sc *scratch // nil: nothing reused
}

// FieldError is a kept field of a pod holding what it cannot hold.
type FieldError struct {
	Path string // "status.containerStatuses[0].restartCount"
	Msg  string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func prefixed(err error, part string) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		if fe.Path == "" || fe.Path[0] == '[' {
			fe.Path = part + fe.Path
		} else {
			fe.Path = part + "." + fe.Path
		}
		return fe
	}
	return err
}

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\r', '\n':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) syntaxErr(what string) error {
	if d.i >= len(d.b) {
		return fmt.Errorf("invalid JSON: unexpected end %s", what)
	}
	return fmt.Errorf("invalid JSON: unexpected %q %s", d.b[d.i], what)
}

// found names the JSON type of the next value, for a type error.
func (d *decoder) found() string {
	if d.i >= len(d.b) {
		return "nothing"
	}
	switch c := d.b[d.i]; {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "a list"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return "something else"
}

// typeErr is the error for a value of the wrong type: the value is skipped first, so that a
// syntax error wins over a type error.
func (d *decoder) typeErr(want string) error {
	msg := "expected " + want + ", found " + d.found()
	if err := d.skip(); err != nil {
		return err
	}
	return &FieldError{Msg: msg}
}

// null consumes a null and reports whether there was one.
func (d *decoder) null() bool {
	d.space()
	if bytes.HasPrefix(d.b[d.i:], []byte("null")) {
		d.i += 4
		return true
	}
	return false
}

// object walks an object (null is an empty one), calling field for each key with the decoder
// at the value; field must consume the value.
func (d *decoder) object(field func(key []byte) error) error {
	if d.null() {
		return nil
	}
	if d.i >= len(d.b) || d.b[d.i] != '{' {
		return d.typeErr("an object")
	}
	d.i++
	for first := true; ; first = false {
		d.space()
		if d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			return nil
		}
		if !first {
			if d.i >= len(d.b) || d.b[d.i] != ',' {
				return d.syntaxErr("in an object (expected , or })")
			}
			d.i++
			d.space()
		}
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return d.syntaxErr("in an object (expected a field name)")
		}
		key, err := d.key()
		if err != nil {
			return err
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return d.syntaxErr("after a field name")
		}
		d.i++
		d.space()
		if err := field(key); err != nil {
			return prefixed(err, string(key))
		}
	}
}

// array walks a list, calling item with the decoder at each value; null calls none.
func (d *decoder) array(item func() error, setNil func()) error {
	if d.null() {
		setNil()
		return nil
	}
	if d.i >= len(d.b) || d.b[d.i] != '[' {
		return d.typeErr("a list")
	}
	d.i++
	for n := 0; ; n++ {
		d.space()
		if d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
			return nil
		}
		if n > 0 {
			if d.i >= len(d.b) || d.b[d.i] != ',' {
				return d.syntaxErr("in a list (expected , or ])")
			}
			d.i++
			d.space()
		}
		if err := item(); err != nil {
			return prefixed(err, "["+strconv.Itoa(n)+"]")
		}
	}
}

func (d *decoder) strInto(dst *string) error {
	if d.null() {
		return nil // encoding/json leaves a string unchanged for null
	}
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return d.typeErr("a string")
	}
	v, err := d.str()
	*dst = v
	return err
}

func (d *decoder) strMap(dst *map[string]string) error {
	if d.null() {
		*dst = nil
		return nil
	}
	if d.i >= len(d.b) || d.b[d.i] != '{' {
		return d.typeErr("an object")
	}
	if *dst == nil {
		*dst = map[string]string{}
	}
	m := *dst
	return d.object(func(key []byte) error {
		var v string
		err := d.strInto(&v)
		m[d.sc.intern(key)] = v
		return err
	})
}

func (d *decoder) boolPtr(dst **bool) error {
	if d.null() {
		*dst = nil
		return nil
	}
	var v bool
	switch {
	case bytes.HasPrefix(d.b[d.i:], []byte("true")):
		v, d.i = true, d.i+4
	case bytes.HasPrefix(d.b[d.i:], []byte("false")):
		d.i += 5
	default:
		return d.typeErr("a boolean")
	}
	*dst = &v
	return nil
}

// int decodes an integer of bits bits (encoding/json refuses fractions, exponents and
// values out of range for the field).
func (d *decoder) int(dst *int64, bits int) error {
	if d.null() {
		return nil
	}
	start := d.i
	if d.i >= len(d.b) || d.b[d.i] != '-' && (d.b[d.i] < '0' || d.b[d.i] > '9') {
		return d.typeErr("an integer")
	}
	if err := d.number(); err != nil {
		return err
	}
	v, err := strconv.ParseInt(string(d.b[start:d.i]), 10, bits)
	if err != nil {
		return &FieldError{Msg: fmt.Sprintf("expected an integer of %d bits, found %s", bits, d.b[start:d.i])}
	}
	*dst = v
	return nil
}

func (d *decoder) time(dst *metav1.Time) error {
	if d.null() {
		dst.Time = time.Time{}
		return nil
	}
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return d.typeErr("a time (a string)")
	}
	v, err := d.str()
	if err != nil {
		return err
	}
	// metav1.Time's UnmarshalJSON.
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return &FieldError{Msg: fmt.Sprintf("expected an RFC 3339 time, found %q", v)}
	}
	dst.Time = t.Local()
	return nil
}

func (d *decoder) timePtr(dst **metav1.Time) error {
	if d.null() {
		*dst = nil
		return nil
	}
	t := &metav1.Time{}
	if err := d.time(t); err != nil {
		return err
	}
	*dst = t
	return nil
}

// key returns the field name at d.i: its bytes in the input when it has no escapes (a
// switch on string(key) then allocates nothing), else decoded.
func (d *decoder) key() ([]byte, error) {
	start := d.i
	for j := d.i + 1; j < len(d.b); j++ {
		c := d.b[j]
		if c == '"' {
			d.i = j + 1
			return d.b[start+1 : j], nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	v, err := d.str()
	return []byte(v), err
}

// str decodes the string at d.i; one with escapes or bytes that are not plain UTF-8 is
// decoded by encoding/json.
func (d *decoder) str() (string, error) {
	start := d.i
	d.i++
	plain := true
	for {
		j := d.i
		for j < len(d.b) {
			c := d.b[j]
			if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				break
			}
			j++
		}
		d.i = j
		if d.i >= len(d.b) {
			return "", d.syntaxErr("in a string")
		}
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			raw := d.b[start:d.i]
			if plain {
				return d.sc.intern(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", fmt.Errorf("invalid JSON string: %w", err)
			}
			return s, nil
		case c == '\\':
			plain = false
			d.i += 2
		case c < 0x20:
			return "", d.syntaxErr("in a string (a control character)")
		default:
			plain = false
			d.i++
		}
	}
}

// number consumes a JSON number.
func (d *decoder) number() error {
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	intStart := d.i
	if n := digits(); n == 0 || n > 1 && d.b[intStart] == '0' {
		d.i = start
		return d.syntaxErr("(not a number)")
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return d.syntaxErr("in a number")
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return d.syntaxErr("in a number")
		}
	}
	return nil
}

// skip consumes one well-formed JSON value without keeping it.
func (d *decoder) skip() error {
	d.space()
	if d.i >= len(d.b) {
		return d.syntaxErr("(expected a value)")
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(func([]byte) error { return d.skip() })
	case c == '[':
		return d.array(d.skip, func() {})
	case c == '"':
		// Only the syntax matters: find the end without decoding.
		d.i++
		for {
			for d.i < len(d.b) && !quoteOrEscape[d.b[d.i]] {
				d.i++
			}
			if d.i == len(d.b) {
				return d.syntaxErr("in a string")
			}
			if d.b[d.i] < 0x20 {
				return d.syntaxErr("in a string (a control character)")
			}
			if d.b[d.i] == '"' {
				d.i++
				return nil
			}
			if d.i+1 >= len(d.b) || bytes.IndexByte([]byte(`"\/bfnrtu`), d.b[d.i+1]) < 0 {
				return d.syntaxErr("in a string (an invalid escape)")
			}
			if d.b[d.i+1] == 'u' {
				if d.i+6 > len(d.b) || !isHex4(d.b[d.i+2:d.i+6]) {
					return d.syntaxErr("in a string (an invalid \\u escape)")
				}
				d.i += 4
			}
			d.i += 2
		}
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return d.syntaxErr("(expected a value)")
}

func (d *decoder) literal(word string) error {
	if !bytes.HasPrefix(d.b[d.i:], []byte(word)) {
		return d.syntaxErr("(expected " + word + ")")
	}
	d.i += len(word)
	return nil
}

func isHex4(b []byte) bool {
	for _, c := range b {
		isHex := c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
		if !isHex {
			return false
		}
	}
	return true
}

// quoteOrEscape marks the bytes that end a run of plain string bytes: the quote, the backslash
// and the control characters JSON forbids in strings.
var quoteOrEscape = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()
