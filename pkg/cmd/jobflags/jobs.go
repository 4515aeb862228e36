package jobflags

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/scheme"
	"k8s.io/kubectl/pkg/util"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// SubmitJobs is Submit for objects that are Jobs alone (a retry of a Job that create did not
// make: one Job per index). They differ only in name and the pinned index, so the one with the
// longest name is linted. They are created in order; a Job that exists already is kept
// ("unchanged") when ours(existing) says an earlier run of the same command made it, so running
// the command again after a failure half-way creates the rest; any other existing Job stops
// the run. A failure half-way says which Jobs exist and that the same command completes them.
func (o *Submitter) SubmitJobs(ctx context.Context, jobs []*batchv1.Job, ours func(existing *batchv1.Job) bool) error {
	if len(jobs) == 0 {
		return errors.New("no Jobs to send")
	}
	if err := o.checkFlags(); err != nil {
		return err
	}
	longest := jobs[0]
	for _, j := range jobs {
		if err := checkImages(j); err != nil {
			return err
		}
		if len(j.Name) > len(longest.Name) {
			longest = j
		}
	}
	if err := o.lint(longest); err != nil {
		return err
	}
	objs := make([]runtime.Object, len(jobs))
	for i, j := range jobs {
		objs[i] = j
		if o.SaveConfig {
			if err := util.CreateOrUpdateAnnotation(true, j, scheme.DefaultJSONEncoder()); err != nil {
				return err
			}
			if err := checkAnnotationsSize(j); err != nil {
				return err
			}
		}
	}
	ops := make([]string, len(jobs))
	if o.DryRun == cmdutil.DryRunClient {
		for i := range ops {
			ops[i] = "created"
		}
		if err := o.print(objs, ops); err != nil {
			return err
		}
		return o.saveJobs(objs)
	}
	ns := o.Namespace
	create := metav1.CreateOptions{FieldManager: o.FieldManager, FieldValidation: metav1.FieldValidationStrict}
	if o.DryRun == cmdutil.DryRunServer {
		create.DryRun = []string{metav1.DryRunAll}
	}
	var done []string
	for i, want := range jobs {
		got, err := o.Client.BatchV1().Jobs(ns).Create(ctx, want, create)
		if apierrors.IsAlreadyExists(err) {
			existing, gerr := o.Client.BatchV1().Jobs(ns).Get(ctx, want.Name, metav1.GetOptions{})
			if gerr == nil && ours(existing) {
				objs[i], ops[i] = existing, "unchanged"
				done = append(done, want.Name)
				continue
			}
			return o.partialJobs(o.jobExists(want.Name, false), done, jobs[i:])
		}
		if err != nil {
			return o.partialJobs(o.permissionHint(exitcode.APIError(err, "create", "jobs", want.Name, ns)), done, jobs[i:])
		}
		objs[i], ops[i] = got, "created"
		if o.DryRun != cmdutil.DryRunServer {
			done = append(done, want.Name)
		}
	}
	if err := o.print(objs, ops); err != nil {
		return err
	}
	return o.saveJobs(objs)
}

// Unchanged prints objects that exist already and that this run leaves as they are (an earlier
// run of the same command made them), as kubectl prints an unchanged object, or with -o.
func (o *Submitter) Unchanged(objs []runtime.Object) error {
	ops := make([]string, len(objs))
	for i := range ops {
		ops[i] = "unchanged"
	}
	return o.print(objs, ops)
}

// partialJobs adds to why which Jobs of the retry exist and which do not, and that running the
// same command again creates the missing ones (it keeps those it made).
func (o *Submitter) partialJobs(why error, done []string, missing []*batchv1.Job) error {
	if len(done) == 0 {
		return why
	}
	names := make([]string, 0, min(len(missing), 5))
	for _, j := range missing[:min(len(missing), 5)] {
		names = append(names, j.Name)
	}
	more := ""
	if len(missing) > 5 {
		more = fmt.Sprintf(" and %d more", len(missing)-5)
	}
	exist, were := "Jobs of this %s exist", "were"
	if len(done) == 1 {
		exist = "Job of this %s exists"
	}
	if len(missing) == 1 {
		were = "was"
	}
	return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\n%d "+exist+" (%s ...) but %s%s %s not created: run the same command again once the cause is fixed; it keeps the Jobs it made and creates the rest",
		why, len(done), o.Verb, done[0], strings.Join(names, ", "), more, were))
}

// saveJobs writes the Jobs to --save as a v1 List (YAML), never over an existing file.
func (o *Submitter) saveJobs(objs []runtime.Object) error {
	if o.SaveFile == "" {
		return nil
	}
	setKinds(objs...)
	b, err := yaml.Marshal(list(objs...))
	if err != nil {
		return err
	}
	f, err := os.OpenFile(o.SaveFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("--save %s: %w (the Jobs were created or printed; the file was not written)", o.SaveFile, err))
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("--save %s: %w", o.SaveFile, err))
	}
	if err := f.Close(); err != nil {
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("--save %s: %w", o.SaveFile, err))
	}
	_, _ = fmt.Fprintf(o.ErrOut, "saved the %d %s to %s (%s creates them; it refuses, and changes nothing, where one already exists)\n",
		len(objs), plural(len(objs), "Job"), o.SaveFile, o.cmdline("kubectl", "create", "-f", o.SaveFile))
	return nil
}
