package ledger

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// Build applies the levers in order to the modelled cluster of a prepared
// snapshot and returns the ledger. It fails on invalid options or input,
// and refuses a ledger that does not reconcile (that would be a bug).
func Build(in Input, o Options) (*Ledger, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("ledger options: %w", err)
	}
	lvs, _ := Levers(o.leverNames())
	return buildWith(in, o, lvs)
}

// buildWith applies the levers in the order given (Build passes the
// documented order; tests try others).
func buildWith(in Input, o Options, lvs []Lever) (*Ledger, error) {
	in, err := stage(in, o)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	env, m, err := prepare(in, o, packs(lvs))
	if err != nil {
		return nil, err
	}
	env.peakAware = slices.ContainsFunc(lvs, func(lv Lever) bool { return traitsOf(lv).wantsPeak })
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
// the ledger is built. Each lever's needs are its traits (lever.go).
func SnapshotReads(in Input, o Options) Reads {
	lvs, _ := Levers(o.leverNames())
	hasSeries := in.Snapshot != nil && in.Snapshot.Hourly != nil
	var r Reads
	if hasSeries && (in.Hourly == nil || in.Counters == nil) {
		r.Hourly = true
	}
	if hasSeries && in.Capacity == nil && slices.ContainsFunc(lvs, func(lv Lever) bool { return traitsOf(lv).readsCapacity }) {
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
func applyLevers(in Input, o Options, lvs []Lever, env *Env, m *Model) (*Ledger, error) {
	l := &Ledger{Window: in.Snapshot.Window, Source: in.Snapshot.Source, Partial: in.Snapshot.Partial, before: m.Cost()}
	l.NodesBefore, l.GPUsBefore, l.UnpricedNodes = m.Kept()
	st := &run{unrealised: map[string]string{}}
	in.Recs = nil // env holds them for the levers that read them
	for i, lv := range lvs {
		if err := st.apply(lv, m, env); err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(lvs[i+1:], func(lv Lever) bool { return traitsOf(lv).readsRecs }) {
			env.Recs = nil // what the model's changes need of them they hold
		}
	}
	l.after = m.Cost()
	l.NodesAfter, l.GPUsAfter, _ = m.Kept()
	l.Levers, l.Notes = st.levers, st.notes
	l.plan(st, o.EngineerUSDPerHour)
	a, rep, err := costReport(in)
	if err != nil {
		return nil, err
	}
	l.relate(in, m, a)
	l.Metrics, l.RedFlags = metrics(in, env, l, a, rep)
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
	for i := range l.Phases {
		l.Phases[i].Actions = nonNil(l.Phases[i].Actions)
	}
}

// nonNil is s, or an empty slice for nil.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// prepare computes what levers read (right-sizing results, GPU demand)
// and the starting model: the GPU nodes alive at the window's end, priced
// as the planner prices them. Right-sizing (unless given) and the GPU
// demand run beside the rest; with pack, the rest includes packing the
// current shapes for the consolidation lever (none reads what another
// makes).
func prepare(in Input, o Options, pack bool) (*Env, *Model, error) {
	if in.Snapshot == nil || in.Prices == nil {
		return nil, nil, fmt.Errorf("ledger: no snapshot or no prices")
	}
	if err := in.Snapshot.Window.Validate(); err != nil {
		return nil, nil, fmt.Errorf("ledger: %w", err)
	}
	env := &Env{Snapshot: in.Snapshot, Prices: in.Prices, Recs: in.Recs, Autoscale: o.Autoscale, Commit: o.Commit, Reclaim: o.Reclaim,
		Region: o.Region, capacity: in.Capacity, packers: o.Workers}
	var wg sync.WaitGroup
	var recErr error
	// beside runs f beside the rest, unless the caller asked for one
	// worker.
	beside := func(f func()) {
		if o.Workers == 1 {
			f()
			return
		}
		wg.Go(f)
	}
	if env.Recs == nil {
		beside(func() { env.Recs, recErr = rightsize.Recommend(in.Snapshot, o.Policy, in.Prices) })
	}
	beside(func() { env.peaks = gpuDemand(in.Snapshot) })
	prob, err := packing.FromSnapshot(in.Snapshot, packing.SnapshotOptions{Prices: in.Prices, Shapes: packing.CurrentShapes})
	if err == nil {
		env.current = prob
		if pack {
			env.packed = &packed{}
			env.packed.plan, env.packed.err = packing.Solve(prob)
		}
	}
	wg.Wait()
	if recErr != nil {
		return nil, nil, fmt.Errorf("ledger: %w", recErr)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("ledger: %w", err)
	}
	return env, newModel(modelNodes(prob, in.Snapshot.Snapshot)), nil
}

// packs reports whether a lever list packs the current shapes.
func packs(lvs []Lever) bool {
	return slices.ContainsFunc(lvs, func(lv Lever) bool { return traitsOf(lv).packsCurrent })
}

// modelNodes are the planner's nodes with their capacity type.
func modelNodes(p *packing.Problem, s *cluster.Snapshot) []Node {
	capacity := make(map[string]string, len(s.Nodes))
	for i := range s.Nodes {
		capacity[s.Nodes[i].Name] = s.Nodes[i].Capacity
	}
	out := make([]Node, len(p.Nodes))
	for i, n := range p.Nodes {
		out[i] = Node{Name: n.Name, Pool: n.Pool, GPUModel: n.Model, Capacity: capacity[n.Name], GPUs: n.GPUs,
			USDPerHour: n.USDPerHour, Priced: n.Priced}
	}
	return out
}

// run collects what the levers did.
type run struct {
	actions    []Action
	notCounted []NotCounted
	unrealised map[string]string
	levers     []LeverResult
	notes      []string
}

// apply lets one lever propose changes and applies them in order,
// pricing the model around each.
func (r *run) apply(lv Lever, m *Model, env *Env) error {
	p, err := lv.Propose(m.clone(), env)
	if err != nil {
		return fmt.Errorf("lever %s: %w", lv.Name(), err)
	}
	lr := LeverResult{Name: lv.Name(), NotCounted: len(p.NotCounted)}
	for _, ch := range p.Changes {
		a := ch.Action
		a.Lever, a.requires = lv.Name(), ch.Requires
		a.priceDates = targetPriceDates(env, m, a.Targets)
		before := m.Cost()
		ch.Apply(m)
		after := m.Cost()
		if after > before {
			return fmt.Errorf("lever %s: action %s raises the modelled cost from %s to %s (a gpuwise bug; please report it)", lv.Name(), a.Key, before, after)
		}
		a.saving = before - after
		a.ModelBeforeUSDMonth, a.ModelAfterUSDMonth, a.SavingUSDMonth = before.USD(), after.USD(), a.saving.USD()
		lr.saving += a.saving
		r.actions = append(r.actions, a)
	}
	if p.Finish != nil {
		before := m.Cost()
		if p.Finish(m); m.Cost() != before {
			return fmt.Errorf("lever %s: finishing changed the modelled cost (a gpuwise bug; please report it)", lv.Name())
		}
	}
	lr.SavingUSDMonth = lr.saving.USD()
	r.levers = append(r.levers, lr)
	r.notCounted = append(r.notCounted, p.NotCounted...)
	for k, why := range p.Unrealised {
		r.unrealised[k] = why
	}
	r.notes = append(r.notes, p.Notes...)
	return nil
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
	opts := cost.DefaultOptions(in.Prices)
	if a == nil {
		var err error
		if a, err = cost.Allocate(in.Snapshot, opts); err != nil {
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
