// Package printcmd renders the commands kubectl indexed prints for the user to run (cleanup
// hints, kubectl patch plans, status and diff hints) so that they run against the same
// cluster, as the same user, as the command that printed them: the connection flags given on
// the command line (--kubeconfig, --context, --cluster, --user, --as ...) are carried over,
// and every word is quoted for a POSIX shell.
package printcmd

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ConnectionFlags are the kubeconfig flags of cli-runtime's ConfigFlags that choose the cluster
// or the identity, in the order they are printed. Credentials given on the command line
// (--token, --password, --username) are never printed: a hint must not leak a secret into a
// terminal's scrollback or a CI log. The namespace is printed by each command itself (-n), as
// it is resolved (from -n or from the kubeconfig).
var ConnectionFlags = []string{
	"kubeconfig", "context", "cluster", "user", "as", "as-group", "as-uid",
	"server", "tls-server-name", "certificate-authority", "client-certificate", "client-key",
	"insecure-skip-tls-verify", "request-timeout",
}

// Connection holds the connection flags that were given, as shell-quoted words.
type Connection struct {
	words []string
}

// FromCommand returns the connection flags given to cmd's root command (the kubeconfig flags
// are the root's persistent flags). They are read from the root, not from cmd: a verb may have
// a local flag of the same name that is not a connection flag. A nil cmd gives no flags.
func FromCommand(cmd *cobra.Command) Connection {
	if cmd == nil {
		return Connection{}
	}
	return FromFlagSet(cmd.Root().PersistentFlags())
}

// FromFlagSet returns the connection flags that were set in fs.
func FromFlagSet(fs *pflag.FlagSet) Connection {
	var c Connection
	if fs == nil {
		return c
	}
	for _, name := range ConnectionFlags {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			c.words = append(c.words, Quote("--"+name+"="+v))
		}
	}
	return c
}

// Words are the flags, quoted, in the order of ConnectionFlags.
func (c Connection) Words() []string { return append([]string(nil), c.words...) }

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
		out = append(out, Quote(w))
	}
	if !inserted {
		out = append(out, c.words...)
	}
	return strings.Join(out, " ")
}

// Extend adds the connection flags to a rendered kubectl command. For kubectl's own commands
// (patch, wait, create -f ...) they go right after "kubectl", where kubectl takes global flags,
// so that nothing in the rest of the line (a patch body, a -- ) can be mistaken for the place.
// For a plugin command ("kubectl indexed logs JOB --failed") they go at the end, as kubectl
// finds a plugin only when no flag comes before its name; a plugin line holding " -- " (a
// worker's command follows) is returned unchanged: render those with Command. A line that does
// not start with "kubectl " is returned unchanged.
func (c Connection) Extend(line string) string {
	rest, ok := strings.CutPrefix(line, "kubectl ")
	switch {
	case !ok || len(c.words) == 0:
		return line
	case strings.HasPrefix(rest, "indexed "):
		if strings.Contains(rest, " -- ") {
			return line
		}
		return line + " " + strings.Join(c.words, " ")
	}
	return "kubectl " + strings.Join(c.words, " ") + " " + rest
}

// Quote quotes s for a POSIX shell when it needs it: a word of only safe characters is kept
// as it is, anything else is single-quoted.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
