package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func execute(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	root := NewCmdIndexed(streams)
	root.SetArgs(args)
	code = Execute(context.Background(), root, streams)
	return out.String(), errOut.String(), code
}

// The global kubeconfig flags are listed once, by "options", not on the root's or any verb's
// help, and every help page ends with the hint to "options", as kubectl's do.
func TestGlobalFlagsListedOnceByOptions(t *testing.T) {
	root := NewCmdIndexed(genericiooptions.NewTestIOStreamsDiscard())
	pages := [][]string{{"--help"}}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden {
				continue
			}
			pages = append(pages, append(strings.Fields(strings.TrimPrefix(sub.CommandPath(), "kubectl indexed ")), "--help"))
			walk(sub)
		}
	}
	walk(root)
	for _, args := range pages {
		help, _, code := execute(t, args...)
		if code != 0 || strings.Contains(help, "--kubeconfig string") || strings.Contains(help, "Global Flags") ||
			!strings.HasSuffix(strings.Join(strings.Fields(help), " "), OptionsHint) {
			t.Errorf("%s: exit %d, help:\n%s", strings.Join(args, " "), code, help)
		}
		// Every help page fits 80 columns (issue 22, item 3: the root's was 328).
		for _, l := range strings.Split(help, "\n") {
			if n := utf8.RuneCountInString(l); n > HelpWidth {
				t.Errorf("%s: a line of %d columns: %q", strings.Join(args, " "), n, l)
			}
		}
	}
	if len(pages) < 15 {
		t.Errorf("only %d help pages checked", len(pages))
	}
	// The verbs' own flags are still listed.
	if help, _, _ := execute(t, "status", "--help"); !strings.Contains(help, "--pods-file string") || !strings.Contains(help, "Flags:") {
		t.Errorf("status --help lacks its own flags:\n%s", help)
	}
	opts, _, code := execute(t, "options")
	for _, f := range []string{"--kubeconfig", "--context", "--namespace", "--request-timeout"} {
		if code != 0 || !strings.Contains(opts, f) {
			t.Errorf("options lacks %s:\n%s", f, opts)
		}
	}
}

// A KUBECONFIG naming a missing file is named in the error (client-go falls back silently).
func TestMissingKubeconfigIsNamed(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope", "config")
	t.Setenv("KUBECONFIG", missing)
	_, stderr, code := execute(t, "status", "x", "--request-timeout", "2s", "--server", "http://127.0.0.1:1")
	if code != 4 || !strings.Contains(stderr, "(KUBECONFIG names "+missing+", which does not exist: no kubeconfig was read)") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	// An existing one is not blamed.
	ok := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(ok, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", ok)
	if _, stderr, _ := execute(t, "status", "x", "--request-timeout", "2s", "--server", "http://127.0.0.1:1"); strings.Contains(stderr, "KUBECONFIG names") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestLintOutputTextAndVersionClient(t *testing.T) {
	f := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(f, []byte("apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\nspec:\n  completionMode: Indexed\n  completions: 2\n  backoffLimitPerIndex: 1\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: w, image: x}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	def, _, c1 := execute(t, "lint", f)
	text, _, c2 := execute(t, "lint", "-o", "text", f)
	if c1 != c2 || def != text || !strings.Contains(text, "checked") {
		t.Errorf("lint -o text differs from the default:\n%s\n---\n%s", def, text)
	}
	v, _, code := execute(t, "version")
	vc, _, code2 := execute(t, "version", "--client")
	if code != 0 || code2 != 0 || v != vc || !strings.HasPrefix(vc, "kubectl-indexed ") {
		t.Errorf("version --client: %q vs %q", vc, v)
	}
}

// version takes kubectl's template formats over the version it prints with -o json.
func TestVersionTemplates(t *testing.T) {
	js, _, code := execute(t, "version", "-o", "json")
	got, _, code2 := execute(t, "version", "-o", "jsonpath={.version} {.platform}")
	if code != 0 || code2 != 0 || got == "" || !strings.Contains(js, `"version": "`+strings.Fields(got)[0]+`"`) || !strings.Contains(js, `"platform": "`+strings.Fields(got)[1]+`"`) {
		t.Errorf("jsonpath %q, json:\n%s", got, js)
	}
	if _, stderr, code := execute(t, "version", "-o", "jsonpath={.version"); code != 2 || !strings.Contains(stderr, "-o jsonpath=") {
		t.Errorf("bad template: exit %d %s", code, stderr)
	}
}

// An https server without credentials is an API error (exit 4), never a prompt for a username
// on standard output (kubectl's deprecated --username/--password flags make client-go's loader
// interactive on the process's stdin; basic authentication was removed from Kubernetes in 1.19).
func TestNoCredentialPrompt(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	for _, args := range [][]string{
		{"status", "x", "-o", "json"},
		{"list"},
		{"reconcile", "x"},
	} {
		args = append(args, "--request-timeout", "2s", "--server", "https://127.0.0.1:1")
		stdout, stderr, code := execute(t, args...)
		if code != 4 || strings.Contains(stderr, "EOF") || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s", args, code, stdout, stderr)
		}
	}
}

// A flag that reads one file refuses a second value instead of keeping only the last: status
// -f A -f B reported B alone. status's -f is repeatable, as kubectl's (a Job and the record of
// its pods): two Jobs are refused as one file holding both is.
func TestOneFileFlagsGivenTwice(t *testing.T) {
	job := filepath.Join("..", "..", "test", "fixtures", "seed", "job.json")
	other := filepath.Join("..", "..", "test", "fixtures", "retrying", "job.json")
	if stdout, stderr, code := execute(t, "status", "-f", job, "-f", other); code != 2 || stdout != "" || !strings.Contains(stderr, `holds more than one Job ("seed" and "retrying")`) {
		t.Errorf("status -f A -f B: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"status", "-f", job, "--pods-file", job, "--pods-file", other},
		{"diff", "--live-file", job, "--live-file", other, "-f", job},
		{"diff", "--live-file", job, "-f", job, "--filename", other},
	} {
		stdout, stderr, code := execute(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "given more than once") {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s", args, code, stdout, stderr)
		}
	}
}
