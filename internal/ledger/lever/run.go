package lever

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// Setup is what Prepare reads: the snapshot, its prices, the right-sizing
// results (nil: Prepare computes them with Policy), the capacity levers'
// inputs and every lever's policy, and how many workers may run at once
// (0: one per core, 1: everything in turn).
type Setup struct {
	Snapshot  *cluster.Prepared
	Prices    Prices
	Recs      *rightsize.Result
	Capacity  *Capacity
	Policy    rightsize.Policy
	Autoscale capacity.AutoscalePolicy
	Commit    capacity.CommitPolicy
	Reclaim   capacity.ReclaimPolicy
	Region    capacity.RegionPolicy
	Workers   int
}

// Prepare computes what the levers lvs read (right-sizing results, GPU
// demand) and the starting model: the GPU nodes alive at the window's
// end, priced as the planner prices them. Right-sizing (unless given) and
// the GPU demand run beside the rest; when a lever packs the current
// shapes, the rest includes packing them (none reads what another makes).
func Prepare(in Setup, lvs []Lever) (*Env, *Model, error) {
	return prepare(in, lvs, packs(lvs))
}

// prepare is Prepare, packing the current shapes ahead when pack is set.
func prepare(in Setup, lvs []Lever, pack bool) (*Env, *Model, error) {
	if in.Snapshot == nil || in.Prices == nil {
		return nil, nil, fmt.Errorf("ledger: no snapshot or no prices")
	}
	if err := in.Snapshot.Window().Validate(); err != nil {
		return nil, nil, fmt.Errorf("ledger: %w", err)
	}
	o := in
	env := &Env{Snapshot: in.Snapshot, Prices: in.Prices, Recs: in.Recs, Autoscale: o.Autoscale, Commit: o.Commit, Reclaim: o.Reclaim,
		Region: o.Region, capacity: in.Capacity, packers: o.Workers}
	env.peakAware = slices.ContainsFunc(lvs, func(lv Lever) bool { return traitsOf(lv).wantsPeak })
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
	return env, newModel(modelNodes(prob, in.Snapshot)), nil
}

// packs reports whether a lever list packs the current shapes.
func packs(lvs []Lever) bool {
	return slices.ContainsFunc(lvs, func(lv Lever) bool { return traitsOf(lv).packsCurrent })
}

// modelNodes are the planner's nodes with their capacity type.
func modelNodes(p *packing.Problem, s *cluster.Prepared) []Node {
	capacity := make(map[string]string, len(s.Nodes()))
	for i := range s.Nodes() {
		capacity[s.Nodes()[i].Name] = s.Nodes()[i].Capacity
	}
	out := make([]Node, len(p.Nodes))
	for i, n := range p.Nodes {
		out[i] = Node{Name: n.Name, Pool: n.Pool, GPUModel: n.Model, Capacity: capacity[n.Name], GPUs: n.GPUs,
			USDPerHour: n.USDPerHour, Priced: n.Priced}
	}
	return out
}

// Result is what the levers did: their actions in lever order (with their
// money, before the ledger ranks them), what they found and did not count,
// why earlier changes save nothing (by action key), each lever's total and
// their notes.
type Result struct {
	Actions    []Action
	NotCounted []NotCounted
	Unrealised map[string]string
	Levers     []LeverResult
	Notes      []string
}

// LeverResult is what one lever added.
type LeverResult struct {
	Name           string  `json:"name"`
	SavingUSDMonth float64 `json:"saving_usd_month"`
	// Actions counts the lever's actions in the ledger (money and
	// prerequisites); NotCounted the opportunities it did not count.
	Actions    int `json:"actions"`
	NotCounted int `json:"not_counted"`

	saving Cents
}

// Saving is what the lever saved, in cents.
func (lr *LeverResult) Saving() Cents { return lr.saving }

// Run applies the levers in order to the model, pricing it around every
// change, and lets go of the right-sizing results once no lever left
// reads them (what the model's changes need of them they hold).
func Run(lvs []Lever, m *Model, env *Env) (*Result, error) {
	r := &Result{Unrealised: map[string]string{}}
	for i, lv := range lvs {
		if err := r.apply(lv, m, env); err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(lvs[i+1:], func(lv Lever) bool { return traitsOf(lv).readsRecs }) {
			env.Recs = nil
		}
	}
	return r, nil
}

// apply lets one lever propose changes and applies them in order,
// pricing the model around each.
func (r *Result) apply(lv Lever, m *Model, env *Env) error {
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
		r.Actions = append(r.Actions, a)
	}
	if p.Finish != nil {
		before := m.Cost()
		if p.Finish(m); m.Cost() != before {
			return fmt.Errorf("lever %s: finishing changed the modelled cost (a gpuwise bug; please report it)", lv.Name())
		}
	}
	lr.SavingUSDMonth = lr.saving.USD()
	r.Levers = append(r.Levers, lr)
	r.NotCounted = append(r.NotCounted, p.NotCounted...)
	for k, why := range p.Unrealised {
		r.Unrealised[k] = why
	}
	r.Notes = append(r.Notes, p.Notes...)
	return nil
}

// Reconcile checks what the levers did, to the cent: every action's saving
// is the difference of the model's cost around it and not negative, and
// the actions and the levers each add up to before − after
// (ledger.Reconcile checks this and the bridge to the cost report).
func Reconcile(actions []Action, levers []LeverResult, before, after Cents) error {
	var sum, total Cents
	for i := range actions {
		a := &actions[i]
		if a.saving < 0 {
			return fmt.Errorf("ledger does not reconcile: action %s (%s) saves %s, less than nothing", a.ID, a.Key, a.saving)
		}
		if CentsOf(a.ModelBeforeUSDMonth)-CentsOf(a.ModelAfterUSDMonth) != a.saving {
			return fmt.Errorf("ledger does not reconcile: action %s saves %s but the model goes from $%.2f to $%.2f", a.ID, a.saving, a.ModelBeforeUSDMonth, a.ModelAfterUSDMonth)
		}
		sum += a.saving
	}
	for _, lr := range levers {
		total += lr.saving
	}
	if want := before - after; sum != want || total != want {
		return fmt.Errorf("ledger does not reconcile: actions save %s and levers %s, but the model goes from %s to %s (%s)", sum, total, before, after, want)
	}
	return nil
}
