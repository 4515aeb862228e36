package exitcode

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	jobs       = schema.GroupResource{Group: "batch", Resource: "jobs"}
	configmaps = schema.GroupResource{Resource: "configmaps"}
	namespaces = schema.GroupResource{Resource: "namespaces"}
)

// The numbers are part of the documented interface (README, docs/exit-codes.md, root help): they must never move.
func TestCodesAreTheDocumentedNumbers(t *testing.T) {
	for name, got := range map[string]int{"OK": OK, "Findings": Findings, "Usage": Usage, "Running": Running, "Cluster": Cluster, "Timeout": Timeout} {
		want := map[string]int{"OK": 0, "Findings": 1, "Usage": 2, "Running": 3, "Cluster": 4, "Timeout": 5}[name]
		if got != want {
			t.Errorf("%s = %d, documented as %d", name, got, want)
		}
	}
}

func TestCode(t *testing.T) {
	dialErr := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, OK},
		{"plain error is bad input", errors.New("boom"), Usage},
		{"usage error", UsageError("bad %s", "flag"), Usage},
		{"silent findings", Silent(Findings), Findings},
		{"silent running", Silent(Running), Running},
		{"wrapped carries its code", Wrap(Findings, errors.New("x")), Findings},
		{"carried code survives further wrapping", fmt.Errorf("context: %w", Wrap(Running, errors.New("x"))), Running},
		{"outermost carried code wins", Wrap(Findings, Wrap(Cluster, errors.New("x"))), Findings},
		{"api status", apierrors.NewNotFound(jobs, "j"), Cluster},
		{"wrapped api status", fmt.Errorf("get: %w", apierrors.NewForbidden(jobs, "j", errors.New("no"))), Cluster},
		{"url error", &url.Error{Op: "Get", URL: "https://127.0.0.1:1", Err: dialErr}, Cluster},
		{"net error", dialErr, Cluster},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Code(tc.err); got != tc.want {
				t.Errorf("Code(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}

func TestMessage(t *testing.T) {
	if got := Message(Silent(Findings)); got != "" {
		t.Errorf("Silent prints %q, want nothing", got)
	}
	if got := Message(fmt.Errorf("outer: %w", Silent(Findings))); got != "" {
		t.Errorf("wrapped Silent prints %q, want nothing", got)
	}
	if got := Message(Wrap(Cluster, errors.New("the reason"))); got != "the reason" {
		t.Errorf("Message = %q, want the wrapped error's text", got)
	}
	if got := Message(errors.New("plain")); got != "plain" {
		t.Errorf("Message = %q", got)
	}
	if got := (&Error{Code: 3}).Error(); got != "exit status 3" {
		t.Errorf("Error() of a silent error = %q", got)
	}
	inner := errors.New("inner")
	if !errors.Is(Wrap(Usage, inner), inner) {
		t.Error("Wrap must keep the wrapped error reachable through errors.Is")
	}
}

func TestAPIError(t *testing.T) {
	terminating := apierrors.NewForbidden(configmaps, "shards-abc", errors.New("unable to create new content in namespace ns1 because it is being terminated"))
	terminating.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause, Message: "namespace ns1 is being terminated", Field: "metadata.namespace"}}
	credErr := &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/apis/batch/v1/namespaces/ns1/jobs/j", Err: errors.New("getting credentials: exec: executable does-not-exist not found")}
	dialErr := &url.Error{Op: "Get", URL: "https://127.0.0.1:1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}

	for _, tc := range []struct {
		name             string
		err              error
		verb, resource   string
		objName, ns      string
		want, wantAbsent []string
	}{
		{name: "job not found", err: apierrors.NewNotFound(jobs, "j"), verb: "get", resource: "jobs", objName: "j", ns: "ns1",
			want: []string{`job "j" not found in namespace "ns1"`}},
		{name: "missing namespace is named, not the object", err: apierrors.NewNotFound(namespaces, "ns1"), verb: "create", resource: "configmaps", objName: "shards-abc", ns: "ns1",
			want: []string{`namespace "ns1" not found`}, wantAbsent: []string{"configmap"}},
		{name: "terminating namespace is not a permission problem", err: terminating, verb: "create", resource: "configmaps", objName: "shards-abc", ns: "ns1",
			want: []string{`namespace "ns1" is being deleted`}, wantAbsent: []string{"permission denied"}},
		{name: "forbidden names verb and resource", err: apierrors.NewForbidden(jobs, "j", errors.New("RBAC")), verb: "create", resource: "jobs", objName: "j", ns: "ns1",
			want: []string{"permission denied", `ask for "create" on "jobs"`}},
		{name: "unauthorized", err: apierrors.NewUnauthorized("bad token"), verb: "get", resource: "jobs", objName: "j",
			want: []string{"not authenticated"}},
		{name: "already exists", err: apierrors.NewAlreadyExists(jobs, "j"), verb: "create", resource: "jobs", objName: "j", ns: "ns1",
			want: []string{`job "j" already exists in namespace "ns1"`}},
		{name: "unreachable", err: dialErr, verb: "get", resource: "jobs", objName: "j",
			want: []string{"cannot reach the API server"}},
		{name: "credential plugin is not the network", err: credErr, verb: "get", resource: "jobs", objName: "j",
			want: []string{"credential plugin", "does-not-exist"}, wantAbsent: []string{"cannot reach", "is the cluster running"}},
		{name: "interrupted", err: fmt.Errorf("Get: %w", context.Canceled), verb: "create", resource: "jobs", objName: "j", ns: "ns1",
			want: []string{"interrupted", "may or may not have reached"}},
		{name: "timed out", err: &url.Error{Op: "Get", URL: "https://x", Err: context.DeadlineExceeded}, verb: "list", resource: "pods",
			want: []string{"timed out", "--request-timeout"}},
		{name: "other server error keeps the cause", err: apierrors.NewInternalError(errors.New("etcd down")), verb: "list", resource: "pods", ns: "ns1",
			want: []string{`list pods in namespace "ns1"`, "etcd down"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := APIError(tc.err, tc.verb, tc.resource, tc.objName, tc.ns)
			if Code(got) != Cluster {
				t.Errorf("code %d, want %d", Code(got), Cluster)
			}
			msg := Message(got)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			for _, w := range tc.wantAbsent {
				if strings.Contains(msg, w) {
					t.Errorf("message %q must not say %q", msg, w)
				}
			}
		})
	}
	if APIError(nil, "get", "jobs", "j", "") != nil {
		t.Error("APIError(nil) must be nil")
	}
}

// TestConnectionLostDuringAWrite: a write whose connection was lost may have been carried out,
// and the message says so; a failure to connect at all is "cannot reach" (issue 16, item 7).
func TestConnectionLostDuringAWrite(t *testing.T) {
	reset := &url.Error{Op: "Post", URL: "https://127.0.0.1:6443/api/v1/namespaces/ns/configmaps", Err: &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}}
	dial := &url.Error{Op: "Post", URL: "https://127.0.0.1:6443/api/v1/namespaces/ns/configmaps", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	if msg := APIError(reset, "create", "configmaps", "cm", "ns").Error(); !strings.Contains(msg, "the connection to the API server was lost while trying to create configmap \"cm\" in namespace \"ns\": the request may or may not have been carried out") {
		t.Errorf("reset during create: %s", msg)
	}
	if msg := APIError(dial, "create", "configmaps", "cm", "ns").Error(); !strings.Contains(msg, "cannot reach the API server") {
		t.Errorf("dial failure: %s", msg)
	}
	if msg := APIError(reset, "get", "configmaps", "cm", "ns").Error(); !strings.Contains(msg, "cannot reach the API server") {
		t.Errorf("reset during get: %s", msg)
	}
}

// Report is the end of every command line: what it prints and the code it returns are the
// contract the README documents (error: on stderr, nothing more for a silent error).
func TestReport(t *testing.T) {
	hint := func(error) string { return " (hint)" }
	for _, tc := range []struct {
		name     string
		err      error
		hint     func(error) string
		wantOut  string
		wantCode int
	}{
		{"success prints nothing", nil, hint, "", OK},
		{"silent findings print nothing", Silent(Findings), hint, "", Findings},
		{"silent running print nothing", fmt.Errorf("ctx: %w", Silent(Running)), hint, "", Running},
		{"usage error", UsageError("bad --flag"), nil, "error: bad --flag\n", Usage},
		{"cluster error with hint", apierrors.NewNotFound(jobs, "j"), hint, "error: jobs.batch \"j\" not found (hint)\n", Cluster},
		{"plain error is usage", errors.New("boom"), nil, "error: boom\n", Usage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if got := Report(&b, tc.err, tc.hint); got != tc.wantCode {
				t.Errorf("code %d, want %d", got, tc.wantCode)
			}
			if b.String() != tc.wantOut {
				t.Errorf("printed %q, want %q", b.String(), tc.wantOut)
			}
		})
	}
}

func TestFlagError(t *testing.T) {
	root := &cobra.Command{Use: "indexed"}
	sub := &cobra.Command{Use: "status"}
	root.AddCommand(sub)
	err := FlagError(sub, errors.New("unknown flag: --bogus"))
	if Code(err) != Usage || Message(err) != "unknown flag: --bogus\nSee 'indexed status --help' for usage." {
		t.Errorf("FlagError = %d %q", Code(err), Message(err))
	}
}

// A request given up while the exec credential plugin ran, when net/http's client Timeout (what
// --request-timeout sets) fired first: depending on the Go release, the client keeps the
// transport's PluginStopped in the error chain or turns it into text (the e2e fault suite met
// the text form). Either way the message must say that nothing was sent.
func TestPluginStoppedThroughClientTimeout(t *testing.T) {
	stuck := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		<-req.Context().Done()
		return nil, &PluginStopped{Cause: context.Cause(req.Context()), Err: req.Context().Err()}
	})
	c := &http.Client{Transport: stuck, Timeout: 20 * time.Millisecond}
	_, viaClient := c.Get("https://127.0.0.1:1/apis/batch/v1/namespaces/ns1/jobs/j")
	if viaClient == nil {
		t.Fatal("the client's Get returned no error")
	}
	// The text form, as net/http's client built it: the transport's error as text, then the
	// deadline wrapped.
	asText := fmt.Errorf("Get %q: %s (Client.Timeout exceeded while awaiting headers): %w",
		"https://127.0.0.1:1/apis/batch/v1/namespaces/ns1/jobs/j", (&PluginStopped{Cause: context.DeadlineExceeded}).Error(), context.DeadlineExceeded)
	for name, err := range map[string]error{"through http.Client": viaClient, "text form": asText} {
		msg := Message(APIError(err, "get", "jobs", "j", "ns1"))
		for _, w := range []string{"timed out while the kubeconfig's exec credential plugin ran", "nothing was sent to the API server"} {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message %q lacks %q", name, msg, w)
			}
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TimedOut is the one wording of every wait's timeout (status --wait, --lineage --wait,
// reconcile --wait): exit 5, the timeout in whole seconds, the state, and what follows.
func TestTimedOut(t *testing.T) {
	err := TimedOut(10*time.Second+300*time.Millisecond, `job "held"`, "Suspended: 0/3 succeeded", "")
	if Code(err) != Timeout || err.Error() != `timed out after 10s waiting for job "held" to finish (Suspended: 0/3 succeeded)` {
		t.Errorf("code %d, %q", Code(err), err)
	}
	err = TimedOut(time.Minute, "the lineage of job \"seed\"", "1 running", "the report above is of the results in so far")
	if err.Error() != `timed out after 1m0s waiting for the lineage of job "seed" to finish (1 running): the report above is of the results in so far` {
		t.Errorf("%q", err)
	}
}
