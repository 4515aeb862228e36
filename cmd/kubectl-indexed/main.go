// Command kubectl-indexed is the kubectl plugin for Indexed Jobs: `kubectl indexed ...`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	// Authentication plugins (OIDC and the cloud providers' exec helpers) for kubeconfigs that use them.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	code := cmd.Execute(ctx, cmd.NewCmdIndexed(streams), streams)
	stop()
	os.Exit(code)
}
