// Package exitcode defines the process exit codes of kubectl indexed and the error type that
// carries one from a command to main, the only place that exits.
package exitcode

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Exit codes shared by every verb. Each verb documents which of them it uses.
const (
	// OK: the command did what was asked and found nothing to report.
	OK = 0
	// Findings: lint found findings at or above the threshold, diff found differences,
	// status --exit-code saw a Job that finished or is failing without every index succeeded.
	Findings = 1
	// Usage: bad flags or arguments, or input that could not be read or parsed.
	Usage = 2
	// Running: status --exit-code saw a Job that has not finished yet.
	Running = 3
	// Cluster: the API server could not be reached, or refused the request (not found,
	// forbidden, conflict, already exists, invalid).
	Cluster = 4
	// Timeout: status --wait (or --watch) --timeout gave up before the Job (or the lineage)
	// finished. Its own code, not Running's 3 (the Job was looked at once, nothing waited) nor
	// 1 (what kubectl wait returns on a timeout, here a Job that failed): a pipeline can tell
	// "the budget ran out, the Job may still finish" from every verdict about the Job.
	Timeout = 5
)

// WeekTimeout is what a negative --timeout of a wait means, as in kubectl wait.
const WeekTimeout = 7 * 24 * time.Hour

// TimedOut is the error of a wait (--wait, --watch --exit-code, reconcile --wait) that ran out
// of its --timeout before what it waits for finished: exit code Timeout, the state it was in,
// and after, when not empty, what the report printed says.
func TimedOut(timeout time.Duration, what, state, after string) error {
	msg := fmt.Sprintf("timed out after %s waiting for %s to finish (%s)", max(timeout, 0).Round(time.Second), what, state)
	if after != "" {
		msg += ": " + after
	}
	return Wrap(Timeout, errors.New(msg))
}

// Error carries an exit code with an error. A nil Err with a non-zero Code exits quietly:
// the command already printed what the user needs (for example a lint report).
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Silent returns an error that makes main exit with code without printing anything more.
func Silent(code int) error { return &Error{Code: code} }

// Wrap attaches an exit code to err. Wrap(code, nil) is Silent(code).
func Wrap(code int, err error) error { return &Error{Code: code, Err: err} }

// UsageError formats an error that exits with Usage.
func UsageError(format string, a ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, a...)}
}

// Code returns the exit code for err: the code carried by an *Error, Cluster for errors from
// the API server or the network, and Usage for anything else (bad input).
func Code(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if IsClusterError(err) {
		return Cluster
	}
	return Usage
}

// IsClusterError reports whether err came from talking to the API server.
func IsClusterError(err error) bool {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return true
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr)
}

// Message returns the text to print for err, or "" when nothing should be printed.
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Err == nil {
		return ""
	}
	return err.Error()
}

// Report is how a command line ends, in the plugin (the root command's Execute) and in the
// tests (pkg/cmd/cmdtest): it prints err on errOut as "error: MESSAGE", with hint(err)
// appended when hint is not nil, prints nothing for a silent error, and returns the process
// exit code (OK for nil).
func Report(errOut io.Writer, err error, hint func(error) string) int {
	if err == nil {
		return OK
	}
	if msg := Message(err); msg != "" {
		if hint != nil {
			msg += hint(err)
		}
		_, _ = fmt.Fprintf(errOut, "error: %s\n", msg)
	}
	return Code(err)
}

// FlagError is the root command's flag error function: a flag cobra cannot parse is a usage
// error that points to the command's help.
func FlagError(c *cobra.Command, err error) error {
	return UsageError("%w\nSee '%s --help' for usage.", err, c.CommandPath())
}

// APIError turns an error from the API server into a message that says what was attempted and
// what to do next, with exit code Cluster. verb and resource are what the plugin tried (for
// example "get", "jobs"); name may be empty for list calls.
func APIError(err error, verb, resource, name, namespace string) error {
	if err == nil {
		return nil
	}
	obj := resource
	if name != "" {
		obj = fmt.Sprintf("%s %q", strings.TrimSuffix(resource, "s"), name) // "jobs" -> job "NAME"
	}
	where := ""
	if namespace != "" {
		where = fmt.Sprintf(" in namespace %q", namespace)
	}
	var ps *PluginStopped
	switch {
	case errors.As(err, &ps), errors.Is(err, context.DeadlineExceeded) && strings.Contains(err.Error(), pluginStoppedText):
		// The second form: net/http's client turns the transport's error into text when its
		// own Timeout (--request-timeout) fired first, which loses the PluginStopped.
		var in *Interrupt
		if ps != nil && errors.As(ps.Cause, &in) {
			return Wrap(in.ExitCode(), fmt.Errorf("%v while the kubeconfig's exec credential plugin ran, before trying to %s %s%s: nothing was sent to the API server; the plugin is stopped", in, verb, obj, where))
		}
		return Wrap(Cluster, fmt.Errorf("timed out while the kubeconfig's exec credential plugin ran, before trying to %s %s%s (raise --request-timeout if the plugin is slow): nothing was sent to the API server; the plugin is stopped", verb, obj, where))
	case errors.Is(err, context.Canceled):
		return Wrap(Cluster, fmt.Errorf("interrupted while trying to %s %s%s: the request may or may not have reached the API server", verb, obj, where))
	case errors.Is(err, context.DeadlineExceeded):
		return Wrap(Cluster, fmt.Errorf("timed out while trying to %s %s%s (raise --request-timeout if the server is slow): %w", verb, obj, where, err))
	case IsCredentialPluginError(err):
		return Wrap(Cluster, fmt.Errorf("the credential plugin of your kubeconfig failed, so nothing was sent to the API server: check the user's exec entry in --kubeconfig / --context: %w", err))
	case apierrors.IsNotFound(err) && namespace != "" && notFoundKind(err) == "namespaces":
		return Wrap(Cluster, fmt.Errorf("namespace %q not found: create it, or pass another -n", namespace))
	case apierrors.IsNotFound(err) && name != "":
		return Wrap(Cluster, fmt.Errorf("%s not found%s", obj, where))
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return Wrap(Cluster, fmt.Errorf("namespace %q is being deleted: nothing new can be created in it; use another -n, or wait until it is gone and create it again", namespace))
	case apierrors.IsForbidden(err):
		return Wrap(Cluster, fmt.Errorf("permission denied: you may not %s %s%s; ask for %q on %q (the server said: %w)",
			verb, obj, where, verb, resource, err))
	case apierrors.IsUnauthorized(err):
		return Wrap(Cluster, fmt.Errorf("not authenticated to the API server: check --kubeconfig, --context and your credentials: %w", err))
	case apierrors.IsAlreadyExists(err):
		return Wrap(Cluster, fmt.Errorf("%s already exists%s: %w", obj, where, err))
	case isCertificateError(err):
		// The TLS handshake failed on the server's certificate: the server was reached, and
		// nothing was sent.
		return Wrap(Cluster, fmt.Errorf("the API server's certificate is not trusted, so nothing was sent (check the kubeconfig's certificate-authority or --certificate-authority, and that --server names the host the certificate is for): %w", err))
	case isNotHTTPSAnswer(err):
		return Wrap(Cluster, fmt.Errorf("trying to %s %s%s, the server answered 400 without a Kubernetes status: it is not answering as an API server; if --server (or the kubeconfig's server) is http:// and the API server speaks HTTPS, use https:// (a TLS port answers plain HTTP this way): %w", verb, obj, where, err))
	case isUnreachable(err) && isWrite(verb) && !IsDialError(err):
		// The connection was made and then lost: the server may have carried the request out.
		return Wrap(Cluster, fmt.Errorf("the connection to the API server was lost while trying to %s %s%s: the request may or may not have been carried out; look before trying again: %w", verb, obj, where, err))
	case isUnreachable(err):
		return Wrap(Cluster, fmt.Errorf("cannot reach the API server (check --kubeconfig, --context, --server and that the cluster is running): %w", err))
	default:
		return Wrap(Cluster, fmt.Errorf("%s %s%s: %w", verb, obj, where, err))
	}
}

// notFoundKind returns the resource the API server said was not found (StatusDetails.Kind). The
// NamespaceLifecycle admission plugin (k8s.io/apiserver, plugin/namespace/lifecycle) answers a
// write into a missing namespace with the namespace's own NotFound, kind "namespaces", and a
// create in a terminating one with Forbidden carrying the NamespaceTerminating cause.
func notFoundKind(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		return status.Status().Details.Kind
	}
	return ""
}

// IsCredentialPluginError reports whether err came from the kubeconfig's exec credential plugin
// rather than from the network. client-go wraps it in a *url.Error like a network failure; its
// round tripper marks it with this prefix (plugin/pkg/client/auth/exec, Authenticator.getCreds).
func IsCredentialPluginError(err error) bool {
	return strings.Contains(err.Error(), "getting credentials: ")
}

// isUnreachable says whether err came from talking to the API server without an answer from it
// (a transport or network error, not an API status).
func isUnreachable(err error) bool {
	var status apierrors.APIStatus
	return !errors.As(err, &status) && IsClusterError(err)
}

// isCertificateError says whether err is a failed verification of the server's certificate.
func isCertificateError(err error) bool {
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci)
}

// isNotHTTPSAnswer says whether err is client-go's error for a 400 whose body is not a
// Kubernetes Status (newUnstructuredResponseError): what a TLS port sends back to a plain-HTTP
// request (net/http's "Client sent an HTTP request to an HTTPS server", without a content type,
// so client-go keeps none of it).
func isNotHTTPSAnswer(err error) bool {
	return apierrors.IsBadRequest(err) && apierrors.IsUnexpectedServerError(err)
}

// isWrite says whether verb changes something on the server.
func isWrite(verb string) bool {
	return slices.Contains([]string{"create", "update", "patch", "delete"}, verb)
}

// IsDialError says whether err is a failure to connect at all (nothing was sent).
func IsDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// pluginStoppedText starts PluginStopped's message.
const pluginStoppedText = "the exec credential plugin did not answer"

// PluginStopped is the error of a request given up (Cause: an Interrupt, or a deadline) while
// the kubeconfig's exec credential plugin still ran, so nothing was sent. main stops the
// plugin before it exits.
type PluginStopped struct {
	Cause error
	Err   error
}

func (e *PluginStopped) Error() string {
	return fmt.Sprintf("%s: %v", pluginStoppedText, e.Cause)
}

func (e *PluginStopped) Unwrap() error { return e.Err }

// Interrupt is the cause main cancels a command's context with on SIGINT or SIGTERM
// (context.WithCancelCause), so that a command that stops on the context can say which signal
// stopped it and exit as the shell expects (128 + the signal's number: 130, 143).
type Interrupt struct {
	Signal os.Signal
}

func (i *Interrupt) Error() string { return fmt.Sprintf("interrupted (%v)", i.Signal) }

// ExitCode is 128 + the signal's number; 130 (SIGINT) when it has none.
func (i *Interrupt) ExitCode() int {
	if s, ok := i.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// Interrupted is the error of a command whose context was cancelled while it was doing what
// (for example "simulating"): "interrupted (terminated) while simulating: stopped[: detail]",
// exit 128 + the signal (130 when the context was cancelled without an Interrupt cause).
func Interrupted(ctx context.Context, what, detail string) error {
	var in *Interrupt
	code, head := 130, "interrupted"
	if errors.As(context.Cause(ctx), &in) {
		code, head = in.ExitCode(), in.Error()
	}
	msg := fmt.Sprintf("%s while %s: stopped", head, what)
	if detail != "" {
		msg += " " + detail
	}
	return Wrap(code, errors.New(msg))
}
