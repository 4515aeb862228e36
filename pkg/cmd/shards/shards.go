// Package shards is the glue of `kubectl indexed shards`: make, check and show shard manifests.
package shards

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/output"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/contract"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/scaffold"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/shards"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/source"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

var shardsLong = templates.LongDesc(`
	Make, check and show shard manifests.

	A shard manifest (apiVersion ` + contract.APIVersion + `, kind ` + contract.ShardManifest + `) lists, in
	completion-index order, the shards of a piece of work: shard i, with its ID and its case
	IDs, is what completion index i of the Job made by 'kubectl indexed create' runs.`)

// NewCmdShards returns `kubectl indexed shards` with its subcommands.
func NewCmdShards(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "shards",
		Short: "Make, check and show shard manifests",
		Long:  shardsLong,
		Args:  cobra.NoArgs,
		Run:   func(cmd *cobra.Command, _ []string) { _ = cmd.Help() },
	}
	cmd.AddCommand(newCmdSplit(streams), newCmdValidate(streams), newCmdShow(streams), newCmdExport(streams))
	return cmd
}

// SplitOptions of `kubectl indexed shards split`.
type SplitOptions struct {
	Cases    string
	Shards   int
	Name     string
	Revision string
	Labels   []string
	IDPrefix string
	// shardsGiven says --shards was given (0 is then wrong, not missing).
	shardsGiven bool
	PrintFlags  output.PrintFlags
	genericiooptions.IOStreams
}

var (
	splitLong = templates.LongDesc(`
		Make a shard manifest from a plain list of case IDs: one per line, surrounding white
		space trimmed, blank lines skipped.

		The result depends only on the set of case IDs, never on their order: they are
		de-duplicated and sorted by their bytes, then dealt out round-robin, so shard k holds
		the cases at sorted positions k, k+N, k+2N, ... Shard sizes differ by at most one, and
		cases whose IDs sort together (a subset, a source) are spread over all shards rather
		than piled into one. The same input always gives byte-identical output. Shard IDs are
		the --id-prefix, a hyphen and k, zero-padded to the width of the last (shard-00 to
		shard-11 for 12 shards).

		The manifest is written to standard output; a summary (counts, duplicates dropped, the
		hash) goes to standard error.

		Exit codes: 0 written; 2 bad flags or an invalid case list.`)

	splitExample = templates.Examples(`
		# 1,000 case IDs in 8 shards
		kubectl indexed shards split --cases cases.txt --shards 8 --name eval-gsm8k --revision 1 > manifest.yaml

		# From standard input, with labels, as JSON
		cut -d, -f1 dataset.csv | kubectl indexed shards split --cases - --shards 16 --name eval-gsm8k --revision 2024-06-01 --label candidate=model-a -o json`)
)

func newCmdSplit(streams genericiooptions.IOStreams) *cobra.Command {
	o := &SplitOptions{IDPrefix: shards.DefaultIDPrefix, IOStreams: streams,
		PrintFlags: output.PrintFlags{Default: output.FormatYAML, ItemsKey: "shards", Subject: "the manifest (custom-columns: a row per shard)"}}
	cmd := &cobra.Command{
		Use:                   "split --cases FILE|- --shards N --name NAME --revision REVISION [--label KEY=VALUE]... [-o yaml|json]",
		DisableFlagsInUseLine: true,
		Short:                 "Make a shard manifest from a list of case IDs, deterministically",
		Long:                  splitLong,
		Example:               splitExample,
		Args:                  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.shardsGiven = cmd.Flags().Changed("shards")
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Cases, "cases", o.Cases, "File with one case ID per line (- for stdin).")
	f.IntVar(&o.Shards, "shards", o.Shards, "Number of shards (the Job's completions).")
	f.StringVar(&o.Name, "name", o.Name, "Name of the manifest (a DNS-1123 label; it names the ConfigMap).")
	f.StringVar(&o.Revision, "revision", o.Revision, "Revision of the manifest (a label value, such as 1 or 2024-06-01).")
	f.StringArrayVar(&o.Labels, "label", o.Labels, "Label KEY=VALUE recorded in the manifest and copied onto the Job and the ConfigMap (repeatable).")
	f.StringVar(&o.IDPrefix, "id-prefix", o.IDPrefix, "Prefix of the shard IDs.")
	o.PrintFlags.AddFlags(cmd)
	_ = cmd.MarkFlagFilename("cases")
	return cmd
}

// Validate checks the flags.
func (o *SplitOptions) Validate() error {
	var missing []string
	if o.Cases == "" {
		missing = append(missing, "--cases")
	}
	if o.Shards == 0 && !o.shardsGiven {
		missing = append(missing, "--shards")
	}
	if o.Name == "" {
		missing = append(missing, "--name")
	}
	if o.Revision == "" {
		missing = append(missing, "--revision")
	}
	if len(missing) > 0 {
		return exitcode.UsageError("%s %s required", strings.Join(missing, ", "), textwrap.Plural(len(missing), "is", "are"))
	}
	if o.Shards < 1 {
		return exitcode.UsageError("--shards must be at least 1, not %d", o.Shards)
	}
	if err := o.validateNames(); err != nil {
		return err
	}
	if err := o.PrintFlags.Complete(); err != nil {
		return err
	}
	if o.PrintFlags.Format() == output.FormatText {
		// -o text (or -o "") names no format of split: the manifest is its output.
		return exitcode.UsageError("-o: split prints the manifest: give yaml, json or a template")
	}
	return nil
}

// Run reads the case list and writes the manifest.
func (o *SplitOptions) Run() error {
	labels, err := o.labels()
	if err != nil {
		return err
	}
	in := o.In
	if o.Cases != source.StdinName {
		f, _, err := source.OpenFile(o.Cases)
		if err != nil {
			return exitcode.UsageError("case list: %w", err)
		}
		defer func() { _ = f.Close() }()
		in = f
	}
	cases, err := shards.ReadCases(o.Cases, in)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	m, stats, err := shards.Split(cases, shards.SplitOptions{Name: o.Name, Revision: o.Revision, Labels: labels, Shards: o.Shards, IDPrefix: o.IDPrefix})
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, fmt.Errorf("case list %s: %w", o.Cases, err))
	}
	// json and yaml are the manifest's own layout (the bytes its hash is documented over).
	switch o.PrintFlags.Format() {
	case output.FormatYAML:
		_, err = o.Out.Write(m.YAML())
	case output.FormatJSON:
		_, err = o.Out.Write(m.JSON())
	default:
		err = o.PrintFlags.Print(o.Out, m, nil)
	}
	if err != nil {
		return err
	}
	_, _ = fmt.Fprintf(o.ErrOut, "split %s into %s of %s (manifest %q revision %q, %s, ConfigMap %s)\n",
		textwrap.Count(stats.Unique, "case", "cases"), textwrap.Count(len(m.Shards), "shard", "shards"), shardSize(stats.Smallest, stats.Largest), m.Metadata.Name, m.Revision, m.Hash(), scaffold.ConfigMapName(m))
	if note := shards.StoreNote(m, nil); note != "" {
		_, _ = fmt.Fprintf(o.ErrOut, "%s: %s\n", m.Metadata.Name, note)
	}
	if dups := stats.Input - stats.Unique; dups > 0 {
		more := ""
		if dups > len(stats.Duplicates) {
			more = ", ..."
		}
		_, _ = fmt.Fprintf(o.ErrOut, "warning: %d duplicate case IDs were dropped (%s%s)\n", dups, strings.Join(stats.Duplicates, ", "), more)
	}
	return nil
}

// shardSize is the size of a manifest's shards: "10 cases", or "9-10 cases".
func shardSize(smallest, largest int) string {
	if largest != smallest {
		return fmt.Sprintf("%d-%d cases", smallest, largest)
	}
	return textwrap.Count(smallest, "case", "cases")
}

// ValidateOptions of `kubectl indexed shards validate`.
type ValidateOptions struct {
	Files      []string
	PrintFlags output.PrintFlags
	genericiooptions.IOStreams
}

func newCmdValidate(streams genericiooptions.IOStreams) *cobra.Command {
	o := &ValidateOptions{IOStreams: streams, PrintFlags: output.PrintFlags{
		Subject: "a ShardManifestSummary, or a ShardManifestSummaryList for several files (custom-columns: a row per manifest)"}}
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check shard manifests and print their summary",
		Long: templates.LongDesc(`
			Check shard manifests strictly (unknown fields, duplicate shard IDs, a case in two
			shards, empty shards, invalid IDs, more than 100000 shards) and print, for each,
			its name, revision, counts, content hash and the name create gives its ConfigMap.

			Exit codes: 0 every manifest is valid; 2 a manifest is invalid or unreadable (its
			problems, with line numbers, go to standard error).`),
		Example: templates.Examples(`
			kubectl indexed shards validate manifest.yaml
			kubectl indexed shards validate manifest.yaml -o json`),
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			if n := slices.Index(args, source.StdinName); n >= 0 && slices.Index(args[n+1:], source.StdinName) >= 0 {
				return exitcode.UsageError("standard input (-) given more than once: it can be read only once")
			}
			if err := o.PrintFlags.Complete(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	o.PrintFlags.AddFlags(cmd)
	return cmd
}

// Run validates every file, reporting all of them before failing.
func (o *ValidateOptions) Run() error {
	failed := 0
	var sums []shards.Summary
	for _, f := range o.Files {
		m, err := shards.Read(f, o.In)
		if err != nil {
			failed++
			_, _ = fmt.Fprintf(o.ErrOut, "error: %v\n", err)
			continue
		}
		s := shards.Summarize(f, m)
		s.ConfigMap = scaffold.ConfigMapName(m)
		shards.StoreNote(m, &s)
		sums = append(sums, s)
	}
	var report any = map[string]any{"apiVersion": shards.APIVersion, "kind": contract.ShardManifestSummaryList, "items": sums}
	if len(o.Files) == 1 && len(sums) == 1 {
		report = sums[0]
	}
	if len(sums) > 0 {
		if err := o.PrintFlags.Print(o.Out, report, func(string) error { return o.printText(sums) }); err != nil {
			return err
		}
	}
	if failed > 0 {
		return exitcode.Silent(exitcode.Usage)
	}
	return nil
}

// textWidth is the width of validate's text view (-o json|yaml hold every value on one line).
const textWidth = 80

// printText prints a few lines per manifest, each wrapped at textWidth (a word longer than a
// line, such as the content hash or a long path, stays whole so that it can be copied):
//
//	examples/manifest.yaml: valid
//	  manifest "demo" revision "1": 4 shards of 10 cases (40 cases)
//	  sha256:6c22afd18ee2c6a4184323f70aadcb1f3ac8225eb7b820bffc434e5c1841b46c
//	  ConfigMap demo-shards-6c22afd18e
func (o *ValidateOptions) printText(sums []shards.Summary) error {
	for _, s := range sums {
		configMap := "ConfigMap " + s.ConfigMap
		if s.Store != nil && s.Store.ConfigMaps > 1 {
			configMap += fmt.Sprintf(", stored in %s, %d bytes", s.Store, s.Store.Bytes)
		}
		lines := []string{
			s.File + ": valid",
			fmt.Sprintf("  manifest %q revision %q: %s of %s (%s)", s.Name, s.Revision,
				textwrap.Count(s.Shards, "shard", "shards"), shardSize(s.Smallest, s.Largest), textwrap.Count(s.Cases, "case", "cases")),
			"  " + s.Hash,
			"  " + configMap,
		}
		if s.StoreError != "" {
			lines = append(lines, "  create would refuse it: "+s.StoreError)
		}
		for _, l := range lines {
			indent := strings.Repeat(" ", len(l)-len(strings.TrimLeft(l, " ")))
			// Continuation lines sit two columns right of their line's start.
			wrapped := textwrap.Words(l, textWidth-len(indent)-2)
			if _, err := fmt.Fprintf(o.Out, "%s%s\n", indent, strings.Join(wrapped, "\n"+indent+"  ")); err != nil {
				return err
			}
		}
	}
	return nil
}

// ShowOptions of `kubectl indexed shards show`.
type ShowOptions struct {
	File       string
	Index      string
	ID         string
	PrintFlags output.PrintFlags
	genericiooptions.IOStreams
}

// ShowKind is the kind of the report `kubectl indexed shards show -o json|yaml` prints.
const ShowKind = contract.ShardTable

// showReport is what shards show prints with -o json|yaml or a template: a row per shard
// (with its cases when --index or --shard picks it).
type showReport struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Manifest   string    `json:"manifest"`
	Items      []showRow `json:"items"`
}

type showRow struct {
	Index     int      `json:"index"`
	Shard     string   `json:"shard"`
	Cases     int      `json:"cases"`
	FirstCase string   `json:"firstCase"`
	CaseIDs   []string `json:"caseIDs,omitempty"`
}

func newCmdShow(streams genericiooptions.IOStreams) *cobra.Command {
	o := &ShowOptions{IOStreams: streams, PrintFlags: output.PrintFlags{HasNoHeaders: true,
		Subject: "a ShardTable, a row per shard, with its caseIDs under --index or --shard (custom-columns: a row per shard)"}}
	cmd := &cobra.Command{
		Use:   "show FILE [--index 2,5,11-14 | --shard ID] [-o json|yaml|...]",
		Short: "Show which shard each completion index runs, or the cases of some",
		Long: templates.LongDesc(`
			Without --index or --shard, print a table of completion index, shard ID and number
			of cases. With --index I (or --shard ID), print the cases of that shard one per
			line: exactly the file the worker of index I reads from $INDEXED_SHARD_FILE, so a
			worker can be tried locally. --index takes a list such as 2,5,11-14, as every
			flag of indexes does; the cases of the shards follow one another in index order.

			Exit codes: 0 printed; 2 an invalid manifest, a bad -o or --index, or no such index
			or shard.`),
		Example: templates.Examples(`
			kubectl indexed shards show manifest.yaml
			# Run the example worker on index 2 locally
			kubectl indexed shards show manifest.yaml --index 2 > /tmp/cases
			INDEXED_SHARD_FILE=/tmp/cases sh examples/worker.sh
			# The shards of some indexes, as JSON
			kubectl indexed shards show manifest.yaml --index 0,3-5 -o json`),
		Args: exactlyOneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			if err := o.PrintFlags.Complete(); err != nil {
				return err
			}
			// An empty --index or --shard is a mistake, refused as every verb refuses it, not
			// the whole table.
			if cmd.Flags().Changed("index") && o.Index == "" {
				_, err := indexes.ParseFlag("--index", o.Index)
				return exitcode.Wrap(exitcode.Usage, err)
			}
			if cmd.Flags().Changed("shard") && o.ID == "" {
				return exitcode.UsageError(`--shard "": give a shard ID (kubectl indexed shards show FILE lists them)`)
			}
			return o.Run()
		},
	}
	cmd.Flags().StringVar(&o.Index, "index", o.Index, "Completion indexes whose cases to print: "+indexes.FlagGrammar+".")
	cmd.Flags().StringVar(&o.ID, "shard", o.ID, "Shard ID whose cases to print.")
	o.PrintFlags.AddFlags(cmd)
	cmd.MarkFlagsMutuallyExclusive("index", "shard")
	return cmd
}

// Run prints the table or the cases of the shards picked.
func (o *ShowOptions) Run() error {
	var picked indexes.Set
	if o.Index != "" {
		var err error
		if picked, err = indexes.ParseFlag("--index", o.Index); err != nil {
			return exitcode.Wrap(exitcode.Usage, err)
		}
	}
	m, err := shards.Read(o.File, o.In)
	if err != nil {
		return exitcode.Wrap(exitcode.Usage, err)
	}
	rep := showReport{APIVersion: shards.APIVersion, Kind: ShowKind, Manifest: m.Metadata.Name}
	switch {
	case o.ID != "":
		i := slices.IndexFunc(m.Shards, func(s shards.Shard) bool { return s.ID == o.ID })
		if i < 0 {
			return exitcode.UsageError("manifest %q has no shard %q", m.Metadata.Name, o.ID)
		}
		picked = indexes.Of(i)
	case o.Index != "":
		if picked.Max() >= len(m.Shards) {
			return exitcode.UsageError("manifest %q has %d shards (indexes 0 to %d): there is no index %d", m.Metadata.Name, len(m.Shards), len(m.Shards)-1, picked.Max())
		}
	}
	for i, s := range m.Shards {
		if !picked.IsEmpty() && !picked.Has(i) {
			continue
		}
		row := showRow{Index: i, Shard: s.ID, Cases: len(s.Cases), FirstCase: s.Cases[0]}
		if !picked.IsEmpty() {
			row.CaseIDs = s.Cases
		}
		rep.Items = append(rep.Items, row)
	}
	return o.PrintFlags.Print(o.Out, rep, func(string) error {
		if !picked.IsEmpty() {
			for _, r := range rep.Items {
				if _, err := fmt.Fprint(o.Out, shards.CasesText(r.CaseIDs)); err != nil {
					return err
				}
			}
			return nil
		}
		w := textwrap.NewTable(o.Out, 2)
		if !o.PrintFlags.NoHeaders {
			_, _ = fmt.Fprintln(w, "INDEX\tSHARD\tCASES\tFIRST CASE")
		}
		for _, r := range rep.Items {
			_, _ = fmt.Fprintf(w, "%d\t%s\t%d\t%s\n", r.Index, r.Shard, r.Cases, r.FirstCase)
		}
		return w.Flush()
	})
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return exitcode.UsageError("%s takes no arguments, got %q", cmd.CommandPath(), strings.Join(args, " "))
	}
	return nil
}

func exactlyOneFile(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return exitcode.UsageError("%s needs exactly one manifest file, got %d", cmd.CommandPath(), len(args))
	}
	return nil
}

// validateNames checks --name, --revision and --id-prefix before the case list is read, with
// the manifest's own rules (a one-case, one-shard manifest made from them), so that an error
// names the flag, once, rather than a manifest field once per shard.
func (o *SplitOptions) validateNames() error {
	labels, err := o.labels()
	if err != nil {
		return err
	}
	_, _, err = shards.Split([]string{"probe"}, shards.SplitOptions{Name: o.Name, Revision: o.Revision, Labels: labels, Shards: 1, IDPrefix: o.IDPrefix})
	var me *shards.Error
	if !errors.As(err, &me) {
		return nil
	}
	for _, p := range me.Problems {
		switch {
		case p.Path == "metadata.name":
			return exitcode.UsageError("--name %q: %s", o.Name, strings.TrimPrefix(p.Message, fmt.Sprintf("invalid name %q: ", o.Name)))
		case strings.HasPrefix(p.Path, "shards[") && strings.HasSuffix(p.Path, ".id"):
			return exitcode.UsageError("--id-prefix %q makes invalid shard IDs (such as %q): %s", o.IDPrefix, o.IDPrefix+"-0", afterColon(p.Message))
		case strings.Contains(p.Path, "revision"):
			return exitcode.UsageError("--revision %q: %s", o.Revision, afterColon(p.Message))
		case strings.HasPrefix(p.Path, "metadata.labels"):
			return exitcode.UsageError("--label: %s", p.Message)
		}
	}
	return nil
}

// labels are the --label flags as a map.
func (o *SplitOptions) labels() (map[string]string, error) {
	labels := map[string]string{}
	for _, kv := range o.Labels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, exitcode.UsageError("--label %q: give KEY=VALUE", kv)
		}
		labels[k] = v
	}
	return labels, nil
}

// afterColon is a problem's message without its "invalid X %q: " lead.
func afterColon(msg string) string {
	if _, rest, ok := strings.Cut(msg, ": "); ok {
		return rest
	}
	return msg
}
