//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// completionJob is an Indexed Job that is created suspended: it has a name to complete and
// starts no pods.
func completionJob(name string) string {
	return fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata:
  name: %s
spec:
  completionMode: Indexed
  completions: 2
  parallelism: 1
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: busybox
        command: ["true"]
`, name)
}

// candidates splits cobra's completion output ("value[\tdescription]" lines, then
// ":<directive>") into the values and the directive line.
func candidates(out string) ([]string, string) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
		return nil, ""
	}
	var values []string
	for _, l := range lines[:len(lines)-1] {
		values = append(values, strings.SplitN(l, "\t", 2)[0])
	}
	return values, lines[len(lines)-1]
}

// TestCompletionOfJobNames completes Job names from the real API server, both the way the
// shell scripts of `kubectl indexed completion` do (kubectl-indexed __complete ...) and the
// way kubectl does for `kubectl indexed <TAB>` (kubectl __complete indexed ..., which runs
// kubectl_complete-indexed).
func TestCompletionOfJobNames(t *testing.T) {
	RequirePlugin(t)
	if _, err := os.Stat(filepath.Join(env.PluginDir, "kubectl_complete-indexed")); err != nil {
		t.Fatalf("kubectl_complete-indexed was not built next to the plugin: %v", err)
	}
	ns := NewNamespace(t)
	for _, name := range []string{"alpha-eval", "beta-embed", "alpha-download"} {
		CreateJob(t, ns, completionJob(name))
	}
	all := []string{"alpha-download", "alpha-eval", "beta-embed"}

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"status JOB", []string{"status", "-n", ns, ""}, all},
		{"status prefix", []string{"status", "-n", ns, "alpha-"}, []string{"alpha-download", "alpha-eval"}},
		{"status no match", []string{"status", "-n", ns, "gamma"}, nil},
		{"diff JOB", []string{"diff", "-n", ns, ""}, all},
		// -o completes the one output contract's formats (a template name ends in "=", so no
		// space follows: directive 6, no file names and no space).
		{"lint -o", []string{"lint", "-o", ""}, []string{"json", "yaml", "sarif", "junit", "github", "jsonpath=", "jsonpath-file=", "jsonpath-as-json=", "go-template=", "go-template-file=", "template=", "templatefile=", "custom-columns=", "custom-columns-file="}},
		{"-n namespaces", []string{"status", "-n", ns[:len(ns)-2]}, []string{ns}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			direct := runPlugin(t, append([]string{"__complete"}, tc.args...)...)
			got, directive := candidates(direct)
			if want := map[bool]string{true: ":6", false: ":4"}[tc.name == "lint -o"]; directive != want {
				t.Errorf("kubectl-indexed __complete %q: directive %q, want %s (no file names)\n%s", tc.args, directive, want, direct)
			}
			if tc.name == "-n namespaces" {
				// Other tests' namespaces may share the prefix.
				if !slices.Contains(got, ns) {
					t.Errorf("kubectl-indexed __complete %q: %q lacks %s", tc.args, got, ns)
				}
			} else if !slices.Equal(got, tc.want) {
				t.Errorf("kubectl-indexed __complete %q: %q, want %q", tc.args, got, tc.want)
			}

			r := Kubectl(t, append([]string{"__complete", "indexed"}, tc.args...)...)
			if r.ExitCode != 0 {
				t.Fatalf("kubectl __complete indexed failed:\n%s", r)
			}
			viaKubectl, kubectlDirective := candidates(r.Stdout)
			if !slices.Equal(viaKubectl, got) || kubectlDirective != directive {
				t.Errorf("through kubectl (kubectl_complete-indexed): %q %s; directly: %q %s\n%s", viaKubectl, kubectlDirective, got, directive, r)
			}
		})
	}
}

// TestBashCompletesJobNames is TAB in bash: kubectl's own bash completion is loaded and its
// completion function is called for "kubectl indexed status <TAB>", as bash does.
func TestBashCompletesJobNames(t *testing.T) {
	RequirePlugin(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is needed for this test: %v", err)
	}
	ns := NewNamespace(t)
	CreateJob(t, ns, completionJob("evaluation-2026"))
	CreateJob(t, ns, completionJob("embed-corpus"))

	// kubectl's completion needs the bash-completion package (its _get_comp_words_by_ref).
	// Where the package is not installed, a minimal stand-in splits the words as it does for
	// these lines (no quotes, no '=' or ':').
	script := `
if [[ -r /usr/share/bash-completion/bash_completion ]]; then
  source /usr/share/bash-completion/bash_completion
  echo "using bash-completion" >&2
else
  _get_comp_words_by_ref() {
    cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cword=$COMP_CWORD
    words=("${COMP_WORDS[@]}")
  }
  echo "bash-completion is not installed: using a minimal _get_comp_words_by_ref" >&2
fi
source <(kubectl completion bash)
complete_line() {
  COMP_LINE="$1"
  COMP_POINT=${#COMP_LINE}
  COMP_TYPE=9 COMP_KEY=9 # TAB
  read -r -a COMP_WORDS <<<"$COMP_LINE"
  [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
  COMPREPLY=()
  __start_kubectl kubectl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
  printf '%s\n' "${COMPREPLY[@]}"
  echo "--"
}
complete_line "kubectl indexed status -n $NS "
complete_line "kubectl indexed status -n $NS ev"
complete_line "kubectl indexed sta"
`
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", script)
	cmd.Env = append(os.Environ(), "NS="+ns)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bash: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	// compopt complains outside a real completion; its options do not change COMPREPLY.
	t.Logf("bash: %s", strings.TrimSpace(stderr.String()))
	blocks := strings.Split(stdout.String(), "--\n")
	if len(blocks) < 3 {
		t.Fatalf("bash printed %q", stdout.String())
	}
	for i, want := range []string{"embed-corpus\nevaluation-2026\n", "evaluation-2026\n", "status\n"} {
		if strings.TrimSpace(blocks[i]) != strings.TrimSpace(want) {
			t.Errorf("completion %d: bash offered %q, want %q", i+1, blocks[i], want)
		}
	}
}

// runPlugin runs the built kubectl-indexed directly and returns its stdout.
func runPlugin(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(env.PluginDir, "kubectl-indexed"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl-indexed %q: %v\n%s", args, err, stderr.String())
	}
	return stdout.String()
}
