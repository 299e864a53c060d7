package lever

import (
	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Capacity is what the capacity levers read from the snapshot's hourly
// series — the services' hourly need, the notebooks' idle stretches, the
// quantization candidates — computed once, so that a caller can release
// the series before the ledger packs (the report does: the packing is
// its memory peak). ledger.Build computes it when its Input.Capacity is nil.
type Capacity struct {
	hourly   bool
	scalings []capacity.Scaling
	skipped  []capacity.Skipped
	idles    []capacity.Idle
	quants   []capacity.Quantizable
}

// CapacityFromSnapshot reads the capacity levers' inputs with the
// autoscaling and reclaim policies (which must be valid: ledger.Build
// validates them).
func CapacityFromSnapshot(s *cluster.Prepared, autoscale capacity.AutoscalePolicy, reclaim capacity.ReclaimPolicy) (*Capacity, error) {
	c := &Capacity{hourly: s.Hourly() != nil}
	if !c.hourly {
		return c, nil
	}
	v := s.View() // the capacity engine reads a *cluster.Snapshot
	var err error
	if c.scalings, c.skipped, err = capacity.Autoscale(v, autoscale); err != nil {
		return nil, err
	}
	if c.idles, err = capacity.Reclaim(v, reclaim); err != nil {
		return nil, err
	}
	c.quants = capacity.Quantize(v)
	return c, nil
}
