// Package cmdtest runs a verb's command in a unit test the way the plugin's root command runs
// it: errors printed by exitcode.Report ("error: MESSAGE" on standard error, nothing for a
// silent error), the exit code it returns, flag errors through exitcode.FlagError, usage and
// cobra's own error printing silenced. Only tests import it; it imports no verb package.
package cmdtest

import (
	"bytes"
	"context"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/exitcode"
)

// IO is the standard streams of one run, in memory.
type IO struct {
	In, Out, ErrOut *bytes.Buffer
}

// NewIO returns streams whose standard input holds stdin.
func NewIO(stdin string) *IO {
	return &IO{In: bytes.NewBufferString(stdin), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
}

// Streams are the streams to build the verb's options with.
func (s *IO) Streams() genericiooptions.IOStreams {
	return genericiooptions.IOStreams{In: s.In, Out: s.Out, ErrOut: s.ErrOut}
}

// Result is what a run printed and how it ended.
type Result struct {
	Stdout, Stderr string
	// Code is the process exit code; Err the error the command returned (nil on success).
	Code int
	Err  error
}

// Run executes cmd (a verb's command, built on s.Streams()) with args, as the root command
// would, and returns what it printed and its exit code.
func (s *IO) Run(cmd *cobra.Command, args ...string) Result {
	return s.RunContext(context.Background(), cmd, args...)
}

// RunContext is Run with the context main would give the command (a test cancels it as a
// signal does, with an exitcode.Interrupt cause).
func (s *IO) RunContext(ctx context.Context, cmd *cobra.Command, args ...string) Result {
	if args == nil {
		args = []string{} // cobra reads os.Args when given nil
	}
	cmd.SetArgs(args)
	cmd.SetIn(s.In)
	cmd.SetOut(s.Out)
	cmd.SetErr(s.ErrOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetFlagErrorFunc(exitcode.FlagError)
	err := cmd.ExecuteContext(ctx)
	code := exitcode.Report(s.ErrOut, err, nil)
	return Result{Stdout: s.Out.String(), Stderr: s.ErrOut.String(), Code: code, Err: err}
}
