package podjson

import (
	"io"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// slimPod is the part of a pod the status report reads, as a trimmed struct for
// github.com/go-json-experiment/json (what podstream.EachJSON keeps: metadata without
// managedFields, the status, the init containers' restart policy).
type slimPod struct {
	Metadata struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		UID               string            `json:"uid"`
		Labels            map[string]string `json:"labels"`
		Annotations       map[string]string `json:"annotations"`
		CreationTimestamp time.Time         `json:"creationTimestamp"`
		DeletionTimestamp *time.Time        `json:"deletionTimestamp"`
		Finalizers        []string          `json:"finalizers"`
		OwnerReferences   []struct {
			Kind       string `json:"kind"`
			Name       string `json:"name"`
			UID        string `json:"uid"`
			Controller *bool  `json:"controller"`
		} `json:"ownerReferences"`
	} `json:"metadata"`
	Spec struct {
		NodeName       string `json:"nodeName"`
		InitContainers []struct {
			Name          string  `json:"name"`
			RestartPolicy *string `json:"restartPolicy"`
		} `json:"initContainers"`
	} `json:"spec"`
	Status struct {
		Phase      string     `json:"phase"`
		Reason     string     `json:"reason"`
		Message    string     `json:"message"`
		StartTime  *time.Time `json:"startTime"`
		Conditions []struct {
			Type               string    `json:"type"`
			Status             string    `json:"status"`
			Reason             string    `json:"reason"`
			Message            string    `json:"message"`
			LastTransitionTime time.Time `json:"lastTransitionTime"`
		} `json:"conditions"`
		ContainerStatuses []struct {
			Name         string `json:"name"`
			RestartCount int32  `json:"restartCount"`
			State        struct {
				Terminated *struct {
					ExitCode   int32     `json:"exitCode"`
					Reason     string    `json:"reason"`
					Message    string    `json:"message"`
					StartedAt  time.Time `json:"startedAt"`
					FinishedAt time.Time `json:"finishedAt"`
				} `json:"terminated"`
			} `json:"state"`
		} `json:"containerStatuses"`
	} `json:"status"`
}

// v2Pods streams the items of a PodList with go-json-experiment/json into slimPod, and fills
// the fields of a corev1.Pod the report reads (names, phase, exit codes), as a reader that
// replaced EachJSON would have to.
func v2Pods(r io.Reader, add func(*corev1.Pod)) error {
	dec := jsontext.NewDecoder(r)
	if _, err := dec.ReadToken(); err != nil { // {
		return err
	}
	var sp slimPod
	p := &corev1.Pod{}
	for dec.PeekKind() == '"' {
		key, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if key.String() != "items" {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if _, err := dec.ReadToken(); err != nil { // [
			return err
		}
		for dec.PeekKind() != ']' {
			sp = slimPod{}
			if err := jsonv2.UnmarshalDecode(dec, &sp); err != nil {
				return err
			}
			*p = corev1.Pod{}
			p.Name, p.Namespace, p.Labels, p.Annotations = sp.Metadata.Name, sp.Metadata.Namespace, sp.Metadata.Labels, sp.Metadata.Annotations
			p.CreationTimestamp = metav1.NewTime(sp.Metadata.CreationTimestamp)
			p.Status.Phase = corev1.PodPhase(sp.Status.Phase)
			for _, c := range sp.Status.ContainerStatuses {
				cs := corev1.ContainerStatus{Name: c.Name, RestartCount: c.RestartCount}
				if t := c.State.Terminated; t != nil {
					cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: t.ExitCode, Reason: t.Reason, Message: t.Message,
						StartedAt: metav1.NewTime(t.StartedAt), FinishedAt: metav1.NewTime(t.FinishedAt)}
				}
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, cs)
			}
			add(p)
		}
		if _, err := dec.ReadToken(); err != nil { // ]
			return err
		}
	}
	return nil
}
