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
	// queued are the batch workers' idle stretches (the queue lever),
	// none of them a workload idles already holds.
	queued []capacity.Idle
	quants []capacity.Quantizable
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
	queued, err := capacity.QueueBatch(v, capacity.DefaultQueuePolicy())
	if err != nil {
		return nil, err
	}
	reclaimed := map[string]bool{}
	for _, id := range c.idles {
		reclaimed[id.Workload] = true
	}
	for _, id := range queued {
		if !reclaimed[id.Workload] {
			c.queued = append(c.queued, id)
		}
	}
	c.quants = capacity.Quantize(v)
	return c, nil
}
