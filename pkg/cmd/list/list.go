// Package list implements `kubectl indexed list` (alias get): every Indexed Job of a
// namespace (or of all) in one LIST of Jobs (and, --with-pods, their pods), read through
// pkg/cmd/gather and summarised by pkg/joblist.
package list

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"
	"k8s.io/utils/clock"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/clientutil"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/joblist"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

var (
	long = templates.LongDesc(`
		List the Indexed Jobs of a namespace (or of every namespace with -A), one line each:
		phase, indexes succeeded/failed/running of the total, whether every index succeeded,
		age. A Job made by "kubectl indexed retry" is shown under the Job it retries.

		Phase and counts come from each Job's status, with the same rules as "kubectl indexed
		status"; RUN is the Job's active pods (status.active: pending or running, one per index
		being run), with or without --with-pods, which also reads the pods to add the attempts
		of every index and the pods present (docs/list.md).

		-o wide adds parallelism, backoffLimitPerIndex, the missing indexes and the reason of
		the deciding condition; -o json|yaml print an IndexedJobList (fields in docs/list.md);
		-o name prints job.batch/NAME, as kubectl does.

		Exit codes: 0 success (also when no Indexed Job is found); 2 usage error; 4 the API
		server could not be reached or refused the request.`)

	example = templates.Examples(`
		# The Indexed Jobs of the current namespace
		kubectl indexed list

		# Every namespace, only the Jobs create made from one manifest
		kubectl indexed get -A -l indexed.kubectl.io/manifest-name=evaluation

		# With attempt counts (also lists the pods)
		kubectl indexed list --with-pods -o wide

		# Names, for a loop
		kubectl indexed list -o name`)
)

// Options holds the flags of the list command.
type Options struct {
	AllNamespaces bool
	Selector      string
	WithPods      bool
	PrintFlags    output.PrintFlags

	Namespace string

	Client kubernetes.Interface
	Clock  clock.Clock

	genericiooptions.IOStreams
}

// NewOptions returns the options with their defaults.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{IOStreams: streams, Clock: clock.RealClock{},
		PrintFlags: output.PrintFlags{Wide: true, Name: true, HasNoHeaders: true, Subject: "an IndexedJobList (custom-columns: a row per Job)"}}
}

// NewCmdList returns the list command.
func NewCmdList(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return NewCmdListWithOptions(f, NewOptions(streams))
}

// NewCmdListWithOptions returns the list command bound to o (tests inject a client).
func NewCmdListWithOptions(f cmdutil.Factory, o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "list [-A] [-l SELECTOR] [--with-pods] [-o wide|json|yaml|name] [--no-headers]",
		Aliases:               []string{"get"},
		DisableFlagsInUseLine: true,
		Short:                 "List the Indexed Jobs of a namespace: phase, index counts, completeness, retries",
		Long:                  long,
		Example:               example,
		Args:                  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(f); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fl := cmd.Flags()
	fl.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "List the Indexed Jobs of every namespace.")
	fl.StringVarP(&o.Selector, "selector", "l", "", "Only Jobs whose labels match this selector (e.g. -l indexed.kubectl.io/manifest-name=evaluation).")
	fl.BoolVar(&o.WithPods, "with-pods", false, "Also list the Jobs' pods, for the attempts of every index and the pods present.")
	o.PrintFlags.AddFlags(cmd)
	return cmd
}

// Complete resolves the namespace and the client.
func (o *Options) Complete(f cmdutil.Factory) error {
	ns, _, err := clientutil.Namespace(f)
	if err != nil {
		return err
	}
	o.Namespace = ns
	if o.AllNamespaces {
		o.Namespace = metav1.NamespaceAll
	}
	if o.Client == nil {
		o.Client, err = clientutil.ForFactory(f)
	}
	return err
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if err := o.PrintFlags.Complete(); err != nil {
		return err
	}
	if _, err := labels.Parse(o.Selector); err != nil {
		return exitcode.UsageError("-l %q is not a label selector: %v", o.Selector, err)
	}
	return nil
}

// Run lists the Jobs (and pods) and prints the overview.
func (o *Options) Run(ctx context.Context) error {
	src := &gather.Live{Client: o.Client, Namespace: o.Namespace, FirstPageSize: gather.PageSize, ChunkSize: gather.PageSize}
	jobs, err := src.Jobs(ctx, o.Selector)
	if err != nil {
		return exitcode.APIError(err, "list", "jobs", "", o.Namespace)
	}
	var podsByUID map[string][]corev1.Pod
	if o.WithPods {
		// Only the Indexed Jobs' pods: the others are not listed.
		indexed := slices.DeleteFunc(slices.Clone(jobs), func(j batchv1.Job) bool { return !joblist.IsIndexed(&j) })
		podsByUID = map[string][]corev1.Pod{}
		if err := src.PodsOfJobs(ctx, indexed, func(j *batchv1.Job, p *corev1.Pod) {
			podsByUID[string(j.UID)] = append(podsByUID[string(j.UID)], *p)
		}); err != nil {
			return err
		}
	}
	// MISSING (-o wide, json, yaml) is in root shards: a large retry keeps its index map in a
	// ConfigMap, read here only for those views, once per map.
	var maps joblist.ConfigMapGetter
	if o.PrintFlags.IsWide() || o.PrintFlags.IsStructured() {
		maps = o.indexMaps(ctx)
	}
	l := joblist.BuildWithMaps(jobs, podsByUID, o.Clock, maps)
	o.addQueues(ctx, jobs, l)
	return o.PrintFlags.Print(o.Out, l, func(format string) error { return o.text(format, l) })
}

// indexMaps GETs the ConfigMaps that hold retries' index maps, each once.
func (o *Options) indexMaps(ctx context.Context) joblist.ConfigMapGetter {
	type got struct {
		cm  *corev1.ConfigMap
		err error
	}
	seen := map[string]got{}
	return func(ns, name string) (*corev1.ConfigMap, error) {
		k := ns + "/" + name
		if g, ok := seen[k]; ok {
			return g.cm, g.err
		}
		cm, err := (&gather.Live{Client: o.Client, Namespace: ns}).ConfigMap(ctx, name)
		if err != nil {
			err = exitcode.APIError(err, "get", "configmaps", name, ns)
		}
		seen[k] = got{cm, err}
		return cm, err
	}
}

// text prints the table (-o wide: more columns) or the names (-o name).
func (o *Options) text(format string, l *joblist.List) error {
	if format == output.FormatName {
		for _, r := range l.Items {
			_, _ = fmt.Fprintf(o.Out, "job.batch/%s\n", r.Name)
		}
		return nil
	}
	if len(l.Items) == 0 {
		where := fmt.Sprintf("in namespace %q", o.Namespace)
		if o.AllNamespaces {
			where = "in any namespace"
		}
		if o.Selector != "" {
			where += fmt.Sprintf(" matching %q", o.Selector)
		}
		_, _ = fmt.Fprintf(o.ErrOut, "No Indexed Jobs found %s.\n", where)
		return nil
	}
	return o.table(o.Out, l)
}

// table prints the overview as kubectl prints a table.
func (o *Options) table(w io.Writer, l *joblist.List) error {
	wide := o.PrintFlags.IsWide()
	queues := slices.ContainsFunc(l.Items, func(r joblist.Row) bool { return r.Queue != "" })
	// Every column, and whether it is shown.
	head := []string{"NAMESPACE", "NAME", "PHASE", "SUCC/FAIL/RUN/TOTAL", "COMPLETE",
		"ATTEMPTS", "PODS", "QUEUE", "ADMISSION", "AGE",
		"PARALLELISM", "PER-INDEX-LIMIT", "MISSING", "REASON"}
	on := []bool{o.AllNamespaces, true, true, true, true,
		l.WithPods, l.WithPods, queues, queues, true,
		wide, wide, wide, wide}
	tw := textwrap.NewTable(w, 3)
	line := func(cells []string) {
		var shown []string
		for i, c := range cells {
			if on[i] {
				shown = append(shown, c)
			}
		}
		_, _ = fmt.Fprintln(tw, strings.Join(shown, "\t"))
	}
	if !o.PrintFlags.NoHeaders {
		line(head)
	}
	now := o.Clock.Now()
	// The default view folds the Jobs of one retry of a plain Job (a Job per index) into one
	// row; -o wide lists each.
	rows := make([]joblist.Group, 0, len(l.Items))
	if wide {
		for _, r := range l.Items {
			rows = append(rows, joblist.Group{Row: r, Jobs: 1})
		}
	} else {
		rows = joblist.GroupRetries(l.Items)
	}
	for _, r := range rows {
		name := r.Name
		if r.Depth > 0 {
			name = strings.Repeat("  ", r.Depth-1) + "└─ " + r.Name
		}
		phase := string(r.Phase)
		if r.Error != "" && phase == "" {
			phase = "<invalid>"
		}
		complete := "no"
		if r.Complete {
			complete = "yes"
		}
		limit := "<none>"
		if r.BackoffLimitPerIndex != nil {
			limit = fmt.Sprint(*r.BackoffLimitPerIndex)
		}
		counts := fmt.Sprintf("%d/%d/%d/%d", r.Succeeded, r.Failed, r.Running, r.Total)
		line([]string{r.Namespace, name, phase, counts, complete,
			intOr(r.Attempts), intOr(r.Pods), cmp.Or(r.Queue, "<none>"), cmp.Or(r.Admission, "<none>"),
			age(r.Created, now), fmt.Sprint(r.Parallelism), limit,
			cmp.Or(r.Missing.Truncated(missingWidth), "<none>"), cmp.Or(r.Reason, "<none>")})
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range l.Items {
		if r.Error != "" {
			_, _ = fmt.Fprintf(o.ErrOut, "warning: job %q: %s\n", r.Name, r.Error)
		}
	}
	return nil
}

func age(created, now time.Time) string {
	if created.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(created))
}

func intOr(p *int) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

// missingWidth bounds the MISSING cell of -o wide, cut at an interval boundary with the count
// of the shards left out ("3,7,11 (and 997 more)"): a Job of thousands of scattered missing
// shards made a row of hundreds of columns. -o json|yaml keep the whole list.
const missingWidth = 40
