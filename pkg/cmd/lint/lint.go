// Package lint implements `kubectl indexed lint`.
package lint

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/simulate"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/version"
)

var (
	long = templates.LongDesc(fmt.Sprintf(`
		Check Job and CronJob manifests before they are submitted, fully offline.

		Errors are what the Kubernetes v%[3]s API server would reject, in its own words (every
		Job validation rule, the pod template's basics, unknown fields); warnings are accepted
		but hurt at run time, such as the "prepare-db" mode where the global backoffLimit kills
		every healthy shard after a few transient failures; infos are worth knowing. Each
		finding names the file, line, object and field path, why it matters and the fix
		(--list-rules, docs/lint.md).

		Input is YAML or JSON, multi-document streams and List objects, from files, directories
		(with -R, their subdirectories too) or standard input ("-"). CronJobs are checked with
		their jobTemplate (paths under spec.jobTemplate.spec); other kinds are skipped with a note.

		--kube-version names the target cluster's version (%[1]s to %[2]s, default %[2]s; a newer one
		is checked as %[2]s, with a note): fields that version lacks are errors (its API server
		rejects them), fields behind a gate that is off by default are warned about. Other errors
		mean "rejected by a v%[3]s API server".

		Exit codes: 0 no errors (and, with --strict, no warnings); 1 findings at or above the
		threshold (errors, or warnings with --strict); 2 usage error, or input that could not be
		read or parsed (a missing file, a directory holding no manifest, a document that is not
		YAML/JSON or not an object, empty input). Findings of unreadable documents are printed
		before exiting 2.`, lint.OldestKubeVersion, lint.DefaultKubeVersion, version.KubernetesMinor))

	example = templates.Examples(`
		# Check a manifest
		kubectl indexed lint examples/evaluation-job.yaml

		# Check every manifest under a directory, and fail on warnings too (for CI)
		kubectl indexed lint -R --strict deploy/

		# Check what a generator writes, as a JSON report
		helm template my-chart | kubectl indexed lint - -o json

		# The same flags as kubectl apply: -f, --filename and -R
		kubectl indexed lint -f job.yaml -f cronjob.yaml

		# Target an older cluster, and do not report image digests
		kubectl indexed lint --kube-version 1.29 --disable image-without-digest job.yaml

		# In CI: SARIF for code scanning, JUnit XML for test reports, or pull-request annotations
		kubectl indexed lint -R deploy/ -o sarif > lint.sarif
		kubectl indexed lint -R deploy/ -o junit > lint-junit.xml
		kubectl indexed lint -R deploy/ -o github

		# Queued Jobs against the cluster's Kueue queues (can each ever be admitted?)
		kubectl get clusterqueues,localqueues -A -o yaml > queues.yaml
		kubectl indexed lint --queues queues.yaml job.yaml

		# List every rule with its severity
		kubectl indexed lint --list-rules`)
)

// Options holds the flags and inputs of the lint command.
type Options struct {
	Filenames   []string
	Recursive   bool
	Queues      string
	PrintFlags  output.PrintFlags
	Strict      bool
	KubeVersion string
	Disable     []string
	Severity    string
	Brief       bool
	NoColor     bool
	// IsTerminal says whether the output is a terminal (colour); tests replace it.
	IsTerminal func(io.Writer) bool
	ListRules  bool
	// ShowHints adds hints (commands to run next) to the report; --show-hints=false leaves
	// them out, under every -o.
	ShowHints bool

	paths []string
	opts  lint.Options
	genericiooptions.IOStreams
}

// NewOptions returns the lint options with their defaults.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{IOStreams: streams, PrintFlags: output.PrintFlags{ItemsKey: "findings", Subject: "a LintReport (custom-columns: a row per finding)", Extra: ciFormats}, ShowHints: true, KubeVersion: lint.DefaultKubeVersion.String(), Severity: string(lint.SeverityInfo)}
}

// manifestFiles completes the files lint reads: YAML and JSON.
var manifestFiles = cobra.FixedCompletions([]string{"yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt)

// NewCmdLint returns the lint command.
func NewCmdLint(streams genericiooptions.IOStreams) *cobra.Command {
	o := NewOptions(streams)
	cmd := &cobra.Command{
		Use:                   "lint [FILE|DIR|-]... [-f FILE]... [-R] [-o json|yaml|sarif|junit|github] [--strict]",
		DisableFlagsInUseLine: true,
		Short:                 "Check Job manifests for what the API server rejects and what hurts at run time",
		Long:                  long,
		Example:               example,
		ValidArgsFunction:     manifestFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVarP(&o.Filenames, "filename", "f", nil, "Manifest file, directory or - (stdin) to check, as with kubectl apply; may be repeated. Arguments work the same.")
	fl.BoolVarP(&o.Recursive, "recursive", "R", false, "Descend into subdirectories of the directories given.")
	o.PrintFlags.AddFlags(cmd)
	fl.StringVar(&o.Queues, "queues", "", "A file of Kueue LocalQueues and ClusterQueues (kubectl get clusterqueues,localqueues -A -o yaml), or - for stdin: a queued Job whose pods no flavor of its ClusterQueue can ever hold is reported (kueue-never-admitted).")
	fl.BoolVar(&o.Strict, "strict", false, "Exit 1 on warnings too, not only on errors.")
	fl.StringVar(&o.KubeVersion, "kube-version", o.KubeVersion, fmt.Sprintf("Kubernetes version of the target cluster, %s to %s, for the feature checks (a newer one is checked as %[2]s, with a note).", lint.OldestKubeVersion, lint.DefaultKubeVersion))
	fl.StringSliceVar(&o.Disable, "disable", nil, "Rule IDs not to report, comma-separated (see --list-rules).")
	fl.StringVar(&o.Severity, "severity", o.Severity, "Report only findings of this severity or above: info, warning or error.")
	fl.BoolVar(&o.NoColor, "no-color", false, output.NoColorUsage)
	fl.BoolVar(&o.Brief, "brief", false, "Text output: one line per finding, without why and fix.")
	fl.BoolVar(&o.ShowHints, "show-hints", o.ShowHints, "Give hints, such as the commands that simulate a prepare-db Job next to its fix (for a file holding that Job alone, without errors): on standard error, or as the report's hints with -o json|yaml. --show-hints=false leaves them out under every -o.")
	fl.BoolVar(&o.ListRules, "list-rules", false, "Print every rule (ID, severity, what it flags) and exit.")
	_ = cmd.RegisterFlagCompletionFunc("severity", cobra.FixedCompletions([]string{"info", "warning", "error"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("filename", manifestFiles)
	_ = cmd.RegisterFlagCompletionFunc("queues", manifestFiles)
	var ids, versions []string
	for _, r := range lint.Rules() {
		ids = append(ids, r.ID+"\t"+string(r.Severity))
	}
	for m := lint.DefaultKubeVersion.Minor; m >= lint.OldestKubeVersion.Minor; m-- {
		versions = append(versions, fmt.Sprintf("1.%d", m))
	}
	_ = cmd.RegisterFlagCompletionFunc("disable", cobra.FixedCompletions(ids, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("kube-version", cobra.FixedCompletions(versions, cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveKeepOrder))
	return cmd
}

// Complete gathers the inputs from the arguments and -f.
func (o *Options) Complete(args []string) error {
	o.paths = append(append([]string(nil), args...), o.Filenames...)
	return nil
}

// TextWidth is the width the text report fits (-o json|yaml hold every finding on one value;
// --brief prints one line each).
const TextWidth = 80

// Validate checks the flags.
func (o *Options) Validate() error {
	if err := o.PrintFlags.Complete(); err != nil {
		return err
	}
	v, err := lint.ParseVersion(o.KubeVersion)
	if newer, ok := lint.NewerThanKnown(o.KubeVersion); ok {
		// A cluster newer than the rules: check with the newest ones, and say so.
		_, _ = fmt.Fprintf(o.ErrOut, "note: --kube-version %s is newer than the rules lint mirrors (Kubernetes %s): checked as %s\n", newer, lint.DefaultKubeVersion, lint.DefaultKubeVersion)
		v, err = lint.DefaultKubeVersion, nil
	}
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("--kube-version: %w", err))
	}
	sev, ok := lint.ParseSeverity(o.Severity)
	if !ok {
		return exitcode.UsageError("--severity: %q is not one of info, warning, error", o.Severity)
	}
	var disable []string
	for _, id := range o.Disable {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if _, ok := lint.LookupRule(id); !ok {
			return exitcode.UsageError("--disable: unknown rule %q (see kubectl indexed lint --list-rules)", id)
		}
		disable = append(disable, id)
	}
	o.opts = lint.Options{KubeVersion: v, Disable: disable, MinSeverity: sev}
	if o.ListRules {
		return nil
	}
	if o.Queues == "-" && slices.Contains(o.paths, "-") {
		return exitcode.UsageError("--queues - and the input - both read standard input: give one of them as a file")
	}
	if o.Queues != "" {
		qs, err := lint.ReadQueues(o.Queues, o.In)
		if err != nil {
			return exitcode.Wrap(exitcode.Usage, fmt.Errorf("--queues: %w", err))
		}
		o.opts.Queues = qs
	}
	if len(o.paths) == 0 {
		return exitcode.UsageError("no input: give files, directories or - (standard input), as arguments or with -f\nSee 'kubectl indexed lint --help' for usage.")
	}
	return nil
}

// Run reads the inputs, lints them and prints the report.
func (o *Options) Run() error {
	if o.ListRules {
		rules := lint.Rules()
		return o.PrintFlags.PrintList(o.Out, map[string]any{"rules": rules}, "rules", func(string) error { return lint.PrintRules(o.Out, rules, TextWidth) })
	}
	// Most of what lint allocates is garbage within one document; collecting less often costs
	// some memory (the heap of a few documents) and saves a good part of the CPU time.
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	var skipped []string
	linter := lint.NewLinter(o.opts)
	textOpts := lint.TextOptions{Brief: o.Brief, Width: TextWidth, Color: output.UseColor(o.Out, o.NoColor, o.IsTerminal)}
	stream := o.streams()
	if stream {
		// The text of one input is printed as it is checked: a stream of any length is
		// linted in the memory of the file and the documents being handled.
		linter.StreamText(o.Out, textOpts)
	}
	err := source.ForEachInOrder(o.paths, source.Options{Recursive: o.Recursive, Stdin: o.In, SkippedDir: func(dir string) { skipped = append(skipped, dir) }},
		runtime.GOMAXPROCS(0), linter.Check, linter.Keep)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("cannot read %w", err))
	}
	sort.Strings(skipped)
	report, printErr := linter.Report()
	if report.Summary.Documents == 0 {
		msg := fmt.Sprintf("no objects found in %s", strings.Join(o.paths, ", "))
		if len(skipped) > 0 {
			msg += fmt.Sprintf(" (subdirectories %s were not read: use -R)", strings.Join(skipped, ", "))
		}
		return exitcode.Wrap(exitcode.Usage, errors.New(msg))
	}
	for _, d := range skipped {
		_, _ = fmt.Fprintf(o.ErrOut, "note: subdirectory %s not read (use -R to lint it)\n", d)
	}
	if o.ShowHints {
		report.Hints = simulateHints(report)
	}
	if stream {
		if printErr == nil {
			printErr = lint.PrintSummary(o.Out, report, textOpts)
		}
	} else {
		printErr = o.PrintFlags.Print(o.Out, report, func(format string) error {
			if slices.Contains(ciFormats, format) {
				// lint's own formats for CI (docs/lint.md#in-ci).
				return o.printCI(report)
			}
			return lint.PrintText(o.Out, report, textOpts)
		})
	}
	if printErr != nil {
		return printErr
	}
	if !o.PrintFlags.IsStructured() {
		// -o json|yaml carry the hints as a field; every other format (text, the templates,
		// the CI formats) leaves standard output to the report and says them on standard error.
		printHints(o.ErrOut, report.Hints)
	}
	switch {
	case report.Summary.Unreadable > 0:
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("%d of %d documents could not be read (see the unreadable-document findings)", report.Summary.Unreadable, report.Summary.Documents))
	case report.Summary.Errors > 0:
		return exitcode.Silent(exitcode.Findings)
	case o.Strict && report.Summary.Warnings > 0:
		return exitcode.Silent(exitcode.Findings)
	}
	return nil
}

// simulateHints returns, for each file that holds a Job in the prepare-db mode alone and no
// error (lint.Report.PrepareDBFiles), the commands that simulate it next to the per-index fix
// on the same failures.
func simulateHints(report *lint.Report) []lint.Hint {
	var hints []lint.Hint
	for _, file := range report.PrepareDBFiles {
		// The hint reads the file again, and its commands read it too: only a regular file can
		// be read twice (opening a named pipe again would wait for a writer forever).
		if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		job, cron, err := simulate.ReadJob(file, nil)
		if err != nil {
			continue
		}
		if h, ok := simulate.PrepareDBHint(file, job, cron); ok {
			hints = append(hints, lint.Hint{Rule: lint.RulePrepareDB, File: file,
				Message:  fmt.Sprintf("see what the prepare-db mode of %s does, next to the per-index fix, on the same failures", file),
				Commands: []string{h.Fix, h.Simulate}})
		}
	}
	return hints
}

// streams says whether the text report is printed as the input is checked rather than at
// its end: for the text format and one input that is not a directory, which is read whole
// before anything is checked (several inputs are printed in the order of their names once
// all of them could be read: an input that cannot be read prints no report).
func (o *Options) streams() bool {
	if o.PrintFlags.Format() != output.FormatText || len(o.paths) != 1 {
		return false
	}
	if o.paths[0] == source.StdinName {
		return true
	}
	fi, err := os.Stat(o.paths[0])
	return err == nil && !fi.IsDir()
}

// printHints prints each hint: its message wrapped at the report's width, each command broken
// between shell words with backslash continuations (textwrap.Command), so that it runs as
// printed when pasted; a word longer than the width (a JSON patch) keeps a line of its own.
func printHints(w io.Writer, hints []lint.Hint) {
	for _, h := range hints {
		_, _ = fmt.Fprintf(w, "%s\n", strings.Join(lint.WrapText("hint: "+h.Message+":", 0, 6, TextWidth), "\n      "))
		for _, c := range h.Commands {
			for _, l := range textwrap.Command(c, TextWidth-2) {
				_, _ = fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
}

// lint's formats for CI, next to the common ones (json, yaml, templates).
const (
	formatSARIF  = "sarif"
	formatJUnit  = "junit"
	formatGitHub = "github"
)

var ciFormats = []string{formatSARIF, formatJUnit, formatGitHub}

// printCI prints the report in one of the CI formats.
func (o *Options) printCI(report *lint.Report) error {
	switch o.PrintFlags.Format() {
	case formatSARIF:
		// Artifact URIs are relative to %SRCROOT%, the working directory: CI runs lint from the
		// repository's root, which code scanning resolves %SRCROOT% to.
		root, err := os.Getwd()
		if err != nil {
			root = ""
		}
		return lint.WriteSARIF(o.Out, report, lint.SARIFOptions{ToolVersion: version.Get().Version, Root: root})
	case formatJUnit:
		return lint.WriteJUnit(o.Out, report)
	default:
		return lint.WriteGitHub(o.Out, report)
	}
}
