package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/history"
)

// HistoryUnitRequest asks for one GPU unit's hours (a whole GPU, a MIG
// slice or a time-slice share, named as the low-utilization list and a pod
// row's gpu_units name it) over [From, To) of the history store, taken out
// to whole hours as HistoryLowUtilRequest is.
type HistoryUnitRequest struct {
	// Cluster is the cluster whose rows to read (AllClusters or "": all;
	// with several clusters the unit is named "cluster/unit").
	Cluster string
	Unit    string
	From    time.Time
	To      time.Time
}

// Validate lists every problem with the request, each naming its
// parameter.
func (r HistoryUnitRequest) Validate() error {
	var errs []error
	if strings.TrimSpace(r.Unit) == "" {
		errs = append(errs, errors.New("unit: required: a GPU unit's id as the low-utilization list or a pod row's gpu_units name it (e.g. serve-h100-1/gpu5)"))
	}
	switch {
	case !r.To.After(r.From):
		errs = append(errs, fmt.Errorf("to: %s is not after from %s", r.To.Format(time.RFC3339), r.From.Format(time.RFC3339)))
	case r.To.Sub(r.From) > maxHourlyRange:
		errs = append(errs, fmt.Errorf("from..to: %s is longer than the %s of hourly rows one answer reads", r.To.Sub(r.From), maxHourlyRange))
	}
	return errors.Join(errs...)
}

// UnitHour is one hour of one GPU unit: its time on its node (life), the
// time pods held it, the held time measured and its integral of activity,
// and those hours in dollars at the node's GPU price × the unit's fraction
// of its GPU, split as the cost engine splits a pod's GPU cost (active,
// allocated but idle, unmeasured) plus the unit's unheld time
// (unallocated). Dollars are nil on an unpriced node.
type UnitHour struct {
	Bucket         time.Time `json:"bucket"`
	Node           string    `json:"node"`
	LifeHours      float64   `json:"life_hours"`
	HeldHours      float64   `json:"held_hours"`
	MeasuredHours  float64   `json:"measured_hours"`
	ActiveHours    float64   `json:"active_hours"`
	UnheldHours    float64   `json:"unheld_hours"`
	Utilization    *float64  `json:"utilization"`
	GPUUSDPerHour  *float64  `json:"gpu_usd_per_hour"`
	USD            *float64  `json:"usd"`
	ActiveUSD      *float64  `json:"active_usd"`
	IdleUSD        *float64  `json:"idle_usd"`
	UnmeasuredUSD  *float64  `json:"unmeasured_usd"`
	UnallocatedUSD *float64  `json:"unallocated_usd"`
	Holders        []string  `json:"holders"`
}

// UnitTotals are a unit's hours summed over the range; its dollars the
// sum of the hours' (nil when no hour was priced), its utilization active
// over measured hours.
type UnitTotals struct {
	LifeHours      float64  `json:"life_hours"`
	HeldHours      float64  `json:"held_hours"`
	MeasuredHours  float64  `json:"measured_hours"`
	ActiveHours    float64  `json:"active_hours"`
	UnheldHours    float64  `json:"unheld_hours"`
	Utilization    *float64 `json:"utilization"`
	USD            *float64 `json:"usd"`
	ActiveUSD      *float64 `json:"active_usd"`
	IdleUSD        *float64 `json:"idle_usd"`
	UnmeasuredUSD  *float64 `json:"unmeasured_usd"`
	UnallocatedUSD *float64 `json:"unallocated_usd"`
	// UnpricedHours are the unit's hours on an unpriced node, whose
	// dollars are missing (never $0).
	UnpricedHours float64 `json:"unpriced_hours"`
}

// HistoryUnit is one GPU unit over a range of the history: what it is
// (as last recorded), each recorded hour and the totals.
type HistoryUnit struct {
	Cluster  string           `json:"cluster"`
	Unit     string           `json:"unit"`
	Node     string           `json:"node"`
	Model    string           `json:"gpu_model"`
	Kind     cluster.UnitKind `json:"kind"`
	Profile  string           `json:"profile,omitempty"`
	Fraction float64          `json:"fraction"`
	From     time.Time        `json:"from"`
	To       time.Time        `json:"to"`
	Coverage history.Coverage `json:"coverage"`
	Hours    []UnitHour       `json:"hours"`
	Total    UnitTotals       `json:"total"`
	Holders  []string         `json:"holders"`
	Notes    []string         `json:"notes"`
}

// Unit reads one unit's hourly rows of the range. A range the unit has no
// row in is answered with no hours and a note saying so (a unit of a node
// that did not exist then), not an error.
func (h *History) Unit(ctx context.Context, req HistoryUnitRequest) (*HistoryUnit, error) {
	if err := req.Validate(); err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	req.From = req.From.Truncate(time.Hour)
	if t := req.To.Truncate(time.Hour); !t.Equal(req.To) {
		req.To = t.Add(time.Hour)
	}
	cl, unit := storeCluster(req.Cluster), req.Unit
	rows, err := h.st.Unit(ctx, cl, unit, req.From, req.To)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 && cl == "" { // several clusters: the unit is named cluster/unit
		if c, u, ok := strings.Cut(unit, "/"); ok {
			if rows, err = h.st.Unit(ctx, c, u, req.From, req.To); err != nil {
				return nil, err
			}
		}
	}
	cov, err := h.st.Coverage(ctx, cl, req.From, req.To)
	if err != nil {
		return nil, err
	}
	out := &HistoryUnit{Cluster: req.Cluster, Unit: req.Unit, From: req.From, To: req.To, Coverage: cov,
		Hours: []UnitHour{}, Holders: []string{}, Notes: []string{}}
	var t UnitTotals
	priced := false
	for i := range rows {
		r := &rows[i]
		out.Node, out.Model, out.Kind, out.Profile, out.Fraction = r.Node, r.Model, r.Kind, r.Profile, r.Fraction
		hr := unitHour(r)
		for _, x := range r.Holders {
			if !slices.Contains(out.Holders, x) {
				out.Holders = append(out.Holders, x)
			}
		}
		t.LifeHours += hr.LifeHours
		t.HeldHours += hr.HeldHours
		t.MeasuredHours += hr.MeasuredHours
		t.ActiveHours += hr.ActiveHours
		t.UnheldHours += hr.UnheldHours
		if hr.USD != nil {
			if !priced {
				priced = true
				t.USD, t.ActiveUSD, t.IdleUSD, t.UnmeasuredUSD, t.UnallocatedUSD = new(float64), new(float64), new(float64), new(float64), new(float64)
			}
			*t.USD += *hr.USD
			*t.ActiveUSD += *hr.ActiveUSD
			*t.IdleUSD += *hr.IdleUSD
			*t.UnmeasuredUSD += *hr.UnmeasuredUSD
			*t.UnallocatedUSD += *hr.UnallocatedUSD
		} else {
			t.UnpricedHours += hr.LifeHours
		}
		// two rows of one hour (the node's price changed in it) are one
		// hour of the answer: hours sum, dollars sum at each row's price
		if n := len(out.Hours); n > 0 && out.Hours[n-1].Bucket.Equal(hr.Bucket) {
			mergeUnitHour(&out.Hours[n-1], hr)
			continue
		}
		out.Hours = append(out.Hours, hr)
	}
	slices.Sort(out.Holders)
	t.Utilization = ratioOf(t.ActiveHours, t.MeasuredHours)
	out.Total = t
	if len(rows) == 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("the history holds no hour of unit %q in the range: check the name (a pod row's gpu_units, the low-utilization list) and the range", req.Unit))
	}
	if t.UnpricedHours > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%.1f hour(s) of the unit were on an unpriced node: their dollars are missing, not $0", t.UnpricedHours))
	}
	return out, nil
}

func unitHour(r *history.UnitRow) UnitHour {
	hr := UnitHour{Bucket: r.Bucket, Node: r.Node, LifeHours: r.LifeSeconds / 3600, HeldHours: r.HeldSeconds / 3600,
		MeasuredHours: r.MeasuredSeconds / 3600, ActiveHours: r.ActiveSeconds / 3600,
		UnheldHours: math.Max(r.LifeSeconds-r.HeldSeconds, 0) / 3600, Holders: append([]string{}, r.Holders...)}
	hr.Utilization = ratioOf(hr.ActiveHours, hr.MeasuredHours)
	if r.GPUUSDPerHour != nil {
		rate := *r.GPUUSDPerHour * r.Fraction
		usd := func(hours float64) *float64 { v := rate * hours; return &v }
		hr.GPUUSDPerHour = r.GPUUSDPerHour
		hr.ActiveUSD = usd(hr.ActiveHours)
		hr.IdleUSD = usd(hr.MeasuredHours - hr.ActiveHours)
		hr.UnmeasuredUSD = usd(hr.HeldHours - hr.MeasuredHours)
		hr.UnallocatedUSD = usd(hr.UnheldHours)
		hr.USD = usd(hr.HeldHours + hr.UnheldHours)
	}
	return hr
}

func mergeUnitHour(a *UnitHour, b UnitHour) {
	a.LifeHours += b.LifeHours
	a.HeldHours += b.HeldHours
	a.MeasuredHours += b.MeasuredHours
	a.ActiveHours += b.ActiveHours
	a.UnheldHours += b.UnheldHours
	a.Utilization = ratioOf(a.ActiveHours, a.MeasuredHours)
	a.GPUUSDPerHour = nil // two prices in the hour: the rate is not one figure
	for _, p := range []struct {
		dst **float64
		src *float64
	}{{&a.USD, b.USD}, {&a.ActiveUSD, b.ActiveUSD}, {&a.IdleUSD, b.IdleUSD},
		{&a.UnmeasuredUSD, b.UnmeasuredUSD}, {&a.UnallocatedUSD, b.UnallocatedUSD}} {
		if p.src == nil {
			continue
		}
		if *p.dst == nil {
			v := *p.src
			*p.dst = &v
			continue
		}
		v := **p.dst + *p.src
		*p.dst = &v
	}
	for _, x := range b.Holders {
		if !slices.Contains(a.Holders, x) {
			a.Holders = append(a.Holders, x)
		}
	}
	slices.Sort(a.Holders)
}

// ratioOf is a/b, nil when b is (near) zero: nothing measured is not 0 %.
func ratioOf(a, b float64) *float64 {
	if b <= 1e-12 {
		return nil
	}
	v := a / b
	return &v
}
