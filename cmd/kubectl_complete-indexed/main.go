// Command kubectl_complete-indexed completes `kubectl indexed ...` on the command line.
//
// kubectl (1.26 and later) completes the arguments of a plugin by running an executable named
// kubectl_complete-<plugin> from PATH with the plugin's arguments typed so far, the last one
// being the word to complete (possibly empty):
//
//	kubectl indexed status ev<TAB>   runs   kubectl_complete-indexed status ev
//
// It reads the candidates from stdout, one per line, with cobra's ":<directive>" as the last
// line. kubectl-indexed is a cobra program, so its hidden `__complete` command already prints
// exactly that; this executable runs it:
//
//	kubectl-indexed __complete status ev
//
// It runs the kubectl-indexed that sits in its own directory (an archive, `make install` and
// krew's store all put the two side by side), and only when there is none the one on PATH. It
// does not link the plugin's command tree itself: that would ship a second copy of the
// Kubernetes client libraries in every archive, and a copy that could drift from the plugin
// installed next to it.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// pluginName is the executable kubectl runs for `kubectl indexed`.
const pluginName = "kubectl-indexed"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run completes args with the kubectl-indexed it finds and returns the exit code to use.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		self = ""
	}
	plugin, err := findPlugin(self, runtime.GOOS, exec.LookPath)
	if err != nil {
		_, _ = fmt.Fprintf(stderr, "kubectl_complete-indexed: %v\n", err)
		return 1
	}
	cmd := exec.Command(plugin, append([]string{"__complete"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exitErr) && exitErr.ExitCode() > 0:
		return exitErr.ExitCode()
	default:
		_, _ = fmt.Fprintf(stderr, "kubectl_complete-indexed: running %s: %v\n", plugin, err)
		return 1
	}
}

// findPlugin returns the kubectl-indexed executable to run: the one in the directory of self
// (this executable), else the one in the directory self links to, else the one lookPath finds
// on PATH.
func findPlugin(self, goos string, lookPath func(string) (string, error)) (string, error) {
	name := pluginName
	if goos == "windows" {
		name += ".exe"
	}
	var dirs []string
	if self != "" {
		dirs = append(dirs, filepath.Dir(self))
		if resolved, err := filepath.EvalSymlinks(self); err == nil && filepath.Dir(resolved) != filepath.Dir(self) {
			dirs = append(dirs, filepath.Dir(resolved))
		}
	}
	for _, dir := range dirs {
		candidate := filepath.Join(dir, name)
		if info, err := os.Stat(candidate); err == nil && !info.IsDir() {
			return candidate, nil
		}
	}
	path, err := lookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s is neither next to this executable nor on PATH: %w", name, err)
	}
	return path, nil
}
