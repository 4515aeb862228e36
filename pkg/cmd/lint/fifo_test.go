//go:build unix

package lint

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe is read once: the prepare-db hint, which reads its file again, is not given for
// it, and lint returns instead of waiting for a second writer that never comes.
func TestNamedPipeReadOnce(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "prepare-db.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	regular := write(t, t.TempDir(), "prepare-db.yaml", string(data))
	if r := run(t, "", regular); !strings.Contains(r.Stderr, "hint: see what the prepare-db mode of") {
		t.Fatalf("a regular file gets the hint, stderr:\n%s", r.Stderr)
	}
	fifo := filepath.Join(t.TempDir(), "job.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = f.Write(data)
		_ = f.Close()
	}()
	done := make(chan result, 1)
	go func() { done <- run(t, "", fifo) }()
	select {
	case r := <-done:
		if !strings.Contains(r.Stdout, "prepare-db-mode") || strings.Contains(r.Stderr, "hint:") {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
		}
	case <-time.After(20 * time.Second):
		// Unblock the second open so that the test binary can exit, then fail.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = f.Close()
		}
		t.Fatal("lint still waits on the named pipe after 20 s")
	}
}
