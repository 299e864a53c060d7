package idlecause

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// tally is one workload's idle weight, hour count and signal means per
// cause.
type tally struct {
	weight  [5]float64
	hours   [5]int
	signals [5]signalMeans
	missing []string
}

// signalMeans accumulates a cause's signals over its hours, each weighted
// by the hour's idle GPU-hours.
type signalMeans struct {
	thr, used, pcie, nv weighted
	oomKills, memPeak   float64
	hasMemPeak          bool
}

type weighted struct{ sum, w float64 }

func (m *weighted) add(v, w float64) {
	if v == v {
		m.sum += v * w
		m.w += w
	}
}

func (m weighted) mean() (float64, bool) {
	if m.w == 0 {
		return 0, false
	}
	return m.sum / m.w, true
}

func causeIndex(c Cause) int { return slices.Index(Causes, c) }

// tally classifies every hour of h with idle GPU time. The weights are the
// hours' idle GPU-hours; when the series saw none (the cost engine counted
// idle at a higher threshold), its GPU-hours not active instead.
func (p Policy) tally(h *cluster.WorkloadHours, l limits) tally {
	var t tally
	if h == nil {
		return t
	}
	weights := idleWeights(h)
	for i, wt := range weights {
		if !(wt > 0) {
			continue
		}
		c, missing := p.classify(h, i, l)
		k := causeIndex(c)
		t.weight[k] += wt
		t.hours[k]++
		t.signals[k].add(h, i, wt)
		for _, m := range missing {
			if !slices.Contains(t.missing, m) {
				t.missing = append(t.missing, m)
			}
		}
	}
	return t
}

func idleWeights(h *cluster.WorkloadHours) []float64 {
	out := make([]float64, h.Hours())
	var sum float64
	for i := range out {
		out[i] = h.GPUIdle.At(i)
		if out[i] == out[i] {
			sum += out[i]
		}
	}
	if sum > 0 {
		return out
	}
	for i := range out {
		out[i] = h.GPUMeasured.At(i) - h.GPUActive.At(i)
	}
	return out
}

func (m *signalMeans) add(h *cluster.WorkloadHours, i int, wt float64) {
	m.thr.add(h.CPUThrottled.At(i), wt)
	m.used.add(h.CPUOfLimit.At(i), wt)
	m.pcie.add(h.PCIeRx.At(i), wt)
	m.nv.add(h.NVLinkRx.At(i), wt)
	if k := h.OOMKills.At(i); k == k {
		m.oomKills += k
	}
	if v := h.MemoryOfLimit.At(i); v == v && (!m.hasMemPeak || v > m.memPeak) {
		m.memPeak, m.hasMemPeak = v, true
	}
}

// explainOne splits one workload's idle figures by its tally.
func (p Policy) explainOne(h *cluster.WorkloadHours, in Idle, l limits, monthFactor float64) Workload {
	w := Workload{Workload: in.Workload, IdleGPUHours: in.GPUHours}
	if in.Priced {
		w.IdleUSD, w.MonthlyUSD = ptr(in.USD), ptr(in.USD*monthFactor)
	}
	t := p.tally(h, l)
	var total float64
	for _, x := range t.weight {
		total += x
	}
	if total == 0 {
		w.Main, w.Evidence = Unknown, noSeries(h)
		w.Causes = []Share{w.share(Unknown, 1, 0, monthFactor)}
		return w
	}
	for k, c := range Causes {
		if t.weight[k] > 0 {
			w.Causes = append(w.Causes, w.share(c, t.weight[k]/total, t.hours[k], monthFactor))
		}
	}
	slices.SortStableFunc(w.Causes, func(a, b Share) int { return cmp.Compare(b.Share, a.Share) })
	w.Main = w.Causes[0].Cause
	w.Evidence = evidence(w.Main, t, causeIndex(w.Main))
	return w
}

// share is the part of w's idle figures that a share of its weight gets.
func (w *Workload) share(c Cause, share float64, hours int, monthFactor float64) Share {
	s := Share{Cause: c, Share: share, GPUHours: w.IdleGPUHours * share, Hours: hours}
	if w.IdleUSD != nil {
		s.USD, s.MonthlyUSD = ptr(*w.IdleUSD*share), ptr(*w.IdleUSD*share*monthFactor)
	}
	return s
}

func ptr(v float64) *float64 { return &v }

func noSeries(h *cluster.WorkloadHours) string {
	if h == nil {
		return "no hourly series for this workload"
	}
	return "its hourly series show no idle GPU time"
}

// evidence is one line on what the main cause stands on.
func evidence(c Cause, t tally, k int) string {
	m := t.signals[k]
	hours := fmt.Sprintf("%d idle hour(s)", t.hours[k])
	switch c {
	case CPUStarved:
		return join(hours+": CPU-starved", pct("throttled in", m.thr, "of CFS periods"), pct("CPU at", m.used, "of its limit"))
	case InputBound:
		return join(hours+": input-bound", rate("PCIe receive", m.pcie), rate("NVLink receive", m.nv))
	case MemoryPressured:
		s := fmt.Sprintf("%s: memory-pressured, %.0f OOM kill(s)", hours, m.oomKills)
		if m.hasMemPeak {
			s += fmt.Sprintf(", working set up to %.0f%% of its limit", 100*m.memPeak)
		}
		return s
	case NoWork:
		return hours + ": CPU, memory and PCIe receive quiet while the GPU idled"
	}
	return hours + ": unknown, missing " + strings.Join(t.missing, "; ")
}

func join(head string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return head
	}
	return head + ", " + strings.Join(kept, ", ")
}

func pct(before string, m weighted, after string) string {
	v, ok := m.mean()
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s %.0f%% %s", before, 100*v, after)
}

func rate(what string, m weighted) string {
	v, ok := m.mean()
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s %.1f GB/s per GPU", what, v/1e9)
}
