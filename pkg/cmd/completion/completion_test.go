package completion

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// newRoot mirrors the real root's naming: Use "indexed", shown as "kubectl indexed".
func newRoot(streams genericiooptions.IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:           "indexed",
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl indexed"},
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.AddCommand(&cobra.Command{Use: "status JOB", Short: "Show a Job", Run: func(*cobra.Command, []string) {}})
	root.AddCommand(NewCmdCompletion(streams))
	return root
}

func TestScriptsCompleteTheExecutable(t *testing.T) {
	for _, tc := range []struct {
		shell string
		// What registers the completion for the executable kubectl-indexed in that shell.
		registers []string
	}{
		{"bash", []string{"complete -o default -F __start_kubectl-indexed kubectl-indexed", "__complete"}},
		{"zsh", []string{"#compdef kubectl-indexed", "compdef _kubectl-indexed kubectl-indexed"}},
		{"fish", []string{"complete -c kubectl-indexed"}},
		{"powershell", []string{"Register-ArgumentCompleter -CommandName 'kubectl-indexed'"}},
	} {
		for _, noDesc := range []bool{false, true} {
			args := []string{"completion", tc.shell}
			if noDesc {
				args = append(args, "--no-descriptions")
			}
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				streams, _, out, errOut := genericiooptions.NewTestIOStreams()
				root := newRoot(streams)
				root.SetArgs(args)
				if err := root.Execute(); err != nil {
					t.Fatalf("%v (stderr %q)", err, errOut.String())
				}
				script := out.String()
				for _, want := range tc.registers {
					if !strings.Contains(script, want) {
						t.Errorf("the %s script lacks %q", tc.shell, want)
					}
				}
				// The root is named "indexed" for help; no script may complete a program of that name.
				for _, bad := range []string{"__start_indexed ", "compdef _indexed indexed", "complete -c indexed ", "-CommandName 'indexed'"} {
					if strings.Contains(script, bad) {
						t.Errorf("the %s script completes the program %q: contains %q", tc.shell, "indexed", bad)
					}
				}
				if root.Use != "indexed" {
					t.Errorf("root.Use left as %q", root.Use)
				}
			})
		}
	}
}

func TestBadShell(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			streams, _, out, _ := genericiooptions.NewTestIOStreams()
			root := newRoot(streams)
			root.SetArgs(args)
			err := root.Execute()
			if code := exitcode.Code(err); code != exitcode.Usage {
				t.Errorf("exit code %d (%v), want %d", code, err, exitcode.Usage)
			}
			if !strings.Contains(exitcode.Message(err), "bash, zsh, fish or powershell") {
				t.Errorf("message %q does not name the shells", exitcode.Message(err))
			}
			if out.Len() != 0 {
				t.Errorf("printed %d bytes of script on a usage error", out.Len())
			}
		})
	}
}

func TestHelpNamesThePlugin(t *testing.T) {
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	root := newRoot(streams)
	root.SetArgs([]string{"completion", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	for _, want := range []string{"kubectl indexed completion SHELL", "source <(kubectl indexed completion bash)", "kubectl_complete-indexed", "krew does not"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
}
