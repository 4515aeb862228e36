// Package printcmd renders the commands kubectl indexed prints for the user to run (cleanup
// hints, kubectl patch plans, status and diff hints) so that they run against the same
// cluster, as the same user, as the command that printed them: the connection flags given on
// the command line (--kubeconfig, --context, --cluster, --user, --as ...) are carried over,
// and every word is quoted for a POSIX shell.
package printcmd

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// ConnectionFlags are the kubeconfig flags of cli-runtime's ConfigFlags that choose the cluster
// or the identity, in the order they are printed. The namespace is printed by each command
// itself (-n), as it is resolved (from -n or from the kubeconfig).
//
// A printed command acts as the identity the command that printed it ran as: every flag that
// carries an identity is carried over (--user, --as, --as-group, --as-uid, --as-user-extra,
// --client-certificate, --client-key, --username), and a secret (--token, --password) is never
// printed but stands as a placeholder the user fills in from the environment
// (--token="$TOKEN"): a hint must not leak a secret into a terminal's scrollback or a CI log,
// and without the flag the command would silently act as the kubeconfig's user.
var ConnectionFlags = []string{
	"kubeconfig", "context", "cluster", "user", "as", "as-group", "as-uid", "as-user-extra",
	"server", "proxy-url", "tls-server-name", "certificate-authority", "client-certificate", "client-key",
	"insecure-skip-tls-verify", "request-timeout", "token", "username", "password",
}

// SecretPlaceholders are the connection flags whose value is a secret, with the shell
// expansion printed instead of it: the environment variable the user sets to the same value.
var SecretPlaceholders = map[string]string{
	"token":    "$TOKEN",
	"password": "$PASSWORD",
}

// Connection holds the connection flags that were given, as shell-quoted words.
type Connection struct {
	words []string
}

// FromCommand returns the connection flags given to cmd's root command (the kubeconfig flags
// are the root's persistent flags). They are read from the root, not from cmd: a verb may have
// a local flag of the same name that is not a connection flag.
func FromCommand(cmd *cobra.Command) Connection {
	return FromFlagSet(cmd.Root().PersistentFlags())
}

// FromFlagSet returns the connection flags that were set in fs.
func FromFlagSet(fs *pflag.FlagSet) Connection {
	var c Connection
	for _, name := range ConnectionFlags {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		if env, secret := SecretPlaceholders[name]; secret {
			if f.Value.String() != "" {
				// Double quotes: the shell expands the variable, and nothing else.
				c.words = append(c.words, "--"+name+`="`+env+`"`)
			}
			continue
		}
		for _, v := range values {
			c.words = append(c.words, textwrap.ShellQuote("--"+name+"="+v))
		}
	}
	return c
}

// Words are the flags, quoted, in the order of ConnectionFlags.
func (c Connection) Words() []string { return slices.Clone(c.words) }

// Command renders words (a command line, unquoted: "kubectl", "delete", "configmap", name ...)
// quoted for a shell, with the connection flags before a "--" that ends the flags, or at the
// end. Use it for kubectl plugin commands too: kubectl finds a plugin only when no flag comes
// before its name.
func (c Connection) Command(words ...string) string {
	out := make([]string, 0, len(words)+len(c.words))
	inserted := false
	for _, w := range words {
		if w == "--" && !inserted {
			out = append(out, c.words...)
			inserted = true
		}
		out = append(out, textwrap.ShellQuote(w))
	}
	if !inserted {
		out = append(out, c.words...)
	}
	return strings.Join(out, " ")
}

// Extend adds the connection flags to every kubectl step of a rendered command line (steps
// are split at a "|" outside quotes), each flag once: a step that already carries a flag word
// keeps it and does not get it twice. For kubectl's own commands (patch, wait, create -f ...)
// they go right after "kubectl", where kubectl takes global flags, so that nothing in the rest
// of the line (a patch body, a -- ) can be mistaken for the place. For a plugin command
// ("kubectl indexed logs JOB --failed") they go at the end, as kubectl finds a plugin only when
// no flag comes before its name; a plugin step holding " -- " (a worker's command follows) is
// left unchanged: render those with Command. A step that does not start with "kubectl " is
// left unchanged.
func (c Connection) Extend(line string) string {
	if len(c.words) == 0 {
		return line
	}
	steps := splitPipe(line)
	for i, step := range steps {
		steps[i] = c.extendStep(step)
	}
	return strings.Join(steps, "|")
}

func (c Connection) extendStep(step string) string {
	lead := step[:len(step)-len(strings.TrimLeft(step, " "))]
	trail := step[len(strings.TrimRight(step, " ")):]
	body := strings.TrimSpace(step)
	rest, ok := strings.CutPrefix(body, "kubectl ")
	if !ok {
		return step
	}
	have := sets.New(strings.Fields(body)...)
	add := slices.DeleteFunc(slices.Clone(c.words), have.Has)
	if len(add) == 0 {
		return step
	}
	if strings.HasPrefix(rest, "indexed ") {
		if strings.Contains(rest, " -- ") {
			return step
		}
		return lead + body + " " + strings.Join(add, " ") + trail
	}
	return lead + "kubectl " + strings.Join(add, " ") + " " + rest + trail
}

// splitPipe splits line at every "|" outside single and double quotes (the quoting Quote and
// the plan's commands use), keeping the spaces around it in the steps; "||" is not a pipe.
func splitPipe(line string) []string {
	return textwrap.SplitUnquoted(line, func(i int) bool {
		return line[i] == '|' && (i+1 >= len(line) || line[i+1] != '|') && (i == 0 || line[i-1] != '|')
	})
}
