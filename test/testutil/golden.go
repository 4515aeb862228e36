// Package testutil is what the project's tests share, so that each thing is done one way:
// golden files behind a single -update flag (Golden), a deep snapshot of options to show that
// a step left them alone (Snapshot), and builders of the Indexed Jobs and pods the unit tests
// feed the commands and decoders (IndexedJob, IndexPod, WithManagedFields). The command runner, which needs cobra, is
// pkg/cmd/cmdtest. Only tests import these packages.
package testutil

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is the one -update flag of every test binary that checks golden files:
// go test ./pkg/... -update rewrites them from the current output.
var update = flag.Bool("update", false, "rewrite the golden files from the current output")

// Golden compares got with the file at path (relative to the test's package directory, e.g.
// testdata/x.golden). With -update it writes got there instead, creating the directory.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it if the change is intended)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
