package quota

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Options tune the sizing.
type Options struct {
	// Percentile of the units held at once, over time, in (0, 1].
	Percentile float64
	// Headroom is added on top of the percentile: 0.2 is +20%.
	Headroom float64
	// Exempt namespaces get no quota (kube-system, the GPU Operator's).
	Exempt []string
}

// DefaultOptions are p95 + 20%.
func DefaultOptions(exempt []string) Options {
	return Options{Percentile: 0.95, Headroom: 0.2, Exempt: exempt}
}

// Validate lists every problem, each naming its flag.
func (o Options) Validate() error {
	var errs []error
	if !(o.Percentile > 0 && o.Percentile <= 1) {
		errs = append(errs, fmt.Errorf("percentile: %v is outside (0, 1], e.g. 0.95", o.Percentile))
	}
	if !(o.Headroom >= 0 && o.Headroom <= 10) {
		errs = append(errs, fmt.Errorf("headroom: %v is outside [0, 10], e.g. 0.2 for +20%%", o.Headroom))
	}
	return errors.Join(errs...)
}

// Resource is one quota counter of a namespace.
type Resource struct {
	// Name is the extended resource ("nvidia.com/gpu"); the quota key is
	// "requests." + Name.
	Name string `json:"resource"`
	// Percentile is the time-weighted percentile of units requested at once.
	Percentile float64 `json:"percentile_units"`
	// Peak is the most units requested at once.
	Peak int64 `json:"peak_units"`
	// Hard is the quota: ceil(Percentile × (1 + headroom)), at least 1.
	Hard int64 `json:"hard"`
	// UnitHours are the unit-hours requested over the window.
	UnitHours float64 `json:"unit_hours"`
	// USDPerUnitHour is the namespace's mean price of one unit-hour of this
	// resource in the window, from the cost allocation; nil when none of
	// its held units was priced.
	USDPerUnitHour *float64 `json:"usd_per_unit_hour,omitempty"`
	// MonthlyCapUSD is Hard × USDPerUnitHour × 730: the most a month of
	// this resource can cost the namespace under the quota.
	MonthlyCapUSD *float64 `json:"monthly_cap_usd,omitempty"`
}

// Namespace is one namespace's quota.
type Namespace struct {
	Namespace string     `json:"namespace"`
	Resources []Resource `json:"resources"`
}

// Result is every namespace's quota, by namespace name.
type Result struct {
	Window     time.Duration `json:"window"`
	Percentile float64       `json:"percentile"`
	Headroom   float64       `json:"headroom"`
	Namespaces []Namespace   `json:"namespaces"`
	Notes      []string      `json:"notes,omitempty"`
}

// Size computes the quotas of every namespace that requested GPU units in
// the window; a is the cost engine's allocation of the same snapshot.
func Size(s *cluster.Prepared, a *cost.Allocation, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	w := s.Window()
	res := &Result{Window: w.End.Sub(w.Start), Percentile: o.Percentile, Headroom: o.Headroom}
	series := map[key][]event{}
	for i := range s.Pods() {
		p := &s.Pods()[i]
		if slices.Contains(o.Exempt, p.Namespace) {
			continue
		}
		addPod(series, p, w)
	}
	prices := rates(a, s.Index())
	for _, k := range sortedKeys(series) {
		r := k.size(series[k], w, o, prices[k])
		res.add(k.ns, r)
		if r.Peak > r.Hard {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %s peaked at %d units, above the quota of %d: pods beyond it are refused at creation (a queue such as Kueue holds them instead)",
				k.ns, k.resource, r.Peak, r.Hard))
		}
		if r.USDPerUnitHour == nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %s is not priced (no held unit on a priced node): the quota's $ cap is unknown, not $0", k.ns, k.resource))
		}
	}
	return res, nil
}

func (r *Result) add(ns string, q Resource) {
	if n := len(r.Namespaces); n > 0 && r.Namespaces[n-1].Namespace == ns {
		r.Namespaces[n-1].Resources = append(r.Namespaces[n-1].Resources, q)
		return
	}
	r.Namespaces = append(r.Namespaces, Namespace{Namespace: ns, Resources: []Resource{q}})
}

// key is one namespace's resource.
type key struct{ ns, resource string }

// event is a change in units requested at a time.
type event struct {
	at    time.Time
	delta int64
}

// addPod records the pod's GPU requests from its start to its end (the
// window's end while it runs), clipped to the window.
func addPod(series map[key][]event, p *cluster.Pod, w cluster.Window) {
	start, end := p.Start, p.End
	if start.IsZero() || start.Before(w.Start) {
		start = w.Start
	}
	if end.IsZero() || end.After(w.End) {
		end = w.End
	}
	if !end.After(start) {
		return
	}
	for _, c := range p.Containers {
		for name, n := range c.GPURequests {
			if n > 0 {
				k := key{p.Namespace, name}
				series[k] = append(series[k], event{start, n}, event{end, -n})
			}
		}
	}
}

func sortedKeys(series map[key][]event) []key {
	keys := make([]key, 0, len(series))
	for k := range series {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].ns != keys[j].ns {
			return keys[i].ns < keys[j].ns
		}
		return keys[i].resource < keys[j].resource
	})
	return keys
}

// size turns one series into a quota counter.
func (k key) size(evs []event, w cluster.Window, o Options, rate *float64) Resource {
	n := need(evs, w, o)
	r := Resource{Name: k.resource, Percentile: n.Percentile, Peak: n.Peak, Hard: n.Hard, UnitHours: n.UnitHours, USDPerUnitHour: rate}
	if rate != nil {
		c := float64(n.Hard) * *rate * pricing.HoursPerMonth
		r.MonthlyCapUSD = &c
	}
	return r
}

// timeAtLevel sweeps the events: seconds spent at each level of units, the
// peak level and the unit-seconds. Kubernetes stamps pod starts and ends to
// the second, so events are compared at that resolution and, within one
// second, ends come before starts: a pod and the replacement started in
// the second it ended do not overlap (no false peak above the quota).
func timeAtLevel(evs []event, w cluster.Window) (map[int64]float64, int64, float64) {
	sec := func(t time.Time) time.Time { return t.Truncate(time.Second) }
	slices.SortFunc(evs, func(a, b event) int {
		if c := sec(a.at).Compare(sec(b.at)); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta)
	})
	levels := map[int64]float64{}
	var level, peak int64
	var unitSec float64
	prev := w.Start
	for _, e := range evs {
		at := e.at
		if at.Before(prev) { // an end sorted before a start earlier in its second
			at = prev
		}
		d := at.Sub(prev).Seconds()
		levels[level] += d
		unitSec += float64(level) * d
		prev = at
		level += e.delta
		if e.delta > 0 {
			peak = max(peak, level)
		}
	}
	levels[level] += w.End.Sub(prev).Seconds()
	return levels, peak, unitSec
}

// percentile is the smallest level at which the time spent at or below it
// reaches q of the window.
func percentile(levels map[int64]float64, q, total float64) float64 {
	ls := make([]int64, 0, len(levels))
	for l := range levels {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	var acc float64
	for _, l := range ls {
		acc += levels[l]
		if acc >= q*total-1e-6 {
			return float64(l)
		}
	}
	return float64(ls[len(ls)-1])
}

// rates are each namespace's mean $ per unit-hour of each GPU resource:
// the cost engine's allocated GPU dollars of its pods over the unit-hours
// they held, on priced nodes. A pod requesting two GPU resources is left
// out (its dollars cannot be split between them).
func rates(a *cost.Allocation, ix *cluster.Index) map[key]*float64 {
	usd, hours := map[key]float64{}, map[key]float64{}
	for i := range a.Lines {
		l := &a.Lines[i]
		if l.Pod == nil || !l.Priced || len(l.Pod.GPUs) == 0 {
			continue
		}
		name, ok := onlyResource(l.Pod)
		if !ok {
			continue
		}
		frac := fractionSum(l.Pod, ix)
		if frac <= 0 || l.GPUHours.Allocated <= 0 {
			continue
		}
		held := l.GPUHours.Allocated / frac // hours each unit was held
		k := key{l.Pod.Namespace, name}
		usd[k] += l.GPUCost.Allocated()
		hours[k] += held * float64(len(l.Pod.GPUs))
	}
	out := map[key]*float64{}
	for k, h := range hours {
		r := usd[k] / h
		out[k] = &r
	}
	return out
}

func onlyResource(p *cluster.Pod) (string, bool) {
	name := ""
	for _, c := range p.Containers {
		for r, n := range c.GPURequests {
			if n <= 0 {
				continue
			}
			if name != "" && r != name {
				return "", false
			}
			name = r
		}
	}
	return name, name != ""
}

// fractionSum is the sum of the fractions of the units the pod held.
func fractionSum(p *cluster.Pod, ix *cluster.Index) float64 {
	var f float64
	for _, h := range p.GPUs {
		if ref, ok := ix.Units[h.UnitID]; ok {
			f += ref.Unit.Fraction
		}
	}
	return f
}

// Need is what a series of units requested at once needs: its
// time-weighted percentile, peak, the quota sized from them
// (ceil(percentile × (1 + headroom)), at least 1) and its unit-hours.
type Need struct {
	Percentile float64
	Peak       int64
	Hard       int64
	UnitHours  float64
}

// Series is a count of units requested at once over a window, built
// from intervals (pod lives): the one sizing rule `generate quota` and
// the Kueue ClusterQueues `generate kueue` write share.
type Series struct {
	w   cluster.Window
	evs []event
}

// NewSeries is an empty series over w.
func NewSeries(w cluster.Window) *Series { return &Series{w: w} }

// Add counts n units from from to to (a zero from is the window's start,
// a zero to its end), clipped to the window.
func (s *Series) Add(from, to time.Time, n int64) {
	if from.IsZero() || from.Before(s.w.Start) {
		from = s.w.Start
	}
	if to.IsZero() || to.After(s.w.End) {
		to = s.w.End
	}
	if n <= 0 || !to.After(from) {
		return
	}
	s.evs = append(s.evs, event{from, n}, event{to, -n})
}

// Merge adds o's intervals (a series over the same window).
func (s *Series) Merge(o *Series) { s.evs = append(s.evs, o.evs...) }

// Need sizes the series with o's percentile and headroom.
func (s *Series) Need(o Options) Need {
	return need(slices.Clone(s.evs), s.w, o)
}

func need(evs []event, w cluster.Window, o Options) Need {
	levels, peak, unitSec := timeAtLevel(evs, w)
	p := percentile(levels, o.Percentile, w.End.Sub(w.Start).Seconds())
	hard := max(int64(math.Ceil(p*(1+o.Headroom)-1e-9)), 1)
	return Need{Percentile: p, Peak: peak, Hard: hard, UnitHours: unitSec / 3600}
}
