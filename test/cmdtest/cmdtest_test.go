package cmdtest

import (
	"fmt"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

func verb(io *IO, err error) *cobra.Command {
	return &cobra.Command{Use: "verb", RunE: func(cmd *cobra.Command, args []string) error {
		b := make([]byte, 16)
		n, _ := io.Streams().In.Read(b)
		_, _ = fmt.Fprintf(io.Streams().Out, "in=%s args=%v\n", b[:n], args)
		return err
	}}
}

// Run prints and exits as the root command does (exitcode.Report): an error once on stderr,
// nothing for a silent one, cobra's own printing silenced, flag errors pointing to --help.
func TestRunEndsAsTheRootCommand(t *testing.T) {
	io := NewIO("x")
	r := io.Run(verb(io, exitcode.UsageError("bad")), "a")
	if r.Stdout != "in=x args=[a]\n" || r.Stderr != "error: bad\n" || r.Code != exitcode.Usage || r.Err == nil {
		t.Errorf("usage error: %+v", r)
	}
	io = NewIO("")
	r = io.Run(verb(io, exitcode.Silent(exitcode.Findings)))
	if r.Stderr != "" || r.Code != exitcode.Findings {
		t.Errorf("silent findings: %+v", r)
	}
	io = NewIO("")
	r = io.Run(verb(io, nil), "--bogus")
	if r.Stdout != "" || r.Stderr != "error: unknown flag: --bogus\nSee 'verb --help' for usage.\n" || r.Code != exitcode.Usage {
		t.Errorf("flag error: %+v", r)
	}
}
