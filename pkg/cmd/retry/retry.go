// Package retry is the glue of `kubectl indexed retry`: it reads the Job retried and its shard
// ConfigMap, picks the indexes with pkg/lineage, builds the retry's objects with pkg/scaffold
// and lints, saves, prints or sends them as create does.
package retry

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/clientutil"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/jobflags"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/jobref"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/namecompletion"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/onceflag"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/printcmd"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lineage"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/reconcile"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

var (
	retryLong = templates.LongDesc(`
		Create a new Indexed Job that re-runs only some shards of an Indexed Job (or of an
		earlier retry), each with its original work: by default the indexes that failed,
		except those the Job's own podFailurePolicy failed for good (the same input fails the
		same way: name them with --indexes once it is fixed).

		The retry, ROOT-rN, keeps the Job's image, command, env, resources, volumes and pod
		failure policy; flags override the retry policy. "kubectl indexed status ROOT
		--lineage" follows every shard across the root and its retries. A Job not made by
		create is retried as one Job per index, ROOT-rN-INDEX, its completion index pinned.
		The Job retried and its ConfigMaps are never modified. Where the shards and the index
		map are kept, and every rule below in full: docs/retry.md.

		Refused: a Job still running (unless --allow-running with an --indexes list of
		indexes that failed for good), nothing to retry, a shard ConfigMap that is gone,
		another retry still running some of the same shards (unless --force).

		Exit codes: 0 created (or printed, or the same retry exists); 2 bad flags, a refusal,
		or a Job lint says the API server would reject; 4 the API server could not be reached
		or refused (the Job or its ConfigMap not found, the new Job exists, permission denied).`)

	retryExample = templates.Examples(`
		# Re-run the shards that failed, as job eval-r1
		kubectl indexed retry eval

		# Re-run every shard without a success, one at a time
		kubectl indexed retry eval --indexes missing --parallelism 1

		# Re-run shards 2 and 4 (failed already) while the Job still runs
		kubectl indexed retry eval --indexes 2,4 --allow-running

		# Re-run the shards a reconcile report found without a usable receipt
		kubectl indexed reconcile eval --receipts ./results -o json > report.json
		kubectl indexed retry eval --from-reconcile report.json

		# Offline: the retry of a saved Job, for review
		kubectl indexed retry -f job.json --pods-file pods.json --dry-run=client -o yaml

		# See the objects without sending anything; then follow the whole lineage
		kubectl indexed retry eval --dry-run=client -o yaml
		kubectl indexed status eval --lineage`)
)

// Permissions is what retry needs, added to a permission error.
const Permissions = "kubectl indexed retry needs get on jobs (batch) and configmaps, list on jobs and pods, and create on configmaps and jobs in the namespace"

// Options of kubectl indexed retry.
type Options struct {
	ParentName   string
	Indexes      string
	Name         string
	AllowRunning bool
	Force        bool

	// FromReconcile is a reconcile -o json report whose missing, partial, rejected and not
	// evaluated shards are re-run; report is it, read by Validate.
	FromReconcile string
	report        *reconcile.Report

	// Offline (-f): the saved Job, its pods and ConfigMaps; nothing is read from a cluster.
	Filename       string
	PodsFile       string
	ShardsFile     string
	namespaceGiven bool
	// Filenames are -f's files (repeatable; Filename says them all), a record of terminal
	// pods (status --record) among them.
	Filenames []string
	// src is where the Job, its ConfigMaps and its lineage are read: the cluster, or the files.
	src      gather.Source
	IndexMap string

	Parallelism             int32
	BackoffLimitPerIndex    int32
	MaxFailedIndexes        string
	ActiveDeadlineSeconds   int64
	TTLSecondsAfterFinished int32
	PodAnnotations          []string

	changed func(string) bool

	jobflags.Submitter
}

// NewOptions returns the options with their defaults.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{
		Indexes:   lineage.SelectFailed,
		IndexMap:  string(scaffold.IndexMapAuto),
		Submitter: jobflags.NewSubmitter("retry", Permissions, streams),
		changed:   func(string) bool { return false },
	}
}

// NewCmdRetry returns `kubectl indexed retry`.
func NewCmdRetry(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return NewCmdRetryWithOptions(f, NewOptions(streams))
}

// NewCmdRetryWithOptions returns the command bound to o (tests inject a client through o).
func NewCmdRetryWithOptions(f cmdutil.Factory, o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "retry (JOB | -f FILE) [--indexes failed|unfinished|missing|LIST | --from-reconcile REPORT] [--name NAME] [flags]",
		DisableFlagsInUseLine: true,
		Short:                 "Create a Job that re-runs only the failed or unfinished shards of a Job, with their original work",
		Long:                  retryLong,
		Example:               retryExample,
		ValidArgsFunction:     namecompletion.JobNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.changed = func(name string) bool { return cmd.Flags().Changed(name) }
			if err := o.Complete(f, cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Indexes, "indexes", o.Indexes, "Which indexes of JOB to re-run: failed, unfinished, missing, or "+indexes.FlagGrammar+".")
	fl.StringVar(&o.Name, "name", o.Name, "Name of the new Job (default: ROOT-r<attempt>).")
	fl.BoolVar(&o.AllowRunning, "allow-running", o.AllowRunning, "Retry while JOB runs: an --indexes list of indexes failed for good.")
	fl.BoolVar(&o.Force, "force", o.Force, "Retry even while another retry runs some of the same shards.")
	fl.Int32Var(&o.Parallelism, "parallelism", o.Parallelism, "Indexes run at once (default: JOB's, at most the retry's).")
	fl.Int32Var(&o.BackoffLimitPerIndex, "backoff-limit-per-index", o.BackoffLimitPerIndex, "Retries per index before it is marked failed (default: JOB's).")
	fl.StringVar(&o.MaxFailedIndexes, "max-failed-indexes", o.MaxFailedIndexes, "Fail the retry past this many failed indexes: N, P% or none (default: JOB's, scaled).")
	fl.Int64Var(&o.ActiveDeadlineSeconds, "active-deadline-seconds", o.ActiveDeadlineSeconds, "Fail the whole retry after this many seconds (default: JOB's).")
	fl.Int32Var(&o.TTLSecondsAfterFinished, "ttl-seconds-after-finished", o.TTLSecondsAfterFinished, "Delete the retry this long after it finishes (default: JOB's).")
	fl.StringVar(&o.IndexMap, "index-map", o.IndexMap, "Where the index map is kept: auto, annotation or configmap.")
	fl.StringArrayVar(&o.PodAnnotations, "pod-annotation", o.PodAnnotations, "Set KEY=VALUE on the retry's pod template, or remove KEY with KEY- (repeatable).")
	onceflag.StringVarP(fl, &o.FromReconcile, "from-reconcile", "", "", "Re-run the shards a reconcile -o json report (a file, or -) finds incomplete.")
	onceflag.FilesVarP(fl, &o.Filenames, &o.Filename, "filename", "f", "Offline: a saved Job (kubectl get job -o json), or -; repeatable, a status --record file among them; needs --dry-run=client.")
	onceflag.StringVarP(fl, &o.PodsFile, "pods-file", "", "", "Offline: the Job's pods (kubectl get pods -o json, status --record).")
	onceflag.StringVarP(fl, &o.ShardsFile, "shards-file", "", "", "Offline: the Job's shard ConfigMaps (kubectl get configmap -o json).")
	jobflags.AddLintTextFlags(fl, &o.LintText)
	o.AddFlags(cmd)
	fl.StringVar(&o.SaveFile, "save", o.SaveFile, "Also write the objects to this file (a v1 List); never overwritten.")
	fl.BoolVar(&o.SaveConfig, "save-config", o.SaveConfig, "Record the objects in the kubectl.kubernetes.io/last-applied-configuration annotation, as kubectl create --save-config does.")
	_ = cmd.MarkFlagFilename("save", "yaml", "yml", "json")
	_ = cmd.RegisterFlagCompletionFunc("index-map", cobra.FixedCompletions(scaffold.IndexMapPlacements, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("indexes", cobra.FixedCompletions(keywords, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Complete resolves the Job name, the namespace, the dry-run strategy and the client (always:
// even a client dry run reads the Job and its ConfigMap).
func (o *Options) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	switch {
	case o.Filename != "" && len(args) > 0:
		return exitcode.UsageError("give a Job name or -f FILE, not both (%s)", strings.Join(args, " "))
	case o.Filename != "":
	case o.PodsFile != "" || o.ShardsFile != "":
		return exitcode.UsageError("--pods-file and --shards-file go with -f FILE (offline)")
	case len(args) == 0:
		return exitcode.UsageError("a Job name is required: %s JOB", cmd.CommandPath())
	case len(args) == 1:
		name, err := jobref.Name(args[0])
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		o.ParentName = name
	default:
		return exitcode.UsageError("exactly one Job name is required, got %d (%s)", len(args), strings.Join(args, " "))
	}
	if err := o.CompleteDryRun(cmd); err != nil {
		return err
	}
	o.Conn = printcmd.FromCommand(cmd)
	var err error
	if o.Filename != "" {
		// Offline: no kubeconfig, no client; the namespace is -n, else the Job's.
		if o.DryRun != cmdutil.DryRunClient {
			return exitcode.UsageError("-f prints the retry's objects from saved ones and sends nothing: give --dry-run=client (then kubectl create -f, or --save FILE)")
		}
		if fl := cmd.Flag("namespace"); fl != nil && fl.Changed {
			o.Namespace, o.namespaceGiven = fl.Value.String(), true
		} else if o.Namespace != "" {
			o.namespaceGiven = true
		}
		return nil
	}
	if o.Namespace == "" {
		if o.Namespace, _, err = f.ToRawKubeConfigLoader().Namespace(); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	if err := clientutil.CheckNamespace(o.Namespace); err != nil {
		return err
	}
	if o.Client == nil {
		cfg, err := f.ToRESTConfig()
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		// A retry of a Job that create did not make sends one create per index, one after
		// the other: under client-go's default of 5 requests per second (burst 10), 1,000
		// indexes took 198 s on the local control plane (make bench-retry), all of it
		// waiting on the client's own limiter. The API server's priority and fairness
		// still applies; a rate set in the kubeconfig's config is kept.
		cfg = rest.CopyConfig(cfg)
		if cfg.QPS == 0 && cfg.RateLimiter == nil {
			cfg.QPS, cfg.Burst = CreateQPS, CreateBurst
		}
		// Requests end with their context even while a credential plugin hangs.
		if o.Client, err = clientutil.NewClientset(cfg); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	return nil
}

// CreateQPS and CreateBurst bound retry's request rate (client-go's default is 5 and 10).
const (
	CreateQPS   = 50
	CreateBurst = 100
)

// keywords are the words --indexes takes besides a list of indexes.
var keywords = []string{lineage.SelectFailed, lineage.SelectUnfinished, lineage.SelectMissing}

// isKeyword reports whether --indexes is a keyword (failed, unfinished, missing), not a list.
func isKeyword(spec string) bool { return slices.Contains(keywords, strings.TrimSpace(spec)) }

// explicit reports whether the indexes are a list: --indexes LIST, or the report's list, known
// once the Job is read.
func (o *Options) explicit() bool { return o.FromReconcile != "" || !isKeyword(o.Indexes) }

// Validate checks the flags that need no cluster.
func (o *Options) Validate() error {
	if strings.TrimSpace(o.Indexes) == "" {
		return exitcode.UsageError("--indexes must not be empty: give completion indexes, %s, or one of %s", indexes.FlagGrammar, strings.Join(keywords, ", "))
	}
	if o.FromReconcile != "" {
		if o.changed("indexes") {
			return exitcode.UsageError("--from-reconcile chooses the indexes: give it or --indexes, not both")
		}
		if o.FromReconcile == "-" && (slices.Contains(o.Filenames, "-") || o.PodsFile == "-" || o.ShardsFile == "-") {
			return exitcode.UsageError("only one file can be read from standard input")
		}
		if err := o.readReport(); err != nil {
			return err
		}
	}
	if o.explicit() && o.FromReconcile == "" {
		// The syntax is checked here, before any request, with the grammar and the error text
		// of every flag that takes indexes (any order, overlaps allowed); the range needs the
		// Job's completions. lineage.Select reads the list in its canonical form.
		set, err := indexes.ParseFlag("--indexes", o.Indexes)
		if err != nil {
			return exitcode.UsageError("%v, or one of %s", err, strings.Join(keywords, ", "))
		}
		o.Indexes = set.String()
	}
	if o.AllowRunning && !o.explicit() {
		return exitcode.UsageError("--allow-running needs an explicit --indexes list (such as 2,4): only indexes you name, that already failed for good, are retried while the Job runs")
	}
	if o.Name != "" {
		if msgs := validation.IsDNS1123Subdomain(o.Name); len(msgs) > 0 {
			return exitcode.UsageError("--name %q: %s", o.Name, strings.Join(msgs, "; "))
		}
	}
	if !slices.Contains(scaffold.IndexMapPlacements, o.IndexMap) {
		return exitcode.UsageError("--index-map %q: give one of %s", o.IndexMap, strings.Join(scaffold.IndexMapPlacements, ", "))
	}
	if o.FieldManager == "" {
		return exitcode.UsageError("--field-manager must not be empty")
	}
	if _, _, err := o.podAnnotations(); err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return nil
}

func (o *Options) podAnnotations() (map[string]string, []string, error) {
	set := map[string]string{}
	var remove []string
	for _, a := range o.PodAnnotations {
		k, v, ok := strings.Cut(a, "=")
		del := false
		if !ok {
			if k, del = strings.CutSuffix(a, "-"); !del {
				return nil, nil, fmt.Errorf("--pod-annotation %q: give KEY=VALUE to set or KEY- to remove", a)
			}
		}
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			return nil, nil, fmt.Errorf("--pod-annotation %q: invalid key: %s", a, strings.Join(msgs, "; "))
		}
		if del {
			remove = append(remove, k)
		} else {
			set[k] = v
		}
	}
	return set, remove, nil
}

// retryOptions are scaffold's options for a retry of parent's sel indexes as lineage l: its
// name, --index-map, and the policy flags given.
func (o *Options) retryOptions(parent *batchv1.Job, sel *lineage.Selection, l *lineage.Lineage) (scaffold.RetryOptions, error) {
	ro := scaffold.RetryOptions{Parent: parent, Indexes: sel.Indexes, Lineage: l, Namespace: o.Namespace,
		JobName: cmp.Or(o.Name, lineage.RetryName(l.RootJob, l.Attempt)), IndexMap: scaffold.IndexMapPlacement(o.IndexMap)}
	return ro, o.overrides(&ro)
}

// overrides turns the policy flags given into scaffold's options.
func (o *Options) overrides(ro *scaffold.RetryOptions) error {
	if o.changed("parallelism") {
		if o.Parallelism < 1 {
			return exitcode.UsageError("--parallelism must be at least 1, not %d", o.Parallelism)
		}
		ro.Parallelism = &o.Parallelism
	}
	if o.changed("backoff-limit-per-index") {
		if o.BackoffLimitPerIndex < 0 {
			return exitcode.UsageError("--backoff-limit-per-index must be 0 or more, not %d", o.BackoffLimitPerIndex)
		}
		ro.BackoffLimitPerIndex = &o.BackoffLimitPerIndex
	}
	if o.changed("max-failed-indexes") {
		b, err := scaffold.ParseBudget(o.MaxFailedIndexes)
		if err != nil {
			return exitcode.UsageError("--max-failed-indexes: %w", err)
		}
		ro.MaxFailedIndexes = &b
	}
	if o.changed("active-deadline-seconds") {
		if o.ActiveDeadlineSeconds < 1 {
			return exitcode.UsageError("--active-deadline-seconds must be at least 1, not %d", o.ActiveDeadlineSeconds)
		}
		ro.ActiveDeadlineSeconds = &o.ActiveDeadlineSeconds
	}
	if o.changed("ttl-seconds-after-finished") {
		if err := jobflags.CheckTTL(o.TTLSecondsAfterFinished); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		ro.TTLSecondsAfterFinished = &o.TTLSecondsAfterFinished
	}
	var err error
	ro.PodAnnotations, ro.RemovePodAnnotations, err = o.podAnnotations()
	return err
}

// Run reads the Job and its ConfigMap, plans the retry and submits it.
func (o *Options) Run(ctx context.Context) error {
	var parent *batchv1.Job
	if o.Filename != "" {
		f, err := o.readOffline()
		if err != nil {
			return err
		}
		o.src, parent = f, f.JobList[0]
	} else {
		var err error
		o.src = &gather.Live{Client: o.Client, Namespace: o.Namespace}
		if parent, err = o.src.Job(ctx, o.ParentName); err != nil {
			return o.PermissionHint(exitcode.APIError(err, "get", "jobs", o.ParentName, o.Namespace))
		}
	}
	ns := o.Namespace
	pl, _, err := lineage.Read(parent)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	if err := o.resolve(ctx, parent, pl); err != nil {
		return err
	}
	if o.report != nil {
		if o.Indexes, err = o.reportIndexes(parent, pl); err != nil {
			return err
		}
	}
	cmName, made := shards.ConfigMapNameFromJob(parent)
	sel, err := lineage.Select(parent, o.Indexes, o.AllowRunning)
	if err != nil {
		// A refusal (nothing to retry, still running) or a bad --indexes: exit 2 either way.
		return exitcode.Wrap(exitcode.Usage, err)
	}
	if err := o.leaveOutPolicyFailed(ctx, parent, sel); err != nil {
		return err
	}
	l := &lineage.Lineage{ParentJob: parent.Name, ParentJobUID: string(parent.UID), Attempt: 1}
	if pl == nil {
		l.RootJob, l.RootJobUID = parent.Name, string(parent.UID)
	} else {
		l.RootJob, l.RootJobUID, l.Attempt = pl.RootJob, pl.RootJobUID, pl.Attempt+1
	}
	run, err := o.lineageJobs(ctx, l)
	if err != nil {
		return err
	}
	if covered, err := o.alreadyMade(run, parent, sel, made); covered || err != nil {
		return err
	}
	if err := leaveOutSettled(parent, sel, o.Indexes, o.Force, run); err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	for _, w := range sel.Warnings {
		_, _ = fmt.Fprintf(o.ErrOut, "warning: %s\n", w)
	}
	if l.Original, err = lineage.Compose(pl, int(*parent.Spec.Completions), sel.Indexes); err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	set := scaffold.RetrySet(string(parent.UID), sel.Indexes)
	jobsPerRetry := 1
	if !made {
		jobsPerRetry = sel.Indexes.Len()
	}
	if err := o.plan(run, l, set, jobsPerRetry); err != nil {
		return err
	}
	if !made {
		return o.runPlain(ctx, parent, sel, l, set)
	}
	// The store: the head the annotation names, and any parts the shard volume projects.
	names := []string{cmName}
	for _, n := range scaffold.ShardConfigMapNames(&parent.Spec.Template.Spec) {
		if n != cmName {
			names = append(names, n)
		}
	}
	cms := make([]*corev1.ConfigMap, 0, len(names))
	for _, name := range names {
		cm, err := o.src.ConfigMap(ctx, name)
		if apierrors.IsNotFound(err) {
			if _, ok := gather.IsMissing(err); ok {
				return exitcode.UsageError("job %q reads its shards from ConfigMap %q, which the files given do not hold: save it too (kubectl get configmap %s -n %s -o json) and give it in -f or --shards-file", parent.Name, name, name, ns)
			}
			return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("job %q reads its shards from ConfigMap %q but it is gone from namespace %q: the shards' cases cannot be recovered from the Job, so nothing was created. Re-create it from the same manifest (kubectl indexed create with --dry-run=client --save FILE, then kubectl create -f FILE: it makes the ConfigMaps again, whose names come from the manifest's hash, so they are the same objects, and refuses the Job, which exists)",
				parent.Name, name, ns))
		}
		if err != nil {
			return o.PermissionHint(exitcode.APIError(err, "get", "configmaps", name, ns))
		}
		cms = append(cms, cm)
	}

	ro, err := o.retryOptions(parent, sel, l)
	if err != nil {
		return err
	}
	ro.ParentConfigMaps = cms
	objs, err := scaffold.BuildRetry(ro)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	objs.Job.Annotations[lineage.AnnotationRetrySet] = set
	for _, n := range objs.Notes {
		_, _ = fmt.Fprintf(o.ErrOut, "Note: %s\n", n)
	}
	_, _ = fmt.Fprintf(o.ErrOut, "retrying %s of job %q (%s) as job %q: root %s of job %q, attempt %d\n",
		textwrap.Count(sel.Indexes.Len(), "index", "indexes"), parent.Name, sel.Indexes.Truncated(200), ro.JobName, l.Original.Named(200), l.RootJob, l.Attempt)
	if m := objs.IndexMap; m != nil {
		_, _ = fmt.Fprintf(o.ErrOut, "the index map (%d bytes as intervals) is kept in immutable ConfigMap %q, which annotation %s names\n",
			len(l.Original.String()), m.Name, shards.AnnotationOriginalIndexesFrom)
	}
	return o.Submit(ctx, objs)
}

// resolve reads the index map of a parent that keeps it in a ConfigMap: a retry of it must
// map its indexes back to the root's through that map.
func (o *Options) resolve(ctx context.Context, parent *batchv1.Job, pl *lineage.Lineage) error {
	if pl.Resolved() {
		return nil
	}
	name, ns := pl.OriginalFrom.ConfigMap, o.Namespace
	cm, err := o.src.ConfigMap(ctx, name)
	if _, ok := gather.IsMissing(err); ok {
		return exitcode.UsageError("job %q keeps its index map in ConfigMap %q, which the files given do not hold: add it to -f (kubectl get configmap %s -n %s -o json)", parent.Name, name, name, ns)
	}
	if apierrors.IsNotFound(err) {
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("job %q keeps its index map (which root index each of its indexes runs) in ConfigMap %q (annotation %s), but it is gone from namespace %q: its indexes cannot be mapped back to the original shards, so nothing was created. Retry the root Job %q, or an earlier retry, instead",
			parent.Name, name, shards.AnnotationOriginalIndexesFrom, ns, pl.RootJob))
	}
	if err != nil {
		return o.PermissionHint(exitcode.APIError(err, "get", "configmaps", name, ns))
	}
	if err := pl.Resolve(parent, cm); err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return nil
}

// lineageJobs LISTs the Jobs of l's run (the root-job label, then the root's UID): nil offline,
// where the lineage's other Jobs are not known.
func (o *Options) lineageJobs(ctx context.Context, l *lineage.Lineage) ([]*batchv1.Job, error) {
	if o.Filename != "" {
		return nil, nil
	}
	list, err := o.src.Jobs(ctx, labels.Set{shards.LabelRootJob: l.RootJob}.String())
	if err != nil {
		return nil, o.PermissionHint(exitcode.APIError(err, "list", "jobs", "", o.Namespace))
	}
	run := make([]*batchv1.Job, 0, len(list))
	for i := range list {
		if lineage.InRun(&list[i], l.RunID()) {
			run = append(run, &list[i])
		}
	}
	return run, nil
}

// alreadyMade reports, unless --force, that every Job of this same retry (the same parent and
// indexes: annotation retry-set) exists, made by an earlier run of the command (one cut short
// after the Job was created, or run twice): the command then creates nothing, prints them as
// unchanged and exits 0, as a second run of a finished retry of a plain Job does. It does not
// make the next attempt for the same shards. Some of a plain Job's retry Jobs missing: the run
// goes on and makes the rest (plan).
func (o *Options) alreadyMade(run []*batchv1.Job, parent *batchv1.Job, sel *lineage.Selection, made bool) (bool, error) {
	if o.Force || len(run) == 0 {
		return false, nil
	}
	set := scaffold.RetrySet(string(parent.UID), sel.Indexes)
	var mine []*batchv1.Job
	for _, j := range run {
		if j.Annotations[lineage.AnnotationRetrySet] == set && j.Annotations[shards.AnnotationParentJobUID] == string(parent.UID) {
			mine = append(mine, j)
		}
	}
	want := 1
	if !made {
		want = sel.Indexes.Len()
	}
	if len(mine) < want {
		return false, nil
	}
	names := make([]string, 0, 3)
	objs := make([]runtime.Object, 0, len(mine))
	for i, j := range mine {
		if i < 3 {
			names = append(names, j.Name)
		}
		objs = append(objs, j)
	}
	if len(mine) > 3 {
		names = append(names, fmt.Sprintf("and %d more", len(mine)-3))
	}
	_, _ = fmt.Fprintf(o.ErrOut, "%s %s of job %q already %s (made by an earlier run of this command): %s %s, so this run made no new Job.\n  follow %s: %s\n  re-run what it did not settle: %s\n  or run the same shards once more anyway: the same command with --force\n",
		textwrap.Plural(len(mine), "job", "jobs"), strings.Join(names, ", "), parent.Name, textwrap.Plural(len(mine), "exists", "exist"),
		textwrap.Plural(len(mine), "it covers", "they cover"), sel.Indexes.Named(200), textwrap.Plural(len(mine), "it", "them"),
		o.Conn.Command("kubectl", "indexed", "status", mine[0].Name, "--lineage", "-n", o.Namespace),
		o.Conn.Command("kubectl", "indexed", "retry", mine[0].Name, "-n", o.Namespace))
	return true, o.Unchanged(objs)
}

// leaveOutPolicyFailed respects the parent's own podFailurePolicy: a keyword selection (failed,
// unfinished, missing) leaves out the indexes that a FailIndex or FailJob rule failed for good
// (the user declared that failure final, such as exit code 42 for invalid input: the same
// input fails the same way), saying so and how to include them deliberately (--indexes, after
// fixing the input); the indexes that used up their retries stay. Which rule failed an index
// is read from its pods, by the rule status uses (indexstatus.FailedByPolicy): one LIST of
// the pods that did not succeed, live; the pods given, offline. Pods that cannot be read are a
// warning, and nothing is left out.
func (o *Options) leaveOutPolicyFailed(ctx context.Context, parent *batchv1.Job, sel *lineage.Selection) error {
	if !isKeyword(o.Indexes) || parent.Spec.PodFailurePolicy == nil {
		return nil // a list named: run as asked
	}
	acc, err := indexstatus.NewAccumulator(parent)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	selector := ""
	if o.Filename == "" {
		acc.LeaveOutSucceeded()
		selector = indexstatus.NotSucceededSelector
	}
	n := 0
	if _, err := o.src.Pods(ctx, parent, selector, func(p *corev1.Pod) { n++; acc.Add(p) }); err != nil {
		_, _ = fmt.Fprintf(o.ErrOut, "warning: the pods of job %q cannot be read (%v): the indexes its podFailurePolicy failed for good cannot be told from those that used up their retries, so none is left out\n", parent.Name, err)
		return nil
	}
	if n == 0 && o.Filename != "" {
		_, _ = fmt.Fprintf(o.ErrOut, "warning: no pods of job %q given: the indexes its podFailurePolicy failed for good cannot be told from those that used up their retries, so none is left out (give them with --pods-file)\n", parent.Name)
		return nil
	}
	final, rules := acc.Report(indexstatus.Options{}).FailedByPolicy()
	final = final.Intersect(sel.Indexes)
	if final.IsEmpty() {
		return nil
	}
	all, rest := sel.Indexes, sel.Indexes.Difference(final)
	why := fmt.Sprintf("%s of job %q %s failed by its own podFailurePolicy, %s: the Job declares that failure final, and re-running the same input fails the same way",
		final.Named(200), parent.Name, textwrap.Plural(final.Len(), "was", "were"), rules)
	if rest.IsEmpty() {
		return exitcode.Wrap(exitcode.Usage, &lineage.RefusalError{Msg: fmt.Sprintf("nothing to retry: %s; nothing was created. After fixing the input, name %s to re-run %s deliberately: %s",
			why, textwrap.Plural(final.Len(), "it", "them"), textwrap.Plural(final.Len(), "it", "them"), o.Conn.Command("kubectl", "indexed", "retry", parent.Name, "-n", o.Namespace, "--indexes", all.String()))})
	}
	sel.Warnings = append(sel.Warnings, fmt.Sprintf("%s, so %s left out. After fixing the input, name %s to re-run %s deliberately: --indexes %s",
		why, textwrap.Plural(final.Len(), "it is", "they are"), textwrap.Plural(final.Len(), "it", "them"), textwrap.Plural(final.Len(), "it", "them"), all.String()))
	sel.Indexes = rest
	return nil
}

// leaveOutSettled keeps a retry from re-running, without a word, the shards that a later retry
// of the parent already succeeded: a keyword selection (failed, unfinished, missing) leaves them
// out, saying so; an explicit list, or --force, keeps them, with a warning. Nothing left is a
// refusal.
func leaveOutSettled(parent *batchv1.Job, sel *lineage.Selection, spec string, force bool, run []*batchv1.Job) error {
	var settled indexes.Set
	var names []string // RetriesOf gives each Job once
	for _, r := range lineage.RetriesOf(parent, run, nil) {
		if ok := r.Succeeded.Intersect(sel.Indexes); !ok.IsEmpty() {
			settled = settled.Union(ok)
			names = append(names, r.Name)
		}
	}
	if settled.IsEmpty() {
		return nil
	}
	where := strings.Join(names, ", ")
	if force || !isKeyword(spec) {
		why := "as asked"
		if isKeyword(spec) {
			why = "as --force asks"
		}
		sel.Warnings = append(sel.Warnings, fmt.Sprintf("%s of job %q already succeeded in its retry %s; %s again %s", settled.Named(200), parent.Name, where, textwrap.Plural(settled.Len(), "it runs", "they run"), why))
		return nil
	}
	rest := sel.Indexes.Difference(settled)
	if rest.IsEmpty() {
		return &lineage.RefusalError{Msg: fmt.Sprintf("nothing to retry: the %s indexes of job %q (%s) already succeeded in its retry %s; nothing was created. To run them once more anyway, name them (--indexes %s) or give --force",
			strings.TrimSpace(spec), parent.Name, settled.Truncated(200), where, settled.String())}
	}
	sel.Warnings = append(sel.Warnings, fmt.Sprintf("%s of job %q already succeeded in its retry %s: left out (name them with --indexes to run them once more)", settled.Named(200), parent.Name, where))
	sel.Indexes = rest
	return nil
}

// plan sets l.Attempt from the lineage's Jobs (run, listed by lineageJobs): the attempt of
// the Jobs of this same retry (annotation retry-set) while fewer than the perRetry Jobs it
// makes exist (an earlier run of the same command, cut short or racing this one), so that
// they are the same objects and a second run completes it; else one more than the highest,
// so that two retries get different numbers and names. A new retry is refused
// (unless --force) while another Job of the lineage has not finished and runs one of the
// same root indexes: one retry at a time per shard. Two retries racing get the same number,
// hence the same name, and the API server's AlreadyExists lets only one in.
func (o *Options) plan(list []*batchv1.Job, l *lineage.Lineage, set string, perRetry int) error {
	if o.Filename != "" {
		// Offline: the lineage's other Jobs are not known; the attempt is the parent's + 1.
		_, _ = fmt.Fprintf(o.ErrOut, "Note: offline, the other Jobs of the lineage are not read: the attempt number (%d) follows the parent's alone, and no other retry of the same shards can be checked for\n", l.Attempt)
		return nil
	}
	best, same := 0, 0
	sameJobs := map[int]int{} // attempt -> Jobs of this retry set
	var busy []string         // the Jobs still running some of the same shards, in words
	waitFor := ""             // the first of them
	for _, j := range list {
		jl, ok, err := lineage.Read(j)
		if !ok || err != nil || jl.RootJobUID != l.RootJobUID {
			continue
		}
		best = max(best, jl.Attempt)
		if j.Annotations[lineage.AnnotationRetrySet] == set && jl.ParentJobUID == l.ParentJobUID {
			sameJobs[jl.Attempt]++
			same = max(same, jl.Attempt)
		}
		if jobpolicy.JobFinished(j) || !jl.Resolved() {
			continue
		}
		if both := jl.Original.Intersect(l.Original); !both.IsEmpty() {
			busy = append(busy, fmt.Sprintf("job %q (attempt %d) still runs root %s", j.Name, jl.Attempt, both.Named(100)))
			waitFor = cmp.Or(waitFor, j.Name)
		}
	}
	if same > 0 && sameJobs[same] < perRetry {
		// The same retry, not all made yet: complete it.
		l.Attempt = same
		return nil
	}
	if len(busy) > 0 && !o.Force {
		if len(busy) > 5 {
			busy = append(busy[:5], "and "+textwrap.Count(len(busy)-5, "more Job", "more Jobs"))
		}
		return exitcode.UsageError("one retry at a time per shard: %s, which this retry would run too; nothing was created.\n  wait for it:  %s\n  or run them twice anyway: the same command with --force",
			strings.Join(busy, "; "), o.Conn.Command("kubectl", "indexed", "status", waitFor, "--lineage", "-n", o.Namespace))
	}
	l.Attempt = max(l.Attempt, best+1)
	return nil
}

// runPlain retries a Job that create did not make: its workers take their shard from the
// completion index, so each chosen index runs as a Job of its own with the index pinned.
func (o *Options) runPlain(ctx context.Context, parent *batchv1.Job, sel *lineage.Selection, l *lineage.Lineage, set string) error {
	ro, err := o.retryOptions(parent, sel, l)
	if err != nil {
		return err
	}
	jobs, notes, err := scaffold.BuildPlainRetry(ro)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	for _, n := range notes {
		_, _ = fmt.Fprintf(o.ErrOut, "Note: %s\n", n)
	}
	_, _ = fmt.Fprintf(o.ErrOut, "retrying %d %s of job %q (%s), which reads its shard from its completion index: one Job per index, %s-<root index>, each with %s pinned to its root index; attempt %d of job %q\n",
		sel.Indexes.Len(), textwrap.Plural(sel.Indexes.Len(), "index", "indexes"), parent.Name, sel.Indexes.Truncated(200), ro.JobName, scaffold.EnvCompletionIndex, l.Attempt, l.RootJob)
	return o.SubmitJobs(ctx, jobs, func(existing *batchv1.Job) bool {
		return existing.Annotations[lineage.AnnotationRetrySet] == set && existing.Annotations[shards.AnnotationRootJobUID] == l.RootJobUID
	})
}
