package ledger

import (
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger/finops"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// The ledger's vocabulary is defined where it is made — the actions, the
// model and its money by the levers (package lever), the metrics and red
// flags by package finops — and named here too, so that a use case reads
// one package: the ledger.

// Money and grades.
type (
	Cents = lever.Cents
	Level = lever.Level
)

// CentsOf rounds dollars to the nearest cent.
func CentsOf(usd float64) Cents { return lever.CentsOf(usd) }

// Levels, best first for confidence and lowest first for risk.
const (
	High   = lever.High
	Medium = lever.Medium
	Low    = lever.Low
)

// HoursPerMonth is the run-rate month (365 × 24 / 12), as the cost report
// uses it.
const HoursPerMonth = lever.HoursPerMonth

// Actions and what the levers report.
type (
	Action      = lever.Action
	Item        = lever.Item
	Target      = lever.Target
	Evidence    = lever.Evidence
	Artefact    = lever.Artefact
	NotCounted  = lever.NotCounted
	LeverResult = lever.LeverResult
	Capacity    = lever.Capacity
)

// Lever names, in the order they apply (DESIGN.md "Ledger").
const (
	LeverRightsize   = lever.LeverRightsize
	LeverShape       = lever.LeverShape
	LeverConsolidate = lever.LeverConsolidate
	LeverAutoscale   = lever.LeverAutoscale
	LeverReclaim     = lever.LeverReclaim
	LeverQueue       = lever.LeverQueue
	LeverSpot        = lever.LeverSpot
	LeverRegion      = lever.LeverRegion
	LeverCommit      = lever.LeverCommit
	LeverQuantize    = lever.LeverQuantize
)

// KindQueue is the queue lever's action kind (queueing batch GPU work
// through Kueue), which generate kueue quotes.
const KindQueue = lever.KindQueue

// QuantizeMark marks the quantization lever's upper bounds.
const QuantizeMark = lever.QuantizeMark

// LeverNames lists the known levers in the order they apply.
func LeverNames() []string { return lever.LeverNames() }

// PackingRecommendations turns right-sizing results into the packing
// planner's recommendations.
func PackingRecommendations(r *rightsize.Result) *packing.Recommendations {
	return lever.PackingRecommendations(r)
}

// CapacityFromSnapshot reads the capacity levers' inputs with the
// options' policies (which must be valid: Build validates them).
func CapacityFromSnapshot(s *cluster.Prepared, o Options) (*Capacity, error) {
	return lever.CapacityFromSnapshot(s, o.Autoscale, o.Reclaim)
}

// FinOps metrics and red flags.
type (
	Metric         = finops.Metric
	RedFlag        = finops.RedFlag
	Status         = finops.Status
	Hourly         = finops.Hourly
	Counters       = finops.Counters
	InferenceCount = finops.InferenceCount
	ModelCount     = finops.ModelCount
	UnitCost       = finops.UnitCost
)

// Metric statuses.
const (
	OK          = finops.OK
	Review      = finops.Review
	Act         = finops.Act
	Info        = finops.Info
	Unavailable = finops.Unavailable
)

// SnapshotSignals reads the hour-by-hour data and request counters the
// metrics need from the snapshot's hourly series (finops.SnapshotSignals).
func SnapshotSignals(s *cluster.Prepared) (Hourly, Counters) { return finops.SnapshotSignals(s) }
