package main

import (
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/hack/internal/doctest"
)

// TestRepositoryLinksResolve is the check itself, so that `make test` (and `make check`) fail
// on a broken link in README.md, CONTRIBUTING.md, docs/ or test/README.md.
func TestRepositoryLinksResolve(t *testing.T) {
	problems, files, err := Check("../..")
	if err != nil {
		t.Fatal(err)
	}
	if files < 5 {
		t.Fatalf("only %d Markdown files found: is the root right?", files)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestCheckFindsBrokenLinks(t *testing.T) {
	root := t.TempDir()
	doctest.Write(t, root, "README.md", strings.Join([]string{
		"# Tool",
		"[ok file](docs/lint.md) [ok anchor](docs/lint.md#the-lintreport--o-json--o-yaml)",
		"[ok dir](docs/) [ok self](#tool) [ok web](https://example.com/x#y) [ok line](main.go#L3)",
		"[gone](docs/missing.md)",            // 4
		"[bad anchor](docs/lint.md#no-such)", // 5
		"[bad self](#nothing-here)",          // 6
		"[outside](../elsewhere.md)",         // 7
		"`[in code](nowhere.md)`",            // not a link
		"```",
		"[in a fence](nowhere.md)", // not a link
		"```",
		"[ref]: docs/absent.md", // 12
		"[second](docs/lint.md#rules-1) [first](docs/lint.md#rules)",
		"[fragment into go](main.go#section)", // 14
	}, "\n"))
	doctest.Write(t, root, "main.go", "package main\n")
	doctest.Write(t, root, "docs/lint.md", "# lint\n\n## The LintReport (`-o json`, `-o yaml`)\n\n## Rules\n\n## Rules\n\n[back](../README.md#tool)\n[up broken](../README.md#tools)\n")
	doctest.Write(t, root, "docs/incoming/x.md", "[ignored](nowhere.md)\n")
	problems, files, err := Check(root)
	if err != nil {
		t.Fatal(err)
	}
	if files != 2 {
		t.Errorf("checked %d files, want 2 (docs/incoming is skipped)", files)
	}
	want := []string{
		"README.md:4: docs/missing.md: no such file or directory",
		"README.md:5: docs/lint.md#no-such: docs/lint.md has no heading with anchor #no-such",
		"README.md:6: #nothing-here: README.md has no heading with anchor #nothing-here",
		"README.md:7: ../elsewhere.md: points outside the repository",
		"README.md:12: docs/absent.md: no such file or directory",
		"README.md:14: main.go#section: a #fragment into a file that is not Markdown",
		"docs/lint.md:10: ../README.md#tools: README.md has no heading with anchor #tools",
	}
	doctest.WantProblems(t, problems, want)
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"kubectl indexed":                               "kubectl-indexed",
		"The LintReport (`-o json`, `-o yaml`)":         "the-lintreport--o-json--o-yaml",
		"Starting from your own Job: `--from-job FILE`": "starting-from-your-own-job---from-job-file",
		"Measured on the project's 2-core machine":      "measured-on-the-projects-2-core-machine",
		"Faults: nothing lost, nothing misleading":      "faults-nothing-lost-nothing-misleading",
		"[create](create.md) and **retry**":             "create-and-retry",
		"snake_case stays":                              "snake_case-stays",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
