package status

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	cmdtesting "k8s.io/kubectl/pkg/cmd/testing"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexstatus"
	"github.com/kubectl-indexed/kubectl-indexed/test/cmdtest"
)

// --state keeps the tables' rows of the states given (any case, repeated or a comma list);
// -o json keeps those indexes[]; an unknown state is a usage error naming the valid ones.
func TestStateFlag(t *testing.T) {
	j, pods := seed()
	jobFile, podsFile := writeObjects(t, j, pods)
	r := run(t, nil, "", "-f", jobFile, "--pods-file", podsFile, "--state", "FAILED")
	if r.code != 0 || !strings.Contains(r.out, "\nSTATE   COUNT  INDEXES\nFailed  2      2,4\n\n") || strings.Contains(r.out, "\nSucceeded ") {
		t.Errorf("--state FAILED: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	for _, args := range [][]string{{"--state", "failed,succeeded"}, {"--state", "failed", "--state", "Succeeded"}} {
		r := run(t, nil, "", append([]string{"-f", jobFile, "--pods-file", podsFile, "-o", "json"}, args...)...)
		var rep indexstatus.IndexedJobStatus
		if err := json.Unmarshal([]byte(r.out), &rep); err != nil || r.code != 0 {
			t.Fatalf("%v: %v\n%s%s", args, err, r.out, r.errOut)
		}
		if len(rep.Indexes) != 6 || rep.Summary.Failed != 2 {
			t.Errorf("%v: %d indexes, summary %+v", args, len(rep.Indexes), rep.Summary)
		}
	}
	r = run(t, nil, "", "-f", jobFile, "--pods-file", podsFile, "-o", "json", "--state", "failed")
	var rep indexstatus.IndexedJobStatus
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil || len(rep.Indexes) != 2 || rep.Indexes[0].Index != 2 || rep.Indexes[1].Index != 4 || rep.Summary.Succeeded != 4 {
		t.Errorf("-o json --state failed: %v, %+v", err, rep.Indexes)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--state", "broken"}, `--state "broken" is not an index state: give succeeded, failed, running, pending, retrying, terminating, unfinished`},
		{[]string{"--state", "failed", "--lineage"}, "--state filters a Job's index states; it cannot be used with --lineage"},
	} {
		r := run(t, nil, "", append([]string{"-f", jobFile, "--pods-file", podsFile}, tc.args...)...)
		if r.code != exitcode.Usage || !strings.Contains(r.errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, r.code, r.errOut, tc.want)
		}
	}
}

// --state completes the index states.
func TestStateFlagCompletion(t *testing.T) {
	io := cmdtest.NewIO("")
	f := cmdtesting.NewTestFactory().WithNamespace("ns")
	defer f.Cleanup()
	cmd := NewCmdStatusWithOptions(f, NewOptions(io.Streams()))
	comp, ok := cmd.GetFlagCompletionFunc("state")
	if !ok {
		t.Fatal("no completion for --state")
	}
	got, dir := comp(cmd, nil, "")
	if strings.Join(got, " ") != "succeeded failed running pending retrying terminating unfinished" || dir != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("completions %q, %v", got, dir)
	}
}
