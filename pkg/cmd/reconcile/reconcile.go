// Package reconcile implements `kubectl indexed reconcile`: the cobra glue around
// pkg/reconcile, live (a Job, its retries, their pods' termination messages and optionally a
// receipts directory) or offline (a manifest and a receipts directory).
package reconcile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"
	"k8s.io/utils/clock"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/clientutil"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/jobref"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/namecompletion"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/htmlreport"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/receipt"
	domain "github.com/kubectl-indexed/kubectl-indexed/pkg/reconcile"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
)

var (
	long = templates.LongDesc(`
		Check shard receipts against the shard manifest before any score is computed.

		For every shard of the manifest, reconcile says whether it is complete (every assigned
		case evaluated), failed (every case evaluated, some failed for the model), partial (and
		which cases are missing), not-evaluated (infrastructure failures: timeout, service
		error, invalid input), missing (no receipt) or rejected (a receipt for another manifest
		revision or hash, another candidate, an unknown shard, a case the shard was not
		assigned, or a malformed or truncated receipt: each named, never merged). A result
		reported by several attempts (a retry, a duplicate pod) is resolved by one rule, the
		duplicate rule: an evaluated outcome wins over an infrastructure failure; among equals,
		the attempt that finished last (docs/reconcile.md has the ties). Coverage is results evaluated / results in the manifest, and
		per class; a missing shard is never a zero and never leaves the denominator.

		Live, reconcile reads the Job (JOB may also be one of its retries; when the root is
		gone, the manifest is the copy in the retry's shard ConfigMap, and every shard of it
		that no remaining Job ran is missing), its shard ConfigMap, its retries,
		and the termination messages of their pods, where workers leave a receipt summary;
		--receipts DIR adds full receipt files. Offline, --manifest FILE --receipts DIR needs no
		cluster. In DIR every file named *.receipt.json, at any depth, is read (for example
		after "aws s3 sync" or "gsutil rsync" of the result bucket). --wait first waits until
		every Job of the lineage has finished (a shard a running retry still holds is not
		settled), so the same command is the gate of a pipeline.

		Exit codes: 0 every result of the manifest was evaluated (with --allow-partial, also
		when not); 1 coverage is incomplete; 2 usage error or unreadable input (a manifest or
		receipts directory that cannot be read, receipts naming several candidates without
		--candidate); 4 the API server could not be reached or refused the request; 5
		--timeout passed before the lineage finished (the report of the results in so far is
		printed); 130/143 interrupted.`)

	example = templates.Examples(`
		# Live: the Job, its retries and the summaries in its pods' termination messages
		kubectl indexed reconcile eval-gsm8k-r1

		# Live, with the full receipts synced from the result bucket
		aws s3 sync s3://results/eval-gsm8k/ ./results/
		kubectl indexed reconcile eval-gsm8k-r1 --receipts ./results

		# Offline (no cluster); the coverage of every shard as one self-contained page
		kubectl indexed reconcile --manifest manifest.yaml --receipts ./results -o html > coverage.html

		# In a pipeline: compute the score only when coverage is complete
		kubectl indexed reconcile eval-gsm8k-r1 --receipts ./results -o json > reconcile.json && python score.py

		# The gate of a pipeline: wait for the run and its retries (at most 2 hours), then
		# exit 0 only when every result of the manifest was evaluated
		kubectl indexed reconcile eval-gsm8k --wait --timeout 2h --receipts ./results`)
)

// Options holds the flags and resolved inputs of the reconcile command.
type Options struct {
	ManifestFile string
	ReceiptsDir  string
	Candidate    string
	Repetitions  int
	AllowPartial bool
	PrintFlags   output.PrintFlags

	// Wait is --wait: reconcile once every Job of the lineage has finished. Timeout is
	// --timeout (kubectl wait's grammar: 0 looks once, negative is a week); timeoutSet: given.
	Wait       bool
	Timeout    time.Duration
	timeoutSet bool
	// Clock times --wait.
	Clock clock.WithTicker

	JobName   string
	Namespace string

	Client kubernetes.Interface

	genericiooptions.IOStreams
}

// NewOptions returns the options with their defaults.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{
		IOStreams:   streams,
		Repetitions: 1,
		Clock:       clock.RealClock{},
		PrintFlags:  output.PrintFlags{Wide: true, ItemsKey: "shards", Extra: []string{FormatHTML}, Subject: "a ReconcileReport (custom-columns: a row per shard); html is one self-contained page of every shard of the manifest (docs/reconcile.md)"},
	}
}

// NewCmdReconcile returns the reconcile command.
func NewCmdReconcile(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return NewCmdReconcileWithOptions(f, NewOptions(streams))
}

// NewCmdReconcileWithOptions returns the command bound to o (tests inject a client).
func NewCmdReconcileWithOptions(f cmdutil.Factory, o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "reconcile JOB [--receipts DIR] [--wait [--timeout DURATION]] | --manifest FILE --receipts DIR [--allow-partial] [-o json|yaml|html]",
		DisableFlagsInUseLine: true,
		Short:                 "Check shard receipts against the manifest: coverage, missing and rejected shards, before any score",
		Long:                  long,
		Example:               example,
		ValidArgsFunction:     namecompletion.JobNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.timeoutSet = cmd.Flags().Changed("timeout")
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
	fl.StringVar(&o.ManifestFile, "manifest", "", "The shard manifest (YAML or JSON). Offline it is required; live it must be the Job's (its hash is checked).")
	fl.StringVar(&o.ReceiptsDir, "receipts", "", "A directory of receipt files (*.receipt.json, at any depth), e.g. synced from the result bucket.")
	fl.StringVar(&o.Candidate, "candidate", "", "Accept only receipts for this candidate (default: the manifest's candidate label, if any).")
	fl.IntVar(&o.Repetitions, "repetitions", o.Repetitions, fmt.Sprintf("How many times each case runs (repetitions 0..N-1): results per case. At most %d, and cases × repetitions at most %d (each result is held in memory).", domain.MaxRepetitions, domain.MaxResults))
	fl.BoolVar(&o.AllowPartial, "allow-partial", false, "Exit 0 even when coverage is incomplete (the report still states it).")
	fl.BoolVar(&o.Wait, "wait", false, "Live: first wait until every Job of the lineage (the Job, its root and each retry) is Complete or Failed, saying on standard error which still run; then reconcile and exit by coverage. For a pipeline step that gates the score.")
	fl.DurationVar(&o.Timeout, "timeout", 0, "With --wait: how long to wait before giving up (exit 5, after the report of the results in so far), e.g. 30s, 5m, 2h. Zero means check once, negative means wait for a week. Default: no limit.")
	o.PrintFlags.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("manifest", cobra.FixedCompletions([]string{"json", "yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt))
	_ = cmd.RegisterFlagCompletionFunc("receipts", cobra.FixedCompletions(nil, cobra.ShellCompDirectiveFilterDirs))
	return cmd
}

func (o *Options) offline() bool { return o.JobName == "" }

// Complete resolves the Job name, the namespace and, live, the client.
func (o *Options) Complete(f cmdutil.Factory, args []string) error {
	if len(args) > 1 {
		return exitcode.UsageError("expected one Job name, got %d arguments\nSee 'kubectl indexed reconcile --help' for usage.", len(args))
	}
	if len(args) == 1 {
		name, err := jobref.Name(args[0])
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		o.JobName = name
	}
	if o.offline() {
		return nil
	}
	ns, _, err := clientutil.Namespace(f)
	if err != nil {
		return err
	}
	o.Namespace = ns
	if o.Client != nil {
		return nil
	}
	cfg, err := f.ToRESTConfig()
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read the kubeconfig: %w", err))
	}
	o.Client, err = clientutil.NewClientset(cfg)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot make a client: %w", err))
	}
	return nil
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if err := o.PrintFlags.Complete(); err != nil {
		return err
	}
	if o.offline() && (o.ManifestFile == "" || o.ReceiptsDir == "") {
		return exitcode.UsageError("give a Job name, or --manifest FILE and --receipts DIR to reconcile offline\nSee 'kubectl indexed reconcile --help' for usage.")
	}
	if o.Wait && o.offline() {
		return exitcode.UsageError("--wait needs a live Job: offline, the receipts are all there is")
	}
	if o.timeoutSet {
		if !o.Wait {
			return exitcode.UsageError("--timeout needs --wait: it bounds how long --wait waits")
		}
		if o.Timeout < 0 {
			o.Timeout = exitcode.WeekTimeout // as kubectl wait
		}
	}
	if o.Repetitions < 1 {
		return exitcode.UsageError("--repetitions must be at least 1, not %d", o.Repetitions)
	}
	if o.Repetitions > domain.MaxRepetitions {
		return exitcode.UsageError("--repetitions %d: at most %d (reconcile holds every result, cases × repetitions, in memory)", o.Repetitions, domain.MaxRepetitions)
	}
	if o.ReceiptsDir != "" {
		fi, err := os.Stat(o.ReceiptsDir)
		if err != nil {
			return exitcode.UsageError("cannot read the receipts directory: %v", err)
		}
		if !fi.IsDir() {
			return exitcode.UsageError("--receipts %s is not a directory", o.ReceiptsDir)
		}
	}
	return nil
}

// Run reconciles and prints the report.
func (o *Options) Run(ctx context.Context) error {
	var rec *domain.Reconciler
	var err, timedOut error
	if o.Wait {
		if timedOut, err = o.waitLineage(ctx); err != nil {
			return err
		}
	}
	if o.offline() {
		var m *shards.Manifest
		m, err = shards.Read(o.ManifestFile, o.In)
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
		rec, err = o.newReconciler(m)
	} else {
		rec, err = o.live(ctx)
	}
	if err != nil {
		return err
	}
	if o.ReceiptsDir != "" {
		if err := ReadReceiptsDir(o.ReceiptsDir, rec); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	if rec.Candidate() == "" {
		if c := rec.Candidates(); len(c) > 1 {
			return exitcode.UsageError("the receipts name %d candidates (%s): results of different candidates are different results; give --candidate to reconcile one",
				len(c), strings.Join(slices.Sorted(maps.Keys(c)), ", "))
		}
	}
	rep := rec.Report()
	if err := o.PrintFlags.Print(o.Out, rep, func(format string) error {
		if format == FormatHTML {
			return htmlreport.WriteReconcile(o.Out, rep)
		}
		if format == output.FormatWide {
			return domain.PrintWide(o.Out, rep)
		}
		return domain.PrintText(o.Out, rep)
	}); err != nil {
		return err
	}
	if timedOut != nil {
		return timedOut
	}
	if rep.Complete || o.AllowPartial {
		return nil
	}
	return exitcode.Silent(exitcode.Findings)
}

// newReconciler reconciles against m, accepting --candidate, else the manifest's candidate
// label, else any candidate.
func (o *Options) newReconciler(m *shards.Manifest) (*domain.Reconciler, error) {
	candidate := cmp.Or(o.Candidate, m.Metadata.Labels[domain.ManifestCandidateLabel])
	rec, err := domain.New(domain.Options{Manifest: m, Candidate: candidate, Repetitions: o.Repetitions})
	if errors.Is(err, domain.ErrTooManyResults) {
		return nil, exitcode.UsageError("--repetitions %d: %v", o.Repetitions, err)
	}
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Usage, err)
	}
	return rec, nil
}

// FormatHTML is -o html: the report as one self-contained HTML page (pkg/htmlreport).
const FormatHTML = "html"

// ReceiptSuffix ends the name of every receipt file reconcile reads.
const ReceiptSuffix = ".receipt.json"

// ReadReceiptsDir reads every *.receipt.json under dir, in path order, one at a time: each
// is parsed, checked and folded into rec (or rejected) before the next is read, so memory does
// not grow with the receipts. It fails only when dir cannot be walked.
func ReadReceiptsDir(dir string, rec *domain.Reconciler) error {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			rec.Reject(rel(dir, path), "", err)
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ReceiptSuffix) {
			return nil
		}
		n++
		src := rel(dir, path)
		r, data, err := readReceipt(path, src)
		if err != nil {
			rec.RejectData(src, data, err)
			return nil
		}
		rec.AddReceipt(src, r)
		return nil
	})
	if err != nil {
		return fmt.Errorf("cannot read the receipts directory %s: %w", dir, err)
	}
	if n == 0 {
		rec.NoReceiptFiles(dir, "*"+ReceiptSuffix)
	}
	return nil
}

func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

func readReceipt(path, src string) (*receipt.Receipt, []byte, error) {
	data, err := source.ReadFile(path, receipt.MaxReceiptBytes)
	var tl *source.TooLargeError
	if errors.As(err, &tl) {
		return nil, nil, &receipt.Error{Source: src, Problems: []string{fmt.Sprintf("larger than %d bytes: a receipt is at most %d", receipt.MaxReceiptBytes, receipt.MaxReceiptBytes)}}
	}
	var nr *source.NotRegularError
	if errors.As(err, &nr) {
		return nil, nil, &receipt.Error{Source: src, Problems: []string{nr.Error()}}
	}
	if err != nil {
		return nil, nil, source.UnwrapPathError(err)
	}
	r, err := receipt.Parse(src, data)
	return r, data, err
}
