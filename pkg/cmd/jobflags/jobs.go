package jobflags

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// SubmitJobs is Submit for objects that are Jobs alone (a retry of a Job that create did not
// make: one Job per index); the one with the longest name is linted. They are created in
// order; a Job that exists already is kept ("unchanged") when ours(existing) says an earlier
// run of the same command made it, so running the command again after a failure half-way
// creates the rest; any other existing Job stops the run. A failure half-way says which Jobs
// exist and that the same command completes them.
func (o *Submitter) SubmitJobs(ctx context.Context, jobs []*batchv1.Job, ours func(existing *batchv1.Job) bool) error {
	if len(jobs) == 0 {
		return errors.New("no Jobs to send")
	}
	objs := make([]runtime.Object, len(jobs))
	for i, j := range jobs {
		objs[i] = j
	}
	if err := o.check(jobs, objs); err != nil {
		return err
	}
	ops := slices.Repeat([]string{"created"}, len(jobs))
	send := jobs
	if o.DryRun == cmdutil.DryRunClient {
		send = nil // printed and saved as they are
	}
	ns := o.Namespace
	create := o.createOptions()
	var done []string
	interruptedCode := 0
	for i, want := range send {
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
		if err != nil && ambiguous(err) && o.DryRun != cmdutil.DryRunServer {
			// The POST may have been carried out: look before saying what exists (as
			// confirmJob does for create).
			back, mine, gerr := o.readBack(ctx, want)
			why := exitcode.APIError(err, "create", "jobs", want.Name, ns)
			switch {
			case mine:
				o.lostAnswer(back, err)
				objs[i] = back
				done = append(done, want.Name)
				if code, ok := interrupted(ctx); ok {
					if i+1 < len(jobs) {
						return o.partialJobs(exitcode.Wrap(code, fmt.Errorf("interrupted after job %q was created in namespace %q", want.Name, ns)), done, jobs[i+1:])
					}
					interruptedCode = code // the last Job: print and save them all, then say so
				}
				continue
			case gerr == nil:
				return o.partialJobs(exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\n%v", why, o.jobExists(want.Name, false))), done, jobs[i:])
			case apierrors.IsNotFound(gerr):
				return o.partialJobs(exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\njob %q was not created: a GET at %s found no Job of that name in namespace %q",
					why, want.Name, time.Now().UTC().Format("15:04:05Z"), ns)), done, jobs[i:])
			}
			// Unknown: neither this Job nor the rest can be said not to exist.
			return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("%w\nwhether job %q was created is unknown (the GET that would tell failed too: %v); %s. Look with %s, then run the same command again: it keeps the Jobs it made and creates the rest%s",
				why, want.Name, gerr, made(done, o.Verb), o.Conn.Command("kubectl", "get", "jobs", "-n", ns, "-l", shards.LabelRootJob+"="+want.Labels[shards.LabelRootJob]), o.notSaved()))
		}
		if err != nil {
			return o.partialJobs(o.PermissionHint(exitcode.APIError(err, "create", "jobs", want.Name, ns)), done, jobs[i:])
		}
		objs[i] = got
		if o.DryRun != cmdutil.DryRunServer {
			done = append(done, want.Name)
		}
	}
	if err := o.print(objs, ops); err != nil {
		return err
	}
	if err := o.saveJobs(objs); err != nil || interruptedCode == 0 {
		return err
	}
	return exitcode.Wrap(interruptedCode, fmt.Errorf("interrupted after the %d %s of this %s were created in namespace %q", len(jobs), textwrap.Plural(len(jobs), "Job", "Jobs"), o.Verb, ns))
}

// Unchanged prints objects that exist already and that this run leaves as they are (an earlier
// run of the same command made them), as kubectl prints an unchanged object, or with -o.
func (o *Submitter) Unchanged(objs []runtime.Object) error {
	return o.print(objs, slices.Repeat([]string{"unchanged"}, len(objs)))
}

// made says which Jobs of the command exist before the one in doubt.
func made(done []string, verb string) string {
	switch len(done) {
	case 0:
		return "no other Job of this " + verb + " was created before it"
	case 1:
		return fmt.Sprintf("1 Job of this %s exists before it (%s)", verb, done[0])
	}
	return fmt.Sprintf("%d Jobs of this %s exist before it (%s ...)", len(done), verb, done[0])
}

// notSaved is the note, for a command cut short, that --save was not written (it holds the
// Jobs only once all were created).
func (o *Submitter) notSaved() string {
	if o.SaveFile == "" {
		return ""
	}
	return fmt.Sprintf("; --save %s was not written: not all the Jobs exist", o.SaveFile)
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
	exist := textwrap.Plural(len(done), "Job of this %s exists", "Jobs of this %s exist")
	were := textwrap.Plural(len(missing), "was", "were")
	return exitcode.Wrap(exitcode.Code(why), fmt.Errorf("%w\n%d "+exist+" (%s ...) but %s%s %s not created: run the same command again once the cause is fixed; it keeps the Jobs it made and creates the rest%s",
		why, len(done), o.Verb, done[0], strings.Join(names, ", "), more, were, o.notSaved()))
}

// saveJobs writes the Jobs, once printed (which sets their kinds), to --save as a v1 List
// (YAML), never over an existing file.
func (o *Submitter) saveJobs(objs []runtime.Object) error {
	if o.SaveFile == "" {
		return nil
	}
	f, err := os.OpenFile(o.SaveFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("--save %s: %w (the Jobs were created or printed; the file was not written)", o.SaveFile, err))
	}
	if err := writeList(f, objs); err != nil {
		return exitcode.Wrap(exitcode.Cluster, fmt.Errorf("--save %s: %w", o.SaveFile, err))
	}
	o.saved(fmt.Sprintf("the %d %s", len(objs), textwrap.Plural(len(objs), "Job", "Jobs")))
	return nil
}
