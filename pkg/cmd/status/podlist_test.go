package status

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
// Job GET, pod pages on the controller-uid selector with a limit, protobuf accepted) and that
// the report equals the offline one.
func TestLiveProtobufPages(t *testing.T) {
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
	o.Client, o.Namespace, o.JobName, o.ChunkSize, o.Output = client, "ns", "seed", 3, "json"
	o.Clock = testingclock.NewFakeClock(t0.Add(time.Minute))
	if err := o.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GET /apis/batch/v1/namespaces/ns/jobs/seed?",
		"GET /api/v1/namespaces/ns/pods?labelSelector=batch.kubernetes.io%2Fcontroller-uid%3Duid-seed&limit=3",
		"GET /api/v1/namespaces/ns/pods?continue=3&labelSelector=batch.kubernetes.io%2Fcontroller-uid%3Duid-seed&limit=3",
		"GET /api/v1/namespaces/ns/pods?continue=6&labelSelector=batch.kubernetes.io%2Fcontroller-uid%3Duid-seed&limit=3",
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
