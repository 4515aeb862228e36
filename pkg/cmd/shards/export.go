package shards

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
)

// ExportOptions are the flags of `shards export`.
type ExportOptions struct {
	File        string
	To          string
	Concurrency int
	HubRef      string
	PathRef     string
	PrintFlags  output.PrintFlags
	genericiooptions.IOStreams
}

func newCmdExport(streams genericiooptions.IOStreams) *cobra.Command {
	o := &ExportOptions{IOStreams: streams, PrintFlags: output.PrintFlags{Default: output.FormatYAML, Subject: "the Polyaxon operation (V1Operation)"}}
	cmd := &cobra.Command{
		Use:   "export MANIFEST --to polyaxon [--concurrency N] [--path-ref FILE | --hub-ref NAME]",
		Short: "Print a shard manifest as an orchestrator's fan-out: a Polyaxon operation with one run per shard",
		Long: templates.LongDesc(`
			Print the shard manifest as the work of another orchestrator, the other boundary
			to a native Indexed Job (kubectl indexed create).

			--to polyaxon prints a Polyaxon operation (V1Operation) whose matrix is a mapping
			(V1Mapping, kind: mapping) with one value per shard, in completion-index order:
			shard_index, shard_id, manifest, revision and manifest_hash, the same values a
			worker of the Indexed Job reads from its environment, so that it writes the same
			receipts and kubectl indexed reconcile checks either. --concurrency is the
			mapping's concurrency; the component each run executes is --path-ref (a
			polyaxonfile) or --hub-ref.

			Exit codes: 0 printed; 2 an invalid manifest or flags.`),
		Example: templates.Examples(`
			# One Polyaxon run per shard, 20 at a time, running the component in worker.yaml
			kubectl indexed shards export manifest.yaml --to polyaxon --concurrency 20 --path-ref worker.yaml > fanout.yaml
			polyaxon run -f fanout.yaml`),
		Args: exactlyOneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			return o.Run()
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.To, "to", "", "The orchestrator to export to: polyaxon.")
	fl.IntVar(&o.Concurrency, "concurrency", 0, "Runs at once (the mapping's concurrency), 1 to the number of shards; 0 leaves it to Polyaxon.")
	fl.StringVar(&o.PathRef, "path-ref", "", "Polyaxon: the component each run executes, as a polyaxonfile path (pathRef).")
	fl.StringVar(&o.HubRef, "hub-ref", "", "Polyaxon: the component each run executes, from the component hub (hubRef).")
	o.PrintFlags.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("to", cobra.FixedCompletions([]string{"polyaxon"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.MarkFlagsMutuallyExclusive("path-ref", "hub-ref")
	return cmd
}

// Run reads the manifest and prints the operation.
func (o *ExportOptions) Run() error {
	if o.To != "polyaxon" {
		return exitcode.UsageError("--to: %q is not an orchestrator shards export knows; use --to polyaxon", o.To)
	}
	if err := o.PrintFlags.Complete(); err != nil {
		return err
	}
	m, err := shards.Read(o.File, o.In)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	op, err := shards.PolyaxonExport(m, shards.PolyaxonOptions{Concurrency: o.Concurrency, HubRef: o.HubRef, PathRef: o.PathRef})
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	// The operation is YAML for Polyaxon; the default text is that YAML too.
	return o.PrintFlags.Print(o.Out, op, func(string) error { return output.PrintStructured(o.Out, output.FormatYAML, op) })
}
