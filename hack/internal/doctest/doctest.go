// Package doctest is what the tests of the documentation checkers in hack/ share: a page
// tree written into a temporary root, and the problems a check found compared as text.
package doctest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write writes content to rel (slash-separated) below root, creating its directories.
func Write(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Read returns the content of rel (slash-separated) below root.
func Read(t testing.TB, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// WantProblems reports an error unless the problems, one String() a line, are want in order.
func WantProblems[P fmt.Stringer](t testing.TB, problems []P, want []string) {
	t.Helper()
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
