package main

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// stopCredentialPlugins sends SIGTERM to every process descended from this one. The plugin
// starts no process of its own; what runs below it at exit is a kubeconfig exec credential
// plugin that client-go started (without a context: plugin/pkg/client/auth/exec) and that the
// command gave up waiting for (Ctrl-C, --request-timeout). Left alone it would outlive the
// command. Descendants are found in /proc (children of children too: a plugin run through
// sh -c forks).
func stopCredentialPlugins() {
	for _, pid := range descendants(os.Getpid()) {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
}

// descendants lists the processes below pid, parents before children.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		children[ppid] = append(children[ppid], p)
	}
	// out is also the queue: each process's children join it after every process before them.
	out := slices.Clone(children[pid])
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}
