package podstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// protobufList encodes pods as the API server does for Accept: ContentType.
func protobufList(t testing.TB, pods []corev1.Pod, meta metav1.ListMeta) []byte {
	t.Helper()
	b, err := testutil.EncodeList(pods, meta)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// seedPods are the pods of the seed scenario as captured from the real controller
// (test/fixtures/seed), with the managedFields a server returns.
func seedPods(t testing.TB) []corev1.Pod {
	t.Helper()
	pods, err := source.ReadPods("../../test/fixtures/seed/pods.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) < 2 {
		t.Fatalf("%d seed pods", len(pods))
	}
	return testutil.WithManagedFields(pods)
}

// TestSlimPodSameReport: for every captured fixture, the report from pods decoded without
// managedFields and most of the spec is the report from the full pods.
func TestSlimPodSameReport(t *testing.T) {
	forEachFixture(t, func(t *testing.T, job *batchv1.Job, full []corev1.Pod) {
		body := protobufList(t, full, metav1.ListMeta{ResourceVersion: "77", Continue: "next"})
		var slim []corev1.Pod
		meta, err := EachBytes(body, func(p *corev1.Pod) { slim = append(slim, *p) })
		if err != nil {
			t.Fatal(err)
		}
		if meta.ResourceVersion != "77" || meta.Continue != "next" || len(slim) != len(full) {
			t.Fatalf("meta %+v, %d pods of %d", meta, len(slim), len(full))
		}
		for i := range slim {
			if slim[i].ManagedFields != nil || len(slim[i].Spec.Containers) != 0 || slim[i].Name != full[i].Name ||
				len(slim[i].Status.ContainerStatuses) != len(full[i].Status.ContainerStatuses) ||
				len(slim[i].Spec.InitContainers) != len(full[i].Spec.InitContainers) || slim[i].Spec.NodeName != full[i].Spec.NodeName {
				t.Fatalf("pod %d not slimmed as expected: %+v", i, slim[i].ObjectMeta)
			}
		}
		if len(slim) > 0 && (slim[0].Spec.InitContainers[len(slim[0].Spec.InitContainers)-1].RestartPolicy == nil) {
			t.Error("init container restartPolicy lost")
		}
		sameReport(t, job, full, slim)
	})
}

type fixed struct{}

func (fixed) Now() time.Time { return t0 }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestEachRejectsMalformed(t *testing.T) {
	if _, err := EachBytes([]byte(`{"kind":"PodList"}`), func(*corev1.Pod) {}); err != ErrNotProtobuf {
		t.Errorf("JSON: %v", err)
	}
	for _, body := range [][]byte{
		append(append([]byte(nil), Magic...), 0x12, 0x05, 0x12, 0x10, 0x01),
		append(append([]byte(nil), Magic...), 0xff),
	} {
		if _, err := EachBytes(body, func(*corev1.Pod) {}); err == nil {
			t.Errorf("%x accepted", body)
		}
	}
}

// TestEachPodTruncated: a response cut anywhere before its end is an error, never a short
// list taken for the whole page.
func TestEachTruncated(t *testing.T) {
	items := seedPods(t)
	body := protobufList(t, items, metav1.ListMeta{ResourceVersion: "5"})
	if _, err := EachBytes(body, func(*corev1.Pod) {}); err != nil {
		t.Fatal(err)
	}
	// Past the PodList come only the envelope's empty contentEncoding and contentType: a cut
	// there has lost nothing.
	_, end := listBounds(t, body, items)
	for cut := len(Magic) + 1; cut < end; cut++ {
		if _, err := EachBytes(body[:cut], func(*corev1.Pod) {}); err == nil {
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
func TestEachHugeLength(t *testing.T) {
	for _, body := range [][]byte{
		// raw PodList of 2^62 bytes holding an item of 2^61 bytes, then 3 bytes.
		protowire.AppendVarint(protowire.AppendVarint(protowire.AppendVarint(protowire.AppendVarint(
			append([]byte(nil), Magic...), 0x12), 1<<62), 0x12), 1<<61),
		// a type meta field of 2^40 bytes.
		protowire.AppendVarint(append(append([]byte(nil), Magic...), 0x0a), 1<<40),
	} {
		body = append(body, 1, 2, 3)
		allocs := testing.AllocsPerRun(1, func() {
			if _, err := EachBytes(body, func(*corev1.Pod) {}); err == nil {
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
func TestEachStreams(t *testing.T) {
	items := seedPods(t)
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
		_, err := Each(bufio.NewReader(pr), func(p *corev1.Pod) { got <- p.Name })
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

func FuzzEach(f *testing.F) {
	items := seedPods(f)
	f.Add(protobufList(f, items, metav1.ListMeta{Continue: "x"}))
	f.Add(append([]byte(nil), Magic...))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = EachBytes(body, func(p *corev1.Pod) {
			if p == nil {
				t.Fatal("nil pod")
			}
		})
	})
}

// forEachFixture runs fn on every captured fixture's Job and pods, one pod given a sidecar init
// container (its restartPolicy must survive decoding) and every pod managedFields, as the API
// server returns them.
func forEachFixture(t *testing.T, fn func(t *testing.T, job *batchv1.Job, full []corev1.Pod)) {
	t.Helper()
	files, err := filepath.Glob("../../test/fixtures/*/pods.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, podsFile := range files {
		dir := filepath.Dir(podsFile)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			job, err := testutil.ReadJob(filepath.Join(dir, "job.json"))
			if err != nil {
				t.Fatal(err)
			}
			pods, err := source.ReadPods(podsFile, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(pods) > 0 {
				always := corev1.ContainerRestartPolicyAlways
				pods[0].Spec.InitContainers = append(pods[0].Spec.InitContainers, corev1.Container{Name: "sidecar", RestartPolicy: &always})
			}
			fn(t, job, testutil.WithManagedFields(pods))
		})
	}
}

// sameReport fails t unless the report from the decoded pods (slim) is the report from the
// full pods.
func sameReport(t *testing.T, job *batchv1.Job, full, slim []corev1.Pod) {
	t.Helper()
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
}

// EachBytes is Each over a whole response held in memory.
func EachBytes(body []byte, add func(*corev1.Pod)) (metav1.ListMeta, error) {
	return Each(bufio.NewReader(bytes.NewReader(body)), add)
}
