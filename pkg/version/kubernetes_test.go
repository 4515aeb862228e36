package version

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// versionSpellings matches the ways the mirrored Kubernetes version is written in Go source:
// "1.37", "v1.37", "1.37.2", "v1.37.2", the k8s.io/* module version "v0.37" / "v0.37.2", and a
// {1, 37} literal (lint.Version). It is built from the constant, so it follows a bump.
func versionSpellings() *regexp.Regexp {
	major, minor := KubernetesMajorMinor()
	return regexp.MustCompile(fmt.Sprintf(`(^|[^0-9.])(v?%d\.%d|v0\.%d)(\.[0-9]+)?($|[^0-9])|\{\s*%d\s*,\s*%d\s*\}`,
		major, minor, minor, major, minor))
}

func TestVersionSpellings(t *testing.T) {
	re := versionSpellings()
	for _, s := range []string{
		`"1.37"`, `the v1.37 API server`, `Kubernetes v1.37.2.`, `1.37.2`, `k8s.io/api v0.37.2`,
		`v0.37`, `Version{1, 37}`, `Version{1,37}`, "(1.37)", "1.37: x",
	} {
		if !re.MatchString(s) {
			t.Errorf("%q is not caught", s)
		}
	}
	for _, s := range []string{`1.370`, `11.37`, `1.36`, `0.1.37`, `v2.37`, `{1, 370}`, `1.3`, `137`} {
		if re.MatchString(s) {
			t.Errorf("%q is caught but does not name the version", s)
		}
	}
}

func TestKubernetesMinor(t *testing.T) {
	major, minor := KubernetesMajorMinor()
	if major < 1 || minor < 1 {
		t.Fatalf("KubernetesMajorMinor() = %d, %d from %q", major, minor, Kubernetes)
	}
	if want := fmt.Sprintf("%d.%d", major, minor); KubernetesMinor != want {
		t.Errorf("KubernetesMinor = %q, want %q", KubernetesMinor, want)
	}
	if !strings.HasPrefix(Kubernetes, KubernetesMinor+".") || strings.Count(Kubernetes, ".") != 2 {
		t.Errorf("Kubernetes = %q: want MAJOR.MINOR.PATCH", Kubernetes)
	}
}

// moduleRoot is the directory of the go.mod above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}

// TestGoModFollowsKubernetes: the k8s.io/* modules the plugin builds with are the release it
// mirrors (k8s.io/api v0.MINOR.PATCH for Kubernetes 1.MINOR.PATCH).
func TestGoModFollowsKubernetes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	want := "v0" + strings.TrimPrefix(Kubernetes, "1")
	n := 0
	for _, mod := range []string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go", "k8s.io/cli-runtime", "k8s.io/kubectl"} {
		m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(mod) + `\s+(\S+)`).FindSubmatch(data)
		if m == nil {
			continue
		}
		n++
		if string(m[1]) != want {
			t.Errorf("go.mod requires %s %s; pkg/version.Kubernetes %s wants %s", mod, m[1], Kubernetes, want)
		}
	}
	if n == 0 {
		t.Fatal("go.mod requires none of the k8s.io/* modules: is this the plugin's go.mod?")
	}
}

// TestKubernetesVersionWrittenOnce fails when the mirrored Kubernetes version is written in a
// non-test Go file of the module other than kubernetes.go: every other place reads the
// constant (or says "the mirrored release (pkg/version)"), so that a bump is one change here
// plus re-recorded data.
//
// Allowed to hold the version, because they are data recorded from that release or pins of it:
// go.mod and go.sum; every non-Go file (test/lint/corpus/verdicts.json and its manifests, the
// golden files, docs, Makefiles); directories named testdata or fixtures (test/fixtures);
// nested modules (test/cluster, which pins k8s.io/kubernetes itself; test/harness checks that
// pin against this constant); and _test.go files, whose expectations quote what the mirrored
// release does.
func TestKubernetesVersionWrittenOnce(t *testing.T) {
	root := moduleRoot(t)
	re := versionSpellings()
	self, err := filepath.Abs("kubernetes.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "fixtures" || name == "vendor") {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == self {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
		for line := 1; sc.Scan(); line++ {
			if re.Match(sc.Bytes()) {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d names the Kubernetes version; read pkg/version.Kubernetes (or KubernetesMinor) instead, or say \"the mirrored release (pkg/version)\":\n\t%s",
					rel, line, strings.TrimSpace(sc.Text()))
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d Go files under %s: the walk missed the module", checked, root)
	}
}
