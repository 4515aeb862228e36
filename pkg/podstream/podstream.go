// Package podstream decodes a protobuf PodList response as it streams in, one pod at a time,
// leaving out what a report of the pods never reads: metadata.managedFields (about a third of
// a pod) and the pod spec except its init containers (their restartPolicy tells sidecars) and
// its nodeName (where the attempt ran). A
// page of pods is then never held, whole or decoded, and decoding costs a fraction of the CPU.
// It takes bytes and returns typed pods: the request is the caller's (pkg/cmd/status).
// EachJSON does the same for a JSON pod list (kubectl get pods -o json, the offline report's
// --pods-file), keeping only the fields the report reads.
package podstream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Magic starts every Kubernetes protobuf response (k8s.io/apimachinery's
// runtime/serializer/protobuf).
var Magic = []byte{0x6b, 0x38, 0x73, 0x00}

// ContentType is the protobuf media type a client asks for in Accept.
const ContentType = "application/vnd.kubernetes.protobuf"

// Protobuf field numbers (k8s.io/api and k8s.io/apimachinery generated.proto).
const (
	unknownRaw             = 2  // runtime.Unknown.raw
	unknownContentEncoding = 3  // runtime.Unknown.contentEncoding
	listMetadata           = 1  // PodList.metadata
	listItems              = 2  // PodList.items
	podMetadata            = 1  // Pod.metadata
	podSpec                = 2  // Pod.spec
	metaManagedFields      = 17 // ObjectMeta.managedFields
	specInitContainers     = 20 // PodSpec.initContainers
	specNodeName           = 10 // PodSpec.nodeName
)

// ErrNotProtobuf: the response is not protobuf (it does not start with Magic); nothing of it
// was consumed.
var ErrNotProtobuf = errors.New("not a protobuf response")

// maxListMeta bounds the fields of the response other than pods (list metadata, type meta);
// a larger one is malformed.
const maxListMeta = 1 << 20

// Each reads a protobuf PodList response (the "k8s\x00" magic, then a runtime.Unknown
// whose raw bytes are the PodList) from r and calls add for every pod as soon as its bytes have
// arrived, decoded without managedFields and without the spec except init containers. It
// returns ErrNotProtobuf, having consumed nothing, when the response does not start with the
// magic.
func Each(r *bufio.Reader, add func(*corev1.Pod)) (metav1.ListMeta, error) {
	var meta metav1.ListMeta
	if magic, _ := r.Peek(len(Magic)); !bytes.Equal(magic, Magic) {
		return meta, ErrNotProtobuf
	}
	_, _ = r.Discard(len(Magic))
	body := &fieldReader{r: r, n: -1}
	var small, pod bytes.Buffer
	var slim []byte
	seen := false
	for {
		num, typ, n, err := body.next()
		if err == io.EOF {
			if !seen {
				return meta, malformed(errors.New("no pod list in the response"))
			}
			return meta, nil
		}
		if err != nil {
			return meta, err
		}
		if num != unknownRaw || typ != protowire.BytesType {
			if err := body.read(&small, typ, n, maxListMeta); err != nil {
				return meta, err
			}
			if num == unknownContentEncoding && small.Len() > 0 {
				return meta, fmt.Errorf("pod list: unsupported content encoding %q", small.Bytes())
			}
			continue
		}
		// The PodList, field by field: its metadata, then one item per pod.
		seen = true
		list := &fieldReader{r: r, n: int64(min(n, math.MaxInt64))}
		for {
			num, typ, n, err := list.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return meta, err
			}
			switch {
			case num == listMetadata && typ == protowire.BytesType:
				if err := list.read(&small, typ, n, maxListMeta); err != nil {
					return meta, err
				}
				if err := meta.Unmarshal(small.Bytes()); err != nil {
					return meta, fmt.Errorf("pod list metadata: %w", err)
				}
			case num == listItems && typ == protowire.BytesType:
				if err := list.read(&pod, typ, n, -1); err != nil {
					return meta, err
				}
				if slim, err = slimPod(slim[:0], pod.Bytes()); err != nil {
					return meta, err
				}
				p := &corev1.Pod{}
				if err := p.Unmarshal(slim); err != nil {
					return meta, fmt.Errorf("pod in list: %w", err)
				}
				add(p)
			default:
				if err := list.read(&small, typ, n, -1); err != nil {
					return meta, err
				}
			}
		}
	}
}

// fieldReader reads the fields of one protobuf message from a stream: n bytes of it (-1: up to
// the end of the stream).
type fieldReader struct {
	r *bufio.Reader
	n int64
}

func (f *fieldReader) ReadByte() (byte, error) {
	if f.n == 0 {
		return 0, io.EOF
	}
	b, err := f.r.ReadByte()
	if err == nil && f.n > 0 {
		f.n--
	}
	return b, err
}

// next reads a field's tag and, for a length-delimited field, its length (the value's size in
// bytes; for other wire types, n is 0). At the end of the message it returns io.EOF.
func (f *fieldReader) next() (protowire.Number, protowire.Type, uint64, error) {
	if f.n == 0 {
		return 0, 0, 0, io.EOF
	}
	tag, err := binary.ReadUvarint(f)
	if err == io.EOF && f.n < 0 {
		return 0, 0, 0, io.EOF
	}
	if err != nil {
		return 0, 0, 0, malformed(err)
	}
	num, typ := protowire.DecodeTag(tag)
	if num <= 0 {
		return 0, 0, 0, malformed(errors.New("invalid field number"))
	}
	var n uint64
	if typ == protowire.BytesType {
		if n, err = binary.ReadUvarint(f); err != nil {
			return 0, 0, 0, malformed(err)
		}
		if f.n >= 0 && n > uint64(f.n) {
			return 0, 0, 0, malformed(io.ErrUnexpectedEOF)
		}
	}
	return num, typ, n, nil
}

// read reads the value of a field whose tag next returned into buf (emptied first): n bytes of
// a length-delimited field, at most max (-1: no bound), or the value of another wire type.
// Memory grows with the bytes that actually arrive, not with a length the stream claims.
func (f *fieldReader) read(buf *bytes.Buffer, typ protowire.Type, n uint64, max int64) error {
	buf.Reset()
	switch typ {
	case protowire.BytesType:
		if max >= 0 && n > uint64(max) {
			return malformed(fmt.Errorf("field of %d bytes", n))
		}
		got, err := io.CopyN(buf, f.r, int64(min(n, math.MaxInt64)))
		if f.n > 0 {
			f.n -= got
		}
		if err != nil {
			return malformed(io.ErrUnexpectedEOF)
		}
	case protowire.VarintType:
		if _, err := binary.ReadUvarint(f); err != nil {
			return malformed(err)
		}
	case protowire.Fixed32Type, protowire.Fixed64Type:
		size := 4
		if typ == protowire.Fixed64Type {
			size = 8
		}
		for range size {
			if _, err := f.ReadByte(); err != nil {
				return malformed(io.ErrUnexpectedEOF)
			}
		}
	default:
		return malformed(fmt.Errorf("unsupported wire type %d", typ))
	}
	return nil
}

func malformed(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("malformed protobuf: %w", err)
}

// slimPod appends to dst the Pod message pod without metadata.managedFields and with the spec
// reduced to its init containers and its nodeName (where the attempt ran, for the report's
// facts).
func slimPod(dst, pod []byte) ([]byte, error) {
	err := eachFieldRaw(pod, func(num protowire.Number, typ protowire.Type, field, v []byte) error {
		switch {
		case num == podMetadata && typ == protowire.BytesType:
			return appendFiltered(&dst, num, v, func(n protowire.Number) bool { return n != metaManagedFields })
		case num == podSpec && typ == protowire.BytesType:
			return appendFiltered(&dst, num, v, func(n protowire.Number) bool { return n == specInitContainers || n == specNodeName })
		default:
			dst = append(dst, field...)
		}
		return nil
	})
	return dst, err
}

// appendFiltered appends to *dst field num holding the sub-message msg with only the fields
// keep allows.
func appendFiltered(dst *[]byte, num protowire.Number, msg []byte, keep func(protowire.Number) bool) error {
	size := 0
	err := eachFieldRaw(msg, func(n protowire.Number, _ protowire.Type, field, _ []byte) error {
		if keep(n) {
			size += len(field)
		}
		return nil
	})
	if err != nil {
		return err
	}
	*dst = protowire.AppendTag(*dst, num, protowire.BytesType)
	*dst = protowire.AppendVarint(*dst, uint64(size))
	return eachFieldRaw(msg, func(n protowire.Number, _ protowire.Type, field, _ []byte) error {
		if keep(n) {
			*dst = append(*dst, field...)
		}
		return nil
	})
}

// eachFieldRaw is eachField that also passes the field's whole encoding (tag included).
func eachFieldRaw(b []byte, fn func(num protowire.Number, typ protowire.Type, field, v []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("malformed protobuf: %w", protowire.ParseError(n))
		}
		var v []byte
		m := 0
		if typ == protowire.BytesType {
			v, m = protowire.ConsumeBytes(b[n:])
		} else {
			m = protowire.ConsumeFieldValue(num, typ, b[n:])
		}
		if m < 0 {
			return fmt.Errorf("malformed protobuf: %w", protowire.ParseError(m))
		}
		if err := fn(num, typ, b[:n+m], v); err != nil {
			return err
		}
		b = b[n+m:]
	}
	return nil
}
