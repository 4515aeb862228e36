package source

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadIsBounded: an input larger than MaxBytes is refused after reading at most
// MaxBytes+1 bytes of it, from a file and from standard input (issue 16, item 5).
func TestReadIsBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte("kind: Job\n"+strings.Repeat("# pad\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]Options{
		big: {MaxBytes: 1 << 10},
		"-": {MaxBytes: 1 << 10, Stdin: strings.NewReader(strings.Repeat("x", 2<<10))},
	}
	for path, opts := range inputs {
		_, err := Read([]string{path}, opts)
		var tl *TooLargeError
		var re *ReadError
		if !errors.As(err, &tl) || !errors.As(err, &re) || re.Path != path {
			t.Errorf("%s: %v, want a *ReadError of %s wrapping a *TooLargeError", path, err, path)
			continue
		}
		if !strings.Contains(err.Error(), "larger than") {
			t.Errorf("%s: %v", path, err)
		}
	}
	// At the bound exactly, it is read.
	if docs, err := Read([]string{big}, Options{MaxBytes: int64(len("kind: Job\n") + 200*len("# pad\n"))}); err != nil || len(docs) != 1 {
		t.Errorf("at the bound: %v, %d docs", err, len(docs))
	}
}

// TestReadRefusesDevicesAndFIFOs: a device or a FIFO, named or behind a symbolic link (a
// *.yaml linked to /dev/zero in a directory), is refused as not a regular file at once,
// without reading it (which never ended, or grew to the cap) or blocking on it (a FIFO with
// no writer blocked forever) (issue 26, items 6 and 7).
func TestReadRefusesDevicesAndFIFOs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or /dev/zero")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero", filepath.Join(dir, "zero.yaml"), dir} {
		done := make(chan error, 1)
		go func() {
			_, err := Read([]string{path}, Options{MaxBytes: 64 << 20})
			done <- err
		}()
		select {
		case err := <-done:
			var nr *NotRegularError
			var re *ReadError
			if !errors.As(err, &nr) || !errors.As(err, &re) {
				t.Errorf("%s: %v, want a *ReadError wrapping a *NotRegularError", path, err)
			} else if !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: %v", path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still reading after 10s", path)
		}
	}
	// Standard input may be a pipe or a device: the cap bounds it.
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer func() { _ = zero.Close() }()
	if _, err := Read([]string{"-"}, Options{MaxBytes: 1 << 20, Stdin: zero}); !errors.As(err, new(*TooLargeError)) {
		t.Errorf("stdin /dev/zero: %v, want a *TooLargeError", err)
	}
}

// TestReadCostsWhatItReads: reading allocates about what was read: once for a regular file
// (standard input redirected from one too), at most twice for a pipe. io.ReadAll's growing
// buffer allocated about 2.5 times it on top (a 256 MiB input cost about 630 MB RSS: issue 26,
// item 17).
func TestReadCostsWhatItReads(t *testing.T) {
	const size = 32 << 20
	path := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	allocated := func(read func() ([]byte, error)) float64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		data, err := read()
		runtime.ReadMemStats(&after)
		if err != nil || len(data) != size {
			t.Fatalf("%d bytes, %v", len(data), err)
		}
		return float64(after.TotalAlloc-before.TotalAlloc) / size
	}
	file := allocated(func() ([]byte, error) { return ReadFile(path, 64<<20) })
	redirected := allocated(func() ([]byte, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer func() { _ = f.Close() }()
		return ReadAllBounded(f, 64<<20)
	})
	piped := allocated(func() ([]byte, error) {
		pr, pw := io.Pipe()
		go func() {
			f, err := os.Open(path)
			if err != nil {
				_ = pw.CloseWithError(err)
				return
			}
			_, err = io.Copy(pw, f)
			_ = f.Close()
			_ = pw.CloseWithError(err)
		}()
		return ReadAllBounded(pr, 64<<20)
	})
	t.Logf("allocated per byte read: file %.2f, redirected %.2f, pipe %.2f", file, redirected, piped)
	if file > 1.05 || redirected > 1.05 || piped > 2.1 {
		t.Errorf("allocated per byte read: file %.2f (want ≤ 1.05), redirected %.2f (≤ 1.05), pipe %.2f (≤ 2.1)", file, redirected, piped)
	}
}
