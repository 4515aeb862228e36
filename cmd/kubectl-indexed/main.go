// Command kubectl-indexed is the kubectl plugin for Indexed Jobs: `kubectl indexed ...`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	// Authentication plugins (OIDC and the cloud providers' exec helpers) for kubeconfigs that use them.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd"
)

// interruptGrace is how long the command gets, after SIGINT or SIGTERM, to end by itself:
// requests in flight are cancelled through the context and end at once, with a message that
// says what was done. A read that cannot be cancelled (standard input, a FIFO nobody writes)
// would go on; after the grace the process exits.
const interruptGrace = 2 * time.Second

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	done := make(chan int, 1)
	go func() { done <- cmd.Execute(ctx, cmd.NewCmdIndexed(streams), streams) }()

	var sig os.Signal
	select {
	case code := <-done:
		os.Exit(code)
	case sig = <-sigs:
	}
	cancel()
	// A second signal ends the process at once, as it would without this handler.
	signal.Reset(os.Interrupt, syscall.SIGTERM)
	select {
	case code := <-done:
		os.Exit(code)
	case <-time.After(interruptGrace):
	}
	// Every request is sent only after the input was read, and requests end with the context;
	// what is still running now is a read of input or a credential plugin.
	_, _ = fmt.Fprintf(os.Stderr, "error: interrupted (%v) while waiting for input or for a credential plugin: stopped\n", sig)
	code := 130
	if s, ok := sig.(syscall.Signal); ok {
		code = 128 + int(s)
	}
	os.Exit(code)
}
