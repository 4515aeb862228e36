//go:build e2e

package e2e

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// lossyAPI is an HTTPS reverse proxy to the API server that carries out every request, and
// for the Job creates lose picks (n counts the POSTs to .../jobs from 1) holds the answer the
// API server gave until the client gives up (its --request-timeout, or a signal): a write that
// was made and whose answer was lost. Every other request, a GET that reads the Job back
// among them, is answered at once.
type lossyAPI struct {
	srv *httptest.Server
	// held receives the path and status of each create whose answer is held,
	// once the API server answered it (the Job exists).
	held chan string
	mu   sync.Mutex
	// seen is every request, "METHOD path?query", in order.
	seen []string
}

// requests returns the requests seen since the last call and forgets them.
func (p *lossyAPI) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.seen
	p.seen = nil
	return out
}

func startLossyAPI(t *testing.T, lose func(n int) bool) *lossyAPI {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{Transport: rt, Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) }}
	p := &lossyAPI{held: make(chan string, 8)}
	var mu sync.Mutex
	posts := 0
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, r.Method+" "+r.URL.RequestURI())
		p.mu.Unlock()
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/jobs") {
			mu.Lock()
			posts++
			n := posts
			mu.Unlock()
			if lose(n) {
				rec := httptest.NewRecorder()
				rp.ServeHTTP(rec, r.WithContext(context.WithoutCancel(r.Context())))
				p.held <- r.URL.Path + " " + http.StatusText(rec.Code)
				<-r.Context().Done() // the answer is never sent
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	p.srv.EnableHTTP2 = true
	p.srv.StartTLS()
	t.Cleanup(p.srv.Close)
	return p
}

// kubeconfig is the admin kubeconfig pointed at the proxy (its certificate trusted).
func (p *lossyAPI) kubeconfig(t *testing.T) string {
	return writeKubeconfigVariant(t, func(c *clientcmdapi.Config) {
		cl := currentCluster(c)
		cl.Server = p.srv.URL
		cl.CertificateAuthority, cl.TLSServerName = "", ""
		cl.CertificateAuthorityData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw})
	})
}

// waitHeld waits for the proxy to hold an answer.
func (p *lossyAPI) waitHeld(t *testing.T) {
	t.Helper()
	select {
	case h := <-p.held:
		t.Logf("answer held: %s", h)
	case <-time.After(2 * time.Minute):
		t.Fatal("no Job create reached the proxy")
	}
}

// TestFaultsLostAnswers is the fault suite's lost-answer family (issue 35, items 3 and 4): a
// Job create the API server carried out and whose answer never came back.
//   - Item 3: a plain Job's retry whose second Job's answer is lost (--request-timeout) reads
//     it back and goes on: it never says the Job "was not created".
//   - Item 4: SIGINT or SIGTERM while the answer is awaited, the Job existing: --save holds the
//     objects, as the docs promise, and the exit code is the signal's (create and retry).
func TestFaultsLostAnswers(t *testing.T) {
	RequirePlugin(t)
	ns := NewNamespace(t)
	for _, name := range []string{"la", "lb"} {
		if r := Run(t, Cmd{Args: []string{"apply", "-n", ns, "-f", "-"}, Stdin: strings.Replace(crJob, "name: cr}", "name: "+name+"}", 1)}); r.ExitCode != 0 {
			t.Fatalf("kubectl apply:\n%s", r)
		}
	}
	m, _, _ := createFiles(t, "lc", 4, 2, nil)
	dir := t.TempDir()

	// Item 4, create: the Job's answer held, then the signal.
	for _, tc := range []struct {
		job  string
		sig  syscall.Signal
		code int
	}{{"lc", syscall.SIGINT, 130}, {"ld", syscall.SIGTERM, 143}} {
		p := startLossyAPI(t, func(n int) bool { return n == 1 })
		save := filepath.Join(dir, tc.job+".yaml")
		cmd, errOut := pluginProcess(t, nil, "create", tc.job, "-n", ns, "--manifest", m, "--image", "busybox:1.36", "--save", save, "--kubeconfig", p.kubeconfig(t))
		p.waitHeld(t)
		_ = cmd.Process.Signal(tc.sig)
		code := waitExit(t, cmd, 10*time.Second)
		b, err := os.ReadFile(save)
		t.Logf("create %s, %v once the Job exists: exit %d, --save %d bytes (%v)", tc.job, tc.sig, code, len(b), err)
		if code != tc.code || !strings.Contains(errOut.String(), "a GET shows the Job exists") {
			t.Errorf("create %s, %v: exit %d, want %d\n%s", tc.job, tc.sig, code, tc.code, errOut)
		}
		if err != nil || !strings.Contains(string(b), "name: "+tc.job+"\n") || !strings.Contains(errOut.String(), "saved the ConfigMap and the Job to "+save) {
			t.Errorf("create %s, %v: --save not written for a Job that exists: %v\n%s", tc.job, tc.sig, err, errOut)
		}
	}

	for _, name := range []string{"la", "lb"} {
		if j := WaitForFinished(t, ns, name, 3*time.Minute); j.Status.FailedIndexes == nil || *j.Status.FailedIndexes != "1,3" {
			t.Fatalf("%s: %s", name, DescribeState(j, GetPods(t, ns, name)))
		}
	}

	// Item 3: the second Job's answer is lost until --request-timeout; retry reads it back.
	p := startLossyAPI(t, func(n int) bool { return n == 2 })
	faultCases.Add(1)
	r := Run(t, Cmd{Args: []string{"indexed", "retry", "la", "-n", ns, "--request-timeout", "3s"}, Kubeconfig: p.kubeconfig(t), Timeout: 90 * time.Second})
	t.Logf("retry la, the answer to its second Job lost: exit %d: %s", r.ExitCode, firstLine(r.Stderr))
	if r.ExitCode != 0 || !strings.Contains(r.Stderr, `creating job "la-r1-3" was lost`) || !strings.Contains(r.Stderr, "a GET shows the Job exists") ||
		strings.Contains(r.Stderr, "not created") || !strings.Contains(r.Stdout, "job.batch/la-r1-3 created") {
		t.Errorf("retry la:\n%s", r)
	}

	// Item 4, retry: SIGTERM while the last Job's answer is awaited: both Jobs exist, saved.
	p = startLossyAPI(t, func(n int) bool { return n == 2 })
	save := filepath.Join(dir, "lb-r1.yaml")
	cmd, errOut := pluginProcess(t, nil, "retry", "lb", "-n", ns, "--save", save, "--kubeconfig", p.kubeconfig(t))
	p.waitHeld(t)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	code := waitExit(t, cmd, 10*time.Second)
	b, err := os.ReadFile(save)
	t.Logf("retry lb, SIGTERM once its Jobs exist: exit %d, --save %d bytes (%v)", code, len(b), err)
	if code != 143 || err != nil || !strings.Contains(string(b), "name: lb-r1-1\n") || !strings.Contains(string(b), "name: lb-r1-3\n") {
		t.Errorf("retry lb, SIGTERM: exit %d, want 143 and --save written (%v)\n%s", code, err, errOut)
	}
	if got := jobNames(t, ns); !slices.Equal(got, []string{"la", "la-r1-1", "la-r1-3", "lb", "lb-r1-1", "lb-r1-3", "lc", "ld"}) {
		t.Errorf("Jobs: %v", got)
	}
}
