package ledger

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// DefaultEngineerUSDPerHour prices an engineer-hour for payback: a fully
// loaded platform engineer at about $200,000 a year over 2,000 working
// hours (docs/savings.md).
const DefaultEngineerUSDPerHour = 100

// MaxEngineerUSDPerHour bounds the engineering rate: a hundred times the
// default and more than any consultancy bills, far below where one-time
// costs and payback days stop being finite.
const MaxEngineerUSDPerHour = 10_000

// Prices is what the ledger needs from a price catalog: node prices (the
// pricer the cost engine uses) and the offers right-sizing compares GPU
// models in. *pricing.Catalog satisfies it.
type Prices = rightsize.Prices

// Options steer a ledger.
type Options struct {
	// Levers names the levers to apply; empty means all but those off by
	// default (region: see leverNames). They always apply
	// in the documented order, whatever order they are named in.
	Levers []string
	// EngineerUSDPerHour prices effort for payback.
	EngineerUSDPerHour float64
	// Policy is the right-sizing policy.
	Policy rightsize.Policy
	// Autoscale is the autoscaling lever's policy; Commit the
	// commitments lever's.
	Autoscale capacity.AutoscalePolicy
	Commit    capacity.CommitPolicy
	Reclaim   capacity.ReclaimPolicy
	// Region is the region lever's policy; the lever applies by default
	// only when Region.DataGB is given (leverNames).
	Region capacity.RegionPolicy
	// Workers bounds what Build runs at once: the right-sizing, GPU demand
	// and current packing beside each other, and the consolidation lever's
	// packings; 0 is one per core, 1 runs everything in turn. The caller
	// (the use case) decides; the ledger is the same whatever it is
	// (TestConcurrentPackingIsSequential).
	Workers int
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{EngineerUSDPerHour: DefaultEngineerUSDPerHour, Policy: rightsize.DefaultPolicy(),
		Autoscale: capacity.DefaultAutoscalePolicy(), Commit: capacity.DefaultCommitPolicy(),
		Reclaim: capacity.DefaultReclaimPolicy(), Region: capacity.DefaultRegionPolicy()}
}

// Validate lists every problem with the options, each naming its field.
func (o Options) Validate() error {
	var errs []error
	if _, err := lever.Levers(o.Levers); err != nil {
		errs = append(errs, fmt.Errorf("levers: %w", err))
	}
	if r := o.EngineerUSDPerHour; r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		errs = append(errs, fmt.Errorf("engineer rate: %v $/hour is not a non-negative amount", r))
	} else if r > MaxEngineerUSDPerHour {
		// 1e308 overflowed the one-time cost and the payback (issue 31).
		errs = append(errs, fmt.Errorf("engineer rate: %v $/hour is above the maximum, %d $/hour", r, MaxEngineerUSDPerHour))
	}
	if err := o.Policy.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("policy: %w", err))
	}
	if err := o.Autoscale.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.Commit.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.Reclaim.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.Region.Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.Workers < 0 {
		errs = append(errs, fmt.Errorf("workers: %d is negative (0: one per core)", o.Workers))
	}
	return errors.Join(errs...)
}

// Input is what a ledger is built from.
type Input struct {
	Snapshot *cluster.Prepared
	Prices   Prices
	// Allocation is the cost engine's allocation of the same snapshot and
	// prices; nil makes one with the default cost options.
	Allocation *cost.Allocation
	// Report is the cost report of Allocation with
	// cost.DefaultReportOptions (the caller's own, when it made that
	// one); nil makes one.
	Report *cost.Report
	// Recs are right-sizing results for the snapshot; nil computes them
	// with Options.Policy.
	Recs *rightsize.Result
	// Hourly and Counters feed the metrics that need hour-by-hour data
	// and request counters; nil reads them from the snapshot's hourly
	// series, and without those the metrics are unavailable, with the
	// reason.
	Hourly   Hourly
	Counters Counters
	// Capacity is what the capacity levers read from the hourly series
	// (CapacityFromSnapshot); nil reads it from the snapshot.
	Capacity *Capacity
}

// leverNames are the levers Build applies: the named ones, or by default
// every lever that is on by default, and the region lever when the data a
// move takes is given (without it the lever can count nothing).
func (o Options) leverNames() []string {
	if len(o.Levers) > 0 || o.Region.DataGB <= 0 {
		return o.Levers
	}
	out := slices.DeleteFunc(LeverNames(), func(n string) bool { return lever.OffByDefault(n) })
	return append(out[:len(out):len(out)], LeverRegion)
}
