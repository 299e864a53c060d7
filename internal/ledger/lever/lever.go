package lever

import (
	"fmt"
	"slices"
	"strings"
)

// Lever is one way of saving money, applied to the modelled cluster.
// Propose looks at the model as the levers before it left it (a copy: it
// must not change it) and returns changes; the ledger applies them in
// order and prices the model before and after each one, so a lever never
// states its own savings. A lever must not propose a change that raises
// the model's cost: Build refuses it as a bug.
//
// New levers (autoscaling, capacity mix, commitments, region, idle
// reclaim, quantization) implement this interface and add themselves to
// levers below in the documented order; docs/savings.md says how.
type Lever interface {
	Name() string
	Propose(m *Model, env *Env) (Proposal, error)
}

// Proposal is what a lever wants done.
type Proposal struct {
	Changes []Change
	// NotCounted are opportunities the lever saw and does not count, with
	// the reason (missing data, outside the model).
	NotCounted []NotCounted
	// Unrealised says, by action key, why an earlier lever's change
	// saves nothing here (a right-sized shape the planner reverted).
	Unrealised map[string]string
	Notes      []string
	// Finish, when set, runs after the changes; it may record state for
	// later levers (the consolidation plan) and must not change the cost.
	Finish func(m *Model)
}

// Change is one action and the transformation of the model that carries
// it out. The lever fills in everything about the action except its
// money, ID, rank, phase and payback, which the ledger computes.
type Change struct {
	Action Action
	// Requires are the keys of actions this one needs done first.
	Requires []string
	Apply    func(m *Model)
}

// Lever names, in the order they apply (DESIGN.md "Ledger").
const (
	LeverRightsize   = "rightsize"
	LeverShape       = "shape"
	LeverConsolidate = "consolidate"
	LeverAutoscale   = "autoscale"
	LeverReclaim     = "reclaim"
	LeverQueue       = "queue"
	LeverSpot        = "spot"
	LeverRegion      = "region"
	LeverCommit      = "commit"
	LeverQuantize    = "quantize"
)

// levers are the known levers in their order. Each entry builds a fresh
// lever.
var levers = []struct {
	name string
	make func() Lever
}{
	{LeverRightsize, func() Lever { return rightsizeLever{} }},
	{LeverShape, func() Lever { return shapeLever{} }},
	{LeverConsolidate, func() Lever { return consolidateLever{} }},
	{LeverAutoscale, func() Lever { return autoscaleLever{} }},
	{LeverReclaim, func() Lever { return reclaimLever{} }},
	{LeverQueue, func() Lever { return queueLever{} }},
	{LeverSpot, func() Lever { return spotLever{} }},
	{LeverRegion, func() Lever { return regionLever{} }},
	{LeverCommit, func() Lever { return commitLever{} }},
	{LeverQuantize, func() Lever { return quantizeLever{} }},
}

// traits are what a lever reads and how it changes the build, declared
// here once per lever so that the ledger decides what to compute, keep
// and let go from them rather than from lever names.
type traits struct {
	// readsRecs: Propose reads Env.Recs (the ledger lets them go once no
	// lever left reads them: about 10 MB at 10k GPUs that the
	// consolidation packings need).
	readsRecs bool
	// packsCurrent: the lever packs the current shapes (the ledger packs
	// them ahead, beside right-sizing).
	packsCurrent bool
	// readsCapacity: Propose reads Env.capacity (what the hourly series
	// say: Stage takes it).
	readsCapacity bool
	// wantsPeak: consolidation, when this lever follows it, keeps the
	// nodes the window's peak needs (burst.go).
	wantsPeak bool
}

// traitsOf is a lever's traits.
func traitsOf(lv Lever) traits {
	switch lv.(type) {
	case rightsizeLever, shapeLever:
		return traits{readsRecs: true}
	case consolidateLever:
		return traits{packsCurrent: true}
	case autoscaleLever:
		return traits{readsCapacity: true, wantsPeak: true}
	case reclaimLever, queueLever, quantizeLever:
		return traits{readsCapacity: true}
	}
	return traits{}
}

// InOrder returns the named levers in the order given, not the
// documented one (tests check that the levers that commute do).
func InOrder(names ...string) ([]Lever, error) {
	out := make([]Lever, 0, len(names))
	for _, n := range names {
		i := slices.IndexFunc(levers, func(l struct {
			name string
			make func() Lever
		}) bool {
			return l.name == n
		})
		if i < 0 {
			return nil, fmt.Errorf("unknown lever %q: want one of %s", n, strings.Join(LeverNames(), ", "))
		}
		out = append(out, levers[i].make())
	}
	return out, nil
}

// LeverNames lists the known levers in the order they apply.
func LeverNames() []string {
	out := make([]string, len(levers))
	for i, l := range levers {
		out[i] = l.name
	}
	return out
}

// offByDefault are the levers that apply only when named (or, for region,
// when Options give what they need): the region lever needs the data size.
var offByDefault = map[string]bool{LeverRegion: true}

// OffByDefault reports whether the named lever applies only when named.
func OffByDefault(name string) bool { return offByDefault[name] }

// Levers returns the named levers in the documented order (nil or empty
// names: all of them but those off by default). An unknown name is an error that lists the known
// ones.
func Levers(names []string) ([]Lever, error) {
	var bad []string
	for _, n := range names {
		if !slices.Contains(LeverNames(), n) {
			bad = append(bad, fmt.Sprintf("%q", n))
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("unknown lever %s: want one of %s", strings.Join(bad, ", "), strings.Join(LeverNames(), ", "))
	}
	var out []Lever
	for _, l := range levers {
		if (len(names) == 0 && !offByDefault[l.name]) || slices.Contains(names, l.name) {
			out = append(out, l.make())
		}
	}
	return out, nil
}

// ReadCapacity reports whether any of the levers reads the capacity
// levers' inputs (Env's Capacity, from the hourly series).
func ReadCapacity(lvs []Lever) bool {
	return slices.ContainsFunc(lvs, func(lv Lever) bool { return traitsOf(lv).readsCapacity })
}
