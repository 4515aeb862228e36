package jobflags

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

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
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/printcmd"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// DefaultFieldManager is the field manager of the objects create and retry write.
const DefaultFieldManager = "kubectl-indexed"

// Submitter is what create and retry share once their objects are built: lint the Job, record
// last-applied-configuration, save the List, and print (client dry run) or send the objects,
// reusing an identical ConfigMap and never replacing a Job or a different ConfigMap.
type Submitter struct {
	// Verb names the command in messages ("create", "retry").
	Verb string
	// Permissions says, after a permission error, everything the command needs.
	Permissions string

	PrintFlags   *genericclioptions.PrintFlags
	FieldManager string
	SaveFile     string
	SaveConfig   bool
	Namespace    string
	DryRun       cmdutil.DryRunStrategy

	// Client talks to the API server; set by Complete (or by tests).
	Client kubernetes.Interface

	// Conn are the connection flags given (--context, --kubeconfig ...), carried into every
	// command a message prints; set by Complete.
	Conn printcmd.Connection

	// LintText says how the lint findings are printed before anything is sent: as lint
	// prints them (see AddLintTextFlags).
	LintText LintText

	// printer is the -o printer, made once by CompleteDryRun (PrintFlags.ToPrinter changes
	// the PrintFlags it is called on, so Run must not call it).
	printer printers.ResourcePrinter

	genericiooptions.IOStreams
}

// NewSubmitter returns a Submitter with create's defaults for verb.
func NewSubmitter(verb, permissions string, streams genericiooptions.IOStreams) Submitter {
	return Submitter{
		Verb:         verb,
		Permissions:  permissions,
		PrintFlags:   genericclioptions.NewPrintFlags("created").WithTypeSetter(scheme.Scheme),
		FieldManager: DefaultFieldManager,
		IOStreams:    streams,
	}
}

// Submit lints the Job (errors abort, warnings go to ErrOut), then saves, prints or sends the
// objects as --save-config, --save and --dry-run say.
//
// --save is written only once the objects were printed (client dry run) or accepted by the
// API server: a failed command leaves no file behind that looks like what was created.
func (o *Submitter) Submit(ctx context.Context, objs *scaffold.Objects) error {
	all := allObjects(objs)
	if err := o.check([]*batchv1.Job{objs.Job}, all); err != nil {
		return err
	}
	// --save is opened (never over an existing file) before anything is sent: a name that
	// cannot be written is a usage error while nothing exists yet.
	f, err := o.openSave()
	if err != nil {
		return err
	}
	if o.DryRun == cmdutil.DryRunClient {
		err = o.print(all, slices.Repeat([]string{"created"}, len(all)))
	} else {
		err = o.send(ctx, objs)
	}
	if f == nil {
		return err
	}
	if anyway := (*createdAnyway)(nil); err != nil && !errors.As(err, &anyway) {
		// Nothing was written to it: a failed command leaves no file that looks like what
		// was created.
		_ = f.Close()
		_ = os.Remove(o.SaveFile)
		return err
	}
	// Created (or interrupted once the Job existed): the file is what was created, as the docs
	// promise; the exit code stays the signal's unless the file could not be filled.
	return cmp.Or(o.save(f, objs), err)
}

// check refuses, before anything is sent, the flags and the images the API server or the
// kubelet would refuse (checkFlags, checkImages), lints the longest-named of jobs (they differ
// only in name and pinned index) and records --save-config on objs.
func (o *Submitter) check(jobs []*batchv1.Job, objs []runtime.Object) error {
	if err := o.checkFlags(); err != nil {
		return err
	}
	for _, j := range jobs {
		if err := checkImages(j); err != nil {
			return err
		}
	}
	longest := slices.MaxFunc(jobs, func(a, b *batchv1.Job) int { return cmp.Compare(len(a.Name), len(b.Name)) })
	if err := o.lint(longest); err != nil {
		return err
	}
	setKinds(objs...)
	return o.saveConfig(objs)
}

// saveConfig records each object in its last-applied-configuration annotation (--save-config),
// refusing annotations larger than the API server stores.
func (o *Submitter) saveConfig(objs []runtime.Object) error {
	if !o.SaveConfig {
		return nil
	}
	for _, obj := range objs {
		if err := util.CreateOrUpdateAnnotation(true, obj, scheme.DefaultJSONEncoder()); err != nil {
			return err
		}
		if err := checkAnnotationsSize(obj); err != nil {
			return err
		}
	}
	return nil
}

// createdAnyway is the error of a send interrupted (SIGINT, SIGTERM) once its Job was created:
// the objects exist, so --save is still written.
type createdAnyway struct{ error }

func (e *createdAnyway) Unwrap() error { return e.error }

// openSave creates --save, refusing an existing file; nil without --save.
func (o *Submitter) openSave() (*os.File, error) {
	if o.SaveFile == "" {
		return nil, nil
	}
	f, err := os.OpenFile(o.SaveFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, exitcode.UsageError("--save %s: the file exists; it is never overwritten: remove it or choose another name; nothing was sent", o.SaveFile)
		}
		return nil, exitcode.UsageError("--save: %w; nothing was sent", err)
	}
	return f, nil
}

// allObjects are the ConfigMaps (head, parts, a retry's index map) and the Job, in the order
// they are sent.
func allObjects(objs *scaffold.Objects) []runtime.Object {
	out := make([]runtime.Object, 0, len(objs.Parts)+3)
	for _, cm := range objs.ConfigMaps() {
		out = append(out, cm)
	}
	return append(out, objs.Job)
}

// lint runs the linter on the Job and prints its findings to ErrOut as lint prints them
// (severity, rule, the Job, message, then why and fix unless --brief; coloured as lint
// colours): errors abort, warnings do not.
func (o *Submitter) lint(job *batchv1.Job) error {
	findings := lint.CheckJob(job, lint.Options{MinSeverity: lint.SeverityWarning})
	errs := 0
	opts := o.LintText.textOptions(o.ErrOut)
	for i := range findings {
		f := &findings[i]
		f.Object = cmp.Or(f.Object, "Job/"+job.Name)
		if f.Severity == lint.SeverityError {
			errs++
		}
		_, _ = fmt.Fprint(o.ErrOut, lint.FormatFinding(f, opts))
	}
	if errs > 0 {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("job %q would be rejected by the API server, nothing was sent (%d %s above)", job.Name, errs, textwrap.Plural(errs, "error", "errors")))
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

// save writes the List to f (--save, opened by openSave) as YAML. It runs once the objects
// were printed or created: a failure here is not a usage error (exit 1), and the message says
// that the objects exist, so that nobody runs the command again for them.
func (o *Submitter) save(f *os.File, objs *scaffold.Objects) error {
	if err := writeList(f, allObjects(objs)); err != nil {
		done := "the objects above were created"
		if o.DryRun == cmdutil.DryRunClient {
			done = "the objects above were printed (dry run), nothing was sent"
		}
		return exitcode.Wrap(exitcode.Findings, fmt.Errorf("--save %s could not be written (%w), but %s: do not run %s again for them; %s prints them",
			o.SaveFile, err, done, o.Verb, o.Conn.Command("kubectl", "get", "job", objs.Job.Name, "-n", o.Namespace, "-o", "yaml")))
	}
	what := "the ConfigMap"
	if n := len(objs.ConfigMaps()); n > 1 {
		what = fmt.Sprintf("the %d ConfigMaps", n)
	}
	o.saved(what + " and the Job")
	return nil
}

// writeList writes objs to f as a v1 List (YAML) and closes f.
func writeList(f *os.File, objs []runtime.Object) error {
	b, err := yaml.Marshal(list(objs...))
	if err == nil {
		_, err = f.Write(b)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// saved says that --save holds what, and how to create it.
func (o *Submitter) saved(what string) {
	// kubectl create, never apply: apply would change a Job that already exists (a Job of the
	// same name made from another manifest), while create refuses it.
	_, _ = fmt.Fprintf(o.ErrOut, "saved %s to %s (%s creates them; it refuses, and changes nothing, where one already exists)\n",
		what, o.SaveFile, o.Conn.Command("kubectl", "create", "-f", o.SaveFile))
}

// AddFlags adds the flags every verb that submits shares, with their completion: -o and its
// printer flags, --dry-run and --field-manager.
func (o *Submitter) AddFlags(cmd *cobra.Command) {
	o.PrintFlags.AddFlags(cmd)
	cmdutil.AddDryRunFlag(cmd)
	cmdutil.AddFieldManagerFlagVar(cmd, &o.FieldManager, DefaultFieldManager)
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(o.PrintFlags.AllowedFormats(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cobra.FixedCompletions([]string{"none", "client", "server"}, cobra.ShellCompDirectiveNoFileComp))
}

// CompleteDryRun reads --dry-run and makes the -o printer for it, once, for the command's
// Complete (a usage error: exit 2). Without -o no printer is made: the objects are printed as
// "kind/name operation" lines.
func (o *Submitter) CompleteDryRun(cmd *cobra.Command) error {
	var err error
	if o.DryRun, err = cmdutil.GetDryRunStrategy(cmd); err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	cmdutil.PrintFlagsWithDryRunStrategy(o.PrintFlags, o.DryRun)
	if !o.PrintFlags.OutputFlagSpecified() {
		return nil
	}
	// custom-columns (a row per object of the List), which kubectl get has and PrintFlags
	// lacks, comes from the report printers.
	if f := o.PrintFlags.OutputFormat; f != nil && strings.HasPrefix(*f, "custom-columns") {
		o.printer, err = output.Printer(*f, false)
	} else {
		o.printer, err = o.PrintFlags.ToPrinter()
	}
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return nil
}

// print writes the objects: with -o as one v1 List, otherwise one "kind/name operation" line
// each (ops[i] is objs[i]'s), as kubectl create does.
func (o *Submitter) print(objs []runtime.Object, ops []string) error {
	setKinds(objs...)
	suffix := ""
	switch o.DryRun {
	case cmdutil.DryRunClient:
		suffix = " (dry run)"
	case cmdutil.DryRunServer:
		suffix = " (server dry run)"
	}
	given := o.PrintFlags.OutputFlagSpecified()
	if given && *o.PrintFlags.OutputFormat != "name" {
		return o.printer.PrintObj(list(objs...), o.Out) // made by CompleteDryRun
	}
	for i, obj := range objs {
		var p printers.ResourcePrinter = &printers.NamePrinter{Operation: ops[i] + suffix}
		if given {
			p = o.printer // -o name: the name printer takes no List.
		}
		if err := p.PrintObj(obj, o.Out); err != nil {
			return err
		}
	}
	return nil
}

// setKinds fills in apiVersion and kind, which objects returned by a typed client lack.
func setKinds(objs ...runtime.Object) {
	for _, obj := range objs {
		if gvks, _, err := scheme.Scheme.ObjectKinds(obj); err == nil {
			obj.GetObjectKind().SetGroupVersionKind(gvks[0])
		}
	}
}

// send creates the ConfigMap (or reuses an identical one) and then the Job, never replacing
// an existing object. With --dry-run=server nothing is persisted, but every check runs.
func (o *Submitter) send(ctx context.Context, objs *scaffold.Objects) error {
	ns, jobName := o.Namespace, objs.Job.Name
	create := o.createOptions()

	// An existing Job is never touched.
	if _, err := o.Client.BatchV1().Jobs(ns).Get(ctx, jobName, metav1.GetOptions{}); err == nil {
		return o.jobExists(jobName, false)
	} else if !apierrors.IsNotFound(err) {
		return o.PermissionHint(exitcode.APIError(err, "get", "jobs", jobName, ns))
	}

	// The ConfigMaps: reuse an identical one, refuse a different one.
	var sent []runtime.Object
	var ops, created []string
	for _, want := range objs.ConfigMaps() {
		cm, op, err := o.ensureConfigMap(ctx, want, create)
		if lost := (*lostWrite)(nil); errors.As(err, &lost) {
			return o.confirmConfigMap(ctx, lost.error, want, created, jobName)
		}
		if err != nil {
			return o.leftBehind(err, created, jobName, objs)
		}
		if op == "created" && o.DryRun != cmdutil.DryRunServer {
			created = append(created, want.Name)
		}
		sent, ops = append(sent, cm), append(ops, op)
	}

	job, err := o.Client.BatchV1().Jobs(ns).Create(ctx, objs.Job, create)
	if err != nil && ambiguous(err) && o.DryRun != cmdutil.DryRunServer {
		// The POST may have been carried out: look before saying what exists.
		return o.confirmJob(ctx, err, objs, sent, ops, created)
	}
	if err != nil {
		var why error
		if apierrors.IsAlreadyExists(err) {
			// Another create won the race for the name since we looked.
			why = o.jobExists(jobName, len(created) > 0)
		} else {
			why = o.PermissionHint(exitcode.APIError(err, "create", "jobs", jobName, ns))
		}
		return o.leftBehind(why, created, jobName, objs)
	}
	return o.print(append(sent, job), append(ops, "created"))
}

// createOptions are the options of every create: strict field validation, and nothing
// persisted under --dry-run=server.
func (o *Submitter) createOptions() metav1.CreateOptions {
	create := metav1.CreateOptions{FieldManager: o.FieldManager, FieldValidation: metav1.FieldValidationStrict}
	if o.DryRun == cmdutil.DryRunServer {
		create.DryRun = []string{metav1.DryRunAll}
	}
	return create
}

// leftBehind adds to why the ConfigMaps created before the Job failed, and how to remove them.
// A ConfigMap is named from its manifest's hash, so another Job of the same manifest (a
// concurrent create, a retry) may have started to use it since: the hint says how to check.
func (o *Submitter) leftBehind(why error, created []string, jobName string, objs *scaffold.Objects) error {
	ns := o.Namespace
	if len(created) == 0 {
		return why
	}
	check := ""
	if hash := objs.ConfigMap.Labels[shards.LabelManifestHash]; hash != "" {
		check = fmt.Sprintf(" Another Job of the same manifest may use %s by now; before deleting, check that this lists none: %s.",
			textwrap.Plural(len(created), "it", "them"), o.Conn.Command("kubectl", "get", "jobs", "-n", ns, "-l", mayMountSelector(hash, objs.Job)))
	}
	del := o.Conn.Command(append(append([]string{"kubectl", "delete", "configmap"}, created...), "-n", ns)...)
	if len(created) == 1 {
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\nconfigmap %q was created in namespace %q but job %q was not: the ConfigMap is left behind. It is immutable and named from its content's hash, so a later %s of the same shards reuses it.%s To remove it: %s",
			why, created[0], ns, jobName, o.Verb, check, del))
	}
	return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\nconfigmaps %s were created in namespace %q but job %q was not: they are left behind. They are immutable and named from their content's hash, so a later %s of the same shards reuses them.%s To remove them: %s",
		why, strings.Join(created, ", "), ns, jobName, o.Verb, check, del))
}

// mayMountSelector selects the Jobs that may mount the ConfigMaps made for job, of the manifest
// whose hash label is hash, and no others, so that an empty list means that none does: the
// store create makes is mounted only by Jobs create made (no root-job label), the store and
// index map of a retry only by the retries of the same root (its root-job label: a retry's
// store is named from its root and its content, scaffold.RetryConfigMapName). The root Job a
// retry was made from is not listed.
func mayMountSelector(hash string, job *batchv1.Job) string {
	if root, retry := job.Labels[shards.LabelRootJob]; retry {
		return shards.LabelManifestHash + "=" + hash + "," + shards.LabelRootJob + "=" + root
	}
	return shards.LabelManifestHash + "=" + hash + ",!" + shards.LabelRootJob
}

// ensureConfigMap creates want, or returns an existing ConfigMap of that name when it has the
// same content. The operation is "created" or "unchanged".
func (o *Submitter) ensureConfigMap(ctx context.Context, want *corev1.ConfigMap, create metav1.CreateOptions) (*corev1.ConfigMap, string, error) {
	ns, name := want.Namespace, want.Name
	cms := o.Client.CoreV1().ConfigMaps(ns)
	existing, err := cms.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		got, cerr := cms.Create(ctx, want, create)
		switch {
		case cerr == nil:
			return got, "created", nil
		case apierrors.IsAlreadyExists(cerr):
			// Created by someone else since we looked.
			existing, err = cms.Get(ctx, name, metav1.GetOptions{})
		case ambiguous(cerr) && create.DryRun == nil:
			return nil, "", &lostWrite{cerr}
		default:
			return nil, "", o.PermissionHint(exitcode.APIError(cerr, "create", "configmaps", name, ns))
		}
	}
	if err != nil {
		return nil, "", o.PermissionHint(exitcode.APIError(err, "get", "configmaps", name, ns))
	}
	return o.reuse(existing, want)
}

func (o *Submitter) reuse(existing, want *corev1.ConfigMap) (*corev1.ConfigMap, string, error) {
	if existing.DeletionTimestamp != nil {
		// It will be gone in seconds, and a Job's pods would then never start (the volume's
		// ConfigMap is missing).
		return nil, "", exitcode.Wrap(exitcode.Cluster, fmt.Errorf(
			"configmap %q in namespace %q is being deleted (since %s): a Job using it would lose its shards, so it is not reused and no Job was created. Wait until it is gone (%s), then run %s again",
			want.Name, want.Namespace, existing.DeletionTimestamp.UTC().Format("15:04:05Z"),
			o.Conn.Command("kubectl", "wait", "--for=delete", "configmap/"+want.Name, "-n", want.Namespace), o.Verb))
	}
	if d := scaffold.Difference(existing, want); d != "" {
		look := o.Conn.Command("kubectl", "get", "configmap", want.Name, "-n", want.Namespace, "-o", "yaml")
		// The way out depends on where the name comes from: create's store is named from
		// the manifest's metadata.name, a retry's store and index map from the root Job and
		// their content's hash, which no manifest name changes.
		way := "delete it if nothing uses it, or give the manifest another metadata.name"
		if root, retry := want.Labels[shards.LabelRootJob]; retry {
			way = fmt.Sprintf("delete it if nothing uses it (its name comes from root job %q and the content's hash, so no other name can be chosen)", root)
		}
		if d == scaffold.NotImmutable {
			return nil, "", exitcode.Wrap(exitcode.Cluster, fmt.Errorf(
				"configmap %q already exists in namespace %q with the same data, but it is not immutable: kubectl indexed reuses only immutable ConfigMaps (a mutable one can change under a running Job), so it was not made by kubectl indexed or was replaced; nothing was created. Look at it with: %s; %s",
				want.Name, want.Namespace, look, way))
		}
		return nil, "", exitcode.Wrap(exitcode.Cluster, fmt.Errorf(
			"configmap %q already exists in namespace %q with different content (%s): it was not made from this manifest by kubectl indexed, or it was changed; nothing was created. Look at it with: %s; %s",
			want.Name, want.Namespace, d, look, way))
	}
	return existing, "unchanged", nil
}

// jobExists says that the Job exists; partial is true when this run created ConfigMaps before
// it found out (it lost a race for the name), which leftBehind then lists.
func (o *Submitter) jobExists(name string, partial bool) error {
	ns := o.Namespace
	diffHint := ""
	if o.Verb == "create" {
		diffHint = fmt.Sprintf("  see what this create would change: %s (with the same --manifest and flags)\n", o.Conn.Command("kubectl", "indexed", "diff", name, "-n", ns))
	}
	outcome := "nothing was created"
	if partial {
		outcome = "it was created by someone else while this " + o.Verb + " ran, so this Job was not created"
	}
	return exitcode.Wrap(exitcode.Cluster, fmt.Errorf(
		"job %q already exists in namespace %q and kubectl indexed %s never replaces a Job: %s\n  see how it ran:                     %s\n%s  or choose another Job name",
		name, ns, o.Verb, outcome, o.Conn.Command("kubectl", "indexed", "status", name, "-n", ns), diffHint))
}

// PermissionHint adds, to a permission error, everything the command needs (Permissions).
func (o *Submitter) PermissionHint(err error) error {
	var e *exitcode.Error
	if errors.As(err, &e) && e.Err != nil && strings.HasPrefix(e.Err.Error(), "permission denied") {
		return exitcode.Wrap(e.Code, fmt.Errorf("%w\n%s", e.Err, o.Permissions))
	}
	return err
}

// lostWrite is a create whose outcome is unknown (see ambiguous), with the client's error.
type lostWrite struct{ error }

// confirmTimeout bounds the GET that settles an ambiguous write; after SIGINT or SIGTERM it
// must end well within main's 2 s grace.
const (
	confirmTimeout          = 10 * time.Second
	confirmTimeoutInterrupt = 1500 * time.Millisecond
)

// ambiguous says whether a failed write may have been carried out all the same: the server
// did not answer (timeout, connection lost after the request was sent, the request cancelled
// by an interrupt) or said it is still working on it (504, a server timeout, a 500). A refusal
// (forbidden, invalid, already exists, not found) is not ambiguous: nothing was written.
func ambiguous(err error) bool {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || apierrors.IsInternalError(err) ||
			apierrors.IsUnexpectedServerError(err)
	}
	// No connection, or a credential plugin that failed before sending: nothing was sent.
	return !exitcode.IsDialError(err) && !exitcode.IsCredentialPluginError(err)
}

// confirmContext is a context for the GET that settles an ambiguous write: not cancelled with
// ctx (which an interrupt or --request-timeout may have ended), and bounded.
func confirmContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d := confirmTimeout
	if _, ok := interrupted(ctx); ok {
		d = confirmTimeoutInterrupt
	}
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// interrupted returns the signal's exit code when ctx was cancelled by SIGINT or SIGTERM.
func interrupted(ctx context.Context) (int, bool) {
	var in *exitcode.Interrupt
	if errors.As(context.Cause(ctx), &in) {
		return in.ExitCode(), true
	}
	return 0, false
}

func hasAll(got, want map[string]string) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// readBack GETs want, whose create failed ambiguously, on a context that outlives ctx
// (confirmContext): got is the Job of that name when there is one, mine whether it is the one
// this command sent: every label and annotation of want (its shard ConfigMap, manifest hash and
// lineage among them) is on it. Every Job create reads back through it before saying what
// exists.
func (o *Submitter) readBack(ctx context.Context, want *batchv1.Job) (got *batchv1.Job, mine bool, err error) {
	gctx, cancel := confirmContext(ctx)
	defer cancel()
	got, err = o.Client.BatchV1().Jobs(o.Namespace).Get(gctx, want.Name, metav1.GetOptions{})
	if err != nil {
		return nil, false, err
	}
	return got, hasAll(got.Annotations, want.Annotations) && hasAll(got.Labels, want.Labels), nil
}

// lostAnswer is the warning that the answer to creating got was lost but a GET shows it.
func (o *Submitter) lostAnswer(got *batchv1.Job, postErr error) {
	_, _ = fmt.Fprintf(o.ErrOut, "warning: the API server's answer to creating job %q was lost (%v), but a GET shows the Job exists, created at %s (uid %s): it was created\n",
		got.Name, postErr, got.CreationTimestamp.UTC().Format(time.RFC3339), got.UID)
}

// confirmJob settles a Job create that failed ambiguously (postErr): it GETs the Job and says
// what exists. Created: the objects are printed as created, with a note that the answer was
// lost (exit 0, or 130/143 when interrupted). Not there: the Job was not created; the
// ConfigMaps stay (a later run reuses them; nothing offers to delete them). Unknown: the
// command says how to look, and never to delete the ConfigMaps, which the Job may be using.
// sent are the ConfigMaps sent before the Job (ops[i] is sent[i]'s), created those of them
// this command created.
func (o *Submitter) confirmJob(ctx context.Context, postErr error, objs *scaffold.Objects, sent []runtime.Object, ops, created []string) error {
	ns, name := o.Namespace, objs.Job.Name
	why := exitcode.APIError(postErr, "create", "jobs", name, ns)
	got, mine, err := o.readBack(ctx, objs.Job)
	var cms []string
	for _, cm := range objs.ConfigMaps() {
		cms = append(cms, cm.Name)
	}
	switch {
	case mine:
		o.lostAnswer(got, postErr)
		if err := o.print(append(sent, got), append(ops, "created")); err != nil {
			return err
		}
		if code, ok := interrupted(ctx); ok {
			return &createdAnyway{exitcode.Wrap(code, fmt.Errorf("interrupted after job %q was created in namespace %q: see it with %s", name, ns, o.Conn.Command("kubectl", "indexed", "status", name, "-n", ns)))}
		}
		return nil
	case err == nil:
		// Another Job of that name, made by someone else since we looked: the ConfigMaps
		// this command created are left behind, all of them named (leftBehind).
		return o.leftBehind(exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\n%v", why, o.jobExists(name, len(created) > 0))), created, name, objs)
	case apierrors.IsNotFound(err):
		kept := ""
		if len(cms) > 0 {
			kept = fmt.Sprintf(" The shard ConfigMap(s) %s stay: they are immutable and named from their content, so the next %s of the same shards reuses them.", strings.Join(cms, ", "), o.Verb)
		}
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\njob %q was not created: a GET at %s found no Job of that name in namespace %q.%s Run %s again",
			why, name, time.Now().UTC().Format("15:04:05Z"), ns, kept, o.Verb))
	}
	look := o.Conn.Command("kubectl", "get", "job", name, "-n", ns)
	keep := ""
	if len(cms) > 0 {
		keep = fmt.Sprintf(" Do not delete %s: the Job, if it was created, uses %s.", strings.Join(cms, ", "), textwrap.Plural(len(cms), "it", "them"))
	}
	return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\nwhether job %q was created is unknown (the GET that would tell failed too: %v). Look with %s before running %s again.%s",
		why, name, err, look, o.Verb, keep))
}

// confirmConfigMap settles a ConfigMap create that failed ambiguously: it says whether the
// ConfigMap exists (it may have been created) and that the Job was not sent.
func (o *Submitter) confirmConfigMap(ctx context.Context, postErr error, want *corev1.ConfigMap, created []string, jobName string) error {
	ns := o.Namespace
	why := exitcode.APIError(postErr, "create", "configmaps", want.Name, ns)
	gctx, cancel := confirmContext(ctx)
	defer cancel()
	got, err := o.Client.CoreV1().ConfigMaps(ns).Get(gctx, want.Name, metav1.GetOptions{})
	var state string
	switch {
	case err == nil && scaffold.Difference(got, want) == "":
		created = append(created, want.Name)
		state = fmt.Sprintf("a GET shows configmap %q exists (it was created)", want.Name)
	case err == nil:
		state = fmt.Sprintf("configmap %q exists with other content (%s)", want.Name, scaffold.Difference(got, want))
	case apierrors.IsNotFound(err):
		state = fmt.Sprintf("a GET found no configmap %q: it was not created", want.Name)
	default:
		state = fmt.Sprintf("whether configmap %q was created is unknown (the GET failed too: %v)", want.Name, err)
	}
	kept := ""
	if len(created) > 0 {
		kept = fmt.Sprintf(" The ConfigMap(s) %s stay: immutable and named from their content, they are reused by the next %s of the same shards.", strings.Join(created, ", "), o.Verb)
	}
	return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\n%s; job %q was not sent, so it was not created.%s Run %s again",
		why, state, jobName, kept, o.Verb))
}
