package retry

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
	"github.com/kubectl-indexed/kubectl-indexed/test/testutil"
)

// TestRetryOfflineWithRecord: retry -f reads the record of the Job's terminal pods (status
// --wait --record) as one of -f's files: from the seed Job and its record alone, --indexes
// failed leaves out index 2, which the record shows failed by the Job's own FailIndex rule
// (exit 42), as with the pods kubectl saved (TestRetryOffline). Without the record, it cannot
// tell and re-runs both.
func TestRetryOfflineWithRecord(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "test", "fixtures", "seed")
	job, pods := testutil.Fixture(t, "seed")
	record := filepath.Join(t.TempDir(), "seed.record")
	testutil.WriteRecord(t, record, job, false, pods)
	workers := func(args ...string) ([]string, cmdtest.Result) {
		t.Helper()
		io := cmdtest.NewIO("")
		o := NewOptions(io.Streams())
		o.Client = fake.NewClientset()
		r := io.Run(NewCmdRetryWithOptions(nil, o), append(args, "--indexes", "failed", "--dry-run=client", "-o", "json")...)
		if r.Code != 0 {
			return nil, r
		}
		var got []string
		for _, j := range decodeJobs(t, r.Stdout) {
			got = append(got, seen(t, j))
		}
		return got, r
	}
	jobFile := filepath.Join(dir, "job.json")
	for _, args := range [][]string{{"-f", jobFile, "-f", record}, {"-f", jobFile, "--pods-file", record}} {
		if got, r := workers(args...); strings.Join(got, ",") != "4" {
			t.Errorf("%q: exit %d, workers see %v, want 4\n%s", args, r.Code, got, r.Stderr)
		}
	}
	if got, r := workers("-f", jobFile); strings.Join(got, ",") != "2,4" {
		t.Errorf("without the record: exit %d, workers see %v, want 2,4 (the test cannot tell the record's part)\n%s", r.Code, got, r.Stderr)
	}
	// The record alone, and the pods given twice: usage errors.
	for want, args := range map[string][]string{
		"and no Job is given":      {"-f", record},
		"give the Job's pods once": {"-f", jobFile, "-f", record, "--pods-file", filepath.Join(dir, "pods.json")},
	} {
		if _, r := workers(args...); r.Code != 2 || !strings.Contains(r.Stderr, want) {
			t.Errorf("%q: exit %d, want 2 and %q\n%s", args, r.Code, want, r.Stderr)
		}
	}
}
