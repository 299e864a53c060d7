package cli

import (
	"errors"
	"fmt"
)

// Exit codes, documented in README.md.
const (
	ExitOK       = 0
	ExitInternal = 1 // a bug: please report it
	ExitUsage    = 2 // bad flags or options
	ExitInput    = 3 // an input file (snapshot, prices) is unreadable or invalid
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

func inputError(err error) error { return &exitError{ExitInput, err} }

// ExitCode maps an error to its exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return ExitInternal
}
