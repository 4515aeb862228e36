package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// When fakePluginEnv is set, this test binary plays kubectl-indexed: it prints its arguments,
// one per line, then cobra's directive line, and exits with the code in the variable.
const fakePluginEnv = "KUBECTL_COMPLETE_INDEXED_TEST_FAKE_PLUGIN"

func TestMain(m *testing.M) {
	if code := os.Getenv(fakePluginEnv); code != "" {
		for _, a := range os.Args[1:] {
			fmt.Printf("%s\n", a)
		}
		data, _ := io.ReadAll(os.Stdin)
		fmt.Printf("stdin=%q\n:4\n", data)
		fmt.Fprintln(os.Stderr, "Completion ended with directive: ShellCompDirectiveNoFileComp")
		n, _ := strconv.Atoi(code)
		os.Exit(n)
	}
	os.Exit(m.Run())
}

func exeName(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// installFakePlugin copies this test binary into dir as kubectl-indexed.
func installFakePlugin(t *testing.T, dir string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, exeName(pluginName))
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestFindPlugin(t *testing.T) {
	notOnPath := func(string) (string, error) { return "", exec.ErrNotFound }
	onPath := func(name string) (string, error) { return "/on/path/" + name, nil }

	t.Run("sibling wins over PATH", func(t *testing.T) {
		dir := t.TempDir()
		touch(t, filepath.Join(dir, "kubectl-indexed"))
		got, err := findPlugin(filepath.Join(dir, "kubectl_complete-indexed"), "linux", onPath)
		if err != nil || got != filepath.Join(dir, "kubectl-indexed") {
			t.Fatalf("got %q, %v; want the sibling", got, err)
		}
	})
	t.Run("windows looks for the .exe", func(t *testing.T) {
		dir := t.TempDir()
		touch(t, filepath.Join(dir, "kubectl-indexed"))
		touch(t, filepath.Join(dir, "kubectl-indexed.exe"))
		got, err := findPlugin(filepath.Join(dir, "kubectl_complete-indexed.exe"), "windows", notOnPath)
		if err != nil || got != filepath.Join(dir, "kubectl-indexed.exe") {
			t.Fatalf("got %q, %v; want the .exe sibling", got, err)
		}
		got, err = findPlugin(filepath.Join(t.TempDir(), "kubectl_complete-indexed.exe"), "windows", onPath)
		if err != nil || got != "/on/path/kubectl-indexed.exe" {
			t.Fatalf("got %q, %v; want PATH's kubectl-indexed.exe", got, err)
		}
	})
	t.Run("a directory named like the plugin is not the plugin", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "kubectl-indexed"), 0o755); err != nil {
			t.Fatal(err)
		}
		got, err := findPlugin(filepath.Join(dir, "kubectl_complete-indexed"), "linux", onPath)
		if err != nil || got != "/on/path/kubectl-indexed" {
			t.Fatalf("got %q, %v; want PATH's", got, err)
		}
	})
	t.Run("a symlink into the krew store finds the plugin beside its target", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("symlinks need privileges on Windows")
		}
		store := filepath.Join(t.TempDir(), "store", "indexed", "v1.0.0")
		touch(t, filepath.Join(store, "kubectl-indexed"))
		touch(t, filepath.Join(store, "kubectl_complete-indexed"))
		bin := t.TempDir()
		link := filepath.Join(bin, "kubectl_complete-indexed")
		if err := os.Symlink(filepath.Join(store, "kubectl_complete-indexed"), link); err != nil {
			t.Fatal(err)
		}
		got, err := findPlugin(link, "linux", notOnPath)
		if err != nil || got != filepath.Join(store, "kubectl-indexed") {
			t.Fatalf("got %q, %v; want the one in the store", got, err)
		}
	})
	t.Run("nowhere", func(t *testing.T) {
		_, err := findPlugin(filepath.Join(t.TempDir(), "kubectl_complete-indexed"), "linux", notOnPath)
		if err == nil || !errors.Is(err, exec.ErrNotFound) || !strings.Contains(err.Error(), "kubectl-indexed is neither next to this executable nor on PATH") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestRunPassesArgumentsToComplete runs the real lookup (os.Executable, PATH) against a fake
// kubectl-indexed on PATH and checks what kubectl would read back.
func TestRunPassesArgumentsToComplete(t *testing.T) {
	dir := t.TempDir()
	installFakePlugin(t, dir)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))

	for _, tc := range []struct {
		name     string
		args     []string
		exitCode int
		want     string
	}{
		{"a job name", []string{"status", ""}, 0, "__complete\nstatus\n\nstdin=\"in\"\n:4\n"},
		{"a flag value", []string{"lint", "-o", "y"}, 0, "__complete\nlint\n-o\ny\nstdin=\"in\"\n:4\n"},
		{"the plugin's exit code is kept", []string{"x"}, 3, "__complete\nx\nstdin=\"in\"\n:4\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(fakePluginEnv, strconv.Itoa(tc.exitCode))
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader("in"), &stdout, &stderr)
			if code != tc.exitCode {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.exitCode, stderr.String())
			}
			if stdout.String() != tc.want {
				t.Errorf("stdout\n%q\nwant\n%q", stdout.String(), tc.want)
			}
			if !strings.Contains(stderr.String(), "Completion ended with directive") {
				t.Errorf("the plugin's stderr was not passed through: %q", stderr.String())
			}
		})
	}
}

func TestRunWithoutPlugin(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var stdout, stderr bytes.Buffer
	if code := run([]string{"status", ""}, strings.NewReader(""), &stdout, &stderr); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing (kubectl would show it as candidates)", stdout.String())
	}
	if !strings.Contains(stderr.String(), "kubectl_complete-indexed: kubectl-indexed is neither next to this executable nor on PATH") {
		t.Errorf("stderr %q", stderr.String())
	}
}
