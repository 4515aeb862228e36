package status

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/pager"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podstream"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// BenchmarkPodList lists the same pods, served as protobuf pages by an HTTP server speaking
// like the API server, in the same run, two ways, each pod going into the report's
// Accumulator:
//
//   - stream: this command's path (gather.Live.Pods: pkg/podstream decodes each pod as it arrives,
//     without managedFields and most of the spec);
//   - pager: client-go's typed protobuf LIST through tools/pager (EachListItem, which decodes
//     whole pages and buffers up to 10 of them ahead).
//
// Pods are the seed fixture's pods (captured) with the managedFields a server returns, cloned
// to n with their names and indexes rewritten. The server encodes each page once and then
// serves it from memory, so both ways pay the same for it. Besides ns/op, B/op and allocs/op,
// peak-heap-MB is the highest heap-object size seen during an op above the heap before it
// (sampled every 100µs with runtime/metrics), garbage included, and live-MB what the
// accumulator holds once the op is done (after a GC).
//
//	go test -run '^$' -bench BenchmarkPodList -benchmem -benchtime 3x ./pkg/cmd/status/
func BenchmarkPodList(b *testing.B) {
	for _, n := range []int{5000, 50000} {
		srv, j := podServer(b, n)
		for _, page := range []int64{500, 10000} {
			b.Run(fmt.Sprintf("pods=%d/page=%d/stream", n, page), func(b *testing.B) {
				o := benchOptions(b, srv.URL, page)
				measure(b, n, func(acc *indexstatus.Accumulator) error {
					_, err := o.src.Pods(context.Background(), j, "", acc.Add)
					return err
				})
			})
			b.Run(fmt.Sprintf("pods=%d/page=%d/pager", n, page), func(b *testing.B) {
				client := benchClient(b, srv.URL)
				sel, _ := indexstatus.PodSelector(j)
				measure(b, n, func(acc *indexstatus.Accumulator) error {
					p := pager.New(pager.SimplePageFunc(func(opts metav1.ListOptions) (k8sruntime.Object, error) {
						return client.CoreV1().Pods("ns").List(context.Background(), opts)
					}))
					p.PageSize = page
					return p.EachListItem(context.Background(), metav1.ListOptions{LabelSelector: sel}, func(obj k8sruntime.Object) error {
						acc.Add(obj.(*corev1.Pod))
						return nil
					})
				})
			})
		}
		srv.Close()
	}
}

// measure runs list b.N times into a new Accumulator and reports its peak heap.
func measure(b *testing.B, n int, list func(*indexstatus.Accumulator) error) {
	j := benchJob(n)
	run := func() *indexstatus.Accumulator {
		acc, err := indexstatus.NewAccumulator(j)
		if err != nil {
			b.Fatal(err)
		}
		if err := list(acc); err != nil {
			b.Fatal(err)
		}
		if acc.Len() != n {
			b.Fatalf("%d pods listed, want %d", acc.Len(), n)
		}
		return acc
	}
	run() // warm the server's page cache and the connection
	var peak, live uint64
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		runtime.GC()
		base := heapObjects()
		stop := sampleHeap(&peak, base)
		b.StartTimer()
		acc := run()
		b.StopTimer()
		stop()
		runtime.GC()
		if h := heapObjects(); h > base {
			live = max(live, h-base)
		}
		runtime.KeepAlive(acc)
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(live)/(1<<20), "live-MB")
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap records in *peak the highest heap above base until stop is called.
func sampleHeap(peak *uint64, base uint64) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for !done.Load() {
			if h := heapObjects(); h > base && h-base > *peak {
				*peak = h - base
			}
			time.Sleep(100 * time.Microsecond)
		}
	})
	return func() { done.Store(true); wg.Wait() }
}

func benchJob(n int) *batchv1.Job {
	j := job("seed", int32(n))
	j.UID = "uid-seed"
	return j
}

// benchConfig is the command's client configuration without its rate limit (ListQPS would
// make 100 pages of 500 wait for the limiter, not for decoding).
func benchConfig(url string) *rest.Config {
	cfg := &rest.Config{Host: url, QPS: 1e6, Burst: 1e6}
	cfg.ContentType, cfg.AcceptContentTypes = podstream.ContentType, podstream.ContentType+",application/json"
	return cfg
}

func benchClient(b *testing.B, url string) kubernetes.Interface {
	client, err := kubernetes.NewForConfig(benchConfig(url))
	if err != nil {
		b.Fatal(err)
	}
	return client
}

func benchOptions(b *testing.B, url string, page int64) *Options {
	o := NewOptions(genericiooptions.IOStreams{})
	o.NewClient = clientIs(benchClient(b, url))
	o.FirstPageSize, o.ChunkSize = page, page
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	if err := o.Complete(f, []string{"seed"}); err != nil {
		b.Fatal(err)
	}
	return o
}

// podServer serves n pods of Job seed as protobuf pages (limit and continue as the API server
// reads them), each page encoded on first request and then kept.
func podServer(b *testing.B, n int) (*httptest.Server, *batchv1.Job) {
	seedPods, err := source.ReadPods("../../../test/fixtures/seed/pods.json", nil)
	if err != nil {
		b.Fatal(err)
	}
	j := benchJob(n)
	pods := testutil.WithManagedFields(seedPods)
	all := make([]corev1.Pod, n)
	for i := range all {
		p := pods[i%len(pods)].DeepCopy()
		p.Name, p.Namespace, p.UID = fmt.Sprintf("seed-%d-bench", i), "ns", types.UID(fmt.Sprintf("bench-%d", i))
		p.Labels[batchv1.JobNameLabel] = j.Name
		p.Labels[batchv1.ControllerUidLabel] = string(j.UID)
		p.Labels[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(i)
		p.Annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(i)
		for k := range p.OwnerReferences {
			p.OwnerReferences[k].UID, p.OwnerReferences[k].Name = j.UID, j.Name
		}
		all[i] = *p
	}
	var mu sync.Mutex
	pages := map[string][]byte{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		key := q.Get("continue") + "/" + q.Get("limit")
		mu.Lock()
		body, ok := pages[key]
		if !ok {
			limit, _ := strconv.Atoi(q.Get("limit"))
			if limit == 0 {
				limit = n
			}
			start, _ := strconv.Atoi(q.Get("continue"))
			end := min(start+limit, n)
			meta := metav1.ListMeta{ResourceVersion: "99"}
			if end < n {
				meta.Continue = strconv.Itoa(end)
			}
			if body, err = testutil.EncodeList(all[start:end], meta); err != nil {
				mu.Unlock()
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			pages[key] = body
		}
		mu.Unlock()
		w.Header().Set("Content-Type", podstream.ContentType)
		_, _ = w.Write(body)
	}))
	return srv, j
}
