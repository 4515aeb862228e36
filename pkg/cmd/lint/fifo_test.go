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

// A named pipe is refused at once as not a regular file, with a clear error, whether or not
// anything writes to it: before, lint waited forever on one that nobody opened (issue 26,
// item 6). Standard input is the way to pipe a manifest in.
func TestNamedPipeRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "job.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan result, 1)
	go func() { done <- run(t, "", fifo) }()
	select {
	case r := <-done:
		if r.Code != 2 || !strings.Contains(r.Stderr, "a FIFO (named pipe), not a regular file") {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
		}
	case <-time.After(20 * time.Second):
		// Unblock the open so that the test binary can exit, then fail.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = f.Close()
		}
		t.Fatal("lint still waits on the named pipe after 20 s")
	}
}
