package cmd

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePkg = "github.com/kubectl-indexed/kubectl-indexed/pkg/"

// archRow is a row of docs/architecture.md's table of domain packages: "| `pkg/x` | what |
// `a`, `b` |".
var archRow = regexp.MustCompile("(?m)^\\| `pkg/([a-z0-9]+)` \\|.*\\| ([^|]*)\\|$")

// TestArchitectureTableMatchesImports keeps docs/architecture.md's map true: every domain
// package (pkg/* outside pkg/cmd) has a row, and the row's last column names exactly the
// module's packages its non-test files import.
func TestArchitectureTableMatchesImports(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string][]string{}
	for _, m := range archRow.FindAllStringSubmatch(string(doc), -1) {
		var deps []string
		for _, d := range strings.Split(m[2], ",") {
			if d = strings.Trim(strings.TrimSpace(d), "`"); d != "" {
				deps = append(deps, d)
			}
		}
		slices.Sort(deps)
		documented[m[1]] = deps
	}
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		pkg := e.Name()
		if !e.IsDir() || pkg == "cmd" {
			continue
		}
		files, err := filepath.Glob(filepath.Join("..", pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var deps []string
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if dep, ok := strings.CutPrefix(path, modulePkg); ok && !slices.Contains(deps, dep) {
					deps = append(deps, dep)
				}
			}
		}
		if len(files) == 0 {
			continue
		}
		slices.Sort(deps)
		doc, ok := documented[pkg]
		switch {
		case !ok:
			t.Errorf("docs/architecture.md has no row for pkg/%s (it imports %q)", pkg, deps)
		case !slices.Equal(doc, deps):
			t.Errorf("docs/architecture.md says pkg/%s imports %q; it imports %q", pkg, doc, deps)
		}
		delete(documented, pkg)
	}
	for pkg := range documented {
		t.Errorf("docs/architecture.md has a row for pkg/%s, which is not a domain package", pkg)
	}
}
