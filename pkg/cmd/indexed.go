// Package cmd assembles the kubectl indexed command tree. It holds cobra glue only; the logic
// lives in the domain packages under pkg/.
package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	cmdcompletion "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/completion"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/create"
	cmddiff "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/diff"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	cmdlint "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/lint"
	cmdlist "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/list"
	cmdlogs "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/logs"
	cmdretry "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/retry"
	cmdshards "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/shards"
	cmdstatus "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/status"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/version"
)

// DisplayName is how help and errors name the plugin.
const DisplayName = "kubectl indexed"

var rootLong = templates.LongDesc(`
	Understand, check and run Kubernetes Indexed Jobs.

	An Indexed Job runs completion index i as shard i of a larger piece of work. kubectl indexed
	finds what the API server would reject and what would hurt at run time before a Job is
	submitted, explains a running or finished Job index by index, and scaffolds Jobs whose
	retry policy cannot let one bad shard kill the healthy ones.

	Exit codes: 0 success; 1 findings, differences or an incomplete Job (as each command
	defines); 2 usage error or unreadable input; 3 the Job is still running (status
	--exit-code); 4 the API server could not be reached or refused the request.`)

// NewCmdIndexed returns the root command with every verb attached.
func NewCmdIndexed(streams genericiooptions.IOStreams) *cobra.Command {
	configFlags := genericclioptions.NewConfigFlags(true).WithDeprecatedPasswordFlag().WithDiscoveryBurst(300).WithDiscoveryQPS(50.0)

	root := &cobra.Command{
		Use:   "indexed",
		Short: "Understand, check and run Kubernetes Indexed Jobs",
		Long:  rootLong,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: DisplayName,
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		// With no verb, print help rather than an error.
		Run: func(cmd *cobra.Command, _ []string) { _ = cmd.Help() },
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitcode.UsageError("%w\nSee '%s --help' for usage.", err, c.CommandPath())
	})

	flags := root.PersistentFlags()
	configFlags.AddFlags(flags)
	f := cmdutil.NewFactory(cmdutil.NewMatchVersionFlags(configFlags))
	registerFlagCompletions(root, f)

	root.AddCommand(version.NewCmdVersion(streams))
	root.AddCommand(cmddiff.NewCmdDiff(f, streams))
	root.AddCommand(create.NewCmdCreate(f, streams))
	root.AddCommand(cmdshards.NewCmdShards(streams))
	root.AddCommand(cmdcompletion.NewCmdCompletion(streams))
	root.AddCommand(cmdlint.NewCmdLint(f, streams))
	root.AddCommand(cmdstatus.NewCmdStatus(f, streams))
	root.AddCommand(cmdretry.NewCmdRetry(f, streams))
	root.AddCommand(cmdlogs.NewCmdLogs(f, streams))
	root.AddCommand(cmdlist.NewCmdList(f, streams))

	return root
}

// registerFlagCompletions completes the kubeconfig flags as kubectl does.
func registerFlagCompletions(root *cobra.Command, f cmdutil.Factory) {
	for flag, fn := range map[string]cobra.CompletionFunc{
		"namespace": cmdcompletion.Namespaces(f),
		"context":   cmdcompletion.KubeconfigNames(f, "context"),
		"cluster":   cmdcompletion.KubeconfigNames(f, "cluster"),
		"user":      cmdcompletion.KubeconfigNames(f, "user"),
	} {
		_ = root.RegisterFlagCompletionFunc(flag, fn)
	}
}

// Execute runs root and returns the process exit code, printing any error to stderr.
func Execute(ctx context.Context, root *cobra.Command, streams genericiooptions.IOStreams) int {
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitcode.OK
	}
	if msg := exitcode.Message(err); msg != "" {
		_, _ = fmt.Fprintf(streams.ErrOut, "error: %s\n", msg)
	}
	return exitcode.Code(err)
}
