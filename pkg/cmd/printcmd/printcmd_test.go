package printcmd

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

func parsed(t *testing.T, args ...string) Connection {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	genericclioptions.NewConfigFlags(true).AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return FromFlagSet(fs)
}

// TestConnectionFlagsCarriedAndQuoted: the flags given come back, quoted, and a shell reads the
// printed command as the same words (run through sh -c with printf).
func TestConnectionFlagsCarriedAndQuoted(t *testing.T) {
	c := parsed(t, "--context", "prod's cluster", "--kubeconfig", "/tmp/a b/kc", "--as", "jane", "--as-group", "g1", "--as-group", "g 2",
		"--user", "u;rm -rf /", "--cluster", "c$HOME", "-n", "ns", "--token", "s3cret")
	got := c.Command("kubectl", "delete", "configmap", "cm-1", "-n", "ns")
	if strings.Contains(got, "s3cret") || !strings.Contains(got, `--token="$TOKEN"`) {
		t.Errorf("a credential is printed, or its placeholder is not: %s", got)
	}
	want := []string{"kubectl", "delete", "configmap", "cm-1", "-n", "ns", "--kubeconfig=/tmp/a b/kc", "--context=prod's cluster", "--cluster=c$HOME",
		"--user=u;rm -rf /", "--as=jane", "--as-group=g1", "--as-group=g 2", "--token="}
	if words := shellWords(t, got); strings.Join(words, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("%s\nreads as %q\nwant      %q", got, words, want)
	}

	// Before "--": the worker's command stays the worker's.
	got = c.Command("kubectl", "indexed", "create", "x", "--", "sh", "-c", "echo --context=no")
	words := shellWords(t, got)
	dash := -1
	for i, w := range words {
		if w == "--" {
			dash = i
			break
		}
	}
	if dash < 0 || !strings.HasPrefix(words[dash-1], "--token=") || words[len(words)-1] != "echo --context=no" {
		t.Errorf("flags not before --: %q", words)
	}

	// Extend: after "kubectl" for kubectl's own commands; at the end for plugin commands, unless
	// a worker's command follows a --.
	if got := c.Extend(`kubectl patch job a -n b --type=merge -p '{"x":" -- "}'`); !strings.HasPrefix(got, "kubectl '--kubeconfig=/tmp/a b/kc' '--context=prod'\\''s cluster'") ||
		!strings.HasSuffix(got, `-p '{"x":" -- "}'`) {
		t.Errorf("Extend: %s", got)
	}
	if got := c.Extend("kubectl indexed logs x -n y --failed"); got != "kubectl indexed logs x -n y --failed "+strings.Join(c.Words(), " ") || !strings.Contains(got, "--failed '--kubeconfig=/tmp/a b/kc'") {
		t.Errorf("Extend of a plugin line: %s", got)
	}
	if got := c.Extend("kubectl indexed create x -- sh -c 'echo'"); got != "kubectl indexed create x -- sh -c 'echo'" {
		t.Errorf("Extend of a plugin line with a worker command: %s", got)
	}
	if got := parsed(t).Command("kubectl", "get", "job", "a"); got != "kubectl get job a" {
		t.Errorf("no flags given: %s", got)
	}
}

// shellWords asks sh how it splits line (one word per line, NUL-separated).
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", "set -- "+line+`; printf '%s\0' "$@"`).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// TestLocalFlagOfTheSameName: a verb's own flag named like a connection flag (as diff's
// boolean --server was) is not the kubeconfig's.
func TestLocalFlagOfTheSameName(t *testing.T) {
	root := &cobra.Command{Use: "indexed"}
	genericclioptions.NewConfigFlags(true).AddFlags(root.PersistentFlags())
	var got Connection
	sub := &cobra.Command{Use: "diff", Run: func(cmd *cobra.Command, _ []string) { got = FromCommand(cmd) }}
	sub.Flags().Bool("server", false, "confirm with the server")
	root.AddCommand(sub)
	root.SetArgs([]string{"diff", "--server", "--context", "c1"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(got.Words(), " "); w != "--context=c1" {
		t.Errorf("words %q, want --context=c1", w)
	}
}

// TestExtendEveryStepOnce: in a pipe every kubectl step gets every connection flag, once (diff
// printed them on the local patch step only, so `kubectl create -f -` ran as the default user;
// and twice on its create command). Fails before Extend split the pipe.
func TestExtendEveryStepOnce(t *testing.T) {
	c := parsed(t, "--context", "viewer", "--kubeconfig", "/tmp/kc", "--as", "jane", "--as-user-extra", "scopes=a", "--proxy-url", "http://127.0.0.1:3128",
		"--server", "https://h:6443", "--token", "s3cret")
	line := `kubectl patch --local -f job.yaml --type=merge -p '{"metadata":{"name":"a|b"}}' -o yaml | kubectl create -f - -n ns`
	got := c.Extend(line)
	steps := splitPipe(got)
	if len(steps) != 2 {
		t.Fatalf("%d steps: %s", len(steps), got)
	}
	for _, step := range steps {
		for _, w := range c.Words() {
			if n := strings.Count(step, w); n != 1 {
				t.Errorf("%q %d times in step %q", w, n, step)
			}
		}
	}
	for _, w := range []string{"--as-user-extra=scopes=a", "--proxy-url=http://127.0.0.1:3128", "--server=https://h:6443"} {
		if !strings.Contains(steps[1], w) {
			t.Errorf("%s missing from %q", w, steps[1])
		}
	}
	if strings.Contains(got, "s3cret") || strings.Count(got, `--token="$TOKEN"`) != 2 {
		t.Errorf("a credential is printed, or its placeholder not on every step: %s", got)
	}
	if !strings.Contains(got, `'{"metadata":{"name":"a|b"}}'`) {
		t.Errorf("a | inside quotes split the step: %s", got)
	}
	// Extending twice, or a command that already carries the flags, adds nothing.
	if again := c.Extend(got); again != got {
		t.Errorf("not idempotent:\n%s\n%s", got, again)
	}
	plugin := c.Command("kubectl", "indexed", "create", "x", "-n", "ns", "--image=busybox")
	if ext := c.Extend(plugin); ext != plugin {
		t.Errorf("flags repeated:\n%s\n%s", plugin, ext)
	}
	// Each step still reads as the words it was (the shell sees the same pipe).
	out, err := exec.Command("sh", "-c", "set -- "+strings.Replace(got, " | ", " '|' ", 1)+`; printf '%s\n' "$@"`).Output()
	if err != nil || !strings.Contains(string(out), "\n|\nkubectl\n--kubeconfig=/tmp/kc\n--context=viewer\n") {
		t.Errorf("%v:\n%s", err, out)
	}
	if got := c.Extend("kubectl get job x || true"); !strings.HasSuffix(got, " get job x || true") {
		t.Errorf("|| is not a pipe: %s", got)
	}
}

// Issue 35 item 2: a printed command acts as the identity the command ran as. Each flag that
// carries an identity is carried over: the non-secret ones with their value, the secrets
// (--token, --password) as a placeholder the shell fills from the environment, never the
// secret. Before, --token was dropped, and the printed command ran as the kubeconfig's user.
func TestIdentityFlagsActAsTheSameUser(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the word printed
		env  string // the environment the user sets
		read string // what the shell passes to kubectl then
	}{
		{[]string{"--token", "s3cret"}, `--token="$TOKEN"`, "TOKEN=s3cret", "--token=s3cret"},
		{[]string{"--as", "jane"}, "--as=jane", "", "--as=jane"},
		{[]string{"--as-group", "ops"}, "--as-group=ops", "", "--as-group=ops"},
		{[]string{"--as-uid", "1234"}, "--as-uid=1234", "", "--as-uid=1234"},
		{[]string{"--user", "ci-bot"}, "--user=ci-bot", "", "--user=ci-bot"},
		{[]string{"--client-certificate", "/c/cert.pem"}, "--client-certificate=/c/cert.pem", "", "--client-certificate=/c/cert.pem"},
		{[]string{"--client-key", "/c/key.pem"}, "--client-key=/c/key.pem", "", "--client-key=/c/key.pem"},
		{[]string{"--username", "jane"}, "--username=jane", "", "--username=jane"},
		{[]string{"--password", "hunter2"}, `--password="$PASSWORD"`, "PASSWORD=hunter2", "--password=hunter2"},
	} {
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		genericclioptions.NewConfigFlags(true).WithDeprecatedPasswordFlag().AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		c := FromFlagSet(fs)
		got := c.Command("kubectl", "indexed", "retry", "pj", "-n", "ns")
		if !strings.HasSuffix(got, " "+tc.want) || strings.Contains(got, "s3cret") || strings.Contains(got, "hunter2") {
			t.Errorf("%v: %s", tc.args, got)
			continue
		}
		cmd := exec.Command("sh", "-c", "set -- "+got+`; printf '%s\n' "$@"`)
		cmd.Env = append(cmd.Environ(), tc.env)
		out, err := cmd.Output()
		if words := strings.Split(strings.TrimSpace(string(out)), "\n"); err != nil || words[len(words)-1] != tc.read {
			t.Errorf("%v: %s reads as %q (%v)", tc.args, got, words, err)
		}
	}
}
