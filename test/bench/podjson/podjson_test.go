// Package podjson times podstream.EachJSON, the pod reader of status --pods-file
// (github.com/go-json-experiment/json streaming each item into a trimmed struct), against
// encoding/json's Decoder (Token through the list, Decode of each item into a whole
// corev1.Pod), on a pod list from test/bench/statusgen:
//
//	go run ./test/bench/statusgen -pods 100000 -dir /tmp/pods100k
//	PODS_FILE=/tmp/pods100k/pods.json go test -run '^$' -bench . -benchmem -count 6 ./test/bench/podjson
//
// Without PODS_FILE the benchmarks skip. The yardstick lives here, not in a product package
// behind a build tag (issue 32).
package podjson

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/podstream"
)

// stdlibPods streams the items of a PodList with encoding/json.
func stdlibPods(r io.Reader, add func(*corev1.Pod)) error {
	dec := json.NewDecoder(r)
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		if key, _ := kt.(string); key != "items" {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return err
			}
			continue
		}
		if _, err := dec.Token(); err != nil { // [
			return err
		}
		for dec.More() {
			var p corev1.Pod
			if err := dec.Decode(&p); err != nil {
				return err
			}
			add(&p)
		}
		if _, err := dec.Token(); err != nil { // ]
			return err
		}
	}
	return nil
}

func benchDecoder(b *testing.B, decode func(io.Reader, func(*corev1.Pod)) error) {
	path := os.Getenv("PODS_FILE")
	if path == "" {
		b.Skip("PODS_FILE names a pod list from test/bench/statusgen")
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := decode(f, func(*corev1.Pod) { n++ }); err != nil {
			b.Fatal(err)
		}
		_ = f.Close()
		if n == 0 {
			b.Fatal("no pods read")
		}
	}
}

func BenchmarkEachJSON(b *testing.B)     { benchDecoder(b, podstream.EachJSON) }
func BenchmarkStdlibStream(b *testing.B) { benchDecoder(b, stdlibPods) }

// Both decoders read the same pods from the same list, so the benchmark compares like with like.
func TestDecodersAgree(t *testing.T) {
	list := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}}
	for _, name := range []string{"a-0", "a-1", "a-2"} {
		list.Items = append(list.Items, corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"batch.kubernetes.io/job-completion-index": name[2:]}},
			Status:     corev1.PodStatus{Phase: corev1.PodFailed},
		})
	}
	data, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	read := func(decode func(io.Reader, func(*corev1.Pod)) error) []string {
		var got []string
		if err := decode(bytes.NewReader(data), func(p *corev1.Pod) {
			got = append(got, p.Name+"/"+p.Annotations["batch.kubernetes.io/job-completion-index"]+"/"+string(p.Status.Phase))
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	a, b := read(podstream.EachJSON), read(stdlibPods)
	if !slices.Equal(a, b) || len(a) != 3 {
		t.Errorf("EachJSON read %q, encoding/json %q", a, b)
	}
}
