package ledger

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger/finops"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// Build applies the levers in order to the modelled cluster of a prepared
// snapshot and returns the ledger. It fails on invalid options or input,
// and refuses a ledger that does not reconcile (that would be a bug).
func Build(in Input, o Options) (*Ledger, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("ledger options: %w", err)
	}
	lvs, _ := lever.Levers(o.leverNames())
	return buildWith(in, o, lvs)
}

// buildWith applies the levers in the order given (Build passes the
// documented order; tests try others).
func buildWith(in Input, o Options, lvs []lever.Lever) (*Ledger, error) {
	in, err := stage(in, o)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	env, m, err := lever.Prepare(setup(in, o), lvs)
	if err != nil {
		return nil, err
	}
	return applyLevers(in, o, lvs, env, m)
}

// Stage takes from the snapshot, once, everything Build reads of its
// hourly series: the metrics' signals (Input.Hourly, Counters) and the
// capacity levers' inputs (Input.Capacity), each only where the caller
// left it nil. Build on a staged input that also carries Recs and
// Allocation reads neither the hourly series nor the pods' usage detail
// (SnapshotReads): the snapshot's owner may release them before the
// packings, the ledger's memory peak.
func Stage(in Input, o Options) (Input, error) {
	if err := o.Validate(); err != nil {
		return in, fmt.Errorf("ledger options: %w", err)
	}
	return stage(in, o)
}

func stage(in Input, o Options) (Input, error) {
	in = withSnapshotSignals(in)
	return withCapacity(in, o)
}

// withSnapshotSignals fills Hourly and Counters the caller left nil from
// the snapshot's hourly series, when it carries them.
func withSnapshotSignals(in Input) Input {
	if in.Snapshot == nil {
		return in
	}
	h, c := finops.SnapshotSignals(in.Snapshot)
	if in.Hourly == nil && h != nil {
		in.Hourly = h
	}
	if in.Counters == nil && c != nil {
		in.Counters = c
	}
	return in
}

// withCapacity fills Input.Capacity from the snapshot when the caller did
// not.
func withCapacity(in Input, o Options) (Input, error) {
	if in.Capacity != nil || in.Snapshot == nil {
		return in, nil
	}
	c, err := lever.CapacityFromSnapshot(in.Snapshot, o.Autoscale, o.Reclaim)
	if err != nil {
		return in, err
	}
	in.Capacity = c
	return in, nil
}

// setup is what lever.Prepare reads of an input and options.
func setup(in Input, o Options) lever.Setup {
	return lever.Setup{Snapshot: in.Snapshot, Prices: in.Prices, Recs: in.Recs, Capacity: in.Capacity, Policy: o.Policy,
		Autoscale: o.Autoscale, Commit: o.Commit, Reclaim: o.Reclaim, Region: o.Region, Workers: o.Workers}
}

// Reads is what of a snapshot beyond its nodes, pods, requests and the
// GPUs' activity (what cluster.Snapshot.ReleaseUsageDetail keeps) a build
// still reads.
type Reads struct {
	// Hourly: the hourly series (the metrics' signals or the capacity
	// levers' inputs are not in the input yet).
	Hourly bool
	// UsageDetail: the pods' CPU, memory, SM and framebuffer usage (the
	// right-sizing or the cost allocation is not in the input yet).
	UsageDetail bool
}

// SnapshotReads says what Build(in, o) reads of the snapshot beyond what
// ReleaseUsageDetail keeps: what the snapshot's owner must keep until
// the ledger is built. Each lever's needs are its traits (lever/lever.go).
func SnapshotReads(in Input, o Options) Reads {
	lvs, _ := lever.Levers(o.leverNames())
	hasSeries := in.Snapshot != nil && in.Snapshot.Hourly() != nil
	var r Reads
	if hasSeries && (in.Hourly == nil || in.Counters == nil) {
		r.Hourly = true
	}
	if hasSeries && in.Capacity == nil && lever.ReadCapacity(lvs) {
		r.Hourly = true
	}
	// Right-sizing reads the usage detail and the CPU series; the
	// ledger right-sizes whenever Recs are not given.
	if in.Recs == nil {
		r.Hourly, r.UsageDetail = r.Hourly || hasSeries, true
	}
	if in.Allocation == nil {
		r.UsageDetail = true
	}
	return r
}

// applyLevers applies the levers to a prepared model and makes the ledger.
func applyLevers(in Input, o Options, lvs []lever.Lever, env *lever.Env, m *lever.Model) (*Ledger, error) {
	l := &Ledger{Window: in.Snapshot.Window(), Source: in.Snapshot.Source(), Partial: in.Snapshot.Partial(), before: m.Cost()}
	l.NodesBefore, l.GPUsBefore, l.UnpricedNodes = m.Kept()
	vpa := vpaWorkloads(env.Recs, in.Snapshot.View())
	in.Recs = nil // env holds them for the levers that read them
	st, err := lever.Run(lvs, m, env)
	if err != nil {
		return nil, err
	}
	l.after = m.Cost()
	l.NodesAfter, l.GPUsAfter, _ = m.Kept()
	l.Levers, l.Notes = st.Levers, st.Notes
	l.plan(st, o.EngineerUSDPerHour)
	a, rep, err := costReport(in)
	if err != nil {
		return nil, err
	}
	l.relate(in, m, a)
	l.foundations(in.Groundwork, vpa, a)
	l.Metrics, l.RedFlags = finops.Compute(finops.Input{Snapshot: in.Snapshot, Hourly: in.Hourly, Counters: in.Counters,
		Allocation: a, Report: rep, Actions: l.Actions})
	l.money()
	l.Summary = summarize(l, rep)
	l.emptyLists()
	return l, l.Reconcile()
}

// emptyLists makes every list of the ledger's JSON an empty list rather
// than null when it has nothing (docs/savings.md: lists are never null).
func (l *Ledger) emptyLists() {
	l.Levers, l.Actions, l.Phases = nonNil(l.Levers), nonNil(l.Actions), nonNil(l.Phases)
	l.NotCounted, l.Metrics, l.RedFlags, l.Notes = nonNil(l.NotCounted), nonNil(l.Metrics), nonNil(l.RedFlags), nonNil(l.Notes)
	l.Summary.First, l.Summary.Lines = nonNil(l.Summary.First), nonNil(l.Summary.Lines)
	for i := range l.Actions {
		a := &l.Actions[i]
		a.Targets, a.Prerequisites, a.Evidence, a.Artefacts = nonNil(a.Targets), nonNil(a.Prerequisites), nonNil(a.Evidence), nonNil(a.Artefacts)
		for j := range a.Items {
			a.Items[j].Evidence = nonNil(a.Items[j].Evidence)
		}
	}
	l.Foundations = nonNil(l.Foundations)
	for i := range l.Phases {
		l.Phases[i].Actions = nonNil(l.Phases[i].Actions)
		l.Phases[i].Foundations = nonNil(l.Phases[i].Foundations)
	}
}

// nonNil is s, or an empty slice for nil.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// money sets the ledger's dollar fields from its cents.
func (l *Ledger) money() {
	l.BeforeUSDMonth, l.AfterUSDMonth, l.SavingUSDMonth = l.before.USD(), l.after.USD(), l.Saving().USD()
	if l.before > 0 {
		s := float64(l.Saving()) / float64(l.before)
		l.SavingShare = &s
	}
}

// costReport is the input's cost allocation (or one with the default
// options) and its report with the default options (the input's, given
// with its allocation).
func costReport(in Input) (*cost.Allocation, *cost.Report, error) {
	a := in.Allocation
	opts := cost.DefaultOptions()
	if a == nil {
		var err error
		if a, err = cost.Allocate(in.Snapshot, in.Prices, opts); err != nil {
			return nil, nil, fmt.Errorf("ledger: allocating cost: %w", err)
		}
	} else if in.Report != nil {
		return a, in.Report, nil
	}
	rep, err := cost.NewReport(a, cost.DefaultReportOptions())
	if err != nil {
		return nil, nil, fmt.Errorf("ledger: cost report: %w", err)
	}
	return a, rep, nil
}
