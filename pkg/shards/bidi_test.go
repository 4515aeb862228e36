package shards

import (
	"os"
	"strings"
	"testing"
)

// TestCaseIDBidiControls: bidirectional controls are refused like other control characters
// (issue 16, item 8); other non-ASCII text stays valid.
func TestCaseIDBidiControls(t *testing.T) {
	for _, r := range []rune{'\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'} {
		id := "a" + string(r) + "gnp.exe"
		if why := ValidateCaseID(id); !strings.Contains(why, "bidirectional control character") {
			t.Errorf("%U: %q", r, why)
		}
	}
	for _, id := range []string{"case-ü-1", "שלום-1", "数学/42", "a b"} {
		if why := ValidateCaseID(id); why != "" {
			t.Errorf("%q refused: %s", id, why)
		}
	}
}

// TestReadDirectoryAndBound: a directory given as the manifest says so, rather than "the file
// is empty"; a device is refused as not a regular file, and endless standard input is cut off
// at MaxManifestBytes (issue 16, item 5; issue 26, item 6).
func TestReadDirectoryAndBound(t *testing.T) {
	_, err := Read(t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, statErr := os.Stat("/dev/zero"); statErr == nil {
		_, err = Read("/dev/zero", nil)
		if err == nil || !strings.Contains(err.Error(), "a character device, not a regular file") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	if _, err = Read("-", endless{}); err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Errorf("endless standard input: %v", err)
	}
}

// endless is an input that never ends: "y\n" forever.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "case-1\n"[i%7]
	}
	return len(p), nil
}

// TestReadCasesIsBounded: an endless case list is cut off at the bound (MaxManifestBytes for
// ReadCases; 1 MiB here, to keep the test fast).
func TestReadCasesIsBounded(t *testing.T) {
	_, err := readCases("-", endless{}, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("endless case list: %v", err)
	}
}
