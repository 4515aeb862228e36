// Package status implements `kubectl indexed status`: the cobra glue around pkg/indexstatus,
// live (one Job GET and one paginated LIST of the pods that did not succeed) or offline from
// saved objects.
package status

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"
	"k8s.io/utils/clock"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/clientutil"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/gather"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/jobref"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/namecompletion"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/onceflag"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/printcmd"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/htmlreport"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/podrecord"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

var (
	long = templates.LongDesc(`
		Explain an Indexed Job index by index: its phase and the condition that decided it;
		which indexes have no result; each index's state, attempts, exit codes, matched
		podFailurePolicy rule and retries left; the indexes that needed more than one attempt;
		what happens next, and what cannot be known because pods are gone.

		Live, status reads the Job, its pods and its shard ConfigMap; offline, -f takes the Job
		(and --pods-file its pods) as kubectl get -o json|yaml writes them, and nothing
		contacts a cluster. Both give the same report for the same objects. What is read, and
		how, is in docs/status.md.

		The text view folds runs of indexes in the same state into ranges; -o wide details every
		index; -o json|yaml print the IndexedJobStatus report (docs/status.md). --watch follows
		the Job until it finishes: on a terminal it redraws in place, into a pipe or a file it
		prints a line per change, then the report. --wait blocks until then and exits as with
		--exit-code, with its progress and a suspended Job's warning on standard error.
		--timeout bounds both (kubectl wait's grammar); with --lineage they wait for every Job.

		Exit codes: 0 success; with --exit-code, 0 only when every index succeeded, 1 when the
		Job finished or is failing without that, 3 while it is still running; 2 usage error or
		unreadable input; 4 the API server could not be reached or refused; 5 --timeout passed;
		130/143 interrupted.`)

	example = templates.Examples(`
		# Explain a Job in the current namespace
		kubectl indexed status evaluation

		# Every index, with its pods and shard ID
		kubectl indexed status evaluation -n ml -o wide

		# Follow a Job until it finishes; in CI, fail unless every index succeeded
		kubectl indexed status evaluation --watch --exit-code

		# A pipeline step: wait, print the report once, exit 0 only when every index
		# succeeded (1 failed or missing, 5 after 2h); --record keeps pods' evidence
		kubectl indexed status evaluation --wait --timeout 2h --record eval.record

		# Gate on a run and its retries: wait until every Job of the lineage finished
		kubectl indexed status evaluation --lineage --wait

		# Only the failed indexes, every one of them listed
		kubectl indexed status evaluation --state failed

		# The report as JSON, for scripts
		kubectl indexed status evaluation -o json | jq '.indexes[] | select(.state == "Failed")'

		# Offline, from saved objects (no cluster needed); -f JOB -f eval.record also works
		kubectl get job evaluation -o json > job.json
		kubectl get pods -l batch.kubernetes.io/job-name=evaluation -o json > pods.json
		kubectl indexed status -f job.json --pods-file pods.json`)
)

// DefaultChunkSize is the page size of the pod LIST after its first page (kubectl's own).
const DefaultChunkSize = 500

// DefaultFirstPageSize is the size of the first page of the pod LIST: it holds every pod of a
// Job of up to this many pods. 10,000 is also the largest range the API server itself reads
// from etcd when it filters a LIST.
//
// Why the first page is large: the API server answers a LIST without resourceVersion from its
// watch cache, as a consistent read (it first makes sure the cache has caught up with etcd, so
// the list is as fresh as a read from etcd and the report is never stale). A continue token,
// though, asks for the exact revision of the first page, and the cache serves that only while it
// holds a snapshot at or before it; the mirrored release (pkg/version) drops every snapshot older than etcd's last compaction
// (every 5 minutes), so once a cluster's pods have been quiet for 5 to 10 minutes every page
// after the first is read from etcd, each pod decoded again, at about twice the cost of the
// cache (docs/benchmarks.md, status). Status decodes each pod as it arrives (gather.Live.Pods), so the page
// size costs it no memory. The LIST stays paginated beyond 10,000 pods, in pages of
// DefaultChunkSize, since the API server may then have to read etcd and hold a page of decoded
// pods.
//
// Not resourceVersion=0 (or NotOlderThan 0): the watch cache then ignores limit and returns
// every pod in one response however many there are, a little stale. Nor NotOlderThan the Job's
// resourceVersion, which skips the consistent read's wait for the cache but measured no faster
// and may miss the last few milliseconds of pod changes.
const DefaultFirstPageSize = 10000

// ListQPS and ListBurst bound the client's request rate (client-go's default is 5 and 10).
const (
	ListQPS   = 50
	ListBurst = 100
)

// Options holds the flags and resolved inputs of the status command.
type Options struct {
	// conn are the connection flags given, carried into the commands the report prints.
	conn printcmd.Connection

	Filename   string
	PodsFile   string
	ShardsFile string
	PrintFlags output.PrintFlags
	Watch      bool
	ExitCode   bool
	// Wait is --wait: --watch without the frames and with --exit-code (watch.go).
	Wait bool
	// Timeout is --timeout (kubectl wait's grammar): how long --wait or --watch waits before
	// giving up with exit code 5; 0 looks once, negative is a week. timeoutSet: it was given
	// (without it, the wait has no limit).
	Timeout    time.Duration
	timeoutSet bool
	// Lineage reports every shard across the root Job and its retries (lineage.go).
	Lineage bool
	// AllPods reads every pod live, the succeeded ones too (gather.PodRead).
	AllPods bool
	// Record is --record: the file the terminal pods seen by --watch or --wait are appended to
	// (record.go); rec writes it once the Job is read, recErr is its first error.
	Record string
	rec    *podrecord.Writer
	recErr error
	// recMu guards rec while the lineage's pod watch adds to it (lineagerecord.go).
	recMu sync.Mutex
	// Filenames are -f's files (repeatable; Filename says them all); records are those of them
	// that are records of terminal pods (status --record), jobFiles the others (record.go).
	Filenames, records, jobFiles []string
	// States is --state: the index states whose rows the tables keep (states, once
	// validated); every index of them is listed.
	States []string
	states []indexstatus.State
	// Width is the text view's width: the terminal's when Out is a wider one (0: 80).
	Width func() int
	// Now is --now: the time an offline report is made at (default: the newest time in the
	// objects, offline.go); nowFlag its text. namespaceFlag says -n was given.
	Now           time.Time
	nowFlag       string
	namespaceFlag bool
	// ChunkSize is the page size of the pod LIST; FirstPageSize that of its first page (set to
	// ChunkSize when --chunk-size is given).
	ChunkSize     int64
	FirstPageSize int64

	JobName string

	// src is the one source Run reads every fact from, made once: live by Complete, -n's
	// namespace through the client NewClient makes, with the page sizes above (--record sees
	// every pod it reads); offline by Run, the files of -f (and --pods-file, --shards-file).
	src gather.Source
	// NewClient makes the client from the REST config: clientutil.NewClientset by default
	// (requests end with their context even while a credential plugin hangs), or tests' fake.
	NewClient func(*rest.Config) (kubernetes.Interface, error)
	// Clock gives "now" for backoff and ages.
	Clock clock.WithTicker

	genericiooptions.IOStreams
}

// NewOptions returns the status options with their defaults.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{
		IOStreams:     streams,
		ChunkSize:     DefaultChunkSize,
		FirstPageSize: DefaultFirstPageSize,
		Clock:         clock.RealClock{},
		NewClient:     clientutil.NewClientset,
		PrintFlags: output.PrintFlags{Wide: true, Name: true, ItemsKey: "indexes", Extra: []string{FormatHTML},
			Subject: "an IndexedJobStatus, or a LineageReport with --lineage (custom-columns: a row per index, or per shard); name is job.batch/NAME, with --lineage every Job of the lineage; html is one self-contained page of every index, or with --lineage of every shard (docs/status.md)"},
	}
}

// NewCmdStatus returns the status command.
func NewCmdStatus(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return NewCmdStatusWithOptions(f, NewOptions(streams))
}

// NewCmdStatusWithOptions returns the status command bound to o (tests inject a client and a
// clock through o).
func NewCmdStatusWithOptions(f cmdutil.Factory, o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "status JOB | -f JOB_FILE [-f RECORD | --pods-file PODS_FILE] [-o wide|json|yaml] [--watch] [--wait] [--timeout DURATION] [--exit-code] [--record FILE] [--lineage]",
		DisableFlagsInUseLine: true,
		Short:                 "Explain an Indexed Job index by index: phase, completeness, every index, what next",
		Long:                  long,
		Example:               example,
		ValidArgsFunction:     namecompletion.JobNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.namespaceFlag = cmd.Flags().Changed("namespace")
			o.timeoutSet = cmd.Flags().Changed("timeout")
			if cmd.Flags().Changed("chunk-size") {
				o.FirstPageSize = o.ChunkSize
			}
			o.conn = printcmd.FromCommand(cmd)
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
	onceflag.FilesVarP(fl, &o.Filenames, &o.Filename, "filename", "f", "Offline: a saved Job (kubectl get job -o json|yaml), with its pods and a retry's index-map ConfigMap if wanted, or - for stdin; repeatable, and a record of its terminal pods (status --record) may be one of the files. No cluster is contacted.")
	onceflag.StringVarP(fl, &o.PodsFile, "pods-file", "", "", "Offline: the Job's pods as a PodList (kubectl get pods -o json) or a record of its terminal pods (status --record), or - for stdin.")
	onceflag.StringVarP(fl, &o.Record, "record", "", "", "With --watch or --wait: append every terminal pod (exit codes, reason, termination message, node, times) to this file as it is seen, so the evidence outlives pod garbage collection; read it back with -f JOB_FILE -f FILE (or --pods-file FILE). Reads every pod, as --all-pods; a restarted watch appends to the same file, each pod once. With --lineage: the pods of every Job of the lineage, in one file.")
	onceflag.StringVarP(fl, &o.ShardsFile, "shards-file", "", "", "Offline: the Job's shard ConfigMap (kubectl get configmap -o json), for shard IDs.")
	o.PrintFlags.AddFlags(cmd)
	fl.BoolVarP(&o.Watch, "watch", "w", false, "Follow the Job until it is Complete or Failed (live only): on a terminal, redraw in place with the elapsed time and an ETA; otherwise a line per change of the Job's state, then the full report. With --lineage: every Job of the lineage.")
	fl.BoolVar(&o.Lineage, "lineage", false, "One row per original shard across the Job's root and every retry (kubectl indexed retry): which Job's result stands, the Jobs it went through, and how many shards succeeded in all. Offline, -f holds the Jobs (and optionally pods and shard ConfigMaps).")
	fl.StringVar(&o.nowFlag, "now", "", "Offline: the time the objects were saved (RFC 3339, e.g. 2026-03-01T12:00:00Z), for ages and backoff. Default: the newest time written in them.")
	fl.StringSliceVar(&o.States, "state", nil, "Keep only the rows of these index states in the tables, listing every index of each (repeatable, or a comma list): succeeded, failed, running, pending, retrying, terminating, unfinished. -o json|yaml keep only those indexes[].")
	_ = cmd.RegisterFlagCompletionFunc("state", cobra.FixedCompletions(stateNames(), cobra.ShellCompDirectiveNoFileComp))
	fl.BoolVar(&o.AllPods, "all-pods", false, "Live: read every pod, the succeeded ones too, for their names, exits and receipts. By default only the pods that did not succeed are read, and the Job's status says which indexes succeeded (every pod is read when it cannot say).")
	fl.BoolVar(&o.Wait, "wait", false, "Block until the Job is Complete or Failed (with --lineage: every Job of the lineage), print the report once, and exit as --exit-code: 0 every index succeeded, 1 failed or finished with indexes missing (live only; for a pipeline step). Progress and a suspended Job's warning go to standard error.")
	fl.DurationVar(&o.Timeout, "timeout", 0, "With --wait or --watch: the length of time to wait before giving up (exit 5, the last report printed), e.g. 30s, 5m, 2h. Zero means check once and don't wait, negative means wait for a week. Default: no limit.")
	fl.BoolVar(&o.ExitCode, "exit-code", false, "Exit 0 only when every index succeeded, 1 when the Job finished or is failing without that, 3 while it runs.")
	fl.Int64Var(&o.ChunkSize, "chunk-size", o.ChunkSize, "Pods per page of the pod LIST (0: one unpaginated LIST). By default the first page holds up to 10,000 pods, the API server serving it from its watch cache, and later pages 500.")
	for _, name := range []string{"filename", "pods-file", "shards-file"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions([]string{"json", "yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt))
	}
	return cmd
}

func (o *Options) offline() bool { return o.Filename != "" }

// Complete resolves the Job name and, live, the namespace and the source Run reads from (the
// client); offline, it sorts -f's files, which Run reads.
func (o *Options) Complete(f cmdutil.Factory, args []string) error {
	if len(args) > 1 {
		return exitcode.UsageError("expected one Job name, got %d arguments\nSee 'kubectl indexed status --help' for usage.", len(args))
	}
	if len(args) == 1 {
		name, err := jobref.Name(args[0])
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		o.JobName = name
	}
	if o.offline() {
		if (o.PodsFile == source.StdinName || slices.Contains(o.Filenames, source.StdinName)) && o.In != nil {
			// Standard input is buffered once here, so that Run can peek at it (is it JSON
			// to stream?) and hand the same reader to the general reader otherwise.
			o.In = bufio.NewReaderSize(o.In, gather.StdinBuffer)
		}
		// The files are read by Run, after Validate: a wrong flag is said rather than a file's
		// error.
		return o.splitRecords()
	}
	if o.JobName == "" {
		return exitcode.UsageError("give a Job name, or -f JOB_FILE for a saved Job\nSee 'kubectl indexed status --help' for usage.")
	}
	ns, _, err := clientutil.Namespace(f)
	if err != nil {
		return err
	}
	live := &gather.Live{Namespace: ns, FirstPageSize: o.FirstPageSize, ChunkSize: o.ChunkSize}
	if o.Record != "" {
		live.Seen = o.recordPod
	}
	cfg, err := f.ToRESTConfig()
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the kubeconfig: %w", err))
	}
	cfg = rest.CopyConfig(cfg)
	// Pods are listed in protobuf: several times cheaper to decode than JSON.
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	// A large Job takes many pages (100,000 pods are 200 pages of 500): client-go's default of
	// 5 requests per second (burst 10) would add 0.2s per page beyond the tenth. The requests
	// are sequential, so this bounds a burst without slowing one report down; the API
	// server's priority and fairness still applies.
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		cfg.QPS, cfg.Burst = ListQPS, ListBurst
	}
	live.Client, err = o.NewClient(cfg)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot make a client: %w", err))
	}
	o.src = live
	return nil
}

// FormatHTML is -o html: the report as one self-contained HTML page (pkg/htmlreport).
const FormatHTML = "html"

// Validate checks the flags.
func (o *Options) Validate() error {
	if err := o.PrintFlags.Complete(); err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	if o.Wait {
		if o.offline() {
			return exitcode.UsageError("--wait needs a live Job: it cannot be used with -f")
		}
		o.Watch, o.ExitCode = true, true
	}
	if o.Record != "" {
		if !o.Watch || o.offline() {
			return exitcode.UsageError("--record needs --watch or --wait on a live Job: it keeps the pods they see")
		}
		o.AllPods = true
	}
	if o.timeoutSet {
		if !o.Watch {
			return exitcode.UsageError("--timeout needs --wait or --watch: it bounds how long they wait")
		}
		if o.Timeout < 0 {
			o.Timeout = exitcode.WeekTimeout // as kubectl wait
		}
	}
	if o.offline() {
		if o.JobName != "" {
			return exitcode.UsageError("give either a Job name or -f JOB_FILE, not both")
		}
		if o.namespaceFlag {
			return exitcode.UsageError("-n/--namespace cannot be used with -f: the saved Job names its own namespace")
		}
		if o.nowFlag != "" {
			t, err := indexstatus.ParseTime(o.nowFlag)
			if err != nil {
				return exitcode.UsageError("--now %v", err)
			}
			o.Now = t
		}
		if o.Watch {
			return exitcode.UsageError("--watch needs a live Job: it cannot be used with -f")
		}
		if o.AllPods {
			return exitcode.UsageError("--all-pods is for a live Job: offline, the report is made from every pod given")
		}
		inputs := append(slices.Clone(o.Filenames), o.PodsFile, o.ShardsFile)
		if len(slices.DeleteFunc(inputs, func(p string) bool { return p != source.StdinName })) > 1 {
			return exitcode.UsageError("only one of -f, --pods-file and --shards-file can be - (standard input)")
		}
	} else if o.PodsFile != "" || o.ShardsFile != "" || o.nowFlag != "" {
		return exitcode.UsageError("--pods-file, --shards-file and --now need -f JOB_FILE (offline mode)")
	}
	if o.ChunkSize < 0 {
		return exitcode.UsageError("--chunk-size must not be negative")
	}
	return o.validateStates()
}

// Run builds the report and prints it.
func (o *Options) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.offline() {
		read := o.readOffline
		if o.Lineage {
			read = o.offlineLineage // the Jobs of a run
		}
		if err := read(); err != nil {
			return err
		}
	}
	if o.Lineage {
		return o.runLineage(ctx)
	}
	if o.Watch {
		return o.closeRecord(o.watch(ctx))
	}
	rd, err := o.src.ReadJob(ctx, o.readOptions())
	if err != nil {
		return err
	}
	st, err := o.state(rd)
	if err != nil {
		return err
	}
	return o.finish(st.report(o))
}

// finish prints the report and turns it into the exit code.
func (o *Options) finish(r *indexstatus.IndexedJobStatus) error {
	if err := o.print(o.Out, r); err != nil {
		return err
	}
	return o.exitError(r)
}

func (o *Options) print(w io.Writer, r *indexstatus.IndexedJobStatus) error {
	r = o.carryConnection(failedCreateNext(r))
	r = onlyStates(r, o.states)
	if o.PrintFlags.Format() == output.FormatJSON {
		return writeJSON(w, r)
	}
	return o.PrintFlags.Print(w, r, func(format string) error {
		switch format {
		case output.FormatName:
			// As kubectl get -o name: the Job the report is about.
			_, err := fmt.Fprintf(w, "job.batch/%s\n", r.Job.Name)
			return err
		case FormatHTML:
			return htmlreport.Write(w, r)
		}
		width := output.TerminalWidth(o.Out)
		if o.Width != nil {
			width = o.Width()
		}
		return indexstatus.PrintTextWith(w, r, indexstatus.TextOptions{Wide: format == output.FormatWide, Width: width, States: o.states})
	})
}

// stateNames are the values --state takes (and completes): the index states, in lower case.
func stateNames() []string {
	names := make([]string, 0, len(indexstatus.States))
	for _, s := range indexstatus.States {
		names = append(names, strings.ToLower(string(s)))
	}
	return names
}

// validateStates reads --state: index states in any case, repeated or in a comma list.
func (o *Options) validateStates() error {
	o.states = nil
	for _, v := range o.States {
		v = strings.TrimSpace(v)
		k := slices.IndexFunc(indexstatus.States, func(s indexstatus.State) bool { return strings.EqualFold(string(s), v) })
		if k < 0 {
			return exitcode.UsageError("--state %q is not an index state: give %s (repeated, or a comma list)", v, strings.Join(stateNames(), ", "))
		}
		if !slices.Contains(o.states, indexstatus.States[k]) {
			o.states = append(o.states, indexstatus.States[k])
		}
	}
	if len(o.states) > 0 && o.Lineage {
		return exitcode.UsageError("--state filters a Job's index states; it cannot be used with --lineage")
	}
	return nil
}

// onlyStates is r with indexes[] reduced to the indexes in states (all when none given), for
// -o json|yaml and custom columns; the summary, grid and words still cover every index.
func onlyStates(r *indexstatus.IndexedJobStatus, states []indexstatus.State) *indexstatus.IndexedJobStatus {
	if len(states) == 0 {
		return r
	}
	c := *r
	c.Indexes = make([]indexstatus.IndexStatus, 0, len(r.Indexes))
	for k := range r.Indexes {
		if slices.Contains(states, r.Indexes[k].State) {
			c.Indexes = append(c.Indexes, r.Indexes[k])
		}
	}
	return &c
}

// ExitCodeFor is the --exit-code contract: 0 every index succeeded; 1 the Job finished or is
// failing without that; 3 still running (or suspended).
func ExitCodeFor(r *indexstatus.IndexedJobStatus) int {
	switch {
	case r.Completeness.Complete && r.Phase != indexstatus.PhaseFailed && r.Phase != indexstatus.PhaseFailing:
		return exitcode.OK
	case r.Phase == indexstatus.PhaseRunning || r.Phase == indexstatus.PhaseSuspended:
		return exitcode.Running
	default:
		return exitcode.Findings
	}
}

func (o *Options) exitError(r *indexstatus.IndexedJobStatus) error {
	if !o.ExitCode {
		return nil
	}
	if code := ExitCodeFor(r); code != exitcode.OK {
		return exitcode.Silent(code)
	}
	return nil
}
