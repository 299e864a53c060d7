package app

import (
	"errors"
	"fmt"

	"github.com/gpuwise/gpuwise/internal/generate"
)

// Kind classifies a use case's failure so that front ends map it to an
// exit code (README) or an HTTP status.
type Kind int

// Error kinds.
const (
	// Internal is a bug: please report it.
	Internal Kind = iota
	// Usage: the request is invalid (a bad option or combination).
	Usage
	// Input: a snapshot, price, policy or trace file is missing, corrupt,
	// of an unknown version or inconsistent.
	Input
	// Unreachable: the Kubernetes API or Prometheus could not be reached,
	// timed out or answered 5xx.
	Unreachable
	// Denied: credentials missing, invalid or expired, or RBAC forbids a
	// needed read.
	Denied
	// Output: a result could not be written (a saved snapshot, collect's
	// file, generate's directory).
	Output
)

// Error is a failure with its kind.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of err: Internal unless err is or wraps an *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

func withKind(k Kind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: k, Err: err}
}

func usageErrorf(format string, args ...any) error {
	return &Error{Kind: Usage, Err: fmt.Errorf(format, args...)}
}

// generateErr classifies a generator's error: a name the input holds that
// Kubernetes would refuse (a namespace, a workload) is an input error
// naming it; anything else is gpuwise's own.
func generateErr(err error) error {
	var ne *generate.NameError
	if errors.As(err, &ne) {
		return withKind(Input, fmt.Errorf("generating: %w (the snapshot or flag holds a name Kubernetes does not accept; nothing was written)", err))
	}
	return fmt.Errorf("generating: %w", err)
}
