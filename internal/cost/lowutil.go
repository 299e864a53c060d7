package cost

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// LowUtilOptions ask for the low-utilization list: GPU units (whole
// GPUs, MIG slices, time-slice shares) that spent at least MinHours of
// the window below Threshold. The zero value asks for none.
type LowUtilOptions struct {
	Threshold float64 // activity, 0..1 (0.30: 30 %)
	MinHours  float64
}

// Default low-utilization list: under 30 % for 6 hours or more.
const (
	DefaultLowUtilThreshold = 0.30
	DefaultLowUtilHours     = 6
)

// On reports whether the list is asked for.
func (o LowUtilOptions) On() bool { return o.Threshold > 0 || o.MinHours > 0 }

// Validate names what is out of range.
func (o LowUtilOptions) Validate() error {
	if !o.On() {
		return nil
	}
	if o.Threshold <= 0 || o.Threshold > 1 || math.IsNaN(o.Threshold) {
		return fmt.Errorf("low-util: threshold %v is outside (0, 100%%]", o.Threshold)
	}
	if o.MinHours <= 0 || math.IsNaN(o.MinHours) || math.IsInf(o.MinHours, 0) {
		return fmt.Errorf("low-util: %v hours: give a positive duration (e.g. 30%%:6h)", o.MinHours)
	}
	return nil
}

// ParseLowUtil reads "30%:6h" (threshold and least time below it), "30%"
// (6 hours) or "" (off).
func ParseLowUtil(s string) (LowUtilOptions, error) {
	if s == "" {
		return LowUtilOptions{}, nil
	}
	pct, dur, hasDur := strings.Cut(s, ":")
	v, err := strconv.ParseFloat(strings.TrimSuffix(pct, "%"), 64)
	if err != nil || !strings.HasSuffix(pct, "%") {
		return LowUtilOptions{}, fmt.Errorf("low-util: %q: want PERCENT%%[:DURATION], e.g. 30%%:6h", s)
	}
	o := LowUtilOptions{Threshold: v / 100, MinHours: DefaultLowUtilHours}
	if hasDur {
		d, err := time.ParseDuration(dur)
		if err != nil {
			return LowUtilOptions{}, fmt.Errorf("low-util: %q: %q is not a duration (e.g. 6h, 90m)", s, dur)
		}
		o.MinHours = d.Hours()
	}
	return o, o.Validate()
}

// LowUtil is the low-utilization list.
type LowUtil struct {
	Threshold float64       `json:"threshold"`
	MinHours  float64       `json:"min_hours"`
	Units     []LowUtilUnit `json:"units"`
	// USD is the units' dollars below the threshold, on priced nodes.
	USD float64 `json:"usd"`
	// Unmeasured counts units whose held time had no usage series:
	// unknown, never counted as low.
	Unmeasured int `json:"unmeasured_units"`
}

// LowUtilUnit is one GPU unit below the threshold for at least MinHours:
// its measured held hours below it plus the hours no pod held it (a unit
// nobody holds runs nothing).
type LowUtilUnit struct {
	Unit    string           `json:"unit"`
	Node    string           `json:"node"`
	Model   string           `json:"gpu_model"`
	Kind    cluster.UnitKind `json:"kind"`
	Profile string           `json:"profile,omitempty"`
	// Holders are the workloads that held it in the window.
	Holders []string `json:"holders"`
	// HoursBelow are held, measured hours below the threshold;
	// HoursUnheld the unit's hours on its node that no pod held.
	HoursBelow  float64 `json:"hours_below"`
	HoursUnheld float64 `json:"hours_unheld"`
	// Utilization is the unit's mean activity over its measured held
	// time; nil when none was measured.
	Utilization *float64 `json:"utilization"`
	// USD is those hours at the node's GPU price (the cost engine's) ×
	// the unit's fraction of its GPU; nil on an unpriced node.
	USD *float64 `json:"usd"`
}

// lowUtil builds the list from the allocation's lines: each holding's
// measured time below the threshold (as the cost engine scales a series
// to the held time) and each unit's unheld time.
func lowUtil(a *Allocation, ix *cluster.Index, o LowUtilOptions) *LowUtil {
	type acc struct {
		u                      LowUtilUnit
		ref                    cluster.UnitRef
		held, measured, active float64 // seconds
		holders                map[string]bool
		unmeasured             bool
		frac                   float64 // of its physical GPU
	}
	units := map[string]*acc{}
	get := func(id string, ref cluster.UnitRef) *acc {
		x := units[id]
		if x == nil {
			x = &acc{ref: ref, holders: map[string]bool{}, u: LowUtilUnit{Unit: id, Node: ref.Node.Name, Model: ref.GPU.Model,
				Kind: ref.Unit.Kind, Profile: ref.Unit.Profile}, frac: ref.Unit.Fraction}
			units[id] = x
		}
		return x
	}
	for id, ref := range ix.Units {
		get(id, ref)
	}
	// A GPU its units do not cover (MIG capacity not carved into an
	// instance) is capacity no pod can hold: one entry for the rest.
	for i := range a.Snapshot.Nodes {
		n := &a.Snapshot.Nodes[i]
		for j := range n.GPUs {
			g := &n.GPUs[j]
			rest := 1.0
			for k := range g.Units {
				rest -= g.Units[k].Fraction
			}
			if rest > 1e-9 {
				id := fmt.Sprintf("%s/gpu%d (not carved into units)", n.Name, g.Index)
				x := get(id, cluster.UnitRef{Node: n, GPU: g, Unit: &cluster.Unit{ID: id, Kind: cluster.MIGSlice, Fraction: rest}})
				x.u.Kind, x.frac = "uncarved", rest
			}
		}
	}
	w := a.Snapshot.Window
	for i := range a.Lines {
		l := &a.Lines[i]
		if l.Pod == nil {
			continue
		}
		from, to, ok := w.Interval(l.Pod.Start, l.Pod.End)
		if !ok {
			continue
		}
		heldSec := cluster.Window{Start: from, End: to}.Clip(l.Node.Created, l.Node.Deleted)
		for _, hd := range l.Pod.GPUs {
			ref, ok := ix.Units[hd.UnitID]
			if !ok {
				continue
			}
			x := get(hd.UnitID, ref)
			x.held += heldSec
			x.holders[l.Pod.WorkloadKey()] = true
			if hd.Activity == nil || hd.Activity.Seconds <= 0 {
				x.unmeasured = true
				continue
			}
			measured := math.Min(hd.Activity.Seconds, heldSec)
			k := measured / hd.Activity.Seconds
			x.measured += measured
			x.active += hd.Activity.ActiveSeconds * k
			x.u.HoursBelow += hd.Activity.IdleSeconds(o.Threshold) * k / 3600
		}
	}
	out := &LowUtil{Threshold: o.Threshold, MinHours: o.MinHours, Units: []LowUtilUnit{}}
	for _, x := range units {
		life := w.Clip(x.ref.Node.Created, x.ref.Node.Deleted)
		x.u.HoursUnheld = math.Max(life-x.held, 0) / 3600
		if x.unmeasured && x.measured == 0 && x.u.HoursUnheld < o.MinHours {
			out.Unmeasured++
			continue
		}
		if x.u.HoursBelow+x.u.HoursUnheld < o.MinHours {
			continue
		}
		if x.measured > 0 {
			u := x.active / x.measured
			x.u.Utilization = &u
		}
		for h := range x.holders {
			x.u.Holders = append(x.u.Holders, h)
		}
		sort.Strings(x.u.Holders)
		if x.u.Holders == nil {
			x.u.Holders = []string{}
		}
		if p, ok := a.Prices[x.ref.Node.Name]; ok {
			v := p.GPUUSDPerHour * x.frac * (x.u.HoursBelow + x.u.HoursUnheld)
			x.u.USD = &v
		}
		out.Units = append(out.Units, x.u)
	}
	sort.Slice(out.Units, func(i, j int) bool {
		ui, uj := out.Units[i], out.Units[j]
		if di, dj := usdOr(ui.USD), usdOr(uj.USD); di != dj {
			return di > dj
		}
		if hi, hj := ui.HoursBelow+ui.HoursUnheld, uj.HoursBelow+uj.HoursUnheld; hi != hj {
			return hi > hj
		}
		return ui.Unit < uj.Unit
	})
	for _, u := range out.Units { // in list order: the same sum every time
		if u.USD != nil {
			out.USD += *u.USD
		}
	}
	return out
}

func usdOr(v *float64) float64 {
	if v == nil {
		return -1
	}
	return *v
}
