// Package gather reads what status, retry and diff report on (a Job, its pods, ConfigMaps, the
// Jobs of a lineage, events) from the cluster (Live) or from saved objects (File): once the
// source is chosen, live and offline are one code path.
package gather

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/kueue"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podstream"
)

// Source reads the objects of one namespace. Job, Jobs, ConfigMap and Events return the
// source's own errors, for the caller to word: the API server's (apierrors.IsNotFound and
// IsForbidden tell them apart), or a *Missing, which IsNotFound also says is not found. Pods'
// errors are final (an exitcode error).
type Source interface {
	Job(ctx context.Context, name string) (*batchv1.Job, error)
	// Jobs are the Jobs whose labels match labelSelector.
	Jobs(ctx context.Context, labelSelector string) ([]batchv1.Job, error)
	// Pods calls add for each of job's pods whose fields match fieldSelector ("" for all), one
	// at a time as they are read, and returns the resourceVersion a watch starts from.
	Pods(ctx context.Context, job *batchv1.Job, fieldSelector string, add func(*corev1.Pod)) (string, error)
	ConfigMap(ctx context.Context, name string) (*corev1.ConfigMap, error)
	// Events are the events whose fields match fieldSelector.
	Events(ctx context.Context, fieldSelector string) ([]corev1.Event, error)
	// InNamespace is the namespace read: the one asked for (Live), the saved objects' (File).
	InNamespace() string

	// ReadJob reads what the report of one Job is made from (read.go); its errors are final.
	ReadJob(ctx context.Context, opts ReadOptions) (*JobRead, error)
	// JobPods reads job's pods into a new accumulator, as want says (live; every pod
	// offline), and returns the resourceVersion a watch starts from.
	JobPods(ctx context.Context, job *batchv1.Job, want PodRead) (*indexstatus.Accumulator, string, error)
	// Queue is job's Kueue Queue read at now, nil for a Job Kueue does not manage.
	Queue(ctx context.Context, job *batchv1.Job, now time.Time) *kueue.Queue
	// Lineage is the run of the Job named, its Jobs and notes on what was left out
	// (lineageread.go); ReadLineage reads what the run's report is made from.
	Lineage(ctx context.Context, name string) (lineage.RunID, []*batchv1.Job, []string, error)
	ReadLineage(ctx context.Context, run lineage.RunID, jobs []*batchv1.Job, notes []string, want PodRead) (*LineageRead, error)
	// JobNamed reads Job name again for a watch after a 410 (follow.go): nil when it is gone.
	JobNamed(ctx context.Context, name string) (*batchv1.Job, string, error)
}

// Live reads from the API server, in Namespace.
type Live struct {
	Client    kubernetes.Interface
	Namespace string
	// FirstPageSize is the size of the first page of the pod LIST, ChunkSize that of the next
	// ones (status.DefaultFirstPageSize says why they differ); 0 reads in one unpaginated LIST.
	FirstPageSize, ChunkSize int64
	// Seen, when set, is shown every pod Pods reads, before add (status --record keeps the
	// terminal ones).
	Seen func(*corev1.Pod)
	// WholePods decodes every field of the pods (logs needs their containers), not the
	// fields of a report only (pkg/podstream).
	WholePods bool
}

var _ Source = (*Live)(nil)

func (l *Live) InNamespace() string { return l.Namespace }

func (l *Live) Job(ctx context.Context, name string) (*batchv1.Job, error) {
	return l.Client.BatchV1().Jobs(l.Namespace).Get(ctx, name, metav1.GetOptions{})
}

func (l *Live) Jobs(ctx context.Context, labelSelector string) ([]batchv1.Job, error) {
	list, err := l.Client.BatchV1().Jobs(l.Namespace).List(ctx, metav1.ListOptions{LabelSelector: labelSelector})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (l *Live) ConfigMap(ctx context.Context, name string) (*corev1.ConfigMap, error) {
	return l.Client.CoreV1().ConfigMaps(l.Namespace).Get(ctx, name, metav1.GetOptions{})
}

func (l *Live) Events(ctx context.Context, fieldSelector string) ([]corev1.Event, error) {
	list, err := l.Client.CoreV1().Events(l.Namespace).List(ctx, metav1.ListOptions{FieldSelector: fieldSelector})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// Pods pages through job's pods (PodSelector: its controller-uid label, or its own selector
// when set by hand) with PodsMatching.
func (l *Live) Pods(ctx context.Context, job *batchv1.Job, fieldSelector string, add func(*corev1.Pod)) (string, error) {
	sel, err := indexstatus.PodSelector(job)
	if err != nil {
		return "", exitcode.Wrap(exitcode.Usage, err)
	}
	return l.PodsMatching(ctx, sel, fieldSelector, add)
}

// PodsMatching pages through the pods whose labels and fields match the selectors: a first
// page of FirstPageSize, then pages of ChunkSize. Each pod is
// handed to add and dropped as it arrives, so memory grows with what add keeps, not with the
// decoded pods or the page size. The resourceVersion is the list's: the revision every page
// was read at, from which a watch misses no change. Errors are final (an exitcode error).
func (l *Live) PodsMatching(ctx context.Context, labelSelector, fieldSelector string, add func(*corev1.Pod)) (string, error) {
	if l.Seen != nil {
		next := add
		add = func(p *corev1.Pod) { l.Seen(p); next(p) }
	}
	// No resourceVersion: a consistent read, served from the watch cache once it has caught up.
	opts := metav1.ListOptions{LabelSelector: labelSelector, FieldSelector: fieldSelector, Limit: l.FirstPageSize}
	for {
		meta, err := l.listPage(ctx, opts, add)
		if err != nil {
			return "", exitcode.APIError(err, "list", "pods", "", l.Namespace)
		}
		if meta.Continue == "" {
			return meta.ResourceVersion, nil
		}
		opts.Continue, opts.Limit = meta.Continue, l.ChunkSize
	}
}

// PageSize is kubectl's chunk size, the pod LIST pages of list and logs (status sets its own,
// see status.DefaultFirstPageSize).
const PageSize = 500

// listPage fetches one page of pods and calls add for each, decoded one at a time by
// pkg/podstream as the protobuf response streams in (the report is the same as from whole pods:
// podstream's TestSlimPodSameReport): the client holds one pod's bytes at a time, never the
// page, so the page size costs the client no memory. It returns the page's list metadata
// (continue token, resourceVersion). Servers or clients that do not speak protobuf get the
// ordinary typed List.
func (l *Live) listPage(ctx context.Context, opts metav1.ListOptions, add func(*corev1.Pod)) (metav1.ListMeta, error) {
	rc, ok := l.Client.CoreV1().RESTClient().(*rest.RESTClient)
	if ok && rc != nil && !l.WholePods {
		body, err := rc.Get().Namespace(l.Namespace).Resource("pods").
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
		if _, _, err := scheme.Codecs.UniversalDeserializer().Decode(all, nil, list); err != nil {
			return metav1.ListMeta{}, fmt.Errorf("cannot decode the pod list: %w", err)
		}
		return list.ListMeta, each(list.Items, add)
	}
	list, err := l.Client.CoreV1().Pods(l.Namespace).List(ctx, opts)
	if err != nil {
		return metav1.ListMeta{}, err
	}
	return list.ListMeta, each(list.Items, add)
}

func each(pods []corev1.Pod, add func(*corev1.Pod)) error {
	for i := range pods {
		add(&pods[i])
	}
	return nil
}
