// Package logs implements `kubectl indexed logs`: the logs of a completion index's attempts,
// found through the Job (one GET) and its pods (one LIST), chosen by pkg/podlogs.
package logs

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/clientutil"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/jobref"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/namecompletion"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podlogs"
)

var (
	long = templates.LongDesc(`
		Print the logs of a completion index of an Indexed Job: its latest attempt, one attempt
		(--attempt), every attempt (--all-attempts), or the last failed attempt of the failed
		indexes (--failed).

		--failed groups the failed indexes by cause (state, exit code, reason, container,
		podFailurePolicy rule) and shows one sample log per group, its first index whose pod
		is still there, after a line on standard error naming the group's indexes; --all
		shows the last failed attempt of every failed index. A log --failed cannot fetch (the
		pod deleted, the kubelet unreachable) is replaced by one line on standard error with
		what the pod's status records: exit code, reason, termination message.

		Attempts are numbered from 1 per index. With backoffLimitPerIndex the Job controller
		counts on every pod the failures of its index before it, so attempt numbers are exact
		and an attempt whose pod was deleted is named as gone, with what the Job and its
		remaining pods still tell (the exit code, the reason, the podFailurePolicy rule).
		Without backoffLimitPerIndex attempts are the pods still present, oldest first.

		When several attempts are shown each line starts with "[index N attempt K]". Notes
		about gone pods go to standard error.

		Exit codes: 0 logs were shown; 1 nothing could be shown because every selected pod is
		gone (or, with --failed, no log could be fetched); 2 usage error (an index out of
		range, an attempt that never ran, a Job that is not Indexed); 4 the API server could
		not be reached, refused the request, or could not fetch the logs from the node
		(--index).`)

	example = templates.Examples(`
		# The latest attempt of index 4
		kubectl indexed logs evaluation --index 4

		# Its first attempt, the last 50 lines
		kubectl indexed logs evaluation --index 4 --attempt 1 --tail 50

		# Every attempt of index 4, each line prefixed with its attempt
		kubectl indexed logs evaluation --index 4 --all-attempts

		# Why did indexes fail: one sample log per cause
		kubectl indexed logs evaluation --failed

		# The last failed attempt of every failed index
		kubectl indexed logs evaluation --failed --all

		# Follow the running attempt of index 7
		kubectl indexed logs evaluation --index 7 -f`)
)

// Options holds the flags of the logs command.
type Options struct {
	Index       string
	indexes     indexes.Set
	Attempt     int
	AllAttempts bool
	Failed      bool
	All         bool
	Container   string
	Tail        int64
	Since       metav1.Duration
	Follow      bool

	JobName   string
	Namespace string
	indexSet  bool
	// attemptSet: --attempt was given (--attempt 0 is a usage error, not "the latest").
	attemptSet bool

	// Client talks to the cluster; set by Complete, or by tests.
	Client kubernetes.Interface
	Clock  clock.Clock

	genericiooptions.IOStreams
}

// NewOptions returns the options with their defaults.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{IOStreams: streams, Tail: -1, Clock: clock.RealClock{}}
}

// NewCmdLogs returns the logs command.
func NewCmdLogs(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return NewCmdLogsWithOptions(f, NewOptions(streams))
}

// NewCmdLogsWithOptions returns the logs command bound to o (tests inject a client).
func NewCmdLogsWithOptions(f cmdutil.Factory, o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "logs JOB (--index N [--attempt K | --all-attempts] | --failed) [-c CONTAINER] [--tail N] [--since D] [-f]",
		DisableFlagsInUseLine: true,
		Short:                 "Print the logs of an index's attempts, or of every failed index",
		Long:                  long,
		Example:               example,
		ValidArgsFunction:     namecompletion.JobNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.indexSet = cmd.Flags().Changed("index")
			o.attemptSet = cmd.Flags().Changed("attempt")
			if err := o.Complete(f, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Index, "index", o.Index, "The completion indexes whose logs to show: "+indexes.FlagGrammar+" (one after the other, in index order).")
	_ = cmd.RegisterFlagCompletionFunc("index", namecompletion.JobIndexes(f))
	fl.IntVar(&o.Attempt, "attempt", 0, "The attempt of --index to show, from 1 (default: the latest).")
	fl.BoolVar(&o.AllAttempts, "all-attempts", false, "Show every attempt of --index, oldest first.")
	fl.BoolVar(&o.Failed, "failed", false, "Show the last failed attempt of the failed indexes: one sample per cause (--all: every index).")
	fl.BoolVar(&o.All, "all", false, "With --failed, show every failed index, not one sample per cause.")
	fl.StringVarP(&o.Container, "container", "c", "", "The container (default: kubectl's default-container annotation, else the one that failed, else the first).")
	fl.Int64Var(&o.Tail, "tail", o.Tail, "Lines of recent log to show per attempt; -1 shows all.")
	fl.DurationVar(&o.Since.Duration, "since", 0, "Only logs newer than this duration (e.g. 5s, 2m, 3h).")
	fl.BoolVarP(&o.Follow, "follow", "f", false, "Stream the logs as they are written (the running attempt).")
	return cmd
}

// Complete resolves the Job name, the namespace and the client.
func (o *Options) Complete(f cmdutil.Factory, args []string) error {
	if len(args) != 1 {
		return exitcode.UsageError("expected one Job name, got %d arguments\nSee 'kubectl indexed logs --help' for usage.", len(args))
	}
	name, err := jobref.Name(args[0])
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	o.JobName = name
	if o.Namespace, _, err = clientutil.Namespace(f); err != nil {
		return err
	}
	if o.Client == nil {
		o.Client, err = clientutil.ForFactory(f)
	}
	return err
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if o.indexSet {
		set, err := indexes.ParseFlag("--index", o.Index)
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		o.indexes = set
	}
	switch {
	case o.Failed && o.indexSet:
		return exitcode.UsageError("give either --index N or --failed, not both")
	case !o.Failed && !o.indexSet:
		return exitcode.UsageError("give --index N (the completion index) or --failed\nSee 'kubectl indexed logs --help' for usage.")
	case o.Attempt < 0, o.attemptSet && o.Attempt == 0:
		return exitcode.UsageError("--attempt %d: attempts count from 1 (leave --attempt out for the latest)", o.Attempt)
	case o.Attempt > 0 && o.AllAttempts:
		return exitcode.UsageError("give either --attempt or --all-attempts, not both")
	case o.All && !o.Failed:
		return exitcode.UsageError("--all goes with --failed (every failed index, not one sample per cause)")
	case (o.Attempt > 0 || o.AllAttempts) && o.Failed:
		return exitcode.UsageError("--attempt and --all-attempts go with --index, not --failed")
	case o.Tail < -1:
		return exitcode.UsageError("--tail must be -1 (all lines) or more")
	case o.Since.Duration < 0:
		return exitcode.UsageError("--since must not be negative")
	}
	return nil
}

// Run selects the attempts and prints their logs.
func (o *Options) Run(ctx context.Context) error {
	src := &gather.Live{Client: o.Client, Namespace: o.Namespace, FirstPageSize: gather.PageSize, ChunkSize: gather.PageSize, WholePods: true}
	job, err := src.Job(ctx, o.JobName)
	if err != nil {
		return exitcode.APIError(err, "get", "jobs", o.JobName, o.Namespace)
	}
	acc, err := indexstatus.NewAccumulator(job)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	// The report takes every pod's summary; only the pods of the indexes asked for are kept
	// (--failed: those that did not succeed, since an index with a succeeded pod did not fail).
	var pods []corev1.Pod
	if _, err := src.Pods(ctx, job, "", func(p *corev1.Pod) {
		acc.Add(p)
		if o.indexSet && o.indexes.Has(jobpolicy.CompletionIndex(p)) || !o.indexSet && p.Status.Phase != corev1.PodSucceeded {
			pods = append(pods, *p)
		}
	}); err != nil {
		return err
	}
	report := acc.Report(indexstatus.Options{Clock: o.Clock, AllIndexes: true})
	acc.AddCaseCounts(report)
	// --index takes a list: the attempts of each index, in index order (--failed: one pass).
	picked := []int{-1}
	if o.indexSet {
		if n := int(report.Completions); o.indexes.Max() >= n {
			picked = []int{o.indexes.Max()} // Select names the range in its error
		} else {
			picked = slices.Collect(o.indexes.All())
		}
	}
	var targets []podlogs.Target
	for _, index := range picked {
		t, err := podlogs.Select(job, pods, report, podlogs.Selection{
			Index: index, Attempt: o.Attempt, AllAttempts: o.AllAttempts, Failed: o.Failed, Container: o.Container,
		})
		var selErr *podlogs.Error
		if errors.As(err, &selErr) {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		if err != nil {
			return err
		}
		targets = append(targets, t...)
	}
	if o.Failed && !o.All {
		targets = o.samples(targets, report)
	}
	return o.show(ctx, targets)
}

// samples keeps one target per cause of failure (podlogs.GroupFailed), saying on standard
// error which indexes each stands for.
func (o *Options) samples(targets []podlogs.Target, report *indexstatus.IndexedJobStatus) []podlogs.Target {
	groups := podlogs.GroupFailed(targets, report)
	out := make([]podlogs.Target, 0, len(groups))
	for _, g := range groups {
		if n := g.Indexes.Len(); n > 1 {
			_, _ = fmt.Fprintf(o.ErrOut, "%d indexes (%s) %s: the log of %s stands for them (--all: every index)\n",
				n, g.Indexes.Truncated(60), g.Cause, g.Sample.Label())
		}
		out = append(out, g.Sample)
	}
	return out
}

// show prints the notes about gone attempts and the logs of the others, prefixed when there is
// more than one. With -f the streams run side by side, line by line.
func (o *Options) show(ctx context.Context, targets []podlogs.Target) error {
	var live []podlogs.Target
	for _, t := range targets {
		if t.Gone {
			_, _ = fmt.Fprintf(o.ErrOut, "%s: %s\n", t.Label(), t.Known)
			continue
		}
		live = append(live, t)
	}
	if len(live) == 0 {
		return exitcode.Wrap(exitcode.Findings, fmt.Errorf("no logs to show: the pods of the selected attempts are gone (see above)"))
	}
	prefix := len(live) > 1
	var mu sync.Mutex
	// write writes whole lines, from one stream or several side by side.
	write := func(line string) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = io.WriteString(o.Out, line)
	}
	var errs []error
	shown := 0
	// fetch streams t. With --failed, a log that cannot be fetched (the pod deleted since the
	// LIST, its node's kubelet unreachable, a node that serves no logs) is replaced by what the
	// pod's status already says, one line on standard error, and the others are still shown.
	fetch := func(t podlogs.Target) {
		err := o.stream(ctx, t, prefix, write)
		mu.Lock()
		defer mu.Unlock()
		var fe *fetchError
		switch {
		case err == nil:
			shown++
		case o.Failed && errors.As(err, &fe):
			_, _ = fmt.Fprintf(o.ErrOut, "%s\n", fe.fallback())
		default:
			errs = append(errs, err)
		}
	}
	if o.Follow && len(live) > 1 {
		var wg sync.WaitGroup
		for _, t := range live {
			wg.Go(func() { fetch(t) })
		}
		wg.Wait()
	} else {
		for _, t := range live {
			fetch(t)
		}
	}
	if len(errs) > 0 {
		return exitcode.Wrap(exitcode.Cluster, errors.Join(errs...))
	}
	if shown == 0 {
		return exitcode.Wrap(exitcode.Findings, fmt.Errorf("no logs to show: the logs of the selected attempts could not be fetched; what their pods' status says is above"))
	}
	return nil
}

// fetchError is a log the API server could not fetch (the pod gone, the kubelet unreachable,
// a node that serves no logs): not a permission error, nor a cancelled request.
type fetchError struct {
	t   podlogs.Target
	err error
}

func (e *fetchError) Error() string {
	return fmt.Sprintf("cannot fetch the logs of pod %q (%s, container %q): %v", e.t.Pod, e.t.Label(), e.t.Container, e.err)
}

func (e *fetchError) Unwrap() error { return e.err }

// fallback is the one line --failed prints instead of the log: what the pod's status says.
func (e *fetchError) fallback() string {
	t := e.t
	facts := cmp.Or(t.Facts, fmt.Sprintf("its status records no exit for container %s", t.Container))
	return fmt.Sprintf("%s: logs not fetched (pod %s: %v); the pod's status says: %s", t.Label(), t.Pod, e.err, facts)
}

// stream copies one attempt's log, line by line, prefixed when asked.
func (o *Options) stream(ctx context.Context, t podlogs.Target, prefix bool, write func(string)) error {
	opts := &corev1.PodLogOptions{Container: t.Container, Follow: o.Follow}
	if o.Tail >= 0 {
		opts.TailLines = &o.Tail
	}
	if o.Since.Duration > 0 {
		opts.SinceSeconds = ptr.To(int64(o.Since.Seconds()))
	}
	rc, err := o.Client.CoreV1().Pods(o.Namespace).GetLogs(t.Pod, opts).Stream(ctx)
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("permission denied: you may not get the logs of pod %q (%s) in namespace %q; ask for \"get\" on \"pods/log\" (the server said: %w)", t.Pod, t.Label(), o.Namespace, err)
	}
	// A container named with -c that the pod lacks is the user's to fix (the API server's
	// 400), not a log the node cannot serve.
	if err != nil && ctx.Err() == nil && (o.Container == "" || !apierrors.IsBadRequest(err)) {
		return &fetchError{t: t, err: hint(err)}
	}
	if err != nil {
		return fmt.Errorf("cannot fetch the logs of pod %q (%s, container %q): %w", t.Pod, t.Label(), t.Container, err)
	}
	defer func() { _ = rc.Close() }()
	p := ""
	if prefix {
		p = "[" + t.Label() + "] "
	}
	r := bufio.NewReader(rc)
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			if !strings.HasSuffix(line, "\n") {
				line += "\n"
			}
			write(p + line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the logs of pod %q (%s): %w", t.Pod, t.Label(), err)
		}
	}
}

// hint adds what an unreachable kubelet means: the API server fetches logs from the node.
func hint(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "dial tcp") || strings.Contains(msg, "connection refused") || strings.Contains(msg, "no route to host") || strings.Contains(msg, "i/o timeout") {
		return fmt.Errorf("the API server could not reach the node's kubelet, which serves container logs: %w", err)
	}
	return err
}
