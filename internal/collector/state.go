package collector

import (
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/exporter"
)

// State is what the service shows until the next cycle replaces it: the
// window's snapshot and the default results on it. It is never changed
// once published; a failed cycle publishes a copy marked partial, so the
// last good numbers stay (never zeros).
type State struct {
	// Generation counts published states.
	Generation uint64
	// Built is when the results were computed; Checked when a cycle last
	// looked at the sources (equal unless later cycles failed).
	Built, Checked time.Time
	Window         cluster.Window
	// Snapshot is the window's snapshot, shared by API requests.
	Snapshot *app.InMemory
	// Report (by namespace, with the recommendations line) and Audit are
	// the defaults' results, served without recomputing.
	Report *app.ReportResult
	Audit  *app.AuditResult
	Frame  *exporter.Frame
	// Prices are the prices the results were computed with (one set per
	// cycle, even when a reload lands mid-cycle); API requests on this
	// state use them too.
	Prices *app.Prices
	// Progress is the tracked savings plan as last measured (nil before
	// the first measurement; docs/progress.md).
	Progress *app.ProgressResult
	// Stale, when set, is why the results are older than the last cycle.
	Stale error
}

// Partial is what the state's answers lack: the window's missing data and
// why the results are stale, nil when complete.
func (s *State) Partial() error {
	if s.Stale != nil {
		return s.Stale
	}
	return s.Snapshot.Partial
}

// withStale is a copy of s marked stale by err at time now.
func (s *State) withStale(err error, now time.Time) *State {
	c := *s
	c.Stale, c.Checked = err, now
	if c.Frame != nil {
		f := *c.Frame
		f.Partial = true
		c.Frame = &f
	}
	return &c
}
