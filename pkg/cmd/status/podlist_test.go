package status

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podstream"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

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
			testLiveProtobufPages(t, tc.first, tc.chunk, true, nil, tc.want)
		})
	}
}

// TestLiveReadsNotSucceeded: without --all-pods the LIST asks for the pods that did not succeed
// (the server filters them here as the API server does), and the report says which indexes
// succeeded from the Job; when the Job's status does not account for every succeeded pod
// (uncountedTerminatedPods), every pod is listed after it and the report is the every-pod one.
func TestLiveReadsNotSucceeded(t *testing.T) {
	const sel = "fieldSelector=status.phase%21%3DSucceeded&labelSelector=batch.kubernetes.io%2Fcontroller-uid%3Duid-seed&limit=10000"
	const all = "labelSelector=batch.kubernetes.io%2Fcontroller-uid%3Duid-seed&limit=10000"
	t.Run("the Job accounts for its succeeded pods", func(t *testing.T) {
		testLiveProtobufPages(t, 0, 0, false, nil, []string{sel})
	})
	t.Run("uncounted pods: every pod is read", func(t *testing.T) {
		testLiveProtobufPages(t, 0, 0, false, func(j *batchv1.Job) {
			j.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{Succeeded: []types.UID{"x"}}
		}, []string{sel, all})
	})
}

func testLiveProtobufPages(t *testing.T, first, chunk int64, allPods bool, edit func(*batchv1.Job), wantPages []string) {
	j, ptrPods := seed()
	if edit != nil {
		edit(j)
	}
	var pods []corev1.Pod
	for _, p := range ptrPods {
		pods = append(pods, *p)
	}
	full := testutil.WithManagedFields(pods)
	var requests []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests = append(requests, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
		switch r.URL.Path {
		case "/apis/batch/v1/namespaces/ns/jobs/seed":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(j)
		case "/apis/batch/v1/namespaces/ns/jobs":
			// The failed Job's retries (none).
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(&batchv1.JobList{})
		case "/api/v1/namespaces/ns/pods":
			if !strings.Contains(r.Header.Get("Accept"), podstream.ContentType) {
				t.Errorf("pods requested with Accept %q", r.Header.Get("Accept"))
			}
			q := r.URL.Query()
			limit, _ := strconv.Atoi(q.Get("limit"))
			if limit == 0 {
				limit = len(full)
			}
			served := full
			switch fs := q.Get("fieldSelector"); fs {
			case "":
			case indexstatus.NotSucceededSelector:
				served = nil
				for _, p := range full {
					if p.Status.Phase != corev1.PodSucceeded {
						served = append(served, p)
					}
				}
			default:
				t.Errorf("field selector %q", fs)
			}
			start, _ := strconv.Atoi(q.Get("continue"))
			end := min(start+limit, len(served))
			meta := metav1.ListMeta{ResourceVersion: "99"}
			if end < len(served) {
				meta.Continue = strconv.Itoa(end)
			}
			body, err := testutil.EncodeList(served[start:end], meta)
			if err != nil {
				t.Error(err)
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", podstream.ContentType)
			_, _ = w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	cfg := &rest.Config{Host: srv.URL, QPS: ListQPS, Burst: ListBurst}
	cfg.ContentType, cfg.AcceptContentTypes = podstream.ContentType, podstream.ContentType+",application/json"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	o := NewOptions(streams)
	o.NewClient, o.PrintFlags.OutputFormat, o.AllPods = clientIs(client), "json", allPods
	switch {
	case first < 0:
		o.FirstPageSize, o.ChunkSize = 0, 0
	case first > 0:
		o.FirstPageSize, o.ChunkSize = first, chunk
	}
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	if err := o.Complete(f, []string{"seed"}); err != nil {
		t.Fatal(err)
	}
	o.Clock = testingclock.NewFakeClock(t0.Add(time.Minute))
	if err := o.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /apis/batch/v1/namespaces/ns/jobs/seed?"}
	for _, p := range wantPages {
		want = append(want, "GET /api/v1/namespaces/ns/pods?"+p)
	}
	// The seed Job failed: one LIST of the Jobs that retried it, on the lineage's label.
	want = append(want, "GET /apis/batch/v1/namespaces/ns/jobs?labelSelector=indexed.kubectl.io%2Froot-job%3Dseed")
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
	if !allPods && len(wantPages) == 1 {
		// The succeeded pods were not read: the indexes and their states are the same, the
		// succeeded pods are counted as not read.
		if live.Summary != offline.Summary || live.Pods.NotRead != offline.Pods.Succeeded || live.Pods.Succeeded != 0 || live.Phase != offline.Phase {
			t.Errorf("summary %+v pods %+v, every pod: %+v %+v", live.Summary, live.Pods, offline.Summary, offline.Pods)
		}
		return
	}
	a, _ := json.Marshal(live)
	b, _ := json.Marshal(offline)
	if !bytes.Equal(a, b) {
		t.Errorf("live report differs from offline:\n%s\n%s", a, b)
	}
}
