package finops

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// RedFlag is something to watch or fix that the data shows.
type RedFlag struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Status  Status   `json:"status"`
	Detail  string   `json:"detail"`
	Targets []string `json:"targets,omitempty"`
	// AtStakeUSDMonth is the monthly cost of what the flag points at: a
	// cost at stake, not a saving. Where the ledger recovers it, Actions
	// name the actions that do; it is never added to the ledger again.
	// Null when nothing behind it is priced (or it has no dollars).
	AtStakeUSDMonth *float64 `json:"at_stake_usd_month"`
	Actions         []string `json:"actions,omitempty"`
}

// hostageLookback: a GPU node none of whose GPUs was held for this long
// before the window's end is idle.
const hostageLookback = 24 * time.Hour

// redFlags computes the red flags the snapshot supports.
func redFlags(in Input, a *cost.Allocation) []RedFlag {
	s := in.Snapshot
	held, recent := heldUnits(s)
	alive := map[string]bool{}
	for _, n := range aliveNodes(s) {
		alive[n] = true
	}
	flags := []RedFlag{unusedMIG(s, alive, held, a), hostage(s, alive, recent, a), oomRising(s, in.Hourly)}
	for i := range flags {
		flags[i].Actions = actionsOn(in.Actions, flags[i].Targets)
	}
	return flags
}

// aliveNodes are the modelled cluster's nodes (alive at the window's end).
func aliveNodes(s *cluster.Prepared) []string {
	var out []string
	end := s.Window().End
	for i := range s.Nodes() {
		n := &s.Nodes()[i]
		if n.HasGPUs() && (n.Deleted.IsZero() || !n.Deleted.Before(end)) {
			out = append(out, n.Name)
		}
	}
	return out
}

// heldUnits are the units any pod held in the window, and those held in
// the lookback before its end.
func heldUnits(s *cluster.Prepared) (all, recent map[string]bool) {
	all, recent = map[string]bool{}, map[string]bool{}
	since := s.Window().End.Add(-hostageLookback)
	for i := range s.Pods() {
		p := &s.Pods()[i]
		_, to, ok := s.Window().Interval(p.Start, p.End)
		if !ok {
			continue
		}
		for _, h := range p.GPUs {
			all[h.UnitID] = true
			if to.After(since) {
				recent[h.UnitID] = true
			}
		}
	}
	return all, recent
}

// unusedMIG flags MIG instances on nodes alive at the end that no pod
// held in the whole window, priced at their share of the GPU.
func unusedMIG(s *cluster.Prepared, alive, held map[string]bool, a *cost.Allocation) RedFlag {
	f := RedFlag{Name: "unused_mig_instances", Title: "MIG instances no pod used in the window", Status: OK}
	var usd float64
	priced := false
	for i := range s.Nodes() {
		n := &s.Nodes()[i]
		if !alive[n.Name] {
			continue
		}
		price, ok := a.Prices[n.Name]
		for _, g := range n.GPUs {
			for _, u := range g.Units {
				if u.Kind != cluster.MIGSlice || held[u.ID] {
					continue
				}
				f.Targets = append(f.Targets, u.ID)
				if ok {
					usd, priced = usd+u.Fraction*price.GPUUSDPerHour*lever.HoursPerMonth, true
				}
			}
		}
	}
	if len(f.Targets) > 0 {
		f.Status = Act
		f.Detail = fmt.Sprintf("%d MIG instance(s) were held by no pod for the whole window: their share of the GPU is paid for and unused; re-cut the GPU (gpuwise plan does where it packs)", len(f.Targets))
		f.AtStakeUSDMonth = dollarsIf(usd, priced)
	} else {
		f.Detail = "every MIG instance was used in the window"
	}
	return f
}

// hostage flags GPU nodes whose GPUs no pod held in the lookback but that
// run pods without GPUs at the end: the non-GPU pods keep an idle GPU node
// alive, priced at the GPU capacity they hold hostage.
func hostage(s *cluster.Prepared, alive, recent map[string]bool, a *cost.Allocation) RedFlag {
	f := RedFlag{Name: "idle_gpu_nodes_kept_by_non_gpu_pods", Title: "Idle GPU nodes kept alive by pods that need no GPU", Status: OK}
	byNode := map[string][]string{}
	for i := range s.Pods() {
		p := &s.Pods()[i]
		if alive[p.Node] && p.End.IsZero() && len(p.GPUs) == 0 && !p.RequestsGPU() && p.Owner.Kind != "DaemonSet" {
			byNode[p.Node] = append(byNode[p.Node], p.Key())
		}
	}
	var usd float64
	priced := false
	var lines []string
	for i := range s.Nodes() {
		n := &s.Nodes()[i]
		pods := byNode[n.Name]
		if len(pods) == 0 || slices.ContainsFunc(n.GPUs, func(g cluster.GPU) bool {
			return slices.ContainsFunc(g.Units, func(u cluster.Unit) bool { return recent[u.ID] })
		}) {
			continue
		}
		f.Targets = append(f.Targets, n.Name)
		lines = append(lines, fmt.Sprintf("%s (%d GPU(s), %s)", n.Name, len(n.GPUs), lever.ListText(pods)))
		if price, ok := a.Prices[n.Name]; ok {
			usd, priced = usd+float64(len(n.GPUs))*price.GPUUSDPerHour*lever.HoursPerMonth, true
		}
	}
	if len(f.Targets) == 0 {
		f.Detail = fmt.Sprintf("no GPU node sat idle for the last %.0f h with pods that need no GPU on it", hostageLookback.Hours())
		return f
	}
	f.Status, f.AtStakeUSDMonth = Act, dollarsIf(usd, priced)
	f.Detail = fmt.Sprintf("no GPU of these nodes was held in the last %.0f h of the window, yet pods that need no GPU run on them: %s; taint GPU nodes and move the pods (gpuwise audit GW001/GW002) so the node can go",
		hostageLookback.Hours(), lever.ListText(lines))
	return f
}

// oomRising compares OOM kills in the second half of the window with the
// first; without hourly counts it says what it has.
func oomRising(s *cluster.Prepared, h Hourly) RedFlag {
	f := RedFlag{Name: "oom_kills_rising", Title: "OOM kills rising"}
	kills, pods := 0, 0
	for i := range s.Pods() {
		if k := s.Pods()[i].OOMKills; k > 0 {
			kills, pods = kills+k, pods+1
		}
	}
	var hours []int
	ok := false
	if h != nil {
		hours, ok = h.OOMKills()
	}
	if !ok {
		f.Status = Unavailable
		f.Detail = fmt.Sprintf("%s; %d OOM kill(s) in the window across %d pod(s), whether they are rising needs hour-by-hour counts", needsHourly, kills, pods)
		return f
	}
	first, second := 0, 0
	for i, k := range hours {
		if i < len(hours)/2 {
			first += k
		} else {
			second += k
		}
	}
	f.Status, f.Detail = OK, fmt.Sprintf("%d OOM kill(s) in the first half of the window, %d in the second", first, second)
	if first+second != kills {
		f.Detail += fmt.Sprintf(" (hour by hour: %d of the window's %d OOM kill(s) across %d pod(s))", first+second, kills, pods)
	}
	if second >= oomRisingFloor && float64(second) > oomRisingFactor*float64(first) {
		f.Status = Act
		f.Detail += ": rising; check memory requests (gpuwise recommend) and recent changes"
	}
	return f
}

// dollarsIf is v, or nil when nothing behind it is priced.
func dollarsIf(v float64, priced bool) *float64 {
	if !priced {
		return nil
	}
	r := math.Round(v*100) / 100
	return &r
}

// actionsOn lists the ledger actions that target any of the named objects
// (nodes, or the nodes of GPU unit IDs "node/gpuN/…").
func actionsOn(actions []lever.Action, targets []string) []string {
	var out []string
	for _, a := range actions {
		if slices.ContainsFunc(a.Targets, func(t lever.Target) bool {
			return t.Kind == "node" && slices.ContainsFunc(targets, func(x string) bool { return x == t.Name || hasPrefixSlash(x, t.Name) })
		}) {
			out = append(out, a.ID)
		}
	}
	return out
}

func hasPrefixSlash(s, prefix string) bool {
	return len(s) > len(prefix) && s[:len(prefix)] == prefix && s[len(prefix)] == '/'
}
