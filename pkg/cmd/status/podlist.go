package status

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// The live report reads each page of pods as protobuf bytes and decodes one pod at a time,
// leaving out what the report never reads: metadata.managedFields (about a third of a pod) and
// the pod spec except its init containers (the report reads only their restartPolicy, to find
// sidecars). A page is then never held decoded, and decoding costs a fraction of the CPU.
// The report is the same as from fully decoded pods (TestSlimPodSameReport).

// protobufMagic starts every Kubernetes protobuf response (k8s.io/apimachinery's
// runtime/serializer/protobuf).
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

const protobufContentType = "application/vnd.kubernetes.protobuf"

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
)

var errNotProtobuf = errors.New("not a protobuf response")

// listPage fetches one page of pods and calls add for each, decoded one at a time. It returns
// the page's list metadata (continue token, resourceVersion). Servers or clients that do not
// speak protobuf get the ordinary typed List.
func (o *Options) listPage(ctx context.Context, opts metav1.ListOptions, add func(*corev1.Pod)) (metav1.ListMeta, error) {
	rc, ok := o.Client.CoreV1().RESTClient().(*rest.RESTClient)
	if ok && rc != nil {
		body, err := rc.Get().Namespace(o.Namespace).Resource("pods").
			VersionedParams(&opts, scheme.ParameterCodec).
			SetHeader("Accept", protobufContentType+", application/json").
			Do(ctx).Raw()
		if err != nil {
			return metav1.ListMeta{}, err
		}
		meta, err := eachPod(body, add)
		if !errors.Is(err, errNotProtobuf) {
			return meta, err
		}
		// JSON (a server or proxy without protobuf): decode it the ordinary way.
		list := &corev1.PodList{}
		if err := runtimeDecode(body, list); err != nil {
			return metav1.ListMeta{}, err
		}
		for i := range list.Items {
			add(&list.Items[i])
		}
		return list.ListMeta, nil
	}
	list, err := o.Client.CoreV1().Pods(o.Namespace).List(ctx, opts)
	if err != nil {
		return metav1.ListMeta{}, err
	}
	for i := range list.Items {
		add(&list.Items[i])
	}
	return list.ListMeta, nil
}

func runtimeDecode(body []byte, into *corev1.PodList) error {
	_, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, into)
	if err != nil {
		return fmt.Errorf("cannot decode the pod list: %w", err)
	}
	return nil
}

// eachPod walks a protobuf PodList response (the "k8s\x00" magic, then a runtime.Unknown whose
// raw bytes are the PodList) and calls add for every pod, decoded one at a time without
// managedFields and without the spec except init containers.
func eachPod(body []byte, add func(*corev1.Pod)) (metav1.ListMeta, error) {
	var meta metav1.ListMeta
	if !bytes.HasPrefix(body, protobufMagic) {
		return meta, errNotProtobuf
	}
	var raw []byte
	err := eachField(body[len(protobufMagic):], func(num protowire.Number, typ protowire.Type, v []byte) error {
		switch {
		case num == unknownRaw && typ == protowire.BytesType:
			raw = v
		case num == unknownContentEncoding && typ == protowire.BytesType && len(v) > 0:
			return fmt.Errorf("pod list: unsupported content encoding %q", v)
		}
		return nil
	})
	if err != nil {
		return meta, err
	}
	var slim []byte
	err = eachField(raw, func(num protowire.Number, typ protowire.Type, v []byte) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case listMetadata:
			if err := meta.Unmarshal(v); err != nil {
				return fmt.Errorf("pod list metadata: %w", err)
			}
		case listItems:
			var err error
			slim, err = slimPod(slim[:0], v)
			if err != nil {
				return err
			}
			pod := &corev1.Pod{}
			if err := pod.Unmarshal(slim); err != nil {
				return fmt.Errorf("pod in list: %w", err)
			}
			add(pod)
		}
		return nil
	})
	return meta, err
}

// eachField calls fn for every top-level field of the protobuf message b; v is the value of a
// length-delimited field (nil for other wire types).
func eachField(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("malformed protobuf: %w", protowire.ParseError(n))
		}
		b = b[n:]
		var v []byte
		if typ == protowire.BytesType {
			v, n = protowire.ConsumeBytes(b)
		} else {
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("malformed protobuf: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(num, typ, v); err != nil {
			return err
		}
	}
	return nil
}

// slimPod appends to dst the Pod message pod without metadata.managedFields and with the spec
// reduced to its init containers.
func slimPod(dst, pod []byte) ([]byte, error) {
	err := eachFieldRaw(pod, func(num protowire.Number, typ protowire.Type, field, v []byte) error {
		switch {
		case num == podMetadata && typ == protowire.BytesType:
			return appendFiltered(&dst, num, v, func(n protowire.Number) bool { return n != metaManagedFields })
		case num == podSpec && typ == protowire.BytesType:
			return appendFiltered(&dst, num, v, func(n protowire.Number) bool { return n == specInitContainers })
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
