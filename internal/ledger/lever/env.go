package lever

import (
	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// Prices is what the levers need from a price catalog: node prices (the
// pricer the cost engine uses) and the offers right-sizing compares GPU
// models in. *pricing.Catalog satisfies it.
type Prices = rightsize.Prices

// Env is what levers read besides the model: the snapshot, prices,
// right-sizing results and the effort table. It is shared and read-only,
// but for packed, which the consolidation lever takes.
type Env struct {
	Snapshot *cluster.Prepared
	Prices   Prices
	Recs     *rightsize.Result
	// Autoscale and Commit are the capacity levers' policies (Options).
	Autoscale capacity.AutoscalePolicy
	Commit    capacity.CommitPolicy
	Reclaim   capacity.ReclaimPolicy
	Region    capacity.RegionPolicy
	// capacity is Input.Capacity.
	capacity *Capacity
	// peaks is the GPU demand over the window per model, for the
	// consolidation lever's confidence.
	peaks *demand
	// peakAware: the autoscale lever follows consolidation, which then
	// keeps the nodes the window's peak needs (burst.go).
	peakAware bool
	// current is the packing problem of the pods as they are (the model's
	// nodes come from it); the consolidation lever packs it as it is.
	current *packing.Problem
	// packed is current's plan, packed beside right-sizing; the
	// consolidation lever takes it (and may drop it later).
	packed *packed
	// packers is Options.Workers.
	packers int
}

// packed is a plan packed ahead, or why it could not be.
type packed struct {
	plan *packing.Plan
	err  error
}
