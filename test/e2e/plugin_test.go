//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-indexed/kubectl-indexed/test/harness"
)

// The cluster and the kubectl on PATH are the pinned version.
func TestVersions(t *testing.T) {
	server, client := versions(t)
	if server != harness.KubernetesVersion || client != harness.KubernetesVersion {
		t.Errorf("server %s, kubectl %s; want both %s", server, client, harness.KubernetesVersion)
	}
}

// kubectl discovers the plugin on PATH, as a user's kubectl would.
func TestPluginDiscoveredByKubectl(t *testing.T) {
	RequirePlugin(t)
	r := Kubectl(t, "plugin", "list")
	want := filepath.Join(env.PluginDir, "kubectl-indexed")
	if r.ExitCode != 0 && !strings.Contains(r.Stdout, want) {
		t.Fatalf("kubectl plugin list failed:\n%s", r)
	}
	if !strings.Contains(r.Stdout, want) {
		t.Errorf("kubectl plugin list does not show %s:\n%s", want, r)
	}
	// Another installed copy (say from `make install`) may be listed as overshadowed by the
	// build under test, which is what PATH order should give; any other warning that names
	// the build under test means kubectl would not run it as users expect.
	for _, line := range strings.Split(r.Stderr, "\n") {
		if !strings.Contains(line, want) || strings.HasSuffix(strings.TrimSpace(line), "overshadowed by a similarly named plugin: "+want) {
			continue
		}
		t.Errorf("kubectl warns about the plugin under test: %s\n%s", line, r.Stderr)
	}
}

func TestPluginVersionThroughKubectl(t *testing.T) {
	r := KubectlIndexed(t, "version")
	if r.ExitCode != 0 {
		t.Fatalf("kubectl indexed version failed:\n%s", r)
	}
	if !strings.HasPrefix(r.Stdout, "kubectl-indexed ") || strings.Count(r.Stdout, "\n") != 1 {
		t.Errorf("want one line starting with \"kubectl-indexed \", got:\n%s", r)
	}
	if r.Stderr != "" {
		t.Errorf("unexpected stderr:\n%s", r.Stderr)
	}
	r = KubectlIndexed(t, "version", "-o", "json")
	if r.ExitCode != 0 {
		t.Fatalf("kubectl indexed version -o json failed:\n%s", r)
	}
	var v struct {
		Version   string `json:"version"`
		GoVersion string `json:"goVersion"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r)
	}
	if v.Version == "" || !strings.HasPrefix(v.GoVersion, "go") {
		t.Errorf("version %q goVersion %q", v.Version, v.GoVersion)
	}
}

// The limited user can read Jobs and Pods in its namespace and nothing else, so permission tests
// can rely on a real Forbidden.
func TestViewerPermissions(t *testing.T) {
	RequireViewer(t)
	as := func(args ...string) Result {
		return Run(t, Cmd{Args: args, Kubeconfig: env.ViewerKubeconfig})
	}
	for _, args := range [][]string{
		{"get", "jobs", "-n", harness.ViewerNamespace},
		{"get", "pods", "-n", harness.ViewerNamespace},
	} {
		if r := as(args...); r.ExitCode != 0 {
			t.Errorf("viewer should be allowed:\n%s", r)
		}
	}
	for _, args := range [][]string{
		{"get", "jobs", "-n", "default"},
		{"get", "events", "-n", harness.ViewerNamespace},
		{"delete", "job", "some-job", "-n", harness.ViewerNamespace},
		{"create", "job", "x", "--image=x", "-n", harness.ViewerNamespace},
	} {
		r := as(args...)
		if r.ExitCode == 0 || !strings.Contains(strings.ToLower(r.Stderr), "forbidden") || !strings.Contains(r.Stderr, `User "`+harness.ViewerUser+`"`) {
			t.Errorf("viewer should be Forbidden:\n%s", r)
		}
	}
}
