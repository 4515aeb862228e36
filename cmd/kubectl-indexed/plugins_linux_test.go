package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStopCredentialPlugins: a plugin left running (sh -c that forks sleep) and its child are
// stopped on exit (issue 26, item 10: the plugin outlived the command).
func TestStopCredentialPlugins(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30; echo")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // let sh fork sleep
	if len(descendants(cmd.Process.Pid)) == 0 {
		t.Fatalf("sh -c forked no sleep: /proc not read")
	}
	below := descendants(cmd.Process.Pid)
	stopCredentialPlugins()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
			t.Errorf("plugin ended with %v, want SIGTERM", err)
		}
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the plugin still runs after stopCredentialPlugins")
	}
	time.Sleep(200 * time.Millisecond)
	for _, pid := range below {
		// Gone, or a zombie waiting for its new parent to reap it: no longer running.
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err == nil {
			s := string(b)
			if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] != "Z" && f[0] != "X" {
				t.Errorf("the plugin's child %d still runs (state %s)", pid, f[0])
			}
		}
	}
}
