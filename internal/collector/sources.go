package collector

import (
	"context"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// Inventory gives the cluster's objects: nodes, and pods with their lives
// and the GPU units they hold, without usage, over [now-span, now).
// Health says what is wrong with it now (nil: nothing).
type Inventory interface {
	Inventory(ctx context.Context, now time.Time, span time.Duration) (*cluster.Snapshot, error)
	Health() error
}

// UsageReader reads the usage of one interval: a snapshot covering only w
// (its Partial saying what could not be read). Implementations read only
// that interval.
type UsageReader interface {
	ReadUsage(ctx context.Context, w cluster.Window) (*app.SnapshotResult, error)
}

// watched is the live cluster's inventory from kube's shared informers.
type watched struct{ w app.Watcher }

func (i watched) Inventory(_ context.Context, now time.Time, span time.Duration) (*cluster.Snapshot, error) {
	return i.w.Snapshot(now, span)
}

func (i watched) Health() error { return i.w.Health() }

// promReader reads one interval of Prometheus history through the app's
// Prometheus use case: the same read as `report --prometheus --end`.
type promReader struct {
	app *app.App
	src app.PromSource
}

func (r promReader) ReadUsage(ctx context.Context, w cluster.Window) (*app.SnapshotResult, error) {
	src := r.src
	src.End = w.End
	src.HourSums = true // merged over the window's intervals: its hourly series
	return r.app.Snapshot(ctx, app.Data{Source: app.Source{Prometheus: &src}, Window: w.End.Sub(w.Start)})
}

// seenInventory is the inventory inferred from the intervals read
// (InventoryPrometheus; rolling.Seen); the cycle feeds it each read.
type seenInventory struct{ s *rolling.Seen }

func (i seenInventory) Inventory(_ context.Context, now time.Time, span time.Duration) (*cluster.Snapshot, error) {
	return i.s.Inventory(now, span), nil
}

func (seenInventory) Health() error { return nil }

// static is a fixed inventory (the demo's).
type static struct{ s *cluster.Snapshot }

func (i static) Inventory(context.Context, time.Time, time.Duration) (*cluster.Snapshot, error) {
	return i.s, nil
}

func (static) Health() error { return nil }
