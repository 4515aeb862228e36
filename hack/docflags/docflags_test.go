package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-indexed/kubectl-indexed/hack/internal/doctest"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd"
)

// TestRepositoryFlagTablesAreTrue is the check itself, so that `make test` (and `make check`)
// fail when a docs/<verb>.md flag table no longer says what the command's --help says. Fix it
// with: go run ./hack/docflags -update
func TestRepositoryFlagTablesAreTrue(t *testing.T) {
	tree := cmd.NewCmdIndexed(genericiooptions.NewTestIOStreamsDiscard())
	res, err := Check("../..", tree, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tables < 10 {
		t.Fatalf("only %d flag tables found: is the root right, did the markers go?", res.Tables)
	}
	for _, n := range res.Notes {
		t.Log("note:", n)
	}
	for _, p := range res.Problems {
		t.Error(p)
	}
	if len(res.Problems) > 0 {
		t.Log("run: go run ./hack/docflags -update")
	}
}

// tree is a small command tree: a verb with a shorthand, a default, a value-optional flag, a
// persistent flag of its own, a hidden flag and a sub-verb; the root has a global flag.
func tree() *cobra.Command {
	root := &cobra.Command{Use: "indexed"}
	root.PersistentFlags().String("kubeconfig", "", "Path to the kubeconfig file")
	run := func(*cobra.Command, []string) {}
	retry := &cobra.Command{Use: "retry", Run: run}
	retry.Flags().StringP("output", "o", "", "Output format: json|yaml.")
	retry.Flags().String("indexes", "failed", "Which indexes to re-run.")
	retry.Flags().String("dry-run", "none", "Dry run.")
	retry.Flags().Lookup("dry-run").NoOptDefVal = "unchanged"
	retry.Flags().Int("tail", -1, "Lines of\nrecent log.")
	retry.Flags().Bool("secret", false, "hidden")
	_ = retry.Flags().MarkHidden("secret")
	retry.PersistentFlags().Bool("all", false, "Everything.")
	shards := &cobra.Command{Use: "shards"}
	show := &cobra.Command{Use: "show", Run: run}
	show.Flags().Int("index", -1, "Completion `INDEX` to print.")
	shards.AddCommand(show)
	lint := &cobra.Command{Use: "lint", Run: run}
	lint.Flags().BoolP("recursive", "R", false, "Descend.")
	lint.Flags().Bool("strict", false, "Exit 1 on warnings.")
	list := &cobra.Command{Use: "list", Run: run}
	list.Flags().Bool("no-headers", false, "No header.")
	root.AddCommand(retry, shards, lint, list, &cobra.Command{Use: "options", Run: run})
	return root
}

const retryTable = "| Flag | Meaning |\n|---|---|\n" +
	"| `--all` | Everything. |\n" +
	"| `--dry-run string[=\"unchanged\"]` | Dry run. (default \"none\") |\n" +
	"| `--indexes string` | Which indexes to re-run. (default \"failed\") |\n" +
	"| `-o, --output string` | Output format: json\\|yaml. |\n" +
	"| `--tail int` | Lines of recent log. (default -1) |\n"

func TestRowsAsHelpPrintsThem(t *testing.T) {
	root := tree()
	got := Table(Rows(root, "retry", Commands(root)["retry"]))
	if s := strings.Join(got, "\n") + "\n"; s != retryTable {
		t.Errorf("retry table:\n%s\nwant:\n%s", s, retryTable)
	}
	show := Rows(root, "shards show", Commands(root)["shards show"])
	if len(show) != 1 || show[0].String() != "| `--index INDEX` | Completion INDEX to print. (default -1) |" {
		t.Errorf("shards show rows: %v", show)
	}
	opts := Rows(root, "options", Commands(root)["options"])
	if len(opts) != 1 || opts[0].Name != "--kubeconfig" {
		t.Errorf("options rows (the root's persistent flags): %v", opts)
	}
}

func TestCheckNamesDriftAndUpdateFixesIt(t *testing.T) {
	dir := t.TempDir()
	drifted := "# retry\n\n## Flags\n\n<!-- flags:begin retry -->\n" +
		"| Flag | Meaning |\n|---|---|\n" +
		"| `--all` | Everything. |\n" + // 8
		"| `--dry-run string[=\"unchanged\"]` | Dry run. (default \"none\") |\n" +
		"| `--indexes string` | Which indexes to re-run. (default \"all\") |\n" + // 10: default drifted
		"| `--gone` | A flag that was removed. |\n" + // 11
		"| `-o, --output string` | Output format: json\\|yaml. |\n" +
		"<!-- flags:end -->\n\nThe connection flags are on options.\n"
	doctest.Write(t, dir, "docs/retry.md", drifted)
	doctest.Write(t, dir, "docs/shards.md", "## Flags\n\n### `shards show`\n\n<!-- flags:begin shards show -->\n| Flag | Meaning |\n|---|---|\n| `--index INDEX` | Completion INDEX to print. (default -1) |\n<!-- flags:end -->\n\n<!-- flags:begin shards merge -->\n<!-- flags:end -->\n")
	doctest.Write(t, dir, "docs/lint.md", "# lint\n\n| Flag | Default | Meaning |\n|---|---|---|\n| `FILE` / `-f`, `--filename` | | What. |\n| `-R`, `--recursive` | false | Descend. |\n")
	doctest.Write(t, dir, "docs/options.md", "| Flag | Meaning |\n|---|---|\n| `--kubeconfig string` | Path. |\n")
	res, err := Check(dir, tree(), false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"docs/lint.md:3: lint: --strict: missing from the hand-written table; the command has | `--strict` | Exit 1 on warnings. |",
		"docs/lint.md:5: lint: --filename: in the hand-written table, but not a flag of the command",
		"docs/retry.md:6: retry: --tail: missing from the table; the command has | `--tail int` | Lines of recent log. (default -1) |",
		"docs/retry.md:10: retry: --indexes: the table says | `--indexes string` | Which indexes to re-run. (default \"all\") |; the command says | `--indexes string` | Which indexes to re-run. (default \"failed\") |",
		"docs/retry.md:11: retry: --gone: in the table, but not a flag of the command",
		"docs/shards.md:11: shards merge: the marker names no command of kubectl indexed",
	}
	// sorted by page and line
	doctest.WantProblems(t, res.Problems, want)
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "list has flags but no flag table in docs/list.md") {
		t.Errorf("notes: %q, want one naming list", res.Notes)
	}
	if doctest.Read(t, dir, "docs/retry.md") != drifted {
		t.Error("the check without -update changed a page")
	}

	res, err = Check(dir, tree(), true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Updated, ",") != "docs/retry.md" {
		t.Errorf("updated %v, want docs/retry.md only", res.Updated)
	}
	wantPage := "# retry\n\n## Flags\n\n<!-- flags:begin retry -->\n" + retryTable + "<!-- flags:end -->\n\nThe connection flags are on options.\n"
	if got := doctest.Read(t, dir, "docs/retry.md"); got != wantPage {
		t.Errorf("updated page:\n%s\nwant:\n%s", got, wantPage)
	}
	res, err = Check(dir, tree(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Problems {
		if strings.HasPrefix(p.File, "docs/retry.md") {
			t.Errorf("after -update: %s", p)
		}
	}
}

func TestCheckRefusesBrokenMarkers(t *testing.T) {
	for name, page := range map[string]string{
		"no end":   "<!-- flags:begin retry -->\n| Flag | Meaning |\n",
		"two open": "<!-- flags:begin retry -->\n<!-- flags:begin lint -->\n<!-- flags:end -->\n",
		"no begin": "text\n<!-- flags:end -->\n",
	} {
		dir := t.TempDir()
		doctest.Write(t, dir, "docs/retry.md", page)
		if _, err := Check(dir, tree(), true); err == nil {
			t.Errorf("%s: no error", name)
		}
		if got := doctest.Read(t, dir, "docs/retry.md"); got != page {
			t.Errorf("%s: page changed to %q", name, got)
		}
	}
}

func TestLayoutOnlyDrift(t *testing.T) {
	dir := t.TempDir()
	lines := strings.Split(strings.TrimSuffix(retryTable, "\n"), "\n")
	lines[2], lines[3] = lines[3], lines[2] // same rows, another order
	doctest.Write(t, dir, "docs/retry.md", "<!-- flags:begin retry -->\n"+strings.Join(lines, "\n")+"\n<!-- flags:end -->\n")
	res, err := Check(dir, tree(), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || res.Problems[0].Why != tableDiffers {
		t.Errorf("problems: %v, want one: %s", res.Problems, tableDiffers)
	}
}
