package prom

import (
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/prom/api"
)

// Kind classifies a failed request (see api.Kind).
type Kind = api.Kind

// Kinds of failure.
const (
	Bad         = api.Bad
	Unreachable = api.Unreachable
	Denied      = api.Denied
)

// KindOf returns the kind of the first failed request in err's chain, and
// false when there is none.
func KindOf(err error) (Kind, bool) { return api.KindOf(err) }

// FileError is a file the options name (token, password, CA) that cannot
// be read.
type FileError = api.FileError

// PartialError says the snapshot was built but some data could not be
// read: failed requests (after their retries) or kube-state-metrics
// series that are missing. Missing says, one sentence each, what is
// missing and which figures it changes (the snapshot's Partial).
type PartialError struct {
	Missing []string
	Failed  []error
	Total   int // requests made
}

func (e *PartialError) Error() string {
	s := strings.Join(e.Missing, "; ")
	if len(e.Failed) > 0 {
		s += fmt.Sprintf(" (%d of %d Prometheus requests failed; first: %v)", len(e.Failed), e.Total, e.Failed[0])
	}
	return s
}

func (e *PartialError) Unwrap() []error { return e.Failed }
