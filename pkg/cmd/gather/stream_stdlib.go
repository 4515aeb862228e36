//go:build stdlibpods

package gather

import (
	"encoding/json"
	"errors"
	"io"

	corev1 "k8s.io/api/core/v1"
)

// The yardstick of podstream.EachJSON (make bench-status-decoder, docs/benchmarks.md): the best
// kept library's way to stream a pod list, encoding/json's Decoder, Token through each object
// and Decode of each item into a whole corev1.Pod. Built only with -tags stdlibpods.
func init() { decodePodList = stdlibPods }

func stdlibPods(r io.Reader, add func(*corev1.Pod)) error {
	dec := json.NewDecoder(r)
	for {
		t, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); !ok || d != '{' {
			return errors.New("expected a JSON object")
		}
		fields := map[string]json.RawMessage{}
		list := false
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			if key, _ := kt.(string); key == "items" {
				list = true
				if _, err := dec.Token(); err != nil {
					return err
				}
				for dec.More() {
					var p corev1.Pod
					if err := dec.Decode(&p); err != nil {
						return err
					}
					add(&p)
				}
				if _, err := dec.Token(); err != nil {
					return err
				}
				continue
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return err
			}
			fields[kt.(string)] = raw
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		if !list {
			b, err := json.Marshal(fields)
			if err != nil {
				return err
			}
			var p corev1.Pod
			if err := json.Unmarshal(b, &p); err != nil {
				return err
			}
			add(&p)
		}
	}
}
