// Command gpuwise-lab replays public GPU traces through gpuwise's engines,
// for development, tests and benchmarks. It is not part of the shipped
// gpuwise binary.
//
// Exit codes: 0 success, 2 bad flags or options, 3 bad input files (missing,
// unreadable or malformed), 1 anything else.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK    = 0
	exitOther = 1
	exitUsage = 2
	exitInput = 3
)

func main() {
	os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError marks an error the user fixes by changing flags.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// inputError marks an error the user fixes by changing an input file: one
// that is missing, unreadable or malformed.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

// runError wraps every error a command's run returns, to tell them from
// the errors cobra raises itself (unknown command or flag), which are
// usage errors.
type runError struct{ err error }

func (e runError) Error() string { return e.err.Error() }
func (e runError) Unwrap() error { return e.err }

// exitCode maps an error to the process's exit code.
func exitCode(err error) int {
	var u usageError
	var in inputError
	var r runError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &in):
		return exitInput
	case errors.As(err, &r):
		return exitOther
	}
	return exitUsage
}

// execute runs gpuwise-lab with args and returns the exit code.
func execute(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "gpuwise-lab",
		Short:         "Replay public GPU traces through gpuwise (development and benchmarks)",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newReplayGenAICmd(stdout), newSimCmd(stdout), newPackbenchCmd(stdout))
	root.AddCommand(newConsolidateCmd(stdout))
	err := root.Execute()
	if err != nil {
		fmt.Fprintf(stderr, "gpuwise-lab: %v\n", err)
	}
	return exitCode(err)
}

// runE adapts a run function to cobra, rejecting positional arguments.
func runE(run func() error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageErrorf("%s takes no arguments, got %q", cmd.CommandPath(), args)
		}
		if err := run(); err != nil {
			return runError{err}
		}
		return nil
	}
}
