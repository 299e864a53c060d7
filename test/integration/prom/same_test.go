//go:build integration

package prom_test

import (
	"testing"

	"github.com/gpuwise/gpuwise/test/integration/backend"
)

// TestSameWeekSameAnswers (issue 26.3): the simulated history in a real
// Prometheus gives the snapshot's audit, plan and advise, the allowed
// differences named in backend.SameAnswers.
func TestSameWeekSameAnswers(t *testing.T) {
	url, truth := state(t)
	backend.SameAnswers(t, url, truth, window, end, activityTolerance)
}
