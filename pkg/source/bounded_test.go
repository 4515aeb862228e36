package source

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadIsBounded: an input larger than MaxBytes is refused after reading at most
// MaxBytes+1 bytes of it, from a file, an endless device and standard input (issue 16, item 5).
func TestReadIsBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte("kind: Job\n"+strings.Repeat("# pad\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]Options{
		big:         {MaxBytes: 1 << 10},
		"-":         {MaxBytes: 1 << 10, Stdin: strings.NewReader(strings.Repeat("x", 2<<10))},
		"/dev/zero": {MaxBytes: 1 << 20},
	}
	for path, opts := range inputs {
		if path == "/dev/zero" {
			if _, err := os.Stat(path); err != nil {
				continue
			}
		}
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
