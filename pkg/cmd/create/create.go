package create

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/scheme"
	"k8s.io/kubectl/pkg/util"
	"k8s.io/kubectl/pkg/util/templates"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
)

// DefaultFieldManager is the field manager of the objects create writes.
const DefaultFieldManager = "kubectl-indexed"

var (
	createLong = templates.LongDesc(`
		Create an Indexed Job that runs one shard of a shard manifest per completion index,
		and the immutable ConfigMap that holds the shards.

		The ConfigMap is named from the manifest's name and content hash and mounted read-only
		at /etc/indexed in the worker container; the worker reads the cases of its shard from
		the file named by $INDEXED_SHARD_FILE (see "The worker contract" in the README). An
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

		# Write the exact objects to a file, to apply them later with kubectl apply -f
		kubectl indexed create eval-gsm8k-r1 --manifest manifest.yaml --image registry.example/eval:1.4 --dry-run=client --save eval.yaml

		# Start from an existing Job (scheduling, volumes, sidecars are kept)
		kubectl indexed create eval-gsm8k-r2 --manifest manifest.yaml --from-job job.yaml --parallelism 4`)
)

// Options of kubectl indexed create.
type Options struct {
	Scaffold     *ScaffoldFlags
	PrintFlags   *genericclioptions.PrintFlags
	FieldManager string
	SaveFile     string
	SaveConfig   bool

	JobName   string
	Command   []string
	Namespace string
	// EnforceNamespace is true when the namespace was given with -n (a --from-job object in
	// another namespace is then an error, as with kubectl create -f).
	EnforceNamespace bool
	DryRun           cmdutil.DryRunStrategy

	// Client talks to the API server; set by Complete (or by tests).
	Client kubernetes.Interface

	genericiooptions.IOStreams
}

// NewOptions returns the options with their defaults.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{
		Scaffold:     NewScaffoldFlags(),
		PrintFlags:   genericclioptions.NewPrintFlags("created").WithTypeSetter(scheme.Scheme),
		FieldManager: DefaultFieldManager,
		IOStreams:    streams,
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
	AddScaffoldFlags(cmd.Flags(), o.Scaffold)
	o.PrintFlags.AddFlags(cmd)
	cmdutil.AddDryRunFlag(cmd)
	cmdutil.AddFieldManagerFlagVar(cmd, &o.FieldManager, DefaultFieldManager)
	cmd.Flags().StringVar(&o.SaveFile, "save", o.SaveFile, "Also write the exact objects (a v1 List of the ConfigMap and the Job) to this file, for kubectl apply -f later. An existing file is never overwritten.")
	cmd.Flags().BoolVar(&o.SaveConfig, "save-config", o.SaveConfig, "Record the objects in the kubectl.kubernetes.io/last-applied-configuration annotation, as kubectl create --save-config does, so that kubectl apply can update them later.")
	for _, name := range []string{FlagManifest, FlagFromJob, "save"} {
		_ = cmd.MarkFlagFilename(name, "yaml", "yml", "json")
	}
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return o.PrintFlags.AllowedFormats(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("dry-run", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"none", "client", "server"}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// Complete resolves the arguments, the namespace, the dry-run strategy and the client.
func (o *Options) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	dash := cmd.ArgsLenAtDash()
	names := args
	if dash >= 0 {
		names, o.Command = args[:dash], args[dash:]
	}
	switch {
	case len(names) == 0:
		return exitcode.UsageError("a Job name is required: %s JOB_NAME --manifest FILE --image IMAGE -- COMMAND", cmd.CommandPath())
	case len(names) > 1:
		return exitcode.UsageError("exactly one Job name is required, got %d (%s); put the worker's command after --", len(names), strings.Join(names, " "))
	}
	o.JobName = names[0]

	var err error
	if o.DryRun, err = cmdutil.GetDryRunStrategy(cmd); err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	cmdutil.PrintFlagsWithDryRunStrategy(o.PrintFlags, o.DryRun)
	if o.Namespace == "" {
		if o.Namespace, o.EnforceNamespace, err = f.ToRawKubeConfigLoader().Namespace(); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	if o.Client == nil && o.DryRun != cmdutil.DryRunClient {
		if o.Client, err = f.KubernetesClientSet(); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	return nil
}

// Validate checks the flags that need no file or cluster.
func (o *Options) Validate() error {
	if o.Scaffold.Manifest == "" {
		return exitcode.UsageError("--%s is required: the shard manifest (make one with 'kubectl indexed shards split')", FlagManifest)
	}
	if o.FieldManager == "" {
		return exitcode.UsageError("--field-manager must not be empty")
	}
	if _, err := o.PrintFlags.ToPrinter(); err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return nil
}

// Run builds the objects, lints the Job, and prints, saves or sends them.
func (o *Options) Run(ctx context.Context) error {
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
	objs, err := scaffold.Build(opts)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	if err := o.lint(objs.Job); err != nil {
		return err
	}
	if o.SaveConfig {
		for _, obj := range []runtime.Object{objs.ConfigMap, objs.Job} {
			if err := util.CreateOrUpdateAnnotation(true, obj, scheme.DefaultJSONEncoder()); err != nil {
				return err
			}
		}
	}
	if o.SaveFile != "" {
		if err := o.save(objs); err != nil {
			return err
		}
	}
	if o.DryRun == cmdutil.DryRunClient {
		return o.print(objs.ConfigMap, "created", objs.Job, "created")
	}
	return o.send(ctx, objs)
}

// lint runs the linter on the Job: errors abort, warnings go to ErrOut.
func (o *Options) lint(job *batchv1.Job) error {
	findings := lint.CheckJob(job, lint.Options{MinSeverity: lint.SeverityWarning})
	var errs []string
	for _, f := range findings {
		switch f.Severity {
		case lint.SeverityError:
			errs = append(errs, f.Message)
		case lint.SeverityWarning:
			where := ""
			if f.Path != "" {
				where = f.Path + ": "
			}
			_, _ = fmt.Fprintf(o.ErrOut, "Warning: job %q: %s%s [%s]\n", job.Name, where, f.Message, f.Rule)
		}
	}
	if len(errs) > 0 {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("job %q would be rejected by the API server, nothing was sent:\n  %s", job.Name, strings.Join(errs, "\n  ")))
	}
	return nil
}

// list wraps the objects in a v1 List, as kubectl get prints several objects.
func list(objs ...runtime.Object) *corev1.List {
	l := &corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for _, obj := range objs {
		l.Items = append(l.Items, runtime.RawExtension{Object: obj})
	}
	return l
}

// save writes the List to --save as YAML, never over an existing file.
func (o *Options) save(objs *scaffold.Objects) error {
	b, err := yaml.Marshal(list(objs.ConfigMap, objs.Job))
	if err != nil {
		return err
	}
	f, err := os.OpenFile(o.SaveFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return exitcode.UsageError("--save %s: the file exists; it is never overwritten: remove it or choose another name", o.SaveFile)
		}
		return exitcode.UsageError("--save: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return exitcode.UsageError("--save %s: %w", o.SaveFile, err)
	}
	if err := f.Close(); err != nil {
		return exitcode.UsageError("--save %s: %w", o.SaveFile, err)
	}
	_, _ = fmt.Fprintf(o.ErrOut, "saved the ConfigMap and the Job to %s (kubectl apply -f %s creates them)\n", o.SaveFile, o.SaveFile)
	return nil
}

// print writes the objects: with -o as one v1 List, otherwise one "kind/name operation" line
// each, as kubectl create does.
func (o *Options) print(cm runtime.Object, cmOp string, job runtime.Object, jobOp string) error {
	setKinds(cm, job)
	if o.PrintFlags.OutputFlagSpecified() {
		p, err := o.PrintFlags.ToPrinter()
		if err != nil {
			return err
		}
		if *o.PrintFlags.OutputFormat == "name" {
			// The name printer takes no List.
			for _, obj := range []runtime.Object{cm, job} {
				if err := p.PrintObj(obj, o.Out); err != nil {
					return err
				}
			}
			return nil
		}
		return p.PrintObj(list(cm, job), o.Out)
	}
	suffix := ""
	switch o.DryRun {
	case cmdutil.DryRunClient:
		suffix = " (dry run)"
	case cmdutil.DryRunServer:
		suffix = " (server dry run)"
	}
	for _, it := range []struct {
		obj runtime.Object
		op  string
	}{{cm, cmOp}, {job, jobOp}} {
		p := &printers.NamePrinter{Operation: it.op + suffix}
		if err := p.PrintObj(it.obj, o.Out); err != nil {
			return err
		}
	}
	return nil
}

// setKinds fills in apiVersion and kind, which objects returned by a typed client lack.
func setKinds(objs ...runtime.Object) {
	for _, obj := range objs {
		switch x := obj.(type) {
		case *corev1.ConfigMap:
			x.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
		case *batchv1.Job:
			x.TypeMeta = metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}
		}
	}
}

// send creates the ConfigMap (or reuses an identical one) and then the Job, never replacing
// an existing object. With --dry-run=server nothing is persisted, but every check runs.
func (o *Options) send(ctx context.Context, objs *scaffold.Objects) error {
	ns, jobName, cmName := o.Namespace, objs.Job.Name, objs.ConfigMap.Name
	create := metav1.CreateOptions{FieldManager: o.FieldManager, FieldValidation: metav1.FieldValidationStrict}
	if o.DryRun == cmdutil.DryRunServer {
		create.DryRun = []string{metav1.DryRunAll}
	}

	// An existing Job is never touched.
	if _, err := o.Client.BatchV1().Jobs(ns).Get(ctx, jobName, metav1.GetOptions{}); err == nil {
		return o.jobExists(jobName)
	} else if !apierrors.IsNotFound(err) {
		return permissionHint(exitcode.APIError(err, "get", "jobs", jobName, ns))
	}

	// The ConfigMap: reuse an identical one, refuse a different one.
	cm, cmOp, err := o.ensureConfigMap(ctx, objs.ConfigMap, create)
	if err != nil {
		return err
	}
	createdCM := cmOp == "created" && o.DryRun != cmdutil.DryRunServer

	job, err := o.Client.BatchV1().Jobs(ns).Create(ctx, objs.Job, create)
	if err != nil {
		var why error
		if apierrors.IsAlreadyExists(err) {
			why = o.jobExists(jobName)
		} else {
			why = permissionHint(exitcode.APIError(err, "create", "jobs", jobName, ns))
		}
		if !createdCM {
			return why
		}
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\nconfigmap %q was created in namespace %q but job %q was not: the ConfigMap is left behind. It is immutable and named from the manifest's hash, so a later create with the same manifest reuses it; to remove it: kubectl delete configmap %s -n %s",
			why, cmName, ns, jobName, cmName, ns))
	}
	return o.print(cm, cmOp, job, "created")
}

// ensureConfigMap creates want, or returns an existing ConfigMap of that name when it has the
// same content. The operation is "created" or "unchanged".
func (o *Options) ensureConfigMap(ctx context.Context, want *corev1.ConfigMap, create metav1.CreateOptions) (*corev1.ConfigMap, string, error) {
	ns, name := want.Namespace, want.Name
	cms := o.Client.CoreV1().ConfigMaps(ns)
	existing, err := cms.Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		return o.reuse(existing, want)
	case !apierrors.IsNotFound(err):
		return nil, "", permissionHint(exitcode.APIError(err, "get", "configmaps", name, ns))
	}
	got, err := cms.Create(ctx, want, create)
	if apierrors.IsAlreadyExists(err) {
		// Created by someone else since we looked.
		if existing, err = cms.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return nil, "", permissionHint(exitcode.APIError(err, "get", "configmaps", name, ns))
		}
		return o.reuse(existing, want)
	}
	if err != nil {
		return nil, "", permissionHint(exitcode.APIError(err, "create", "configmaps", name, ns))
	}
	return got, "created", nil
}

func (o *Options) reuse(existing, want *corev1.ConfigMap) (*corev1.ConfigMap, string, error) {
	if d := scaffold.Difference(existing, want); d != "" {
		return nil, "", exitcode.Wrap(exitcode.Cluster, fmt.Errorf(
			"configmap %q already exists in namespace %q with different content (%s): it was not made from this manifest by kubectl indexed, or it was changed; nothing was created. Look at it with: kubectl get configmap %s -n %s -o yaml; delete it if nothing uses it, or give the manifest another metadata.name",
			want.Name, want.Namespace, d, want.Name, want.Namespace))
	}
	return existing, "unchanged", nil
}

func (o *Options) jobExists(name string) error {
	ns := o.Namespace
	return exitcode.Wrap(exitcode.Cluster, fmt.Errorf(
		"job %q already exists in namespace %q and kubectl indexed create never replaces a Job: nothing was created\n  see how it ran:                     kubectl indexed status %s -n %s\n  see what this create would change: kubectl indexed diff %s -n %s (with the same --manifest and flags)\n  or choose another Job name",
		name, ns, name, ns, name, ns))
}

// permissionHint adds, to a permission error, everything create needs.
func permissionHint(err error) error {
	var e *exitcode.Error
	if errors.As(err, &e) && e.Err != nil && strings.HasPrefix(e.Err.Error(), "permission denied") {
		return exitcode.Wrap(e.Code, fmt.Errorf("%w\nkubectl indexed create needs get and create on configmaps and on jobs (batch) in the namespace", e.Err))
	}
	return err
}
