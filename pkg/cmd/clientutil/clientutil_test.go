package clientutil

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

type blocking struct{ release chan struct{} }

func (b blocking) RoundTrip(*http.Request) (*http.Response, error) {
	<-b.release
	return nil, errors.New("released")
}

// TestRoundTripEndsWithItsContext: a RoundTrip that blocks (a credential plugin that never
// answers) returns when the request's deadline passes, with an error that wraps it.
func TestRoundTripEndsWithItsContext(t *testing.T) {
	b := blocking{release: make(chan struct{})}
	defer close(b.release)
	rt := &contextBound{next: b, exec: true}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://127.0.0.1:1/api", nil)
	began := time.Now()
	_, err := rt.RoundTrip(req)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > 5*time.Second {
		t.Errorf("err %v after %s", err, time.Since(began))
	}
}

// TestInterruptWhilePluginHangs: Ctrl-C while the kubeconfig's exec credential plugin hangs is
// an interrupt (exit 130, nothing sent), not exit 4 "may or may not have reached the API
// server" (issue 26, item 10), through a real clientset whose plugin is sh -c 'sleep 4'.
func TestInterruptWhilePluginHangs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		t.Error("a request reached the server although the plugin never answered")
	}))
	defer srv.Close()
	cs, err := NewClientset(&rest.Config{Host: srv.URL, ExecProvider: &clientcmdapi.ExecConfig{
		APIVersion: "client.authentication.k8s.io/v1", Command: "sh", Args: []string{"-c", "sleep 4"},
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(300*time.Millisecond, func() { cancel(&exitcode.Interrupt{Signal: syscall.SIGINT}) })
	began := time.Now()
	_, err = cs.BatchV1().Jobs("ns").Get(ctx, "eval", metav1.GetOptions{})
	if d := time.Since(began); d > 3*time.Second {
		t.Errorf("the request ended %s after the interrupt, not at once", d)
	}
	err = exitcode.APIError(err, "get", "jobs", "eval", "ns")
	var e *exitcode.Error
	if !errors.As(err, &e) || e.Code != 130 || !strings.Contains(err.Error(), "nothing was sent to the API server") {
		t.Errorf("err %v, want exit 130 and nothing sent", err)
	}
}
