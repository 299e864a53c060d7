package serve

import (
	"context"
	"database/sql"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// WindowSpan is the ring's merged usage over w, as a rebuild reads it.
func WindowSpan(s *Service, w cluster.Window) *rolling.Span { return s.coll.WindowSpan(w) }

// WindowHourly is the hourly series of the snapshot a rebuild at now
// computes on for w (the report releases them once read).
func WindowHourly(ctx context.Context, s *Service, now time.Time, w cluster.Window) (*cluster.Hourly, error) {
	return s.coll.WindowHourly(ctx, now, w)
}

// HistoryDB is the service's history database handle, for tests that
// damage it under the running service.
func HistoryDB(s *Service) *sql.DB { return s.coll.History().Store().DB() }
