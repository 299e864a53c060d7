package idlecause

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Idle is one GPU workload's idle figures from the cost engine: the
// numbers Explain splits, never recomputes.
type Idle struct {
	Workload string
	// GPUHours are its measured GPU-hours below the idle threshold.
	GPUHours float64
	// USD is its allocated-but-idle GPU dollars on priced nodes; Priced is
	// false when it ran on unpriced nodes only, and USD then means nothing.
	USD    float64
	Priced bool
}

// Result is why the snapshot's GPUs idled: per cause over every workload,
// and per workload. Its JSON form is documented in docs/report-format.md.
type Result struct {
	Policy Policy `json:"policy"`
	// SeriesIdleThreshold is the activity below which the hourly series
	// counted GPU time idle: it weighs the hours, while the idle GPU-hours
	// and dollars being split are the cost engine's at its threshold.
	SeriesIdleThreshold float64 `json:"series_idle_threshold"`
	// Totals has one entry per cause, in Causes order, over all workloads.
	Totals []Share `json:"totals"`
	// IdleGPUHours and IdleUSD are what Totals split; IdleUSD covers the
	// priced workloads only.
	IdleGPUHours float64 `json:"idle_gpu_hours"`
	IdleUSD      float64 `json:"idle_usd"`
	// Workloads are sorted by idle dollars (unpriced last), then GPU-hours;
	// MoreWorkloads counts those Top left out.
	Workloads     []Workload `json:"workloads"`
	MoreWorkloads int        `json:"more_workloads"`
	Notes         []string   `json:"notes"`
}

// Top returns r with only its first n workloads (n ≤ 0: all); the totals
// still cover every workload.
func (r *Result) Top(n int) *Result {
	if n <= 0 || len(r.Workloads) <= n {
		return r
	}
	out := *r
	out.Workloads, out.MoreWorkloads = r.Workloads[:n], r.MoreWorkloads+len(r.Workloads)-n
	return &out
}

// Share is the part of idle GPU-hours and dollars one cause explains.
type Share struct {
	Cause Cause `json:"cause"`
	// Share is of the idle GPU-hours (0–1).
	Share    float64 `json:"share"`
	GPUHours float64 `json:"idle_gpu_hours"`
	// USD and MonthlyUSD are nil when the workload is unpriced.
	USD        *float64 `json:"idle_usd"`
	MonthlyUSD *float64 `json:"monthly_idle_usd"`
	// Hours counts the workload-hours with idle GPU time classified so.
	Hours int `json:"hours"`
}

// Workload is one workload's idle time split by cause.
type Workload struct {
	Workload     string   `json:"workload"`
	IdleGPUHours float64  `json:"idle_gpu_hours"`
	IdleUSD      *float64 `json:"idle_usd"`
	MonthlyUSD   *float64 `json:"monthly_idle_usd"`
	// Main is the cause with the largest share; Causes lists every cause
	// with a share, largest first.
	Main   Cause   `json:"main_cause"`
	Causes []Share `json:"causes"`
	// Evidence says what the main cause stands on.
	Evidence string `json:"evidence"`
}

// Explain splits each workload's idle figures by cause. It needs the
// prepared snapshot (for the hourly series and the GPU containers' limits)
// and the cost engine's idle figures of the same snapshot.
func Explain(s *cluster.Prepared, idle []Idle, p Policy) (*Result, error) {
	if s == nil {
		return nil, errors.New("explaining idle GPUs: no snapshot")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	r := &Result{Policy: p, SeriesIdleThreshold: seriesThreshold(s.Hourly())}
	pods := podsByWorkload(s)
	monthFactor := pricing.HoursPerMonth / s.Window().Hours()
	unpriced := 0
	for _, in := range idle {
		if in.GPUHours <= 0 && (!in.Priced || in.USD <= 0) {
			continue
		}
		w := p.explainOne(s.Hourly().Find(in.Workload), in, limitsOf(pods[in.Workload]), monthFactor)
		r.Workloads = append(r.Workloads, w)
		if !in.Priced {
			unpriced++
		}
	}
	sortWorkloads(r.Workloads)
	r.total(monthFactor)
	r.Notes = notes(s, unpriced)
	return r, nil
}

func seriesThreshold(h *cluster.Hourly) float64 {
	if h == nil {
		return cluster.DefaultIdleThreshold
	}
	return h.IdleThreshold
}

func podsByWorkload(s *cluster.Prepared) map[string][]*cluster.Pod {
	out := map[string][]*cluster.Pod{}
	for i := range s.Pods() {
		if p := &s.Pods()[i]; len(p.GPUs) > 0 {
			out[p.WorkloadKey()] = append(out[p.WorkloadKey()], p)
		}
	}
	return out
}

func sortWorkloads(ws []Workload) {
	slices.SortFunc(ws, func(a, b Workload) int {
		if (a.IdleUSD == nil) != (b.IdleUSD == nil) {
			if a.IdleUSD == nil {
				return 1
			}
			return -1
		}
		if a.IdleUSD != nil {
			if c := cmp.Compare(*b.IdleUSD, *a.IdleUSD); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(b.IdleGPUHours, a.IdleGPUHours); c != 0 {
			return c
		}
		return strings.Compare(a.Workload, b.Workload)
	})
}

// total sums the workloads' shares per cause. A cause whose idle hours
// all lie on unpriced nodes has no dollars (nil), not $0.
func (r *Result) total(monthFactor float64) {
	priced := make([]bool, len(Causes))
	r.Totals = make([]Share, len(Causes))
	for k, c := range Causes {
		r.Totals[k] = Share{Cause: c, USD: new(float64)}
	}
	for _, w := range r.Workloads {
		r.IdleGPUHours += w.IdleGPUHours
		if w.IdleUSD != nil {
			r.IdleUSD += *w.IdleUSD
		}
		for _, sh := range w.Causes {
			k := causeIndex(sh.Cause)
			t := &r.Totals[k]
			t.GPUHours += sh.GPUHours
			t.Hours += sh.Hours
			if sh.USD != nil {
				*t.USD += *sh.USD
				priced[k] = true
			}
		}
	}
	for k := range r.Totals {
		t := &r.Totals[k]
		if r.IdleGPUHours > 0 {
			t.Share = t.GPUHours / r.IdleGPUHours
		}
		if t.GPUHours > 0 && !priced[k] {
			t.USD = nil
			continue
		}
		t.MonthlyUSD = ptr(*t.USD * monthFactor)
	}
}

func notes(s *cluster.Prepared, unpriced int) []string {
	out := []string{}
	if s.Hourly() == nil {
		out = append(out, "the snapshot has no hourly series (a live inventory or an older snapshot file): every idle GPU-hour is of unknown cause; read history with --prometheus or the simulator")
	}
	if unpriced > 0 {
		out = append(out, fmt.Sprintf("%d workload(s) ran on unpriced nodes only: their idle GPU-hours are split by cause, their dollars are absent (not $0)", unpriced))
	}
	return out
}
