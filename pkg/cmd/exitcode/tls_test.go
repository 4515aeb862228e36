package exitcode

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestTLSMistakesAreNamed: a real client-go request to a TLS server, once with a CA that does not
// sign its certificate and once over plain http://. Both reached the server, so "cannot reach the
// API server" (what the first said) and "the server rejected our request for an unknown reason"
// (the second) pointed the wrong way.
func TestTLSMistakesAreNamed(t *testing.T) {
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer s.Close()
	get := func(host string) error {
		c, err := kubernetes.NewForConfig(&rest.Config{Host: host})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.BatchV1().Jobs("ns1").Get(context.Background(), "j", metav1.GetOptions{})
		if err == nil {
			t.Fatal("no error")
		}
		return APIError(err, "get", "jobs", "j", "ns1")
	}
	for _, tc := range []struct {
		name, host string
		want       []string
	}{
		{"unknown CA", s.URL, []string{"certificate is not trusted", "--certificate-authority", "nothing was sent"}},
		{"plain HTTP to a TLS port", "http://" + s.Listener.Addr().String(), []string{"http://", "use https://", `get job "j"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := get(tc.host)
			msg := Message(err)
			if Code(err) != Cluster || strings.Contains(msg, "cannot reach") || strings.Contains(msg, "protobuf") {
				t.Errorf("%d %s", Code(err), msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("missing %q in %s", w, msg)
				}
			}
		})
	}
}
