package serve

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"

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

// ExcludeFromPacing leaves n bytes of the live heap (a benchmark's
// simulated world) out of what the memory pacer's headroom is a share
// of, as if the service ran in a process of its own.
func ExcludeFromPacing(s *Service, n uint64) {
	if s.pacer != nil {
		s.pacer.exclude = n
	}
}

// PacerOf is the service's memory pacer (nil: not paced).
func PacerOf(s *Service) *MemoryPacer { return s.pacer }

// HistoryOf is the service's history use cases, for tests that compute an
// answer apart from the service's.
func HistoryOf(s *Service) *app.History { return s.coll.History() }

// Prepared is whether the answers cache holds the answer to u (a path
// and query) for the published state: whether its first request is
// answered without computing it.
func Prepared(s *Service, u string) bool {
	path, raw, _ := strings.Cut(u, "?")
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return false
	}
	_, ok := s.cache.get(s.State().Generation, path+"?"+vals.Encode())
	return ok
}
