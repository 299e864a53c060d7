package cost

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/usage"
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

// UnitHours is one GPU unit's time over a window: what the
// low-utilization list is made of (LowUtilFrom), kept per unit and hour
// by serve's history so that a range of it gives the list the snapshot of
// that range gives.
type UnitHours struct {
	Unit     string           `json:"unit"`
	Node     string           `json:"node"`
	Model    string           `json:"gpu_model"`
	Kind     cluster.UnitKind `json:"kind"`
	Profile  string           `json:"profile,omitempty"`
	Fraction float64          `json:"fraction"` // of its physical GPU
	// GPUUSDPerHour is the node's GPU price (the cost engine's); nil on
	// an unpriced node.
	GPUUSDPerHour *float64 `json:"gpu_usd_per_hour"`
	// LifeSeconds is the unit's node's time in the window; HeldSeconds
	// the time pods held the unit; MeasuredSeconds and ActiveSeconds the
	// held time with a usage series and its integral of activity.
	LifeSeconds     float64 `json:"life_seconds"`
	HeldSeconds     float64 `json:"held_seconds"`
	MeasuredSeconds float64 `json:"measured_seconds"`
	ActiveSeconds   float64 `json:"active_seconds"`
	// Unmeasured: some held time had no usage series.
	Unmeasured bool     `json:"unmeasured"`
	Holders    []string `json:"holders"`
	// Hist[b] is the measured held seconds at activity in [b%, (b+1)%)
	// (the usage histogram's buckets, scaled to the held time as the cost
	// engine scales a series).
	Hist [usage.ActivityBuckets]float64 `json:"-"`
}

// SecondsBelow is the measured held time below threshold, by the usage
// histogram's rule (whole-percent buckets below the threshold's).
func (u *UnitHours) SecondsBelow(threshold float64) float64 {
	limit := min(max(int(math.Round(threshold*100)), 0), usage.ActivityBuckets)
	var s float64
	for b := 0; b < limit; b++ {
		s += u.Hist[b]
	}
	return s
}

// Merge adds v (the same unit over a later time) to u: sums, the holders'
// union, v's description (the unit as it is last).
func (u *UnitHours) Merge(v *UnitHours) {
	u.Node, u.Model, u.Kind, u.Profile, u.Fraction = v.Node, v.Model, v.Kind, v.Profile, v.Fraction
	u.LifeSeconds += v.LifeSeconds
	u.HeldSeconds += v.HeldSeconds
	u.MeasuredSeconds += v.MeasuredSeconds
	u.ActiveSeconds += v.ActiveSeconds
	u.Unmeasured = u.Unmeasured || v.Unmeasured
	for _, h := range v.Holders {
		if !slices.Contains(u.Holders, h) {
			u.Holders = append(u.Holders, h)
		}
	}
	sort.Strings(u.Holders)
	for b := range u.Hist {
		u.Hist[b] += v.Hist[b]
	}
}

// UnitUsage is every GPU unit's time in the allocation's window, from its
// lines: each holding's held and measured time (a series scaled to the
// held time as the cost engine scales it) and each unit's node life; a
// GPU its units do not cover (MIG capacity not carved into an instance)
// is one entry for the rest, kind "uncarved". Sorted by unit.
func UnitUsage(a *Allocation, ix *cluster.Index) []UnitHours {
	units := map[string]*UnitHours{}
	refs := map[string]cluster.UnitRef{}
	get := func(id string, ref cluster.UnitRef) *UnitHours {
		x := units[id]
		if x == nil {
			x = &UnitHours{Unit: id, Node: ref.Node.Name, Model: ref.GPU.Model, Kind: ref.Unit.Kind, Profile: ref.Unit.Profile,
				Fraction: ref.Unit.Fraction, Holders: []string{}}
			units[id], refs[id] = x, ref
		}
		return x
	}
	for id, ref := range ix.Units {
		get(id, ref)
	}
	for i := range a.Snapshot.Nodes() {
		n := &a.Snapshot.Nodes()[i]
		for j := range n.GPUs {
			g := &n.GPUs[j]
			rest := 1.0
			for k := range g.Units {
				rest -= g.Units[k].Fraction
			}
			if rest > 1e-9 {
				id := fmt.Sprintf("%s/gpu%d (not carved into units)", n.Name, g.Index)
				x := get(id, cluster.UnitRef{Node: n, GPU: g, Unit: &cluster.Unit{ID: id, Kind: cluster.MIGSlice, Fraction: rest}})
				x.Kind, x.Fraction = "uncarved", rest
			}
		}
	}
	w := a.Snapshot.Window()
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
			x.HeldSeconds += heldSec
			if h := l.Pod.WorkloadKey(); !slices.Contains(x.Holders, h) {
				x.Holders = append(x.Holders, h)
			}
			if hd.Activity == nil || hd.Activity.Seconds <= 0 {
				x.Unmeasured = true
				continue
			}
			measured := math.Min(hd.Activity.Seconds, heldSec)
			k := measured / hd.Activity.Seconds
			x.MeasuredSeconds += measured
			x.ActiveSeconds += hd.Activity.ActiveSeconds * k
			st := hd.Activity.State()
			for j, sec := range st.Buckets {
				x.Hist[st.Offset+j] += sec * k
			}
		}
	}
	out := make([]UnitHours, 0, len(units))
	for id, x := range units {
		ref := refs[id]
		x.LifeSeconds = w.Clip(ref.Node.Created, ref.Node.Deleted)
		if p, ok := a.Prices[ref.Node.Name]; ok {
			v := p.GPUUSDPerHour
			x.GPUUSDPerHour = &v
		}
		sort.Strings(x.Holders)
		out = append(out, *x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Unit < out[j].Unit })
	return out
}

// lowUtil builds the list from the allocation's units.
func lowUtil(a *Allocation, ix *cluster.Index, o LowUtilOptions) *LowUtil {
	return LowUtilFrom(UnitUsage(a, ix), o)
}

// LowUtilFrom builds the list from units' time: one window's (UnitUsage)
// or a range of windows' (serve's history), where rows of the same unit
// add up (UnitHours.Merge). Its dollars are each row's hours below the
// threshold and unheld at that row's price × the unit's fraction: with one
// price over the range (the usual case) the same as the snapshot's.
func LowUtilFrom(rows []UnitHours, o LowUtilOptions) *LowUtil {
	b := NewLowUtilBuilder(o)
	for i := range rows {
		b.Add(&rows[i])
	}
	return b.List()
}

// LowUtilBuilder builds the list LowUtilFrom builds, a row at a time: it
// holds one sum per unit, not the rows (a range of serve's history at
// 10,000 GPUs is millions of unit-hours). A unit's rows added in the same
// order give the same list whatever the order across units.
type LowUtilBuilder struct {
	o     LowUtilOptions
	units map[string]*lowUtilAcc
	order []string
}

type lowUtilAcc struct {
	u      UnitHours
	usd    float64
	rate   *float64 // the one price of every row, or nil
	mix    bool     // rows at different prices (or some unpriced)
	seen   bool
	priced bool // some row priced
}

// NewLowUtilBuilder starts an empty list of o's threshold and hours.
func NewLowUtilBuilder(o LowUtilOptions) *LowUtilBuilder {
	return &LowUtilBuilder{o: o, units: map[string]*lowUtilAcc{}}
}

// Add adds one row of a unit's time; r is not kept (its holders are
// copied), so the caller may reuse it.
func (b *LowUtilBuilder) Add(r *UnitHours) {
	x := b.units[r.Unit]
	if x == nil {
		x = &lowUtilAcc{u: UnitHours{Unit: r.Unit, Holders: []string{}}}
		b.units[r.Unit] = x
		b.order = append(b.order, r.Unit)
	}
	x.u.Merge(r)
	switch {
	case !x.seen:
		x.seen = true
		if r.GPUUSDPerHour != nil {
			v := *r.GPUUSDPerHour
			x.rate = &v
		}
	case (x.rate == nil) != (r.GPUUSDPerHour == nil) || (x.rate != nil && *x.rate != *r.GPUUSDPerHour):
		x.mix = true
	}
	if r.GPUUSDPerHour != nil {
		x.priced = true
		x.usd += *r.GPUUSDPerHour * r.Fraction * (r.SecondsBelow(b.o.Threshold) + math.Max(r.LifeSeconds-r.HeldSeconds, 0)) / 3600
	}
}

// List is the list of the rows added so far.
func (b *LowUtilBuilder) List() *LowUtil {
	o := b.o
	out := &LowUtil{Threshold: o.Threshold, MinHours: o.MinHours, Units: []LowUtilUnit{}}
	for _, id := range b.order {
		x := b.units[id]
		u := LowUtilUnit{Unit: x.u.Unit, Node: x.u.Node, Model: x.u.Model, Kind: x.u.Kind, Profile: x.u.Profile,
			HoursBelow: x.u.SecondsBelow(o.Threshold) / 3600, HoursUnheld: math.Max(x.u.LifeSeconds-x.u.HeldSeconds, 0) / 3600}
		if x.u.Unmeasured && x.u.MeasuredSeconds == 0 && u.HoursUnheld < o.MinHours {
			out.Unmeasured++
			continue
		}
		if u.HoursBelow+u.HoursUnheld < o.MinHours {
			continue
		}
		if x.u.MeasuredSeconds > 0 {
			v := x.u.ActiveSeconds / x.u.MeasuredSeconds
			u.Utilization = &v
		}
		u.Holders = append([]string{}, x.u.Holders...)
		switch {
		case !x.mix && x.rate != nil:
			v := *x.rate * x.u.Fraction * (u.HoursBelow + u.HoursUnheld)
			u.USD = &v
		case x.mix && x.priced: // the priced rows' dollars
			v := x.usd
			u.USD = &v
		}
		out.Units = append(out.Units, u)
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
