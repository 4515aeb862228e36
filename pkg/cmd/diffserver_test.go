package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffServerIsTheGlobalFlag: on diff as on every verb, -s/--server URL is the kubeconfig
// flag naming the API server (diff's own option is --server-dry-run). diff used to register a
// boolean --server that shadowed it: "-s URL" was an unknown shorthand, "--server=URL" failed
// to parse as a boolean and "--server URL" took the URL for a second Job name.
func TestDiffServerIsTheGlobalFlag(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "config")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	job := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(job, []byte("apiVersion: batch/v1\nkind: Job\nmetadata: {name: eval}\nspec:\n  completionMode: Indexed\n  completions: 2\n  backoffLimitPerIndex: 1\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: w, image: x}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const url = "http://127.0.0.1:1"
	for _, server := range [][]string{{"-s", url}, {"--server", url}, {"--server=" + url}, {"-s" + url}} {
		args := append([]string{"diff", "eval", "-f", job, "-n", "ns", "--request-timeout", "2s"}, server...)
		_, stderr, code := execute(t, args...)
		// The GET of the live Job went to the address given.
		if code != 4 || !strings.Contains(stderr, url+"/apis/batch/v1/namespaces/ns/jobs/eval") {
			t.Errorf("%s: exit %d, want 4 from %s\n%s", strings.Join(server, " "), code, url, stderr)
		}
	}
	// A command line written for the former boolean --server is told about --server-dry-run.
	for _, args := range [][]string{{"--server", "-o", "json"}, {"--server=true"}} {
		_, stderr, code := execute(t, append([]string{"diff", "eval", "-f", job}, args...)...)
		if code != 2 || !strings.Contains(stderr, "give --server-dry-run") {
			t.Errorf("%v: exit %d, want 2 naming --server-dry-run\n%s", args, code, stderr)
		}
	}
	if help, _, _ := execute(t, "diff", "--help"); !strings.Contains(help, "--server-dry-run") || strings.Contains(help, "      --server ") {
		t.Errorf("diff --help:\n%s", help)
	}
}
