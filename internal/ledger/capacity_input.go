package ledger

import (
	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Capacity is what the capacity levers read from the snapshot's hourly
// series — the services' hourly need, the notebooks' idle stretches, the
// quantization candidates — computed once, so that a caller can release
// the series before the ledger packs (the report does: the packing is
// its memory peak). Build computes it when Input.Capacity is nil.
type Capacity struct {
	hourly   bool
	scalings []capacity.Scaling
	skipped  []capacity.Skipped
	idles    []capacity.Idle
	quants   []capacity.Quantizable
}

// CapacityFromSnapshot reads the capacity levers' inputs with the
// options' policies (which must be valid: Build validates them).
func CapacityFromSnapshot(s *cluster.Snapshot, o Options) (*Capacity, error) {
	c := &Capacity{hourly: s.Hourly != nil}
	if !c.hourly {
		return c, nil
	}
	var err error
	if c.scalings, c.skipped, err = capacity.Autoscale(s, o.Autoscale); err != nil {
		return nil, err
	}
	if c.idles, err = capacity.Reclaim(s, o.Reclaim); err != nil {
		return nil, err
	}
	c.quants = capacity.Quantize(s)
	return c, nil
}

// withCapacity fills Input.Capacity from the snapshot when the caller did
// not.
func withCapacity(in Input, o Options) (Input, error) {
	if in.Capacity != nil || in.Snapshot == nil {
		return in, nil
	}
	c, err := CapacityFromSnapshot(in.Snapshot.Snapshot, o)
	if err != nil {
		return in, err
	}
	in.Capacity = c
	return in, nil
}
