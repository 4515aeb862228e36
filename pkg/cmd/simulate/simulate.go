// Package simulate implements `kubectl indexed simulate`: the cobra glue around pkg/simulate,
// offline (nothing contacts a cluster).
package simulate

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobpolicy"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/jobspec"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/simulate"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/version"
)

var (
	long = templates.LongDesc(`
		Predict what the Job controller (Kubernetes v` + version.KubernetesMinor + `) does with an Indexed Job before it
		runs: which indexes complete or fail, how the retry limits, the podFailurePolicy, the
		success policy and the deadline interact, and the final status it writes.

		FILE holds a Job, a CronJob (its jobTemplate) or the List "kubectl indexed create
		--dry-run=client -o yaml" prints. How each pod ends comes from the flags, else from the
		scenario annotations of the pod template that the project's local control plane (kwok)
		reads (scenario.indexed.kubectl.io/exit-code[.INDEX[.ATTEMPT]], run-time, condition,
		container, termination-delay; see test/README.md), so one manifest gives the same
		outcome simulated and run; without either, every pod runs 1s and exits 0.

		--outcome INDEX=CODE[,CODE...] gives exit codes per attempt: the first pod of the index
		exits with the first code, the next pod (or, under restartPolicy OnFailure, the next run
		of the container) with the second; codes beyond the attempts that happen are ignored and
		the last code repeats. --duration and --condition work the same way (a condition such as
		DisruptionTarget fails the pod with exit code 137 unless a code is given). INDEX may be a
		range such as 3-5.

		Timing is idealized (syncs take no time); when failing pods ending half a second earlier
		or later than succeeding ones would change the outcome, both outcomes are printed. The
		model, its costs and limits (250,000 completions) are in docs/simulate.md. --compare
		FILE2 [FILE3...] simulates every file on the same outcomes, side by side.

		Exit codes: 0 simulated; 2 bad flags, unreadable input, no Indexed Job in a file, more
		than 250,000 completions; 130, 143 interrupted.`)

	example = templates.Examples(`
		# The prepare-db Job: shards 1, 4 and 7 fail, the others run 30s
		kubectl indexed simulate prepare-db.yaml --default-duration 30s --outcome 1=1 --outcome 4=1 --outcome 7=1

		# Shard 2 fails twice transiently, then succeeds
		kubectl indexed simulate job.yaml --outcome 2=1,1,0

		# Index 3 is preempted once (DisruptionTarget), then succeeds
		kubectl indexed simulate job.yaml --condition 3=DisruptionTarget,

		# Today's Job next to the fix lint proposes, on the same outcomes
		kubectl indexed simulate job.yaml --compare job-fixed.yaml --outcome 4=1

		# The predicted status as a real Job's .status, for scripts
		kubectl indexed simulate job.yaml -o json | jq .status`)
)

// Options of `kubectl indexed simulate`.
type Options struct {
	Outcomes         []string
	Durations        []string
	Conditions       []string
	DefaultOutcome   int
	DefaultDuration  string
	TerminationDelay string
	Compare          []string
	PrintFlags       output.PrintFlags
	Horizon          time.Duration

	path     string
	outcomes *simulate.Outcomes
	genericiooptions.IOStreams
}

// NewOptions returns Options with the defaults.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{IOStreams: streams, Horizon: 24 * time.Hour,
		PrintFlags: output.PrintFlags{Wide: true, ItemsKey: "events", Subject: "a SimulationReport, or a SimulationComparison with --compare (custom-columns: a row per event, or per report)"}}
}

// NewCmdSimulate returns the simulate command.
func NewCmdSimulate(streams genericiooptions.IOStreams) *cobra.Command {
	o := NewOptions(streams)
	cmd := &cobra.Command{
		Use:                   "simulate FILE [--outcome INDEX=CODE[,CODE...]]... [--compare FILE2...]",
		DisableFlagsInUseLine: true,
		Short:                 "Predict how the Job controller will run an Indexed Job, offline",
		Long:                  long,
		Example:               example,
		Args:                  cobra.ArbitraryArgs,
		ValidArgsFunction:     cobra.FixedCompletions([]string{"yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&o.Outcomes, "outcome", nil, "INDEX=CODE[,CODE...], INDEX "+indexes.FlagGrammar+" (2,5,11-14=1): exit codes of the index's attempts (the last repeats); repeatable, a later one for the same index replaces an earlier (0-9=0 then 4=1 fails index 4 only)")
	fl.StringArrayVar(&o.Durations, "duration", nil, "INDEX=DURATION[,DURATION...]: run time of the index's attempts (Go duration or never); repeatable, a later one for the same index replaces an earlier")
	fl.StringArrayVar(&o.Conditions, "condition", nil, "INDEX=TYPE[,TYPE...]: pod condition (such as DisruptionTarget) set as the attempt fails; empty TYPE for none; repeatable, a later one for the same index replaces an earlier")
	fl.IntVar(&o.DefaultOutcome, "default-outcome", 0, "exit code of the indexes without --outcome (default: the annotations, else 0)")
	fl.StringVar(&o.DefaultDuration, "default-duration", "", "run time of the indexes without --duration (default: the annotations, else 1s)")
	fl.StringVar(&o.TerminationDelay, "termination-delay", "", "how long a deleted pod stays Terminating (default: the annotations, else 0s)")
	fl.StringArrayVar(&o.Compare, "compare", nil, "another Job file to simulate on the same outcomes, side by side (repeatable; files given after FILE are compared too)")
	fl.DurationVar(&o.Horizon, "horizon", o.Horizon, "stop simulating after this much simulated time")
	_ = cmd.MarkFlagFilename("compare", "yaml", "yml", "json")
	o.PrintFlags.AddFlags(cmd) // -o wide: the text with every event and index
	return cmd
}

// Complete reads the flags into outcomes.
func (o *Options) Complete(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return exitcode.UsageError("give a Job file: kubectl indexed simulate FILE\nSee 'kubectl indexed simulate --help' for usage.")
	}
	o.path = args[0]
	// simulate a.yaml --compare b.yaml c.yaml: the files after the first are compared too.
	o.Compare = append(o.Compare, args[1:]...)
	out := simulate.NewOutcomes()
	for _, flag := range []struct {
		values []string
		parse  func(string) error
	}{{o.Outcomes, out.ParseOutcome}, {o.Durations, out.ParseDuration}, {o.Conditions, out.ParseCondition}} {
		for _, v := range flag.values {
			if err := flag.parse(v); err != nil {
				return exitcode.UsageError("%v", err)
			}
		}
	}
	if cmd != nil && cmd.Flags().Changed("default-outcome") {
		if o.DefaultOutcome < 0 || o.DefaultOutcome > 255 {
			return exitcode.UsageError("--default-outcome %d: an exit code is 0-255", o.DefaultOutcome)
		}
		c := int32(o.DefaultOutcome)
		out.DefaultCode = &c
	}
	if o.DefaultDuration != "" {
		if err := out.SetDefaultDuration(o.DefaultDuration); err != nil {
			return exitcode.UsageError("%v", err)
		}
	}
	if o.TerminationDelay != "" {
		d, err := time.ParseDuration(o.TerminationDelay)
		if err != nil || d < 0 {
			return exitcode.UsageError("--termination-delay %q: not a duration such as 30s", o.TerminationDelay)
		}
		out.TerminationDelay = &d
	}
	o.outcomes = out
	return nil
}

// Validate checks the output format.
func (o *Options) Validate() error {
	if err := o.PrintFlags.Complete(); err != nil {
		return err
	}
	if o.Horizon <= 0 {
		return exitcode.UsageError("--horizon must be positive")
	}
	return nil
}

// MaxCompletions is the largest spec.completions simulate takes: the simulation costs about a
// second per 100,000 indexes (every pod played up to three times, and a report with an entry
// per index), so this finishes in a few seconds.
const MaxCompletions = 250_000

// Run simulates every file and prints the reports; ctx stops the simulation (SIGINT, SIGTERM:
// main cancels it with exitcode.Interrupt).
func (o *Options) Run(ctx context.Context) error {
	start := time.Now().UTC().Truncate(time.Second)
	var reports []simulate.Report
	for _, path := range append([]string{o.path}, o.Compare...) {
		job, _, err := simulate.ReadJob(path, o.In)
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		if jobspec.IsLive(job) {
			// kubectl get job -o yaml: simulated as the manifest that made it, from the start
			// (what the server set taken out, as lint does); its status is not a starting point.
			job = jobspec.DesiredSpec(job)
			note := fmt.Sprintf("note: %s is a Job read back from a cluster: its spec is simulated from the start, as created (its status is not used; for where it stands, kubectl indexed status)", path)
			_, _ = fmt.Fprintln(o.ErrOut, strings.Join(textwrap.Words(note, textWidth-2), "\n  "))
		}
		if c := job.Spec.Completions; c != nil && *c > MaxCompletions {
			return exitcode.UsageError("%s: spec.completions %d is more than simulate takes (%d): it plays every pod of the Job up to three times, about a second per 100,000 indexes; simulate a smaller Job with the same limits, rules and ratio of parallelism to completions",
				path, *c, MaxCompletions)
		}
		if job.Spec.Completions != nil {
			if out := o.outcomes.OutOfRange(int(*job.Spec.Completions)); len(out) > 0 {
				c := int(*job.Spec.Completions)
				valid := "no index"
				if c > 0 {
					valid = indexes.Range(0, c-1).Named(0)
				}
				_, _ = fmt.Fprintf(o.ErrOut, "note: %s has %s (%s): the flags for %s do not apply to it\n",
					path, textwrap.Count(c, "completion", "completions"), valid, indexes.Of(out...).Named(setWidth))
			}
		}
		keep := job.Spec.Completions != nil && *job.Spec.Completions <= statusViewLimit && !o.PrintFlags.IsMachine()
		rep, err := simulate.Predict(job, o.outcomes, simulate.Options{Start: start, Horizon: o.Horizon, MaxEvents: 500, KeepPods: keep, Context: ctx})
		if err != nil && ctx.Err() != nil {
			// exit 130 (SIGINT) or 143 (SIGTERM), nothing printed on stdout.
			detail := strings.TrimSuffix(err.Error(), ": "+context.Cause(ctx).Error())
			return exitcode.Interrupted(ctx, "simulating "+path, "("+detail+")")
		}
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, fmt.Errorf("%s: %w", path, err))
		}
		rep.Source = path
		reports = append(reports, *rep)
	}
	if len(reports) > 1 {
		return o.PrintFlags.PrintList(o.Out, simulate.Comparison{APIVersion: simulate.APIVersion, Kind: simulate.KindComparison, Reports: reports}, "reports",
			func(string) error { return printCompare(o.Out, reports, o.PrintFlags.IsWide()) })
	}
	return o.PrintFlags.Print(o.Out, reports[0], func(string) error { return printText(o.Out, &reports[0], start, o.PrintFlags.IsWide()) })
}

// outcomeReason is " (REASON)" of the condition of the outcome's type, the last one, or "".
func outcomeReason(r *simulate.Report) string {
	reason := ""
	for _, c := range r.Status.Conditions {
		if string(c.Type) == r.Outcome {
			reason = " (" + c.Reason + ")"
		}
	}
	return reason
}

func outcomeLine(r *simulate.Report) string {
	switch r.Outcome {
	case "Running":
		return fmt.Sprintf("still Running after %s: the remaining pods run forever and nothing else happens", r.Duration)
	case "Unfinished":
		return fmt.Sprintf("not finished within the horizon (%s)", r.Duration)
	}
	return fmt.Sprintf("%s%s after %s", r.Outcome, outcomeReason(r), r.Duration)
}

// indexCells are the status's completedIndexes and failedIndexes as the text views show them:
// each set cut at about width bytes ("0-99,101-199 (and 98900 more)", 0 for all of it),
// "none" when empty. failedIndexes is absent (nil) when the Job has no backoffLimitPerIndex,
// as the Job controller then does not track failed indexes: that is "not tracked", not "none".
func indexCells(r *simulate.Report, width int) (completed, failed string) {
	c, f := jobpolicy.StatusIndexes(r.Result().Job)
	cell := func(s *string, set indexes.Set) string {
		switch {
		case s == nil:
			return "not tracked"
		case *s == "":
			return "none"
		case width <= 0:
			return *s
		}
		return set.Truncated(width)
	}
	return cell(&r.Status.CompletedIndexes, c), cell(r.Status.FailedIndexes, f)
}

// setWidth is how many bytes of an interval string the text view shows (status's width).
const setWidth = 60

func printText(w io.Writer, r *simulate.Report, start time.Time, wide bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Job %s (%s): %s\n", r.Job, r.Source, outcomeLine(r))
	st := &r.Status
	// Index lists are cut at setWidth bytes unless -o wide (-o json has them whole).
	width := setWidth
	if wide {
		width = 0
	}
	completed, failed := indexCells(r, width)
	fmt.Fprintf(&b, "  completedIndexes: %s  failedIndexes: %s  succeeded: %d  failed: %d\n", completed, failed, st.Succeeded, st.Failed)
	for _, c := range st.Conditions {
		fmt.Fprintf(&b, "  %s=%s %s at %s: %s\n", c.Type, c.Status, c.Reason, c.LastTransitionTime.Sub(start), c.Message)
	}
	fmt.Fprintf(&b, "  pods per index at the end: %s (%d created)\n", simulate.PodsTextWidth(r.PodsPerIndex, width), r.PodsCreated)
	switch {
	case r.TimingIndependent != "":
		fmt.Fprintf(&b, "  timing: %s\n", r.TimingIndependent)
	case len(r.TimingDependent) == 0:
		b.WriteString("  timing: the same outcome when failing pods end earlier or later than succeeding ones\n")
	}
	if r.AdmissionWait != "" {
		fmt.Fprintf(&b, "  admission: %s\n", r.AdmissionWait)
	}
	if r.RestartTiming != "" {
		fmt.Fprintf(&b, "  restart timing: %s\n", r.RestartTiming)
	}
	for _, a := range r.TimingDependent {
		fmt.Fprintf(&b, "  TIMING-DEPENDENT: if %s: %s; %s\n", a.Meaning, a.Outcome, strings.Join(a.Differs, "; "))
	}
	b.WriteString("\nTimeline:\n")
	// The default view groups the events of one instant and cause (each index's own event
	// with -o wide) and shows the first 40 lines.
	var lines []simulate.TimelineLine
	limit := 40
	if wide {
		for _, e := range r.Events {
			lines = append(lines, simulate.TimelineLine{At: e.At, Message: e.Message, Events: 1})
		}
		limit = len(lines)
	} else {
		lines = simulate.GroupEvents(r.Events)
	}
	shown := 0
	for i, l := range lines {
		if i == limit {
			fmt.Fprintf(&b, "  ... %d more events (-o wide)\n", len(r.Events)-shown+r.MoreEvents)
			break
		}
		fmt.Fprintf(&b, "  t=%-7s %s\n", l.At, l.Message)
		shown += l.Events
	}
	if r.MoreEvents > 0 && limit >= len(lines) {
		fmt.Fprintf(&b, "  ... %d more events\n", r.MoreEvents)
	}
	b.WriteString("\nIndexes:\n")
	tw := textwrap.NewTable(&b, 2)
	_, _ = fmt.Fprintln(tw, "  INDEXES\tSTATE\tPODS\tFAILURES\tIGNORED\tRESTARTS\tEXIT CODES")
	for _, g := range r.Indexes {
		_, _ = fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%d\t%s\n", g.Indexes.Truncated(setWidth), g.State, g.Pods, g.Failures, g.Ignored, g.Restarts, codes(g.ExitCodes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	text := b.String()
	if !wide {
		text = wrapLines(text, textWidth)
	}
	if _, err := io.WriteString(w, text); err != nil {
		return err
	}
	return printStatusView(w, r, start, wide)
}

// textWidth is the width of the default text view (-o wide does not wrap).
const textWidth = 80

// wrapLines wraps each line longer than width at spaces: a timeline line ("  t=1s      ...")
// continues under its message, any other under its first word plus two.
func wrapLines(text string, width int) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if utf8.RuneCountInString(line) <= width {
			out = append(out, line)
			continue
		}
		body := strings.TrimLeft(line, " ")
		lead := line[:len(line)-len(body)]
		indent := lead + "  "
		if strings.HasPrefix(body, "t=") && len(body) > 10 {
			indent = lead + strings.Repeat(" ", 10)
		}
		cur := ""
		for _, word := range strings.Split(body, " ") {
			switch {
			case cur == "":
				cur = lead + word
			case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(word) > width && strings.TrimSpace(cur) != "":
				out = append(out, cur)
				cur = indent + word
			default:
				cur += " " + word
			}
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// statusViewLimit: up to this many indexes the text view ends with status's own report.
const statusViewLimit = 10000

// printStatusView prints what `kubectl indexed status` would say about the Job and its pods at
// the end of the simulation (r from Predict: its Job passed Check, which wants completions).
func printStatusView(w io.Writer, r *simulate.Report, start time.Time, wide bool) error {
	res := r.Result()
	if *res.Job.Spec.Completions > statusViewLimit {
		return nil
	}
	st, err := indexstatus.Build(res.Job, res.Pods(), indexstatus.Options{Clock: indexstatus.FixedClock(start.Add(res.End)), AllIndexes: wide})
	if err != nil {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\nAt the end, kubectl indexed status would say:\n\n"); err != nil {
		return err
	}
	return indexstatus.PrintText(w, st, wide)
}

func codes(cs []int32) string {
	if len(cs) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(cs))
	for i, c := range cs {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("... (%d)", len(cs)))
			break
		}
		parts = append(parts, strconv.Itoa(int(c)))
	}
	return strings.Join(parts, ",")
}

// printCompare prints the reports side by side, index lists cut unless wide.
func printCompare(w io.Writer, reports []simulate.Report, wide bool) error {
	width := setWidth
	if wide {
		width = 0
	}
	tw := textwrap.NewTable(w, 2)
	row := func(name string, f func(r *simulate.Report) string) {
		cells := []string{name}
		for i := range reports {
			cells = append(cells, f(&reports[i]))
		}
		_, _ = fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	row("", func(r *simulate.Report) string { return r.Source })
	row("outcome", func(r *simulate.Report) string { return r.Outcome + outcomeReason(r) })
	row("after", func(r *simulate.Report) string { return r.Duration })
	row("completedIndexes", func(r *simulate.Report) string { c, _ := indexCells(r, width); return c })
	row("failedIndexes", func(r *simulate.Report) string { _, f := indexCells(r, width); return f })
	row("succeeded", func(r *simulate.Report) string { return strconv.Itoa(int(r.Status.Succeeded)) })
	row("failed", func(r *simulate.Report) string { return strconv.Itoa(int(r.Status.Failed)) })
	row("indexes never finished", func(r *simulate.Report) string {
		n := 0
		for _, g := range r.Indexes {
			if g.State != jobpolicy.IndexSucceeded && g.State != jobpolicy.IndexFailed {
				n += g.Indexes.Len()
			}
		}
		return strconv.Itoa(n)
	})
	row("pods created", func(r *simulate.Report) string { return strconv.Itoa(r.PodsCreated) })
	row("timing-dependent", func(r *simulate.Report) string {
		if len(r.TimingDependent) == 0 {
			return "no"
		}
		var alts []string
		for _, a := range r.TimingDependent {
			alts = append(alts, string(a.Timing)+": "+a.Outcome)
		}
		return "yes (" + strings.Join(alts, ", ") + ")"
	})
	return tw.Flush()
}
