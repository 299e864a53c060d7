package tracker

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
)

// Hour is one node's cost and work in one hour bucket of the history.
type Hour struct {
	Start time.Time
	Node  string
	// USD is the node's cost in the bucket (the report's allocation,
	// summed over the cycles recorded in it); Seconds the cycle time
	// recorded; ActiveGPUHours the work its GPUs did.
	USD            float64
	Seconds        float64
	ActiveGPUHours float64
}

// NodeFacts are what the observations showed of a node: realisation
// scopes nodes by them.
type NodeFacts struct {
	Model    string    `json:"gpu_model"`
	Instance string    `json:"instance_type,omitempty"`
	Capacity string    `json:"capacity_type,omitempty"`
	Region   string    `json:"region,omitempty"`
	Created  time.Time `json:"created,omitzero"`
	// Seen is the last window end that showed it.
	Seen time.Time `json:"seen"`
}

// Measurement statuses of a realised saving.
const (
	Measured      = "measured"
	TooEarly      = "too-early"
	NotApplied    = "not-applied"
	Prerequisite  = "prerequisite"
	NotMeasurable = "not-measurable"
)

// MinWindow is the shortest before/after window a saving is measured on.
const MinWindow = 6 * time.Hour

// Realised is one action's measured saving: its scope's run-rate on equal
// windows before and after it was applied.
type Realised struct {
	ID     string `json:"id"`
	Lever  string `json:"lever"`
	Kind   string `json:"kind"`
	Status string `json:"status"`
	// Before and After are the equal windows around AppliedAt.
	AppliedAt time.Time       `json:"applied_at,omitzero"`
	Before    *cluster.Window `json:"before,omitempty"`
	After     *cluster.Window `json:"after,omitempty"`
	// Nodes is how many nodes its scope holds.
	Nodes          int     `json:"nodes"`
	BeforeUSDMonth float64 `json:"before_usd_month"`
	AfterUSDMonth  float64 `json:"after_usd_month"`
	// RealisedUSDMonth = before − after; Low and High the range from the
	// hour-to-hour noise (± 2 standard errors of the hourly means).
	RealisedUSDMonth  float64 `json:"realised_usd_month"`
	LowUSDMonth       float64 `json:"low_usd_month"`
	HighUSDMonth      float64 `json:"high_usd_month"`
	PredictedUSDMonth float64 `json:"predicted_usd_month"`
	Note              string  `json:"note"`
}

// Total is the cluster's spend on the baseline's window against the
// latest window of the same length, split into what each applied action's
// nodes account for and the rest; it adds up to the cent.
type Total struct {
	Status string          `json:"status"`
	Before *cluster.Window `json:"before,omitempty"`
	After  *cluster.Window `json:"after,omitempty"`
	// BeforeUSD and AfterUSD are the windows' spend (what gpuwise report
	// over each window totals); the USDMonth figures their run-rates.
	BeforeUSD      float64 `json:"before_usd"`
	AfterUSD       float64 `json:"after_usd"`
	BeforeUSDMonth float64 `json:"before_usd_month"`
	AfterUSDMonth  float64 `json:"after_usd_month"`
	// ChangeUSDMonth = before − after = Σ Actions + OtherUSDMonth, cents.
	ChangeUSDMonth float64            `json:"change_usd_month"`
	Actions        map[string]float64 `json:"actions_usd_month"`
	OtherUSDMonth  float64            `json:"other_usd_month"`
	LowUSDMonth    float64            `json:"low_usd_month"`
	HighUSDMonth   float64            `json:"high_usd_month"`
	// PredictedUSDMonth sums the applied actions' predicted savings.
	PredictedUSDMonth float64 `json:"predicted_usd_month"`
	// Demand: active GPU-hours per hour in each window; AtEqualDemand is
	// the change had the work stayed as it is now (before's cost per
	// active GPU-hour × after's work − after's cost), DemandUSDMonth the
	// part of the change the work explains; nil when unmeasured.
	WorkBefore       *float64 `json:"work_before_gpu_hours_per_hour"`
	WorkAfter        *float64 `json:"work_after_gpu_hours_per_hour"`
	AtEqualDemandUSD *float64 `json:"at_equal_demand_usd_month"`
	DemandUSDMonth   *float64 `json:"demand_usd_month"`
	Normalisation    string   `json:"normalisation"`
	Note             string   `json:"note"`
}

// Proof is the realised savings of a plan.
type Proof struct {
	At      time.Time  `json:"at"`
	Actions []Realised `json:"actions"`
	Total   Total      `json:"total"`
	// Flags are the red flags watched after the applied actions.
	Flags []Flag `json:"flags"`
}

// NormalisedBy says what demand is measured in.
const NormalisedBy = "active GPU-hours (the work the GPUs did); requests served and tokens are not kept in the history, so serving work is not normalised by them"

// Realise measures every tracked action's saving and the total from the
// nodes' hourly cost (hours covers the history, in any order), scoping
// nodes by the facts the plan remembers. Each node's cost counts for at
// most one action: the first applied one, in lever order, whose scope
// holds it (so two actions on one node never count it twice).
func (p *Plan) Realise(hours []Hour) *Proof {
	h := index(hours)
	pf := &Proof{At: p.Updated}
	owner := p.owners(p.Nodes)
	for _, a := range p.ordered() {
		pf.Actions = append(pf.Actions, p.realise(a, h, owner))
	}
	pf.Total = p.total(h, owner)
	pf.Flags = p.flags(pf.Actions)
	return pf
}

// ordered is the actions in lever order, then first proposed.
func (p *Plan) ordered() []*Action {
	rank := map[string]int{}
	for i, l := range ledger.LeverNames() {
		rank[l] = i
	}
	out := slices.Clone(p.Actions)
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Lever] < rank[out[j].Lever] })
	return out
}

// moneyKind: the actions whose nodes carry money (the prerequisites'
// money is their realisers').
func moneyKind(k string) bool {
	switch k {
	case lever.KindRemoveNodes, lever.KindRepack, lever.KindScaleNodes, lever.KindAutoscale, lever.KindReclaim,
		lever.KindSpot, lever.KindRegion:
		return true
	}
	return false
}

// owners maps each node to the first applied money action whose scope
// holds it.
func (p *Plan) owners(nodes map[string]NodeFacts) map[string]string {
	out := map[string]string{}
	for _, a := range p.ordered() {
		if !moneyKind(a.Kind) || (a.Status != Applied && a.Status != Partly) {
			continue
		}
		for _, n := range scope(a, nodes) {
			if _, taken := out[n]; !taken {
				out[n] = a.ID
			}
		}
	}
	return out
}

// scope is the nodes an action's money shows on: the nodes it names and,
// for moves and autoscaling, the nodes of its GPU models (or instance
// types) that started after it was proposed.
func scope(a *Action, nodes map[string]NodeFacts) []string {
	set := map[string]bool{}
	models, instances := map[string]bool{}, map[string]bool{}
	for _, t := range a.Targets {
		if t.Kind == "node" {
			set[t.Name] = true
		}
		if t.Model != "" {
			models[t.Model] = true
		}
		if t.Instance != "" {
			instances[t.Instance] = true
		}
		if t.Kind == "workload" && t.Model != "" {
			models[t.Model] = true
		}
	}
	for name, f := range nodes {
		switch a.Kind {
		case lever.KindScaleNodes, lever.KindAutoscale, lever.KindReclaim:
			if models[f.Model] {
				set[name] = true
			}
		case lever.KindSpot:
			if f.Capacity == cluster.Spot && f.Created.After(a.FirstProposed) && (instances[f.Instance] || (len(instances) == 0 && models[f.Model])) {
				set[name] = true
			}
		case lever.KindRegion:
			if f.Created.After(a.FirstProposed) && instances[f.Instance] {
				for _, t := range a.Targets {
					if t.Region == f.Region {
						set[name] = true
					}
				}
			}
		}
	}
	return sortedKeys(set)
}

// hours indexed: per bucket, per node.
type hourIndex struct {
	buckets []time.Time
	at      map[time.Time]map[string]Hour
	cover   map[time.Time]float64 // seconds recorded in the bucket
}

func index(hs []Hour) *hourIndex {
	ix := &hourIndex{at: map[time.Time]map[string]Hour{}, cover: map[time.Time]float64{}}
	for _, h := range hs {
		m := ix.at[h.Start]
		if m == nil {
			m = map[string]Hour{}
			ix.at[h.Start] = m
			ix.buckets = append(ix.buckets, h.Start)
		}
		m[h.Node] = h
		ix.cover[h.Start] = math.Max(ix.cover[h.Start], h.Seconds)
	}
	sort.Slice(ix.buckets, func(i, j int) bool { return ix.buckets[i].Before(ix.buckets[j]) })
	return ix
}

func (ix *hourIndex) first() time.Time {
	if len(ix.buckets) == 0 {
		return time.Time{}
	}
	return ix.buckets[0]
}

func (ix *hourIndex) end() time.Time {
	if len(ix.buckets) == 0 {
		return time.Time{}
	}
	return ix.buckets[len(ix.buckets)-1].Add(time.Hour)
}

// side is one window's spend of the nodes keep selects: the total, the
// hours covered, each hour's rate ($/h) and the work.
type side struct {
	usd, seconds, work float64
	rates              []float64
}

func (ix *hourIndex) side(w cluster.Window, keep func(node string) bool) side {
	var s side
	for _, b := range ix.buckets {
		if b.Before(w.Start) || !b.Before(w.End) || ix.cover[b] == 0 {
			continue
		}
		var usd float64
		for node, h := range ix.at[b] {
			if keep(node) {
				usd += h.USD
				s.work += h.ActiveGPUHours
			}
		}
		s.usd += usd
		s.seconds += ix.cover[b]
		s.rates = append(s.rates, usd/(ix.cover[b]/3600))
	}
	return s
}

func (s side) month() float64 {
	if s.seconds == 0 {
		return 0
	}
	return s.usd / (s.seconds / 3600) * ledger.HoursPerMonth
}

// spread is 2 standard errors of the difference of the hourly means, as
// $/month.
func spread(b, a side) float64 {
	v := func(xs []float64) float64 {
		if len(xs) < 2 {
			return 0
		}
		var m float64
		for _, x := range xs {
			m += x
		}
		m /= float64(len(xs))
		var ss float64
		for _, x := range xs {
			ss += (x - m) * (x - m)
		}
		return ss / float64(len(xs)-1) / float64(len(xs))
	}
	return 2 * math.Sqrt(v(b.rates)+v(a.rates)) * ledger.HoursPerMonth
}

func (p *Plan) realise(a *Action, ix *hourIndex, owner map[string]string) Realised {
	r := Realised{ID: a.ID, Lever: a.Lever, Kind: a.Kind, PredictedUSDMonth: a.PredictedUSDMonth, AppliedAt: a.AppliedAt}
	switch {
	case a.Status != Applied && a.Status != Partly:
		r.Status, r.Note = NotApplied, "not applied: nothing to measure"
		return r
	case a.Lever == Groundwork:
		r.Status, r.Note = Prerequisite, "groundwork: it saves nothing itself; "+groundworkWhy[a.Kind]
		return r
	case a.Kind == lever.KindCommit:
		r.Status, r.Note = NotMeasurable, "a commitment changes the bill's rate, not the node prices gpuwise allocates: give --prices with the committed rate, or compare the bill"
		return r
	case !moneyKind(a.Kind):
		r.Status = Prerequisite
		r.Note = "a prerequisite: it saves nothing until the nodes it frees go"
		if len(a.RealisedBy) > 0 {
			r.Note += " (" + joinUnique(slices.Clone(a.RealisedBy)) + ")"
		}
		return r
	}
	keep := func(n string) bool { return owner[n] == a.ID }
	for _, id := range owner {
		if id == a.ID {
			r.Nodes++
		}
	}
	t := a.AppliedAt.Truncate(time.Hour)
	l := min(t.Sub(ix.first()), ix.end().Sub(t), 30*24*time.Hour).Truncate(time.Hour)
	if l < MinWindow {
		r.Status = TooEarly
		r.Note = fmt.Sprintf("applied at %s: equal windows of at least %s before and after it are needed in the history", t.UTC().Format(time.RFC3339), MinWindow)
		return r
	}
	bw, aw := cluster.Window{Start: t.Add(-l), End: t}, cluster.Window{Start: t, End: t.Add(l)}
	if a.AppliedAt.After(t) { // the hour it happened in is in neither window
		aw = cluster.Window{Start: t.Add(time.Hour), End: t.Add(time.Hour + l)}
		if aw.End.After(ix.end()) {
			aw.End = ix.end()
			bw.Start = t.Add(-(aw.End.Sub(aw.Start)))
		}
	}
	b, af := ix.side(bw, keep), ix.side(aw, keep)
	r.Before, r.After = &bw, &aw
	if b.seconds < MinWindow.Seconds() || af.seconds < MinWindow.Seconds() {
		r.Status = TooEarly
		r.Note = fmt.Sprintf("the history covers %s of the %s before it and %s of the %s after it: at least %s of each is needed",
			secs(b.seconds), l, secs(af.seconds), l, MinWindow)
		return r
	}
	r.Status = Measured
	r.BeforeUSDMonth, r.AfterUSDMonth = cents(b.month()), cents(af.month())
	r.RealisedUSDMonth = cents(r.BeforeUSDMonth - r.AfterUSDMonth)
	sp := spread(b, af)
	r.LowUSDMonth, r.HighUSDMonth = cents(r.RealisedUSDMonth-sp), cents(r.RealisedUSDMonth+sp)
	r.Note = fmt.Sprintf("%d node(s), %s before and after", r.Nodes, l)
	if r.Nodes == 0 {
		r.Note = "its nodes are counted by an earlier applied action"
	}
	return r
}

// total: the baseline's window against the latest of the same length.
func (p *Plan) total(ix *hourIndex, owner map[string]string) Total {
	t := Total{Normalisation: NormalisedBy, Actions: map[string]float64{}}
	if p.Baseline == nil || len(ix.buckets) == 0 {
		t.Status, t.Note = TooEarly, "no baseline or no history yet"
		return t
	}
	start := p.Baseline.Window.Start
	if f := ix.first(); f.After(start) {
		start = f
	}
	base := p.Baseline.At.Truncate(time.Hour)
	now := ix.end()
	l := min(base.Sub(start), now.Sub(base)).Truncate(time.Hour)
	if l < MinWindow {
		t.Status = TooEarly
		t.Note = fmt.Sprintf("the history has %s since the baseline: at least %s is needed", now.Sub(base), MinWindow)
		return t
	}
	bw, aw := cluster.Window{Start: base.Add(-l), End: base}, cluster.Window{Start: now.Add(-l), End: now}
	t.Before, t.After, t.Status = &bw, &aw, Measured
	all := func(string) bool { return true }
	b, a := ix.side(bw, all), ix.side(aw, all)
	if b.seconds < MinWindow.Seconds() || a.seconds < MinWindow.Seconds() {
		t.Status = TooEarly
		t.Note = fmt.Sprintf("the history covers %s of the baseline's window and %s of the latest: at least %s of each is needed", secs(b.seconds), secs(a.seconds), MinWindow)
		return t
	}
	t.BeforeUSD, t.AfterUSD = cents(b.usd), cents(a.usd)
	t.BeforeUSDMonth, t.AfterUSDMonth = cents(b.month()), cents(a.month())
	change := ledger.CentsOf(t.BeforeUSDMonth) - ledger.CentsOf(t.AfterUSDMonth)
	t.ChangeUSDMonth = float64(change) / 100
	var acts ledger.Cents
	for _, ac := range p.Actions {
		if ac.Status == Applied || ac.Status == Partly {
			t.PredictedUSDMonth += ac.PredictedUSDMonth
		}
		keep := func(n string) bool { return owner[n] == ac.ID }
		bs, as := ix.side(bw, keep), ix.side(aw, keep)
		if bs.usd == 0 && as.usd == 0 {
			continue
		}
		c := ledger.CentsOf(bs.month()) - ledger.CentsOf(as.month())
		t.Actions[ac.ID] = float64(c) / 100
		acts += c
	}
	t.PredictedUSDMonth = cents(t.PredictedUSDMonth)
	t.OtherUSDMonth = float64(change-acts) / 100
	sp := spread(b, a)
	t.LowUSDMonth, t.HighUSDMonth = cents(t.ChangeUSDMonth-sp), cents(t.ChangeUSDMonth+sp)
	if hb, ha := b.seconds/3600, a.seconds/3600; b.work > 0 && hb > 0 && ha > 0 {
		wb, wa := b.work/hb, a.work/ha
		eq := cents(t.BeforeUSDMonth*wa/wb - t.AfterUSDMonth)
		dem := cents(t.ChangeUSDMonth - eq)
		t.WorkBefore, t.WorkAfter, t.AtEqualDemandUSD, t.DemandUSDMonth = ptr(round2(wb)), ptr(round2(wa)), &eq, &dem
	} else {
		t.Note = "no active GPU-hours in the baseline's window: the demand change cannot be separated"
	}
	return t
}

func ptr(x float64) *float64 { return &x }

func secs(s float64) time.Duration { return time.Duration(s) * time.Second }

// cents rounds dollars to the cent.
func cents(usd float64) float64 { return float64(ledger.CentsOf(usd)) / 100 }

// Reconcile checks that the total adds up: the change is before − after
// and the actions plus the rest are the change, to the cent.
func (t Total) Reconcile() error {
	if t.Status != Measured {
		return nil
	}
	change := ledger.CentsOf(t.BeforeUSDMonth) - ledger.CentsOf(t.AfterUSDMonth)
	if ledger.CentsOf(t.ChangeUSDMonth) != change {
		return fmt.Errorf("progress: change %.2f is not before %.2f − after %.2f", t.ChangeUSDMonth, t.BeforeUSDMonth, t.AfterUSDMonth)
	}
	sum := ledger.CentsOf(t.OtherUSDMonth)
	for _, v := range t.Actions {
		sum += ledger.CentsOf(v)
	}
	if sum != change {
		return fmt.Errorf("progress: actions + other = %.2f, not the change %.2f", float64(sum)/100, t.ChangeUSDMonth)
	}
	return nil
}
