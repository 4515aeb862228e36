// Command docflags keeps the flag tables of the docs/<verb>.md pages true to the commands
// (issue 15: every documented command stays true). It builds the kubectl indexed command tree
// in-process from pkg/cmd (no binary needed) and, for every table between markers
//
//	<!-- flags:begin retry -->
//	| Flag | Meaning |
//	|---|---|
//	| `--indexes string` | Which indexes ... (default "failed") |
//	<!-- flags:end -->
//
// renders the table from the command's own flags as its --help prints them (the flags of the
// Flags: section, in the same order; the global kubeconfig flags are left to docs/options.md,
// whose own marker, "options", renders them). A marker names the command path below the root:
// "retry", "shards split".
//
//	go run ./hack/docflags [-update] [ROOT]     (make doc-flags; part of make check)
//
// Without -update it prints one line per drift (page:line: command: flag: what differs) and
// exits 1 if there is any; with -update it rewrites the marked tables. A page of a verb without
// markers (its table written by hand, e.g. with a Default column) is checked by flag names
// only: every flag of the command named in its first "| Flag |" table and no other. Verbs with
// flags but no page, or no table, are named on stderr without failing, so that a new verb can
// land before its page.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd"
)

func main() {
	update := flag.Bool("update", false, "rewrite the marked tables from the commands")
	flag.Usage = func() {
		_, _ = fmt.Fprintln(flag.CommandLine.Output(), "usage: go run ./hack/docflags [-update] [ROOT]")
		flag.PrintDefaults()
	}
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	tree := cmd.NewCmdIndexed(genericiooptions.NewTestIOStreamsDiscard())
	res, err := Check(root, tree, *update)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docflags:", err)
		os.Exit(2)
	}
	for _, n := range res.Notes {
		fmt.Fprintln(os.Stderr, "docflags: note:", n)
	}
	if *update {
		for _, f := range res.Updated {
			fmt.Println("docflags: updated", f)
		}
		fmt.Printf("docflags: %d flag tables in %d pages agree with the commands\n", res.Tables, res.Pages)
		return
	}
	for _, p := range res.Problems {
		fmt.Println(p)
	}
	if len(res.Problems) > 0 {
		fmt.Fprintln(os.Stderr, "docflags: flag tables differ from the commands; run: go run ./hack/docflags -update")
		os.Exit(1)
	}
	fmt.Printf("docflags: %d flag tables in %d pages agree with the commands\n", res.Tables, res.Pages)
}

// Problem is one difference between a page and a command.
type Problem struct {
	File    string // relative to the root, with slashes
	Line    int
	Command string // "retry", "shards split"
	Flag    string // "--index-map", or "" for the table as a whole
	Why     string
}

func (p Problem) String() string {
	where := p.Command
	if p.Flag != "" {
		where += ": " + p.Flag
	}
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, where, p.Why)
}

// Result is what Check found (and, with update, wrote).
type Result struct {
	Problems []Problem
	Notes    []string // uncovered verbs: reported, not failing
	Updated  []string // pages rewritten (update only)
	Tables   int      // tables checked, marked or by name
	Pages    int
}

var (
	beginMarker = regexp.MustCompile(`^\s*<!--\s*flags:begin\s+([a-z0-9][a-z0-9 -]*?)\s*-->\s*$`)
	endMarker   = regexp.MustCompile(`^\s*<!--\s*flags:end\s*-->\s*$`)
	longFlag    = regexp.MustCompile(`--[a-zA-Z0-9][a-zA-Z0-9_-]*`)
	newlines    = regexp.MustCompile(`\s*\n\s*`)
)

// optionsVerb is the verb that prints the root's persistent (kubeconfig) flags; its marker
// renders those.
const optionsVerb = "options"

// Commands returns every command below root by its path without the root's name ("retry",
// "shards split"), hidden ones and cobra's generated help command excepted.
func Commands(root *cobra.Command) map[string]*cobra.Command {
	out := map[string]*cobra.Command{}
	var walk func(prefix string, c *cobra.Command)
	walk = func(prefix string, c *cobra.Command) {
		for _, s := range c.Commands() {
			if s.Hidden || s.Name() == "help" {
				continue
			}
			p := strings.TrimSpace(prefix + " " + s.Name())
			out[p] = s
			walk(p, s)
		}
	}
	walk("", root)
	return out
}

// Row is one flag as its table row shows it.
type Row struct {
	Name    string // "--output"
	Flag    string // "-o, --output string"
	Meaning string // the usage, with " (default ...)" as --help prints it
}

func (r Row) String() string {
	return fmt.Sprintf("| `%s` | %s |", r.Flag, r.Meaning)
}

// Rows are the flags that path's --help lists under Flags:, in its order; for the options verb,
// the root's persistent flags.
func Rows(root *cobra.Command, path string, c *cobra.Command) []Row {
	fs := c.LocalFlags()
	if path == optionsVerb {
		fs = root.PersistentFlags()
	}
	var rows []Row
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		rows = append(rows, rowOf(f))
	})
	return rows
}

// rowOf renders f with pflag's own usage line, so the row says exactly what --help says (type
// name from backquotes in the usage, [="..."] for a value-optional flag, the default unless
// it is the zero value, deprecation).
func rowOf(f *pflag.Flag) Row {
	one := pflag.NewFlagSet("", pflag.ContinueOnError)
	one.AddFlag(f)
	line := strings.TrimRight(one.FlagUsagesWrapped(0), "\n")
	line = strings.TrimLeft(line, " ")
	// With one flag pflag aligns nothing: the flag column and the usage are two spaces apart.
	left, usage, _ := strings.Cut(line, "  ")
	usage = newlines.ReplaceAllString(strings.TrimSpace(usage), " ")
	usage = strings.ReplaceAll(usage, "|", `\|`)
	// A default under the user's home (cli-runtime's --cache-dir) is written as $HOME, so that
	// the table does not depend on who runs the check.
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 {
		usage = strings.ReplaceAll(usage, `"`+home+"/", `"$HOME/`)
	}
	return Row{Name: "--" + f.Name, Flag: left, Meaning: usage}
}

// Table renders rows as the pages' table.
func Table(rows []Row) []string {
	lines := []string{"| Flag | Meaning |", "|---|---|"}
	for _, r := range rows {
		lines = append(lines, r.String())
	}
	return lines
}

// Check compares every docs/*.md page under root with the commands of tree; with update it
// rewrites the marked tables that differ instead of reporting them.
func Check(root string, tree *cobra.Command, update bool) (Result, error) {
	var res Result
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return res, err
	}
	sort.Strings(pages)
	cmds := Commands(tree)
	covered := map[string]bool{}
	for _, page := range pages {
		rel := "docs/" + filepath.Base(page)
		data, err := os.ReadFile(page)
		if err != nil {
			return res, err
		}
		out, problems, marked, err := checkPage(rel, data, tree, cmds)
		if err != nil {
			return res, err
		}
		for _, m := range marked {
			covered[m] = true
		}
		verb := strings.TrimSuffix(filepath.Base(page), ".md")
		c, isVerb := cmds[verb]
		if len(marked) == 0 && isVerb {
			// A page of its own verb without markers: check the names of its hand-written table.
			names := Rows(tree, verb, c)
			if len(names) == 0 {
				continue
			}
			found, line, ok := handTable(data)
			if !ok {
				continue // reported below as uncovered
			}
			covered[verb] = true
			res.Tables++
			res.Pages++
			problems = append(problems, compareNames(rel, line, verb, found, names)...)
			res.Problems = append(res.Problems, problems...)
			continue
		}
		if len(marked) == 0 {
			continue
		}
		res.Pages++
		res.Tables += len(marked)
		if update && !bytes.Equal(out, data) {
			if err := os.WriteFile(page, out, 0o644); err != nil {
				return res, err
			}
			res.Updated = append(res.Updated, rel)
			// what is left after an update: markers naming no command, broken markers
			problems = keepUnfixable(problems)
		}
		res.Problems = append(res.Problems, problems...)
	}
	sort.SliceStable(res.Problems, func(i, j int) bool {
		a, b := res.Problems[i], res.Problems[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	var paths []string
	for p := range cmds {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if covered[p] || len(Rows(tree, p, cmds[p])) == 0 {
			continue
		}
		res.Notes = append(res.Notes, fmt.Sprintf("%s has flags but no flag table in docs/%s.md (add one between <!-- flags:begin %s --> and <!-- flags:end -->)", p, strings.Fields(p)[0], p))
	}
	return res, nil
}

// keepUnfixable drops the problems an update has fixed.
func keepUnfixable(ps []Problem) []Problem {
	var out []Problem
	for _, p := range ps {
		if p.Flag == "" && p.Why != tableDiffers {
			out = append(out, p)
		}
	}
	return out
}

const tableDiffers = "table layout differs from the generated one"

// checkPage returns the page with its marked tables rendered, the differences of the current
// ones, and the commands it has markers for.
func checkPage(rel string, data []byte, tree *cobra.Command, cmds map[string]*cobra.Command) ([]byte, []Problem, []string, error) {
	lines := strings.SplitAfter(string(data), "\n")
	var out strings.Builder
	var problems []Problem
	var marked []string
	for i := 0; i < len(lines); i++ {
		out.WriteString(lines[i])
		m := beginMarker.FindStringSubmatch(strings.TrimRight(lines[i], "\r\n"))
		if m == nil {
			if endMarker.MatchString(strings.TrimRight(lines[i], "\r\n")) {
				return nil, nil, nil, fmt.Errorf("%s:%d: flags:end without flags:begin", rel, i+1)
			}
			continue
		}
		path := strings.Join(strings.Fields(m[1]), " ")
		begin := i
		end := -1
		for j := i + 1; j < len(lines); j++ {
			l := strings.TrimRight(lines[j], "\r\n")
			if endMarker.MatchString(l) {
				end = j
				break
			}
			if beginMarker.MatchString(l) {
				break
			}
		}
		if end < 0 {
			return nil, nil, nil, fmt.Errorf("%s:%d: flags:begin %s without a flags:end before the next flags:begin or the end of the page", rel, begin+1, path)
		}
		current := make([]string, 0, end-begin-1)
		for _, l := range lines[begin+1 : end] {
			current = append(current, strings.TrimRight(l, "\r\n"))
		}
		c, ok := cmds[path]
		if !ok {
			problems = append(problems, Problem{File: rel, Line: begin + 1, Command: path, Why: "the marker names no command of kubectl indexed"})
			for _, l := range lines[begin+1 : end+1] {
				out.WriteString(l)
			}
			i = end
			continue
		}
		marked = append(marked, path)
		want := Table(Rows(tree, path, c))
		problems = append(problems, compareRows(rel, begin+2, path, current, want)...)
		for _, l := range want {
			out.WriteString(l + "\n")
		}
		out.WriteString(lines[end])
		i = end
	}
	return []byte(out.String()), problems, marked, nil
}

// compareRows names each flag whose row differs; firstLine is the page line of current[0].
func compareRows(rel string, firstLine int, path string, current, want []string) []Problem {
	if strings.Join(current, "\n") == strings.Join(want, "\n") {
		return nil
	}
	type row struct {
		line int
		text string
	}
	byName := func(lines []string, first int) (map[string]row, []string) {
		m := map[string]row{}
		var order []string
		for k, l := range lines {
			if !strings.HasPrefix(strings.TrimSpace(l), "|") || k < 2 {
				continue
			}
			cells := strings.SplitN(l, "|", 3)
			if len(cells) < 3 {
				continue
			}
			names := longFlag.FindAllString(cells[1], -1)
			if len(names) == 0 {
				continue
			}
			name := names[len(names)-1]
			if _, dup := m[name]; !dup {
				order = append(order, name)
			}
			m[name] = row{first + k, strings.TrimSpace(l)}
		}
		return m, order
	}
	have, haveOrder := byName(current, firstLine)
	need, needOrder := byName(want, firstLine)
	var ps []Problem
	for _, name := range needOrder {
		h, ok := have[name]
		switch {
		case !ok:
			ps = append(ps, Problem{rel, firstLine, path, name, "missing from the table; the command has " + need[name].text})
		case h.text != need[name].text:
			ps = append(ps, Problem{rel, h.line, path, name, fmt.Sprintf("the table says %s; the command says %s", h.text, need[name].text)})
		}
	}
	for _, name := range haveOrder {
		if _, ok := need[name]; !ok {
			ps = append(ps, Problem{rel, have[name].line, path, name, "in the table, but not a flag of the command"})
		}
	}
	if len(ps) == 0 { // same rows, other order, header or stray lines
		ps = append(ps, Problem{rel, firstLine, path, "", tableDiffers})
	}
	return ps
}

// handTable finds the first table whose header starts with "| Flag |" and returns the long
// flag names of its first column and the line of its header.
func handTable(data []byte) (map[string]int, int, bool) {
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "| Flag |") {
			continue
		}
		found := map[string]int{}
		for j := i + 2; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|"); j++ {
			cells := strings.SplitN(lines[j], "|", 3)
			if len(cells) < 3 {
				continue
			}
			for _, n := range longFlag.FindAllString(cells[1], -1) {
				if _, ok := found[n]; !ok {
					found[n] = j + 1
				}
			}
		}
		return found, i + 1, true
	}
	return nil, 0, false
}

func compareNames(rel string, header int, path string, found map[string]int, rows []Row) []Problem {
	var ps []Problem
	need := map[string]bool{}
	for _, r := range rows {
		need[r.Name] = true
		if _, ok := found[r.Name]; !ok {
			ps = append(ps, Problem{rel, header, path, r.Name, "missing from the hand-written table; the command has " + r.String()})
		}
	}
	var extra []string
	for n := range found {
		if !need[n] {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	for _, n := range extra {
		ps = append(ps, Problem{rel, found[n], path, n, "in the hand-written table, but not a flag of the command"})
	}
	return ps
}
