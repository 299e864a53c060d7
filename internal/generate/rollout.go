package generate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// This file stages resource patches in waves (issue 29 item 5): the seeds'
// pace is 10 % of the workloads a day, safest first, with a check between
// waves and a rollback per wave. rollout_files.go writes the files.

// DefaultWavePercent is the share of the workloads one wave changes: the
// seeds' 10 % a day.
const DefaultWavePercent = 10

// Staged is one workload's change in a staged rollout.
type Staged struct {
	// Key is the workload as the savings ledger names it
	// ("namespace/Kind/name").
	Key   string
	Patch ResourcePatch
	// Current are the values the patch replaces, as the snapshot shows
	// them, one per container of Patch (matched by Name): what
	// rollback.sh restores.
	Current []ContainerValues
	// Risk is the savings ledger's risk of the change ("low", "medium",
	// "high"); empty when the ledger does not grade it (it counts
	// nothing for it), which orders it as medium.
	Risk string
}

// ContainerValues are one container's resources before the change; a
// zero value means the key is not set (rollback deletes it).
type ContainerValues struct {
	Name               string
	CPURequestMilli    int64
	CPULimitMilli      int64
	MemoryRequestBytes int64
	MemoryLimitBytes   int64
	// GPUResource and GPUCount are the GPU resource it holds, for a
	// patch that swaps it (GPUChange).
	GPUResource string
	GPUCount    int64
}

// LedgerAction is one savings-ledger action whose workloads the rollout
// changes: its saving in cents and the workloads it lists (Staged.Key).
type LedgerAction struct {
	ID        string
	Cents     int64
	Workloads []string
	// Shape is true for a GPU-shape action, false for right-sized
	// requests (RecommendedRollout weighs their workloads by it).
	Shape bool
	// Title is the action's title and Note, for an action that saves
	// nothing on its own, the actions that realise it.
	Title string
	Note  string
	// Weights split the saving among Workloads (same order): right-
	// sizing's own estimate of what each change frees ($/month, never
	// printed as a saving); nil or none positive splits it equally.
	Weights []float64
}

// Rollout is the input of RolloutFiles.
type Rollout struct {
	// WavePercent is the share of the workloads per wave, 1–100.
	WavePercent int
	Changes     []Staged
	Actions     []LedgerAction
	// TotalCents is what the levers of Actions save in the savings ledger
	// (the right-size and GPU-shape levers' totals): the waves and the
	// workloads outside them carry it to the cent.
	TotalCents int64
	// Outside says, per workload of an action that has no change in
	// Changes, why (a bare Job is set for its next run instead).
	Outside map[string]string
	// Applied are the workloads a wave history says were applied (and not
	// rolled back since), with when (ParseWaveHistory): no new wave
	// repeats them.
	Applied map[string]string
}

// Wave is one day's changes and the ledger cents they carry.
type Wave struct {
	Number  int
	Day     int
	Changes []Staged
	// Cents is, per change, its share of the ledger's saving.
	Cents []int64
}

// Total is the wave's share of the ledger's saving.
func (w Wave) Total() int64 {
	var t int64
	for _, c := range w.Cents {
		t += c
	}
	return t
}

// share is the ledger cents on one workload and the actions they come
// from.
type share struct {
	cents   int64
	actions []string
}

// Plan is the waves and the ledger cents on workloads no wave changes.
type Plan struct {
	Waves []Wave
	// Outside are the workloads the ledger counts that no wave changes,
	// with their cents and why.
	Outside []OutsideShare
	// Applied are the changes the wave history says are done, with
	// their cents and when.
	Applied []OutsideShare
	Total   int64
	Actions []LedgerAction
	shares  map[string]share
}

// OutsideShare is ledger money on a workload the rollout does not patch.
type OutsideShare struct {
	Workload string
	Cents    int64
	Why      string
}

// CheckWavePercent says what is wrong with a wave percent.
func CheckWavePercent(p int) error {
	if p < 1 || p > 100 {
		return fmt.Errorf("--wave-percent %d: want a whole percent from 1 to 100 (the share of the workloads changed per wave; default %d)", p, DefaultWavePercent)
	}
	return nil
}

// Stage orders the changes safest first, cuts them into waves of
// WavePercent of the workloads (at least one each, one wave a day) and
// splits each ledger action's saving among its workloads. Every problem
// is returned in one error.
func Stage(r Rollout) (*Plan, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	pl := &Plan{Total: r.TotalCents, Actions: r.Actions, shares: shares(r)}
	var changes []Staged
	seen := map[string]bool{}
	for _, c := range r.Changes {
		seen[c.Key] = true
		if why, done := r.Applied[c.Key]; done {
			pl.Applied = append(pl.Applied, OutsideShare{Workload: c.Key, Cents: pl.shares[c.Key].cents, Why: why})
			continue
		}
		changes = append(changes, c)
	}
	slices.SortStableFunc(changes, safestFirst)
	// the pace is a share of every staged workload, applied ones included
	size := int(math.Ceil(float64(len(r.Changes)) * float64(r.WavePercent) / 100))
	for i := 0; i < len(changes); i += size {
		w := Wave{Number: len(pl.Waves) + 1, Day: len(pl.Waves) + 1, Changes: changes[i:min(i+size, len(changes))]}
		for _, c := range w.Changes {
			w.Cents = append(w.Cents, pl.shares[c.Key].cents)
		}
		pl.Waves = append(pl.Waves, w)
	}
	pl.outside(r, seen)
	return pl, nil
}

// outside adds the ledger's workloads that no change stages, and the
// money of an action that names none, so that nothing of the total is
// lost.
func (pl *Plan) outside(r Rollout, seen map[string]bool) {
	for _, a := range r.Actions {
		if len(a.Workloads) == 0 && a.Cents != 0 {
			pl.Outside = append(pl.Outside, OutsideShare{Workload: "(" + a.ID + ")", Cents: a.Cents, Why: "the ledger action names no workload"})
		}
		for _, wl := range a.Workloads {
			if !seen[wl] && !slices.ContainsFunc(pl.Outside, func(o OutsideShare) bool { return o.Workload == wl }) {
				why := cmp.Or(r.Applied[wl], r.Outside[wl], "no patch is written for it")
				pl.Outside = append(pl.Outside, OutsideShare{Workload: wl, Cents: pl.shares[wl].cents, Why: why})
			}
		}
	}
}

// check lists every problem of the rollout's input.
func (r Rollout) check() error {
	var p problems
	if err := CheckWavePercent(r.WavePercent); err != nil {
		p.errs = append(p.errs, err)
	}
	seen := map[string]bool{}
	for _, c := range r.Changes {
		if seen[c.Key] {
			p.addf("rollout: workload %s staged twice", c.Key)
		}
		seen[c.Key] = true
		for _, ct := range c.Patch.Containers {
			if !slices.ContainsFunc(c.Current, func(v ContainerValues) bool { return v.Name == ct.Name }) {
				p.addf("rollout: workload %s container %q: no current values to roll back to", c.Key, ct.Name)
			}
		}
	}
	var sum int64
	for _, a := range r.Actions {
		sum += a.Cents
		if a.Cents < 0 {
			p.addf("rollout: ledger action %s saves %d cents, below zero", a.ID, a.Cents)
		}
	}
	for _, a := range r.Actions {
		if a.Weights != nil && len(a.Weights) != len(a.Workloads) {
			p.addf("rollout: ledger action %s has %d weights for %d workloads", a.ID, len(a.Weights), len(a.Workloads))
		}
	}
	if sum != r.TotalCents {
		p.addf("rollout: the ledger actions save %d cents together, not the levers' total %d", sum, r.TotalCents)
	}
	return p.err()
}

// shares splits every action's cents among its workloads in proportion to
// their weights (equally when none is positive), by largest remainder, so
// that each action's parts add up to it exactly.
func shares(r Rollout) map[string]share {
	out := map[string]share{}
	for _, a := range r.Actions {
		ws := a.Weights
		if ws == nil {
			ws = make([]float64, len(a.Workloads))
		}
		for i, c := range SplitCents(a.Cents, ws) {
			s := out[a.Workloads[i]]
			s.cents += c
			s.actions = append(s.actions, a.ID)
			out[a.Workloads[i]] = s
		}
	}
	return out
}

// SplitCents splits total into parts proportional to weights (equal parts
// when no weight is positive; negative weights count as 0), each a whole
// cent, the leftover cents going to the largest remainders (the earlier
// part on a tie), so the parts add up to total exactly.
func SplitCents(total int64, weights []float64) []int64 {
	n := len(weights)
	if n == 0 {
		return nil
	}
	ws := make([]float64, n)
	var sum float64
	for i, w := range weights {
		ws[i] = max(w, 0)
		sum += ws[i]
	}
	if sum == 0 {
		for i := range ws {
			ws[i] = 1
		}
		sum = float64(n)
	}
	out := make([]int64, n)
	rem := make([]float64, n)
	var given int64
	for i, w := range ws {
		exact := float64(total) * w / sum
		out[i] = int64(math.Floor(exact))
		rem[i] = exact - float64(out[i])
		given += out[i]
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rem[b], rem[a]) })
	for k := 0; given < total; k = (k + 1) % n {
		out[order[k]]++
		given++
	}
	return out
}

// safestFirst orders changes by the rule docs/recommendations.md states: the
// ledger's risk (low, then medium or ungraded, then high), requests-only
// changes before GPU shape swaps, the smaller largest relative change of
// any value before the larger, then the workload's name.
func safestFirst(a, b Staged) int {
	return cmp.Or(cmp.Compare(riskRank(a.Risk), riskRank(b.Risk)),
		cmp.Compare(swapsGPU(a), swapsGPU(b)),
		cmp.Compare(a.Change(), b.Change()),
		strings.Compare(a.Key, b.Key))
}

func riskRank(r string) int {
	switch r {
	case "low":
		return 0
	case "high":
		return 2
	}
	return 1
}

func swapsGPU(s Staged) int {
	for _, c := range s.Patch.Containers {
		if c.GPU != nil {
			return 1
		}
	}
	return 0
}

// Change is the largest relative change the patch makes to any value it
// sets, |new − old| ÷ old; a value set where none was is a change of 1.
func (s Staged) Change() float64 {
	var most float64
	for _, c := range s.Patch.Containers {
		cur := s.current(c.Name)
		for _, v := range [][2]int64{
			{c.CPURequestMilli, cur.CPURequestMilli}, {c.CPULimitMilli, cur.CPULimitMilli},
			{c.MemoryRequestBytes, cur.MemoryRequestBytes}, {c.MemoryLimitBytes, cur.MemoryLimitBytes},
		} {
			most = max(most, relChange(v[0], v[1]))
		}
		if c.RemoveCPULimit || c.GPU != nil {
			most = max(most, 1)
		}
	}
	return most
}

func relChange(now, before int64) float64 {
	switch {
	case now <= 0 || now == before:
		return 0
	case before <= 0:
		return 1
	}
	return math.Abs(float64(now-before)) / float64(before)
}

// current is the container's values before the change (Stage refuses a
// change without them).
func (s Staged) current(name string) ContainerValues {
	for _, c := range s.Current {
		if c.Name == name {
			return c
		}
	}
	return ContainerValues{Name: name}
}
