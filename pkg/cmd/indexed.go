// Package cmd assembles the kubectl indexed command tree. It holds cobra glue only; the logic
// lives in the domain packages under pkg/.
package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/namecompletion"
	cmdreconcile "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/reconcile"
	cmdretry "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/retry"
	cmdshards "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/shards"
	cmdsimulate "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/simulate"
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
	configFlags := genericclioptions.NewConfigFlags(true).WithDiscoveryBurst(300).WithDiscoveryQPS(50.0)

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
	root.SetFlagErrorFunc(exitcode.FlagError)

	flags := root.PersistentFlags()
	configFlags.AddFlags(flags)
	f := cmdutil.NewFactory(cmdutil.NewMatchVersionFlags(configFlags))
	registerFlagCompletions(root, f)

	root.AddCommand(version.NewCmdVersion(streams))
	root.AddCommand(cmddiff.NewCmdDiff(f, streams))
	root.AddCommand(create.NewCmdCreate(f, streams))
	root.AddCommand(cmdshards.NewCmdShards(streams))
	root.AddCommand(cmdcompletion.NewCmdCompletion(streams))
	root.AddCommand(cmdlint.NewCmdLint(streams))
	root.AddCommand(cmdstatus.NewCmdStatus(f, streams))
	root.AddCommand(cmdretry.NewCmdRetry(f, streams))
	root.AddCommand(cmdreconcile.NewCmdReconcile(f, streams))
	root.AddCommand(cmdsimulate.NewCmdSimulate(streams))
	root.AddCommand(cmdlogs.NewCmdLogs(f, streams))
	root.AddCommand(cmdlist.NewCmdList(f, streams))
	root.AddCommand(newCmdOptions(streams))
	// The global flags are listed once, in "kubectl indexed options", instead of on every help
	// page, as kubectl does ("kubectl options").
	root.SetUsageTemplate(usageTemplate)
	root.SetHelpTemplate(helpTemplate)

	return root
}

// OptionsHint ends the help of the root and of every verb, as kubectl's does ("kubectl
// options"): the global flags are listed once, by "kubectl indexed options".
const OptionsHint = `Use "kubectl indexed options" for a list of global command-line options (applies to all commands).`

// usageTemplate is cobra's usage template with two changes, as kubectl's templates
// (k8s.io/kubectl/pkg/util/templates) make them: the global (kubeconfig) flags, which are the
// root's persistent flags, are listed by "kubectl indexed options" only, not under "Flags" of
// the root or "Global Flags" of every verb; and every page ends with OptionsHint.
const usageTemplate = `Usage:{{if .Runnable}}
{{wrapUse .UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example | wrapExample}}{{end}}{{with longRest .Long}}

{{. | wrapProse}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{wrapShort .Short (add .NamePadding 3)}}{{end}}{{end}}{{end}}{{$flags := .LocalNonPersistentFlags}}{{if $flags.HasAvailableFlags}}

Flags:
{{wrapFlags $flags | trimTrailingWhitespaces}}{{end}}{{if .HasHelpSubCommands}}

Additional help topics:{{range .Commands}}{{if .IsAdditionalHelpTopicCommand}}
  {{rpad .CommandPath .CommandPathPadding}} {{wrapShort .Short (add .CommandPathPadding 3)}}{{end}}{{end}}{{end}}{{if .HasAvailableSubCommands}}

{{wrapProse (printf "Use \"%s [command] --help\" for more information about a command." .CommandPath)}}{{end}}

{{optionsHint}}
`

// newCmdOptions prints the global flags, as "kubectl options".
func newCmdOptions(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "options",
		Short: "Print the global command-line options (kubeconfig, context, namespace, ...), which apply to every command",
		Example: templates.Examples(`
			# The flags every command takes
			kubectl indexed options`),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(streams.Out, "The following options can be passed to any command:\n\n%s", cmd.Root().PersistentFlags().FlagUsagesWrapped(HelpWidth))
			return err
		},
	}
}

// missingKubeconfig names the files of $KUBECONFIG that do not exist when none does and no
// --kubeconfig was given: client-go then silently falls back to an empty configuration (and
// http://localhost:8080), and the error would not say why.
func missingKubeconfig(root *cobra.Command) string {
	if fl := root.PersistentFlags().Lookup("kubeconfig"); fl != nil && fl.Value.String() != "" {
		return ""
	}
	var missing []string
	for _, p := range filepath.SplitList(os.Getenv("KUBECONFIG")) {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return ""
		}
		missing = append(missing, p)
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("\n(KUBECONFIG names %s, which does not exist: no kubeconfig was read)", strings.Join(missing, ", "))
}

// registerFlagCompletions completes the kubeconfig flags as kubectl does.
func registerFlagCompletions(root *cobra.Command, f cmdutil.Factory) {
	for flag, fn := range map[string]cobra.CompletionFunc{
		"namespace": namecompletion.Namespaces(f),
		"context":   namecompletion.KubeconfigNames(f, "context"),
		"cluster":   namecompletion.KubeconfigNames(f, "cluster"),
		"user":      namecompletion.KubeconfigNames(f, "user"),
	} {
		_ = root.RegisterFlagCompletionFunc(flag, fn)
	}
}

// Execute runs root and returns the process exit code, printing any error to stderr
// (exitcode.Report, which the command tests go through too).
func Execute(ctx context.Context, root *cobra.Command, streams genericiooptions.IOStreams) int {
	return exitcode.Report(streams.ErrOut, root.ExecuteContext(ctx), func(err error) string {
		if code := exitcode.Code(err); code == exitcode.Cluster || code == exitcode.Usage && strings.Contains(exitcode.Message(err), "kubeconfig") {
			return missingKubeconfig(root)
		}
		return ""
	})
}
