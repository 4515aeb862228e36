// Package completion implements `kubectl indexed completion SHELL`.
//
// It replaces cobra's default completion command, whose scripts and help name the root
// command ("indexed"), a program that does not exist: the executable is kubectl-indexed, and
// `kubectl indexed <TAB>` is completed by kubectl itself through kubectl_complete-indexed.
package completion

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// ProgramName is the executable the generated scripts complete.
const ProgramName = "kubectl-indexed"

// Shells are the shells a script can be printed for.
var Shells = []string{"bash", "zsh", "fish", "powershell"}

var long = templates.LongDesc(`
	Print the shell completion script for the kubectl-indexed executable.

	Pressing TAB after "kubectl indexed " is handled by kubectl itself (1.26 and later): it
	runs the executable kubectl_complete-indexed from PATH. That executable ships next to
	kubectl-indexed in every release archive and "make install" installs it; krew does not
	put it on PATH, so link or copy it there once (see docs/completion.md). kubectl's own completion
	must be loaded too (kubectl completion bash, zsh, fish or powershell).

	The script this command prints completes the executable run directly, as
	"kubectl-indexed ".

	Both complete verbs, flags, flag values such as output formats, and the names of Jobs in
	the namespace and cluster of the current context.

	Exit codes: 0 the script was printed; 2 no shell or an unknown shell was given.`)

var example = templates.Examples(`
	# Complete kubectl-indexed in the current bash session (needs the bash-completion package)
	source <(kubectl indexed completion bash)

	# ... and in every new bash session
	kubectl indexed completion bash > ~/.local/share/bash-completion/completions/kubectl-indexed

	# zsh (with compinit loaded)
	kubectl indexed completion zsh > "${fpath[1]}/_kubectl-indexed"

	# fish
	kubectl indexed completion fish > ~/.config/fish/completions/kubectl-indexed.fish

	# PowerShell: add this line to your profile
	kubectl indexed completion powershell | Out-String | Invoke-Expression`)

// Options holds the flags of the completion command.
type Options struct {
	Shell          string
	NoDescriptions bool
	genericiooptions.IOStreams
}

// NewCmdCompletion returns the completion command.
func NewCmdCompletion(streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{IOStreams: streams}
	cmd := &cobra.Command{
		Use:                   "completion SHELL",
		DisableFlagsInUseLine: true,
		Short:                 "Print the shell completion script (bash, zsh, fish or powershell)",
		Long:                  long,
		Example:               example,
		ValidArgsFunction:     cobra.FixedCompletions(Shells, cobra.ShellCompDirectiveNoFileComp),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			return o.Run(cmd.Root())
		},
	}
	cmd.Flags().BoolVar(&o.NoDescriptions, "no-descriptions", false, "Complete without the descriptions of verbs and flags.")
	return cmd
}

// Complete takes the shell from the arguments.
func (o *Options) Complete(args []string) error {
	if len(args) != 1 {
		return exitcode.UsageError("completion needs exactly one shell (%s), got %d arguments", shellList, len(args))
	}
	o.Shell = args[0]
	return nil
}

// Run prints the script for root's command tree (Generate refuses a shell it does not know).
func (o *Options) Run(root *cobra.Command) error {
	return Generate(root, o.Shell, !o.NoDescriptions, o.Out)
}

// Generate writes the completion script of root's tree, as the program kubectl-indexed, for
// shell. Cobra names the script's functions and the command it registers for after the root
// command, which is "indexed" (so that help reads "kubectl indexed"); the root is renamed to
// the executable's name while the script is generated.
func Generate(root *cobra.Command, shell string, descriptions bool, w io.Writer) error {
	use := root.Use
	root.Use = ProgramName
	defer func() { root.Use = use }()

	var err error
	switch shell {
	case "bash":
		err = root.GenBashCompletionV2(w, descriptions)
	case "zsh":
		if descriptions {
			err = root.GenZshCompletion(w)
		} else {
			err = root.GenZshCompletionNoDesc(w)
		}
	case "fish":
		err = root.GenFishCompletion(w, descriptions)
	case "powershell":
		if descriptions {
			err = root.GenPowerShellCompletionWithDesc(w)
		} else {
			err = root.GenPowerShellCompletion(w)
		}
	default:
		return exitcode.UsageError("unknown shell %q: use one of %s", shell, shellList)
	}
	if err != nil {
		return fmt.Errorf("writing the %s completion script: %w", shell, err)
	}
	return nil
}

// shellList names Shells in messages.
const shellList = "bash, zsh, fish or powershell"
