// Command kubectl-indexed is the kubectl plugin for Indexed Jobs: `kubectl indexed ...`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	// First: keeps kubectl's message catalog from loading at every start (see the package).
	_ "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/untranslated"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	// Authentication plugins (OIDC and the cloud providers' exec helpers) for kubeconfigs that use them.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// interruptGrace is how long the command gets, after SIGINT or SIGTERM, to end by itself:
// requests in flight and simulations are cancelled through the context (its cause,
// exitcode.Interrupt, names the signal) and end at once, with a message that says what was
// interrupted. A read that cannot be cancelled (standard input, a FIFO nobody writes, a
// credential plugin) would go on; after the grace the process exits.
const interruptGrace = 2 * time.Second

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	done := make(chan int, 1)
	go func() { done <- cmd.Execute(ctx, cmd.NewCmdIndexed(streams), streams) }()

	var sig os.Signal
	select {
	case code := <-done:
		exit(code)
	case sig = <-sigs:
	}
	cancel(&exitcode.Interrupt{Signal: sig})
	// A second signal ends the process at once, as it would without this handler.
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	select {
	case code := <-done:
		exit(code)
	case <-time.After(interruptGrace):
	}
	// Requests and simulations end with the context; what did not end is most likely a read
	// of input or a credential plugin, but main cannot tell, so the message does not say.
	in := &exitcode.Interrupt{Signal: sig}
	_, _ = fmt.Fprintf(os.Stderr, "error: %v: the command did not stop within %s: stopped\n", in, interruptGrace)
	exit(in.ExitCode())
}

// exit stops any exec credential plugin the command gave up waiting for, then exits.
func exit(code int) {
	stopCredentialPlugins()
	os.Exit(code)
}
