package status

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

// protobufList encodes pods as the API server does for Accept: application/vnd.kubernetes.protobuf.
func protobufList(t testing.TB, pods []corev1.Pod, meta metav1.ListMeta) []byte {
	t.Helper()
	raw, err := (&corev1.PodList{ListMeta: meta, Items: pods}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	env, err := (&runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "PodList"}, Raw: raw}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return append(append([]byte(nil), protobufMagic...), env...)
}

// withManagedFields gives every pod the managedFields a server returns (kubectl get -o json
// leaves them out of the fixtures).
func withManagedFields(pods []corev1.Pod) []corev1.Pod {
	out := make([]corev1.Pod, len(pods))
	for i := range pods {
		p := pods[i].DeepCopy()
		p.ManagedFields = []metav1.ManagedFieldsEntry{{
			Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{}}}`),
		}}
		out[i] = *p
	}
	return out
}

// TestSlimPodSameReport: for every captured fixture, the report from pods decoded without
// managedFields and most of the spec is the report from the full pods.
func TestSlimPodSameReport(t *testing.T) {
	dirs, err := filepath.Glob("../../../test/fixtures/*/pods.json")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, podsFile := range dirs {
		dir := filepath.Dir(podsFile)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			job, err := source.ReadJob(filepath.Join(dir, "job.json"), nil)
			if err != nil {
				t.Fatal(err)
			}
			pods, err := source.ReadPods(podsFile, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Give one pod a sidecar init container: its restartPolicy must survive.
			if len(pods) > 0 {
				always := corev1.ContainerRestartPolicyAlways
				pods[0].Spec.InitContainers = append(pods[0].Spec.InitContainers, corev1.Container{Name: "sidecar", RestartPolicy: &always})
			}
			full := withManagedFields(pods)
			body := protobufList(t, full, metav1.ListMeta{ResourceVersion: "77", Continue: "next"})
			var slim []corev1.Pod
			meta, err := eachPod(body, func(p *corev1.Pod) { slim = append(slim, *p) })
			if err != nil {
				t.Fatal(err)
			}
			if meta.ResourceVersion != "77" || meta.Continue != "next" || len(slim) != len(full) {
				t.Fatalf("meta %+v, %d pods of %d", meta, len(slim), len(full))
			}
			for i := range slim {
				if slim[i].ManagedFields != nil || len(slim[i].Spec.Containers) != 0 || slim[i].Name != full[i].Name ||
					len(slim[i].Status.ContainerStatuses) != len(full[i].Status.ContainerStatuses) ||
					len(slim[i].Spec.InitContainers) != len(full[i].Spec.InitContainers) {
					t.Fatalf("pod %d not slimmed as expected: %+v", i, slim[i].ObjectMeta)
				}
			}
			if len(slim) > 0 && (slim[0].Spec.InitContainers[len(slim[0].Spec.InitContainers)-1].RestartPolicy == nil) {
				t.Error("init container restartPolicy lost")
			}
			clock := fixed{}
			a, err := indexstatus.Build(job, full, indexstatus.Options{Clock: clock, AllIndexes: true})
			if err != nil {
				t.Fatal(err)
			}
			b, err := indexstatus.Build(job, slim, indexstatus.Options{Clock: clock, AllIndexes: true})
			if err != nil {
				t.Fatal(err)
			}
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if !bytes.Equal(ja, jb) {
				t.Errorf("reports differ:\n%s\n%s", ja, jb)
			}
		})
	}
}

type fixed struct{}

func (fixed) Now() time.Time { return t0 }

func TestEachPodRejectsMalformed(t *testing.T) {
	if _, err := eachPod([]byte(`{"kind":"PodList"}`), func(*corev1.Pod) {}); err != errNotProtobuf {
		t.Errorf("JSON: %v", err)
	}
	for _, body := range [][]byte{
		append(append([]byte(nil), protobufMagic...), 0x12, 0x05, 0x12, 0x10, 0x01),
		append(append([]byte(nil), protobufMagic...), 0xff),
	} {
		if _, err := eachPod(body, func(*corev1.Pod) {}); err == nil {
			t.Errorf("%x accepted", body)
		}
	}
}

// TestEachPodTruncated: a response cut anywhere before its end is an error, never a short
// list taken for the whole page.
func TestEachPodTruncated(t *testing.T) {
	_, pods := seed()
	var items []corev1.Pod
	for _, p := range pods {
		items = append(items, *p)
	}
	items = withManagedFields(items)
	body := protobufList(t, items, metav1.ListMeta{ResourceVersion: "5"})
	if _, err := eachPod(body, func(*corev1.Pod) {}); err != nil {
		t.Fatal(err)
	}
	// Past the PodList come only the envelope's empty contentEncoding and contentType: a cut
	// there has lost nothing.
	_, end := listBounds(t, body, items)
	for cut := len(protobufMagic) + 1; cut < end; cut++ {
		if _, err := eachPod(body[:cut], func(*corev1.Pod) {}); err == nil {
			t.Fatalf("response cut at byte %d of %d accepted", cut, len(body))
		}
	}
}

// listBounds returns where the PodList of items starts and ends in the response body.
func listBounds(t *testing.T, body []byte, items []corev1.Pod) (int, int) {
	t.Helper()
	whole, err := (&corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "5"}, Items: items}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(body, whole)
	if start < 0 {
		t.Fatal("the PodList is not in the response")
	}
	return start, start + len(whole)
}

// TestEachPodHugeLength: a field claiming more bytes than arrive fails without allocating
// what it claims.
func TestEachPodHugeLength(t *testing.T) {
	for _, body := range [][]byte{
		// raw PodList of 2^62 bytes holding an item of 2^61 bytes, then 3 bytes.
		protowire.AppendVarint(protowire.AppendVarint(protowire.AppendVarint(protowire.AppendVarint(
			append([]byte(nil), protobufMagic...), 0x12), 1<<62), 0x12), 1<<61),
		// a type meta field of 2^40 bytes.
		protowire.AppendVarint(append(append([]byte(nil), protobufMagic...), 0x0a), 1<<40),
	} {
		body = append(body, 1, 2, 3)
		allocs := testing.AllocsPerRun(1, func() {
			if _, err := eachPod(body, func(*corev1.Pod) {}); err == nil {
				t.Errorf("%x accepted", body)
			}
		})
		if allocs > 100 {
			t.Errorf("%x: %v allocations", body, allocs)
		}
	}
}

// TestEachPodStreams: each pod reaches the report as soon as its bytes have arrived, before the
// rest of the page, so a page is never held whole.
func TestEachPodStreams(t *testing.T) {
	_, pods := seed()
	var items []corev1.Pod
	for _, p := range pods {
		items = append(items, *p)
	}
	items = withManagedFields(items)
	body := protobufList(t, items, metav1.ListMeta{ResourceVersion: "5"})
	// The offset just past the first pod: the prefix that holds it and nothing more.
	start, end := listBounds(t, body, items)
	first, err := (&corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "5"}, Items: items[:1]}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	cut := start + len(first)
	if cut >= end {
		t.Fatalf("first pod ends at %d, list at %d", cut, end)
	}
	pr, pw := io.Pipe()
	got := make(chan string, len(items))
	done := make(chan error, 1)
	go func() {
		_, err := eachPodStream(bufio.NewReader(pr), func(p *corev1.Pod) { got <- p.Name })
		done <- err
	}()
	go func() { _, _ = pw.Write(body[:cut]) }()
	select {
	case name := <-got:
		if name != items[0].Name {
			t.Errorf("first pod %q, want %q", name, items[0].Name)
		}
	case err := <-done:
		t.Fatalf("ended before the rest of the page was sent: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the first pod was not delivered before the rest of the page arrived")
	}
	_, _ = pw.Write(body[cut:])
	_ = pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(got) + 1; n != len(items) {
		t.Errorf("%d pods, want %d", n, len(items))
	}
}

func FuzzEachPod(f *testing.F) {
	_, pods := seed()
	var items []corev1.Pod
	for _, p := range pods {
		items = append(items, *p)
	}
	f.Add(protobufList(f, withManagedFields(items), metav1.ListMeta{Continue: "x"}))
	f.Add(append([]byte(nil), protobufMagic...))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = eachPod(body, func(p *corev1.Pod) {
			if p == nil {
				t.Fatal("nil pod")
			}
		})
	})
}

// TestLiveProtobufPages runs the command against an HTTP server speaking like the API server:
// the Job as JSON, the pods as protobuf pages with continue tokens. It checks the requests (one
// Job GET; pod pages on the controller-uid selector, protobuf accepted, a first page of
// FirstPageSize and later pages of ChunkSize, never a resourceVersion or resourceVersionMatch,
// so that the first page is a consistent read from the watch cache) and that the report equals
// the offline one.
func TestLiveProtobufPages(t *testing.T) {
	const sel = "labelSelector=batch.kubernetes.io%2Fcontroller-uid%3Duid-seed"
	for _, tc := range []struct {
		name         string
		first, chunk int64
		want         []string
	}{{
		name: "defaults: every pod of the Job in one page",
		want: []string{sel + "&limit=10000"},
	}, {
		name: "first page 4, then pages of 2", first: 4, chunk: 2,
		want: []string{sel + "&limit=4", "continue=4&" + sel + "&limit=2", "continue=6&" + sel + "&limit=2"},
	}, {
		name: "--chunk-size 0: unpaginated", first: -1,
		want: []string{sel},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			testLiveProtobufPages(t, tc.first, tc.chunk, tc.want)
		})
	}
}

func testLiveProtobufPages(t *testing.T, first, chunk int64, wantPages []string) {
	j, ptrPods := seed()
	var pods []corev1.Pod
	for _, p := range ptrPods {
		pods = append(pods, *p)
	}
	full := withManagedFields(pods)
	var requests []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests = append(requests, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
		switch r.URL.Path {
		case "/apis/batch/v1/namespaces/ns/jobs/seed":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(j)
		case "/api/v1/namespaces/ns/pods":
			if !strings.Contains(r.Header.Get("Accept"), protobufContentType) {
				t.Errorf("pods requested with Accept %q", r.Header.Get("Accept"))
			}
			q := r.URL.Query()
			limit, _ := strconv.Atoi(q.Get("limit"))
			if limit == 0 {
				limit = len(full)
			}
			start, _ := strconv.Atoi(q.Get("continue"))
			end := min(start+limit, len(full))
			meta := metav1.ListMeta{ResourceVersion: "99"}
			if end < len(full) {
				meta.Continue = strconv.Itoa(end)
			}
			w.Header().Set("Content-Type", protobufContentType)
			_, _ = w.Write(protobufList(t, full[start:end], meta))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	cfg := &rest.Config{Host: srv.URL, QPS: ListQPS, Burst: ListBurst}
	cfg.ContentType, cfg.AcceptContentTypes = protobufContentType, protobufContentType+",application/json"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	o := NewOptions(streams)
	o.Client, o.Namespace, o.JobName, o.Output = client, "ns", "seed", "json"
	switch {
	case first < 0:
		o.FirstPageSize, o.ChunkSize = 0, 0
	case first > 0:
		o.FirstPageSize, o.ChunkSize = first, chunk
	}
	o.Clock = testingclock.NewFakeClock(t0.Add(time.Minute))
	if err := o.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /apis/batch/v1/namespaces/ns/jobs/seed?"}
	for _, p := range wantPages {
		want = append(want, "GET /api/v1/namespaces/ns/pods?"+p)
	}
	if strings.Join(requests, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(requests, "\n"), strings.Join(want, "\n"))
	}
	offline, err := indexstatus.Build(j, pods, indexstatus.Options{Clock: o.Clock, AllIndexes: true})
	if err != nil {
		t.Fatal(err)
	}
	var live indexstatus.IndexedJobStatus
	if err := json.Unmarshal(out.Bytes(), &live); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(live)
	b, _ := json.Marshal(offline)
	if !bytes.Equal(a, b) {
		t.Errorf("live report differs from offline:\n%s\n%s", a, b)
	}
}
