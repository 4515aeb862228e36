// Package clientutil makes the clientset the verbs use, so that every request honours its
// context (Ctrl-C, --request-timeout) even while a credential plugin hangs.
//
// client-go's exec credential plugin runs inside the transport's RoundTrip without a context or
// a timeout (plugin/pkg/client/auth/exec: refreshCredsLocked), and it is the outermost layer of
// the transport, so a plugin that never answers holds every request, --request-timeout and
// Ctrl-C included, until the plugin exits. The clientset made here puts one more layer outside
// it that returns as soon as the request's context is done.
package clientutil

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// NewClientset returns a clientset for cfg whose requests end when their context does.
func NewClientset(cfg *rest.Config) (kubernetes.Interface, error) {
	if cfg.ExecProvider != nil {
		cfg = rest.CopyConfig(cfg)
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &markSent{next: rt} })
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	hc.Transport = &contextBound{next: hc.Transport, exec: cfg.ExecProvider != nil}
	return kubernetes.NewForConfigAndClient(cfg, hc)
}

// ForFactory is NewClientset of f's REST config (the kubeconfig and its flags); an error is a
// usage error that says the kubeconfig cannot be read.
func ForFactory(f genericclioptions.RESTClientGetter) (kubernetes.Interface, error) {
	cfg, err := f.ToRESTConfig()
	var cs kubernetes.Interface
	if err == nil {
		cs, err = NewClientset(cfg)
	}
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the kubeconfig: %w", err))
	}
	return cs, nil
}

// contextBound runs the next RoundTrip in a goroutine and gives up on it when the request's
// context is done. The abandoned call ends by itself (its own connection, or the plugin, ends);
// a command-line tool exits soon after anyway.
type contextBound struct {
	next http.RoundTripper
	exec bool
}

type roundTripResult struct {
	resp *http.Response
	err  error
}

func (c *contextBound) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if ctx.Done() == nil {
		return c.next.RoundTrip(req)
	}
	var sent atomic.Bool
	if c.exec {
		req = req.WithContext(context.WithValue(ctx, sentKey{}, &sent))
	}
	done := make(chan roundTripResult, 1)
	go func() {
		resp, err := c.next.RoundTrip(req)
		done <- roundTripResult{resp, err}
	}()
	select {
	case r := <-done:
		return r.resp, r.err
	case <-ctx.Done():
		go func() {
			// Close a response that arrives after all.
			if r := <-done; r.resp != nil && r.resp.Body != nil {
				_ = r.resp.Body.Close()
			}
		}()
		if c.exec && !sent.Load() {
			// Still waiting for the plugin: nothing was sent. main stops the plugin on exit.
			return nil, &exitcode.PluginStopped{Cause: context.Cause(ctx), Err: ctx.Err()}
		}
		if c.exec {
			return nil, fmt.Errorf("no answer in time: %w", ctx.Err())
		}
		return nil, ctx.Err()
	}
}

// WrappedRoundTripper lets client-go's debugging (-v=9) see through the layer.
func (c *contextBound) WrappedRoundTripper() http.RoundTripper { return c.next }

// Namespace is the namespace that the kubeconfig and -n select, and whether -n gave it. A
// kubeconfig that cannot be read, or a name that is not a namespace's (CheckNamespace), is a
// usage error.
func Namespace(f genericclioptions.RESTClientGetter) (ns string, enforce bool, err error) {
	ns, enforce, err = f.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", false, exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the kubeconfig: %w", err))
	}
	return ns, enforce, CheckNamespace(ns)
}

// CheckNamespace refuses a namespace that cannot name one (-n .., -n a/b, -n UPPER): a usage
// error (exit 2) before anything is sent, with the API server's own rule (a DNS-1123 label),
// rather than a request to a path the server or a proxy reads differently. An empty namespace
// (all namespaces) passes.
func CheckNamespace(ns string) error {
	if ns == "" {
		return nil
	}
	if errs := apivalidation.ValidateNamespaceName(ns, false); len(errs) > 0 {
		return exitcode.UsageError("-n %q: not a valid namespace name: %s", ns, strings.Join(errs, "; "))
	}
	return nil
}
