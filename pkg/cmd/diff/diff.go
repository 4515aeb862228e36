// Package diff is the glue of `kubectl indexed diff`: it reads the live Job (from the cluster or
// a file) and the desired one (a manifest, the List `create --dry-run=client -o yaml` prints,
// or create's own flags), asks pkg/jobdiff what differs and what it takes, optionally confirms
// that with server-side dry-run updates, and prints the report.
package diff

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"
	"k8s.io/utils/clock"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/clientutil"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/jobflags"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/jobref"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/namecompletion"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/onceflag"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/printcmd"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobdiff"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/simulate"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

var (
	long = templates.LongDesc(`
		Compare a running Job with the Job you want, and say for each difference what it takes:
		patchable live (the API server takes it on the running Job), conditional (only while
		the Job is suspended, or only in tandem with another field; the condition is named,
		with whether it holds now), or a new Job (the field is immutable).

		Only what you control is compared (server defaults, generated labels, status and
		metadata are left out). The report warns about the prepare-db mode and about changes
		that would not take effect or would end the Job, and ends with a plan whose commands run
		as printed: a kubectl patch for what the running Job takes, then a new Job for the rest.
		diff only reads; kubectl indexed never deletes a Job.

		The desired Job comes from -f: a Job manifest, or the List that 'kubectl indexed create
		... --dry-run=client -o yaml' prints (its Job is used). Or give create's own flags
		(--manifest, --image, ... -- COMMAND) to see what would change if you re-ran create.
		With --live-file the live Job is read from a file too (kubectl get job -o yaml): no
		cluster is contacted, and the Job is judged at the time it was saved, or at --now.

		--server-dry-run confirms the classification with dry-run updates of the live Job
		(docs/diff.md says which; --server, -s, is the API server's address, as on every verb).

		Exit codes (as kubectl diff): 0 no differences; 1 differences; 2 bad flags or
		unreadable input; 4 the API server could not be reached or refused the request.`)

	example = templates.Examples(`
		# What differs from the running Job, and what can change live (the name can
		# come from the manifest: kubectl indexed diff -f job.yaml)
		kubectl indexed diff eval-gsm8k -f job.yaml

		# What would change if create were run again with other flags
		kubectl indexed diff eval-gsm8k-r1 --manifest manifest.yaml --image registry.example/eval:1.5 -- python -m eval

		# Compare with what create printed
		kubectl indexed create eval-gsm8k-r1 --manifest manifest.yaml --image registry.example/eval:1.5 --dry-run=client -o yaml | kubectl indexed diff eval-gsm8k-r1 -f -

		# Offline: both sides from files
		kubectl get job eval-gsm8k -o yaml > live.yaml
		kubectl indexed diff --live-file live.yaml -f job.yaml

		# Confirm the classification with server-side dry-run updates; JSON report
		kubectl indexed diff eval-gsm8k -f job.yaml --server-dry-run -o json

		# Only the paths that need a new Job, or a row per difference
		kubectl indexed diff eval-gsm8k -f job.yaml -o jsonpath='{.differences[?(@.class=="NewJob")].path}'
		kubectl indexed diff eval-gsm8k -f job.yaml -o custom-columns=PATH:.path,CLASS:.class`)
)

// FlagServerDryRun confirms the classification with server-side dry-run updates. It is not
// "--server", which is the kubeconfig flag naming the API server on every verb (kubectl diff
// names its own option --server-side for the same reason).
const FlagServerDryRun = "server-dry-run"

// Options of kubectl indexed diff.
type Options struct {
	Filename string
	LiveFile string
	// ServerDryRun is --server-dry-run (not --server: that is the API server's address, a
	// connection flag of every verb).
	ServerDryRun bool
	PrintFlags   output.PrintFlags
	Scaffold     *jobflags.ScaffoldFlags

	JobName   string
	nameGiven bool
	Command   []string
	Namespace string
	// EnforceNamespace: the namespace was given with -n, so a desired Job in another
	// namespace is an error (as with kubectl diff -f).
	EnforceNamespace bool

	// Client talks to the API server (live mode); set by Complete, or by tests.
	Client kubernetes.Interface
	// Clock gives "now" for deadlines and TTLs, live.
	Clock clock.PassiveClock
	// Now is --now: offline, the time the live Job was saved (default: the newest time
	// written in it, indexstatus.CaptureTime); nowFlag is its text.
	Now     time.Time
	nowFlag string

	flags *pflag.FlagSet
	// conn are the connection flags given, carried into every command the plan prints.
	conn printcmd.Connection
	// desiredInList: -f held other objects next to the Job (create's List).
	desiredInList bool

	// Resolved once by Complete from the inputs, and only read by Run: the desired Job, the
	// create command that makes it under a new name (with create's flags) and, offline, the
	// live Job's file.
	desiredJob *batchv1.Job
	createCmd  string
	liveFile   *gather.File

	genericiooptions.IOStreams
}

// NewOptions returns the options with their defaults.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{Scaffold: jobflags.NewScaffoldFlags(), Clock: clock.RealClock{}, IOStreams: streams,
		PrintFlags: output.PrintFlags{Wide: true, Name: true, ItemsKey: "differences", Subject: "a JobDiff report (custom-columns: a row per difference); wide is the text not wrapped at 80 columns"}}
}

// NewCmdDiff returns `kubectl indexed diff`.
func NewCmdDiff(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return NewCmdDiffWithOptions(f, NewOptions(streams))
}

// NewCmdDiffWithOptions returns the command bound to o (tests inject a client and a clock).
func NewCmdDiffWithOptions(f cmdutil.Factory, o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "diff [JOB] (-f DESIRED | --manifest FILE [create flags] -- COMMAND) [--live-file LIVE [--now TIME]] [--server-dry-run] [-o wide|json|yaml|name|TEMPLATE]",
		DisableFlagsInUseLine: true,
		Short:                 "Compare a running Job with the desired one: what can change live, what needs a new Job",
		Long:                  long,
		Example:               example,
		Args:                  cobra.ArbitraryArgs,
		ValidArgsFunction:     namecompletion.JobNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Complete validates the flags (Validate) before it reads the inputs they name.
			if err := o.Complete(f, cmd, args); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fl := cmd.Flags()
	o.flags = fl
	onceflag.StringVarP(fl, &o.Filename, "filename", "f", "", "The desired Job: a Job manifest, or a List holding one Job (as create --dry-run=client -o yaml prints), or - for stdin.")
	onceflag.StringVarP(fl, &o.LiveFile, "live-file", "", "", "Offline: read the live Job from this file (kubectl get job -o json|yaml), or - for stdin, instead of the cluster.")
	fl.StringVar(&o.nowFlag, "now", "", "Offline: the time the live Job was saved (RFC 3339, e.g. 2026-03-01T12:00:00Z), for deadlines and TTLs. Default: the newest time written in it.")
	fl.BoolVar(&o.ServerDryRun, FlagServerDryRun, false, "Confirm the classification with server-side dry-run updates of the live Job (nothing is changed; needs permission to update the Job).")
	o.PrintFlags.AddFlags(cmd)
	jobflags.AddScaffoldFlags(fl, o.Scaffold)
	for _, name := range []string{"filename", "live-file", jobflags.FlagManifest, jobflags.FlagFromJob} {
		_ = cmd.MarkFlagFilename(name, "yaml", "yml", "json")
	}
	return cmd
}

func (o *Options) offline() bool     { return o.LiveFile != "" }
func (o *Options) createFlags() bool { return o.Scaffold.Manifest != "" }

// Complete resolves the Job name, the command after --, the namespace and, live, the client;
// then it reads the inputs (the desired Job, offline the live one), which may name the Job and
// its namespace.
func (o *Options) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	names := args
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		names, o.Command = args[:dash], args[dash:]
	}
	o.conn = printcmd.FromCommand(cmd)
	if err := checkServerFlag(cmd); err != nil {
		return err
	}
	switch len(names) {
	case 0:
	case 1:
		name, err := jobref.Name(names[0])
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		o.JobName, o.nameGiven = name, true
	default:
		return exitcode.UsageError("expected at most one Job name, got %d (%s); with create's flags, put the worker's command after --", len(names), strings.Join(names, " "))
	}
	switch {
	case o.Namespace != "":
	case o.offline():
		// Offline nothing is read from the kubeconfig, as with status -f: the namespace is
		// -n, else the files' (readInputs), else "default".
		if fl := cmd.Flags().Lookup("namespace"); fl != nil && fl.Changed {
			o.Namespace, o.EnforceNamespace = fl.Value.String(), true
		}
	default:
		var err error
		if o.Namespace, o.EnforceNamespace, err = clientutil.Namespace(f); err != nil {
			return err
		}
	}
	if !o.offline() && o.Client == nil {
		cfg, err := f.ToRESTConfig()
		if err == nil {
			o.Client, err = clientutil.NewClientset(cfg)
		}
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot make a client: %w", err))
		}
	}
	return o.readInputs()
}

// checkServerFlag refuses a --server value that is not an address but what a command line
// written for diff's former boolean --server leaves there: "true", "false", or the next
// flag ("--server -o json" reads -o as the address). --server is the kubeconfig flag.
func checkServerFlag(cmd *cobra.Command) error {
	fl := cmd.Flags().Lookup("server")
	if fl == nil || !fl.Changed {
		return nil
	}
	if v := fl.Value.String(); v == "true" || v == "false" || strings.HasPrefix(v, "-") {
		return exitcode.UsageError("--server %q is not an API server address: --server (-s) names the API server, as on every verb; to confirm the classification with server-side dry-run updates, give --%s", v, FlagServerDryRun)
	}
	return nil
}

// readInputs reads the desired Job and, offline, the live one, once the flags are known to be
// consistent (Validate: one input at most from standard input ...), and settles the namespace
// and the Job name from them.
func (o *Options) readInputs() error {
	if err := o.Validate(); err != nil {
		return err
	}
	var err error
	if o.desiredJob, o.createCmd, err = o.desired(); err != nil {
		return err
	}
	if o.offline() {
		if err := o.readLiveFile(); err != nil {
			return err
		}
		o.Namespace = cmp.Or(o.Namespace, metav1.NamespaceDefault)
	}
	return nil
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if err := o.PrintFlags.Complete(); err != nil {
		return err
	}
	switch {
	case o.Filename == "" && !o.createFlags():
		return exitcode.UsageError("give the desired Job with -f FILE, or create's flags (--manifest FILE --image IMAGE ... -- COMMAND)\nSee 'kubectl indexed diff --help' for usage.")
	case o.Filename != "" && o.createFlags():
		return exitcode.UsageError("give the desired Job either with -f or with create's flags (--manifest ...), not both")
	case o.Filename == "" && len(o.Command) > 0 && !o.createFlags():
		return exitcode.UsageError("a command after -- needs create's flags (--manifest ...)")
	case o.createFlags() && o.JobName == "":
		return exitcode.UsageError("with create's flags, give the Job name: kubectl indexed diff JOB --manifest FILE --image IMAGE -- COMMAND")
	case o.offline() && o.ServerDryRun:
		return exitcode.UsageError("--%s needs the live Job from the cluster: it cannot be used with --live-file", FlagServerDryRun)
	case !o.offline() && o.nowFlag != "":
		return exitcode.UsageError("--now needs --live-file: a live Job from the cluster is judged at the current time")
	}
	if o.nowFlag != "" {
		t, err := indexstatus.ParseTime(o.nowFlag)
		if err != nil {
			return exitcode.UsageError("--now %v", err)
		}
		o.Now = t
	}
	inputs := []string{o.Filename, o.LiveFile, o.Scaffold.Manifest, o.Scaffold.FromJob}
	if stdin := slices.DeleteFunc(inputs, func(p string) bool { return p != source.StdinName }); len(stdin) > 1 {
		return exitcode.UsageError("only one input can be - (standard input)")
	}
	if !o.offline() && o.JobName == "" && o.Filename == source.StdinName {
		return exitcode.UsageError("give the Job name when the desired Job comes from standard input")
	}
	return nil
}

// Run compares the Jobs Complete read (reading the live one from the cluster), confirms with
// the server if asked, and prints. It changes nothing in o.
func (o *Options) Run(ctx context.Context) error {
	desired, createCmd := o.desiredJob, o.createCmd
	live, err := o.live(ctx)
	if err != nil {
		return err
	}
	now := o.Clock.Now()
	if o.offline() {
		// A saved Job is judged at the time it was saved, as status -f does: not at the
		// wall clock's, which would see every deadline and TTL of an older file as due.
		// --now before the file's newest time is a usage error, as for status -f.
		if now, _, err = indexstatus.OfflineTime(o.Now, indexstatus.CaptureTime(live, nil), now); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	dopts := jobdiff.Options{Now: now, Namespace: o.Namespace, DesiredSource: o.Filename, CreateCommand: createCmd, DesiredInList: o.desiredInList,
		FromJobCreates: o.desiredInList && o.Filename != source.StdinName && jobflags.CreatableFromJob(o.Filename) == nil}
	report, err := jobdiff.Diff(live, desired, dopts)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	// Only a plan that creates a new Job needs a free name: look one up, and plan again.
	if report.NeedsNewJob() {
		dopts.NewName = o.freeName(ctx, live.Name)
		if createCmd != "" {
			dopts.CreateCommand = o.createCommand(dopts.NewName)
		}
		if report, err = jobdiff.Diff(live, desired, dopts); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	// The plan's kubectl commands run against the cluster this diff read, as the same user.
	for i := range report.Plan {
		for j, c := range report.Plan[i].Commands {
			report.Plan[i].Commands[j] = o.conn.Extend(c)
		}
	}
	if o.ServerDryRun && report.HasDifferences() {
		if err := o.confirm(ctx, live, report); err != nil {
			return err
		}
	}
	if err := o.print(report, now); err != nil {
		return err
	}
	if !o.PrintFlags.IsMachine() {
		o.printSimulateHint(report, live, desired)
	}
	if report.Server != nil && report.Server.Disagreements > 0 {
		_, _ = fmt.Fprintf(o.ErrOut, "error: the API server disagreed with %d of kubectl indexed's classifications (see the report): this is a bug in kubectl indexed, please report it\n",
			report.Server.Disagreements)
	}
	if report.HasDifferences() {
		return exitcode.Silent(exitcode.Findings)
	}
	return nil
}

// print writes the report: text (wrapped at 80 columns; -o wide does not wrap), json, yaml,
// name (the live Job, as kubectl get -o name prints it), or a template over the JobDiff
// report (custom-columns prints a row per difference).
func (o *Options) print(r *jobdiff.Report, now time.Time) error {
	return o.PrintFlags.Print(o.Out, r, func(format string) error {
		switch format {
		case output.FormatName:
			_, err := fmt.Fprintf(o.Out, "job.batch/%s\n", r.Job.Name)
			return err
		case output.FormatWide:
			return jobdiff.WriteTextWidth(o.Out, r, now, 0)
		}
		return jobdiff.WriteText(o.Out, r, now)
	})
}

// desired returns the desired Job, from -f or from create's flags; with create's flags also
// the create command that makes it under a new name.
func (o *Options) desired() (*batchv1.Job, string, error) {
	if o.createFlags() {
		opts, err := o.Scaffold.ToOptions(o.JobName, o.Namespace, o.Command, o.In)
		if err != nil {
			return nil, "", exitcode.Wrap(exitcode.Usage, err)
		}
		objs, err := scaffold.Build(opts)
		if err != nil {
			return nil, "", exitcode.Wrap(exitcode.Usage, err)
		}
		return objs.Job, o.createCommand(""), nil
	}
	job, err := o.readDesiredFile()
	if err != nil {
		return nil, "", err
	}
	if job.Namespace != "" && job.Namespace != o.Namespace {
		if o.EnforceNamespace {
			return nil, "", exitcode.UsageError("the desired Job %q is in namespace %q, but the namespace given is %q: remove metadata.namespace from %s or give -n %s",
				job.Name, job.Namespace, o.Namespace, o.Filename, job.Namespace)
		}
		o.Namespace = job.Namespace
	}
	if o.JobName == "" {
		if job.Name == "" {
			return nil, "", exitcode.UsageError("%s names no Job (metadata.name is empty): give the Job name as an argument", o.Filename)
		}
		o.JobName = job.Name
	}
	return job, "", nil
}

// readDesiredFile reads -f: one Job, or a List (or stream) holding one Job among other
// objects (create prints the shard ConfigMap next to the Job). With several Jobs, the one
// named JOB is used.
func (o *Options) readDesiredFile() (*batchv1.Job, error) {
	docs, err := source.Read([]string{o.Filename}, source.Options{Stdin: o.In})
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	var jobs []*source.Document
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			return nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("%s: %w", d.Location(), d.Err))
		}
		if d.Kind() == "Job" && strings.HasPrefix(d.APIVersion(), "batch/") {
			jobs = append(jobs, d)
		}
	}
	if len(jobs) > 1 && o.JobName != "" {
		jobs = slices.DeleteFunc(jobs, func(d *source.Document) bool { return d.Name() != o.JobName })
	}
	switch {
	case len(jobs) == 0 && o.JobName != "" && len(docs) > 0:
		return nil, exitcode.UsageError("%s holds no batch/v1 Job named %q", o.Filename, o.JobName)
	case len(jobs) == 0:
		return nil, exitcode.UsageError("%s holds no batch/v1 Job", o.Filename)
	case len(jobs) > 1:
		return nil, exitcode.UsageError("%s holds %d Jobs: give the name of the one to compare", o.Filename, len(jobs))
	}
	d := jobs[0]
	o.desiredInList = len(docs) > 1
	job := &batchv1.Job{}
	strict, err := d.DecodeStrict(job)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, fmt.Errorf("%s: %w", d.Location(), err))
	}
	for _, s := range strict {
		_, _ = fmt.Fprintf(o.ErrOut, "warning: %s: %s (the API server rejects unknown fields)\n", d.Location(), s)
	}
	return job, nil
}

// readLiveFile reads the live Job of --live-file: a Job alone (kubectl get job -o yaml), or the
// v1 List that create --save writes, whose ConfigMaps are left aside. Exactly one Job, whose
// namespace is then the one compared in.
func (o *Options) readLiveFile() error {
	f := &gather.File{Files: o.LiveFile, Stdin: o.In}
	if _, err := f.Read(o.LiveFile, "a Job (kubectl get job -o yaml, or the List create --save writes)", "Job", "ConfigMap"); err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("--live-file: %w", err))
	}
	switch {
	case len(f.JobList) == 0:
		return exitcode.UsageError("--live-file: %s: no Job found", o.LiveFile)
	case len(f.JobList) > 1:
		return exitcode.UsageError("--live-file: %s: holds more than one Job (%q and %q); give the live Job only", o.LiveFile, f.JobList[0].Name, f.JobList[1].Name)
	case o.nameGiven && o.JobName != f.JobList[0].Name:
		return exitcode.UsageError("--live-file %s holds Job %q, not %q", o.LiveFile, f.JobList[0].Name, o.JobName)
	}
	if ns := f.JobList[0].Namespace; ns != "" {
		o.Namespace = ns
	}
	o.liveFile = f
	return nil
}

// source is where the live Job is read: --live-file, else the cluster.
func (o *Options) source() gather.Source {
	if o.liveFile != nil {
		return o.liveFile
	}
	return &gather.Live{Client: o.Client, Namespace: o.Namespace}
}

// live returns the live Job: the one of --live-file, else the cluster's.
func (o *Options) live(ctx context.Context) (*batchv1.Job, error) {
	job, err := o.source().Job(ctx, o.JobName)
	if err != nil {
		return nil, exitcode.APIError(err, "get", "jobs", o.JobName, o.Namespace)
	}
	return job, nil
}

// confirm runs the report's probes as server-side dry-run updates of the live Job.
func (o *Options) confirm(ctx context.Context, live *batchv1.Job, r *jobdiff.Report) error {
	probes, err := r.Probes(live)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	results := make([]jobdiff.ProbeResult, 0, len(probes))
	for _, p := range probes {
		job := p.Job.DeepCopy()
		// An unconditional update: the controller writes the status often, and a stale
		// resourceVersion would make the probe fail with a conflict.
		job.ResourceVersion = ""
		got, err := o.Client.BatchV1().Jobs(o.Namespace).Update(ctx, job, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		switch {
		case err == nil:
			results = append(results, p.Judge(got, ""))
		case apierrors.IsInvalid(err):
			results = append(results, p.Judge(nil, invalidMessage(err)))
		default:
			return exitcode.APIError(err, "update", "jobs", o.JobName, o.Namespace)
		}
	}
	r.SetServerCheck(results)
	return nil
}

// invalidMessage is the server's message without the Job's name prefix, which every probe shares.
func invalidMessage(err error) string {
	var se *apierrors.StatusError
	if errors.As(err, &se) && se.ErrStatus.Details != nil && len(se.ErrStatus.Details.Causes) > 0 {
		var parts []string
		for _, c := range se.ErrStatus.Details.Causes {
			parts = append(parts, c.Field+": "+c.Message)
		}
		return strings.Join(parts, "; ")
	}
	return err.Error()
}

// createCommand is the create command that makes the desired Job under a new name: the
// create flags given to diff, in their canonical form, with the Job named newName.
func (o *Options) createCommand(newName string) string {
	parts := []string{"kubectl indexed create " + textwrap.ShellQuote(newName)}
	if o.Namespace != "" {
		parts = append(parts, "-n "+textwrap.ShellQuote(o.Namespace))
	}
	parts = append(parts, o.scaffoldArgs()...)
	parts = append(parts, o.conn.Words()...)
	if len(o.Command) > 0 {
		parts = append(parts, "--")
		for _, a := range o.Command {
			parts = append(parts, textwrap.ShellQuote(a))
		}
	}
	return strings.Join(parts, " ")
}

// scaffoldArgs renders the create flags given on the command line, in a stable order.
func (o *Options) scaffoldArgs() []string {
	names := pflag.NewFlagSet("scaffold", pflag.ContinueOnError)
	jobflags.AddScaffoldFlags(names, jobflags.NewScaffoldFlags())
	var out []string
	names.VisitAll(func(sf *pflag.Flag) {
		f := o.flags.Lookup(sf.Name)
		if f == nil || !f.Changed {
			return
		}
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			out = append(out, "--"+f.Name+"="+textwrap.ShellQuote(v))
		}
	})
	return out
}

// printSimulateHint prints, when a side of the diff is in the prepare-db mode, the simulate
// --compare command that plays both sides on the same failures.
func (o *Options) printSimulateHint(r *jobdiff.Report, live, desired *batchv1.Job) {
	prepareDB := slices.ContainsFunc(r.Warnings, func(w jobdiff.Warning) bool { return w.Code == jobdiff.WarnPrepareDBMode })
	if !prepareDB || o.Filename == "" || o.Filename == "-" {
		return
	}
	flags, _, ok := simulate.PrepareDBOutcomes(live)
	if !ok {
		if flags, _, ok = simulate.PrepareDBOutcomes(desired); !ok {
			return
		}
	}
	cmd := fmt.Sprintf("kubectl indexed simulate %s --compare %s %s", textwrap.ShellQuote(o.LiveFile), textwrap.ShellQuote(o.Filename), flags)
	if o.LiveFile == "" || o.LiveFile == "-" {
		cmd = fmt.Sprintf("kubectl get job %s -n %s -o yaml | kubectl indexed simulate - --compare %s %s",
			textwrap.ShellQuote(live.Name), textwrap.ShellQuote(live.Namespace), textwrap.ShellQuote(o.Filename), flags)
	}
	_, _ = fmt.Fprintf(o.ErrOut, "hint: see what the live and the desired Job do on the same failures (the prepare-db mode):\n  %s\n", cmd)
}
