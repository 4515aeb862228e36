// Package version implements `kubectl indexed version`.
package version

import (
	"cmp"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	buildinfo "github.com/kubectl-indexed/kubectl-indexed/pkg/version"
)

var example = templates.Examples(`
	# Print the plugin version
	kubectl indexed version

	# Print every build detail as JSON
	kubectl indexed version -o json`)

// Options holds the flags of the version command.
type Options struct {
	PrintFlags output.PrintFlags
	Client     bool
	genericiooptions.IOStreams
}

// NewCmdVersion returns the version command.
func NewCmdVersion(streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{IOStreams: streams}
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print the version of kubectl indexed",
		Long:    "Print the version, commit and build date of this kubectl indexed binary. It does not contact any cluster.",
		Example: example,
		Args:    cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	o.PrintFlags.Subject = "every build detail"
	o.PrintFlags.AddFlags(cmd)
	// As kubectl version --client: the plugin has no server part, so the output is the same.
	cmd.Flags().BoolVar(&o.Client, "client", false, "Print the client version only (kubectl version habit; kubectl indexed never contacts a cluster for its version).")
	return cmd
}

// Validate checks the flags.
func (o *Options) Validate() error { return o.PrintFlags.Complete() }

// Run prints the version.
func (o *Options) Run() error {
	info := buildinfo.Get()
	return o.PrintFlags.Print(o.Out, info, func(string) error { return o.printText(info) })
}

func (o *Options) printText(info buildinfo.Info) error {
	commit := info.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	_, err := fmt.Fprintf(o.Out, "kubectl-indexed %s (commit %s, built %s, %s, %s)\n",
		info.Version, cmp.Or(commit, "unknown"), cmp.Or(info.Date, "unknown"), info.GoVersion, info.Platform)
	return err
}
