// Package create is the glue of `kubectl indexed create`: it binds flags, reads the shard
// manifest, builds the objects with pkg/scaffold, lints the Job and sends both objects (the
// flags and the sending it shares with diff and retry are in pkg/cmd/jobflags).
package create

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/clientutil"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/jobflags"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/printcmd"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
)

var (
	createLong = templates.LongDesc(`
		Create an Indexed Job that runs one shard of a shard manifest per completion index,
		and the immutable ConfigMap that holds the shards.

		The ConfigMap is named from the manifest's name and content hash and mounted read-only
		at /etc/indexed in the worker container; the worker reads the cases of its shard from
		the file named by $INDEXED_SHARD_FILE (see "The worker contract" in docs/create.md). An
		existing ConfigMap with the same name and content is reused; one with other content is
		an error. An existing Job is never replaced.

		The Job: completions = number of shards; backoffLimitPerIndex (default 1) and no global
		backoffLimit, so one failing shard cannot take the others down; maxFailedIndexes
		(default half the shards); a podFailurePolicy that ignores disruptions (preemption,
		eviction) and fails an index at once when the worker exits with the invalid-input
		code (default 42); restartPolicy Never; no TTL, so the evidence stays. Before anything
		is sent the Job is linted: errors stop create, warnings are printed.

		Exit codes: 0 created (or printed); 2 bad flags, unreadable manifest or --from-job, or
		a Job that lint says the API server would reject; 4 the API server could not be
		reached or refused (the Job exists, a different ConfigMap has the name, permission
		denied).`)

	createExample = templates.Examples(`
		# Make a manifest of 8 shards from a list of case IDs, then run it
		kubectl indexed shards split --cases cases.txt --shards 8 --name eval-gsm8k --revision 1 > manifest.yaml
		kubectl indexed create eval-gsm8k-r1 --manifest manifest.yaml --image registry.example/eval:1.4 -- python -m eval

		# See what would be created, without sending anything
		kubectl indexed create eval-gsm8k-r1 --manifest manifest.yaml --image registry.example/eval:1.4 --dry-run=client -o yaml

		# Write the exact objects to a file, to create them later with kubectl create -f
		kubectl indexed create eval-gsm8k-r1 --manifest manifest.yaml --image registry.example/eval:1.4 --dry-run=client --save eval.yaml

		# Start from an existing Job (scheduling, volumes, sidecars are kept)
		kubectl indexed create eval-gsm8k-r2 --manifest manifest.yaml --from-job job.yaml --parallelism 4

		# Submit through Kueue: created suspended in LocalQueue team-a, admitted when its quota frees
		kubectl indexed create eval-gsm8k-r3 --manifest manifest.yaml --image registry.example/eval:1.4 --requests cpu=1 --queue team-a --priority-class high`)
)

// Options of kubectl indexed create.
type Options struct {
	Scaffold *jobflags.ScaffoldFlags

	JobName string
	Command []string
	// EnforceNamespace is true when the namespace was given with -n (a --from-job object in
	// another namespace is then an error, as with kubectl create -f).
	EnforceNamespace bool

	// Submitter lints, saves, prints and sends the objects (namespace, dry run, client,
	// printers and streams).
	jobflags.Submitter

	// build is what Complete resolved from the flags and the files they name: the inputs of
	// scaffold.Build, with the namespace the objects go to. Run only reads it.
	build scaffold.Options
}

// NewOptions returns the options with their defaults.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{
		Scaffold:  jobflags.NewScaffoldFlags(),
		Submitter: jobflags.NewSubmitter("create", createPermissions, streams),
	}
}

// NewCmdCreate returns `kubectl indexed create`.
func NewCmdCreate(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newCmd(f, NewOptions(streams))
}

func newCmd(f cmdutil.Factory, o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "create JOB_NAME --manifest FILE --image IMAGE [flags] -- [COMMAND] [ARGS...]",
		DisableFlagsInUseLine: true,
		Short:                 "Create an Indexed Job and its immutable shard ConfigMap from a shard manifest",
		Long:                  createLong,
		Example:               createExample,
		Args:                  cobra.ArbitraryArgs,
		ValidArgsFunction:     cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(f, cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	jobflags.AddScaffoldFlags(cmd.Flags(), o.Scaffold)
	jobflags.AddLintTextFlags(cmd.Flags(), &o.LintText)
	o.AddFlags(cmd)
	cmd.Flags().StringVar(&o.SaveFile, "save", o.SaveFile, "Also write the exact objects (a v1 List of the ConfigMap and the Job) to this file once they were printed or created (nothing is written when create fails), for kubectl create -f later. An existing file is never overwritten; - is refused.")
	cmd.Flags().BoolVar(&o.SaveConfig, "save-config", o.SaveConfig, "Record the objects in the kubectl.kubernetes.io/last-applied-configuration annotation, as kubectl create --save-config does, so that kubectl apply can update them later.")
	for _, name := range []string{jobflags.FlagManifest, jobflags.FlagFromJob, "save"} {
		_ = cmd.MarkFlagFilename(name, "yaml", "yml", "json")
	}
	return cmd
}

// Complete resolves the arguments, the dry-run strategy, the client, and (reading the files
// the flags name) the objects' inputs and their namespace.
func (o *Options) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	names := args
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		names, o.Command = args[:dash], args[dash:]
	}
	switch {
	case len(names) == 0:
		return exitcode.UsageError("a Job name is required: %s JOB_NAME --manifest FILE --image IMAGE -- COMMAND", cmd.CommandPath())
	case len(names) > 1:
		return exitcode.UsageError("exactly one Job name is required, got %d (%s); put the worker's command after --", len(names), strings.Join(names, " "))
	}
	o.JobName = names[0]
	o.Conn = printcmd.FromCommand(cmd)

	if err := o.CompleteDryRun(cmd); err != nil {
		return err
	}
	var err error
	if o.Namespace == "" {
		if o.Namespace, o.EnforceNamespace, err = f.ToRawKubeConfigLoader().Namespace(); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	if err := clientutil.CheckNamespace(o.Namespace); err != nil {
		return err
	}
	if o.Client == nil && o.DryRun != cmdutil.DryRunClient {
		cfg, err := f.ToRESTConfig()
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		if o.Client, err = clientutil.NewClientset(cfg); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	return o.resolve()
}

// resolve reads the files the flags name (the manifest, --from-job) and settles, once, the
// namespace the objects go to: a --from-job object's own namespace wins unless -n was given,
// and then it must agree.
func (o *Options) resolve() error {
	opts, err := o.Scaffold.ToOptions(o.JobName, o.Namespace, o.Command, o.In)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	if opts.Base != nil && opts.Base.Namespace != "" && opts.Base.Namespace != o.Namespace {
		if o.EnforceNamespace {
			return exitcode.UsageError("--from-job %s is in namespace %q, but the namespace given is %q: remove metadata.namespace from the file or give -n %s",
				opts.BaseSource, opts.Base.Namespace, o.Namespace, opts.Base.Namespace)
		}
		opts.Namespace = opts.Base.Namespace
		o.Namespace = opts.Base.Namespace
	}
	o.build = opts
	return nil
}

// Validate checks the flags that need no file or cluster (a missing --manifest is refused
// by Complete, which reads it).
func (o *Options) Validate() error {
	if o.FieldManager == "" {
		return exitcode.UsageError("--field-manager must not be empty")
	}
	return nil
}

// Run builds the objects from what Complete resolved, lints the Job, and prints, saves or sends
// them. It changes nothing in o.
func (o *Options) Run(ctx context.Context) error {
	objs, err := scaffold.Build(o.build)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	for _, n := range objs.Notes {
		_, _ = fmt.Fprintf(o.ErrOut, "Note: %s\n", n)
	}
	return o.Submit(ctx, objs)
}

// createPermissions is what create needs, added to a permission error.
const createPermissions = "kubectl indexed create needs get and create on configmaps and on jobs (batch) in the namespace"
