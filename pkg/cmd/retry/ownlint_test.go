package retry

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/lint"
	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

// TestRetryJobsPassTheirOwnLint (issue 35, LOW): the Jobs retry makes do not trip lint for
// what retry itself chose. A 1-index retry of a create-made Job kept maxFailedIndexes 1, which
// lint calls ineffective (max-failed-indexes-ineffective); a plain Job's retries copied the
// podReplacementPolicy the server had defaulted, which lint then read as "set explicitly".
func TestRetryJobsPassTheirOwnLint(t *testing.T) {
	check := func(name, out string) {
		t.Helper()
		jobs := listJobs(t, out, true)
		if len(jobs) == 0 {
			t.Fatalf("%s: no Job in the output", name)
		}
		for _, j := range jobs {
			for _, f := range lint.CheckJob(j, lint.Options{}) {
				if f.Rule == lint.RuleMaxFailedNoEffect || strings.Contains(f.Message, "set explicitly") {
					t.Errorf("%s: retry Job %s: %s %s", name, j.Name, f.Rule, f.Message)
				}
			}
		}
	}

	// create-made: the seed run, index 4 alone.
	job, cm, _ := seed(t)
	r := run(t, fake.NewClientset(job, cm), "seed", "--indexes", "4", "--dry-run=client", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %v\n%s", r.code, r.err, r.stderr)
	}
	check("create-made, 1 index", r.stdout)

	// plain: the captured max-failed-indexes-exceeded Job (no podFailurePolicy, so the server
	// set TerminatingOrFailed).
	dir := filepath.Join("..", "..", "..", "test", "fixtures", "max-failed-indexes-exceeded")
	io := cmdtest.NewIO("")
	o := NewOptions(io.Streams())
	o.Client = fake.NewClientset()
	res := io.Run(NewCmdRetryWithOptions(nil, o), "-f", filepath.Join(dir, "job.json"), "--pods-file", filepath.Join(dir, "pods.json"), "--dry-run=client", "-o", "json")
	if res.Code != 0 {
		t.Fatalf("exit %d %v\n%s", res.Code, res.Err, res.Stderr)
	}
	check("plain", res.Stdout)
}
