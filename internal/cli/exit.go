package cli

import (
	"errors"
	"fmt"

	"github.com/gpuwise/gpuwise/internal/app"
)

// Exit codes, documented in README.md.
const (
	ExitOK       = 0
	ExitInternal = 1 // a bug: please report it
	ExitUsage    = 2 // bad flags or options
	ExitInput    = 3 // an input file (snapshot, prices) is unreadable or invalid
	// ExitUnreachable: the Kubernetes API or Prometheus could not be reached
	// (connection refused, DNS, TLS handshake, timeout) or answered 5xx.
	ExitUnreachable = 4
	// ExitDenied: credentials missing, invalid or expired (401), or RBAC
	// forbids a read the command needs (403).
	ExitDenied = 5
	// ExitPartial: the result was written but some data could not be read;
	// the output says which.
	ExitPartial = 6
	// ExitOutput: a result could not be written (--save, collect -o FILE,
	// generate -d DIR).
	ExitOutput = 7
	// ExitFindings: `audit --fail-on` found a finding at or above the level.
	ExitFindings = 8
)

// exitError carries an exit code with its error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{ExitUsage, fmt.Errorf(format, args...)}
}

// withCode attaches an exit code to err.
func withCode(code int, err error) error { return &exitError{code, err} }

// kindCodes maps the use cases' error kinds to exit codes.
var kindCodes = map[app.Kind]int{
	app.Internal:    ExitInternal,
	app.Usage:       ExitUsage,
	app.Input:       ExitInput,
	app.Unreachable: ExitUnreachable,
	app.Denied:      ExitDenied,
	app.Output:      ExitOutput,
}

// ExitCode maps an error to its exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return kindCodes[app.KindOf(err)]
}

// partial turns a use case's partial-read note into the exit error
// returned once the output is written.
func partial(err error) error {
	if err == nil {
		return nil
	}
	return withCode(ExitPartial, err)
}
