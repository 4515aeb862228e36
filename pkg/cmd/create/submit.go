package create

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

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
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
)

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
func (o *Submitter) Submit(ctx context.Context, objs *scaffold.Objects) error {
	if err := o.lint(objs.Job); err != nil {
		return err
	}
	if o.SaveConfig {
		for _, obj := range allObjects(objs) {
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
		ops := make([]string, len(objs.Parts)+2)
		for i := range ops {
			ops[i] = "created"
		}
		return o.print(allObjects(objs), ops)
	}
	return o.send(ctx, objs)
}

// allObjects are the ConfigMaps (head, then parts) and the Job, in the order they are sent.
func allObjects(objs *scaffold.Objects) []runtime.Object {
	out := make([]runtime.Object, 0, len(objs.Parts)+2)
	for _, cm := range objs.ConfigMaps() {
		out = append(out, cm)
	}
	return append(out, objs.Job)
}

// lint runs the linter on the Job: errors abort, warnings go to ErrOut.
func (o *Submitter) lint(job *batchv1.Job) error {
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
func (o *Submitter) save(objs *scaffold.Objects) error {
	b, err := yaml.Marshal(list(allObjects(objs)...))
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
	what := "the ConfigMap"
	if len(objs.Parts) > 0 {
		what = fmt.Sprintf("the %d ConfigMaps", len(objs.Parts)+1)
	}
	_, _ = fmt.Fprintf(o.ErrOut, "saved %s and the Job to %s (kubectl apply -f %s creates them)\n", what, o.SaveFile, o.SaveFile)
	return nil
}

// print writes the objects: with -o as one v1 List, otherwise one "kind/name operation" line
// each (ops[i] is objs[i]'s), as kubectl create does.
func (o *Submitter) print(objs []runtime.Object, ops []string) error {
	setKinds(objs...)
	if o.PrintFlags.OutputFlagSpecified() {
		p, err := o.PrintFlags.ToPrinter()
		if err != nil {
			return err
		}
		if *o.PrintFlags.OutputFormat == "name" {
			// The name printer takes no List.
			for _, obj := range objs {
				if err := p.PrintObj(obj, o.Out); err != nil {
					return err
				}
			}
			return nil
		}
		return p.PrintObj(list(objs...), o.Out)
	}
	suffix := ""
	switch o.DryRun {
	case cmdutil.DryRunClient:
		suffix = " (dry run)"
	case cmdutil.DryRunServer:
		suffix = " (server dry run)"
	}
	for i, obj := range objs {
		p := &printers.NamePrinter{Operation: ops[i] + suffix}
		if err := p.PrintObj(obj, o.Out); err != nil {
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
func (o *Submitter) send(ctx context.Context, objs *scaffold.Objects) error {
	ns, jobName := o.Namespace, objs.Job.Name
	create := metav1.CreateOptions{FieldManager: o.FieldManager, FieldValidation: metav1.FieldValidationStrict}
	if o.DryRun == cmdutil.DryRunServer {
		create.DryRun = []string{metav1.DryRunAll}
	}

	// An existing Job is never touched.
	if _, err := o.Client.BatchV1().Jobs(ns).Get(ctx, jobName, metav1.GetOptions{}); err == nil {
		return o.jobExists(jobName)
	} else if !apierrors.IsNotFound(err) {
		return o.permissionHint(exitcode.APIError(err, "get", "jobs", jobName, ns))
	}

	// The ConfigMaps: reuse an identical one, refuse a different one.
	var sent []runtime.Object
	var ops, created []string
	for _, want := range objs.ConfigMaps() {
		cm, op, err := o.ensureConfigMap(ctx, want, create)
		if err != nil {
			return o.leftBehind(err, created, jobName)
		}
		if op == "created" && o.DryRun != cmdutil.DryRunServer {
			created = append(created, want.Name)
		}
		sent, ops = append(sent, cm), append(ops, op)
	}

	job, err := o.Client.BatchV1().Jobs(ns).Create(ctx, objs.Job, create)
	if err != nil {
		var why error
		if apierrors.IsAlreadyExists(err) {
			why = o.jobExists(jobName)
		} else {
			why = o.permissionHint(exitcode.APIError(err, "create", "jobs", jobName, ns))
		}
		return o.leftBehind(why, created, jobName)
	}
	return o.print(append(sent, job), append(ops, "created"))
}

// leftBehind adds to why the ConfigMaps created before the Job failed, and how to remove them.
func (o *Submitter) leftBehind(why error, created []string, jobName string) error {
	ns := o.Namespace
	switch len(created) {
	case 0:
		return why
	case 1:
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\nconfigmap %q was created in namespace %q but job %q was not: the ConfigMap is left behind. It is immutable and named from its content's hash, so a later %s of the same shards reuses it; to remove it: kubectl delete configmap %s -n %s",
			why, created[0], ns, jobName, o.Verb, created[0], ns))
	}
	return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\nconfigmaps %s were created in namespace %q but job %q was not: they are left behind. They are immutable and named from their content's hash, so a later %s of the same shards reuses them; to remove them: kubectl delete configmap %s -n %s",
		why, strings.Join(created, ", "), ns, jobName, o.Verb, strings.Join(created, " "), ns))
}

// ensureConfigMap creates want, or returns an existing ConfigMap of that name when it has the
// same content. The operation is "created" or "unchanged".
func (o *Submitter) ensureConfigMap(ctx context.Context, want *corev1.ConfigMap, create metav1.CreateOptions) (*corev1.ConfigMap, string, error) {
	ns, name := want.Namespace, want.Name
	cms := o.Client.CoreV1().ConfigMaps(ns)
	existing, err := cms.Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		return o.reuse(existing, want)
	case !apierrors.IsNotFound(err):
		return nil, "", o.permissionHint(exitcode.APIError(err, "get", "configmaps", name, ns))
	}
	got, err := cms.Create(ctx, want, create)
	if apierrors.IsAlreadyExists(err) {
		// Created by someone else since we looked.
		if existing, err = cms.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return nil, "", o.permissionHint(exitcode.APIError(err, "get", "configmaps", name, ns))
		}
		return o.reuse(existing, want)
	}
	if err != nil {
		return nil, "", o.permissionHint(exitcode.APIError(err, "create", "configmaps", name, ns))
	}
	return got, "created", nil
}

func (o *Submitter) reuse(existing, want *corev1.ConfigMap) (*corev1.ConfigMap, string, error) {
	if d := scaffold.Difference(existing, want); d != "" {
		return nil, "", exitcode.Wrap(exitcode.Cluster, fmt.Errorf(
			"configmap %q already exists in namespace %q with different content (%s): it was not made from this manifest by kubectl indexed, or it was changed; nothing was created. Look at it with: kubectl get configmap %s -n %s -o yaml; delete it if nothing uses it, or give the manifest another metadata.name",
			want.Name, want.Namespace, d, want.Name, want.Namespace))
	}
	return existing, "unchanged", nil
}

func (o *Submitter) jobExists(name string) error {
	ns := o.Namespace
	diffHint := ""
	if o.Verb == "create" {
		diffHint = fmt.Sprintf("  see what this create would change: kubectl indexed diff %s -n %s (with the same --manifest and flags)\n", name, ns)
	}
	return exitcode.Wrap(exitcode.Cluster, fmt.Errorf(
		"job %q already exists in namespace %q and kubectl indexed %s never replaces a Job: nothing was created\n  see how it ran:                     kubectl indexed status %s -n %s\n%s  or choose another Job name",
		name, ns, o.Verb, name, ns, diffHint))
}

// permissionHint adds, to a permission error, everything the command needs.
func (o *Submitter) permissionHint(err error) error {
	var e *exitcode.Error
	if errors.As(err, &e) && e.Err != nil && strings.HasPrefix(e.Err.Error(), "permission denied") {
		return exitcode.Wrap(e.Code, fmt.Errorf("%w\n%s", e.Err, o.Permissions))
	}
	return err
}
