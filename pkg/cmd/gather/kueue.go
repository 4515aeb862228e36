package gather

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
)

// Live and File answer for Kueue's objects too: the reads kueue.ReadQueue plans.
var (
	_ kueue.Reader = (*Live)(nil)
	_ kueue.Reader = (*File)(nil)
)

// getJSON GETs path, with labelSelector when given, and decodes the answer into out, through
// the discovery REST client (paths outside client-go's typed groups; none in a fake clientset).
func (l *Live) getJSON(ctx context.Context, path, labelSelector string, out any) error {
	var rc rest.Interface
	if l.Client != nil && l.Client.Discovery() != nil {
		rc = l.Client.Discovery().RESTClient()
	}
	if rc == nil {
		return errors.New("no REST client for Kueue's API")
	}
	req := rc.Get().AbsPath(path).SetHeader("Accept", "application/json")
	if labelSelector != "" {
		req = req.Param("labelSelector", labelSelector)
	}
	data, err := req.Do(ctx).Raw()
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

// Workloads LISTs the Workloads of the namespace whose labels match labelSelector (one request).
func (l *Live) Workloads(ctx context.Context, labelSelector string) ([]map[string]any, error) {
	var list struct {
		Items []map[string]any `json:"items"`
	}
	path := fmt.Sprintf("/apis/%s/%s/namespaces/%s/%s", kueue.Group, kueue.Version, l.Namespace, kueue.Resource)
	if l.Namespace == "" {
		path = fmt.Sprintf("/apis/%s/%s/%s", kueue.Group, kueue.Version, kueue.Resource) // every namespace
	}
	if err := l.getJSON(ctx, path, labelSelector, &list); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// LocalQueueClusterQueue GETs LocalQueue name and returns its spec.clusterQueue.
func (l *Live) LocalQueueClusterQueue(ctx context.Context, name string) (string, error) {
	var lq struct {
		Spec struct {
			ClusterQueue string `json:"clusterQueue"`
		} `json:"spec"`
	}
	path := fmt.Sprintf("/apis/%s/%s/namespaces/%s/localqueues/%s", kueue.Group, kueue.Version, l.Namespace, name)
	if err := l.getJSON(ctx, path, "", &lq); err != nil {
		return "", err
	}
	return lq.Spec.ClusterQueue, nil
}

// PendingPosition GETs the pending Workloads of LocalQueue lq from Kueue's visibility API
// (visibility.kueue.x-k8s.io/v1beta2, an aggregated API the Kueue manager serves) and returns
// workload's positionInLocalQueue.
func (l *Live) PendingPosition(ctx context.Context, lq, workload string) (*int32, error) {
	var list struct {
		Items []struct {
			Name                 string                `json:"name"`
			Metadata             struct{ Name string } `json:"metadata"`
			PositionInLocalQueue int32                 `json:"positionInLocalQueue"`
		} `json:"items"`
	}
	path := fmt.Sprintf("/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/%s/localqueues/%s/pendingworkloads", l.Namespace, lq)
	if err := l.getJSON(ctx, path, "", &list); err != nil {
		return nil, err
	}
	for _, it := range list.Items {
		if it.Metadata.Name == workload || it.Name == workload {
			return ptr.To(it.PositionInLocalQueue), nil
		}
	}
	return nil, nil
}

// Workloads are the Workloads the files hold whose labels match labelSelector.
func (f *File) Workloads(_ context.Context, labelSelector string) ([]map[string]any, error) {
	sel, err := labels.Parse(labelSelector)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, w := range f.WorkloadList {
		md, _ := w["metadata"].(map[string]any)
		ls := labels.Set{}
		if m, ok := md["labels"].(map[string]any); ok {
			for k, v := range m {
				if s, ok := v.(string); ok {
					ls[k] = s
				}
			}
		}
		if sel.Matches(ls) {
			out = append(out, w)
		}
	}
	return out, nil
}

// LocalQueueClusterQueue: saved files hold no LocalQueue.
func (f *File) LocalQueueClusterQueue(_ context.Context, name string) (string, error) {
	return "", f.missing("localqueues", name)
}

// PendingPosition: saved files hold no position.
func (f *File) PendingPosition(_ context.Context, lq, _ string) (*int32, error) {
	return nil, f.missing("pendingworkloads", lq)
}
