package cmd

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const cmdImportPrefix = "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/"

// newCmdFunc marks a verb package: it defines the verb's command (NewCmdCreate, NewCmdDiff ...).
var newCmdFunc = regexp.MustCompile(`(?m)^func NewCmd[A-Z]`)

// TestNoVerbImportsAnotherVerb keeps the verb packages under pkg/cmd side by side: only the
// root command (this package) imports them. What two verbs share lives in a package of its own
// that imports no verb (pkg/cmd/jobflags for the create/diff/retry flags and the Submitter,
// pkg/cmd/namecompletion for name completion, a domain package such as pkg/indexstatus for
// the pod selector), directly or through another package.
func TestNoVerbImportsAnotherVerb(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string][]string{} // package dir under pkg/cmd -> pkg/cmd/... dirs it imports
	verbs := map[string]bool{}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		pkg := e.Name()
		files, err := filepath.Glob(filepath.Join(pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if newCmdFunc.Match(src) {
				verbs[pkg] = true
			}
			af, err := parser.ParseFile(fset, f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if dep, ok := strings.CutPrefix(path, cmdImportPrefix); ok && !seen[dep] {
					seen[dep] = true
					imports[pkg] = append(imports[pkg], dep)
				}
			}
		}
	}
	if len(verbs) < 10 {
		t.Fatalf("found %d verb packages under pkg/cmd (%v): the test no longer sees them", len(verbs), verbs)
	}
	for pkg := range imports {
		// Every pkg/cmd package reachable from pkg, with the first path that reaches it.
		via := map[string][]string{}
		queue := []string{pkg}
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			for _, dep := range imports[cur] {
				if _, ok := via[dep]; ok || dep == pkg {
					continue
				}
				via[dep] = append(append([]string(nil), via[cur]...), dep)
				queue = append(queue, dep)
			}
		}
		var bad []string
		for dep, path := range via {
			if verbs[dep] {
				bad = append(bad, "pkg/cmd/"+pkg+" -> pkg/cmd/"+strings.Join(path, " -> pkg/cmd/"))
			}
		}
		sort.Strings(bad)
		for _, b := range bad {
			t.Errorf("a verb package is imported by another package under pkg/cmd: %s; move what they share to a package of its own", b)
		}
	}
}
