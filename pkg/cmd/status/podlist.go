package status

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/podstream"
)

// The live report reads each page of pods as protobuf bytes and decodes one pod at a time with
// pkg/podstream (see there what it leaves out); the report is the same as from fully decoded
// pods (podstream's TestSlimPodSameReport).

// listPage fetches one page of pods and calls add for each, decoded one at a time as the
// response streams in: the client holds one pod's bytes at a time, never the page, so the page
// size costs the client no memory. It returns the page's list metadata (continue token,
// resourceVersion). Servers or clients that do not speak protobuf get the ordinary typed List.
func (o *Options) listPage(ctx context.Context, opts metav1.ListOptions, add func(*corev1.Pod)) (metav1.ListMeta, error) {
	rc, ok := o.Client.CoreV1().RESTClient().(*rest.RESTClient)
	if ok && rc != nil {
		body, err := rc.Get().Namespace(o.Namespace).Resource("pods").
			VersionedParams(&opts, scheme.ParameterCodec).
			SetHeader("Accept", podstream.ContentType+", application/json").
			Stream(ctx)
		if err != nil {
			return metav1.ListMeta{}, err
		}
		defer func() { _ = body.Close() }()
		br := bufio.NewReaderSize(body, 64<<10)
		meta, err := podstream.Each(br, add)
		if !errors.Is(err, podstream.ErrNotProtobuf) {
			return meta, err
		}
		// JSON (a server or proxy without protobuf): decode it the ordinary way, holding the
		// page (the API server itself always offers protobuf for pods).
		all, err := io.ReadAll(br)
		if err != nil {
			return metav1.ListMeta{}, fmt.Errorf("cannot read the pod list: %w", err)
		}
		list := &corev1.PodList{}
		if err := runtimeDecode(all, list); err != nil {
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
