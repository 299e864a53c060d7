package cost

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/pricing"
)

// notes explains what the numbers stand on: which metric, how much was
// measured, what could not be priced, and what is out of scope.
func notes(a *Allocation, r *Report) []Note {
	var out []Note
	add := func(sev, format string, args ...any) {
		out = append(out, Note{Severity: sev, Text: fmt.Sprintf(format, args...)})
	}
	metric := r.ActivityMetric
	if metric == "" {
		metric = "unknown"
	}
	add("info", "GPU activity from %s; idle means below %.0f%% activity", metric, r.IdleThreshold*100)
	h := r.Totals.GPUHours
	if h.Unmeasured > 0 {
		add("warning", "%.1f of %.1f allocated GPU-hours (%.1f%%) have no usage data and are shown as unmeasured, not idle; %s",
			h.Unmeasured, h.Allocated, 100*h.Unmeasured/h.Allocated, unmeasuredPods(a))
	}
	if len(a.Unpriced) > 0 {
		add("warning", "%d GPU node(s) have no price, so their %.1f GPU-hours carry no dollars; add a price override (--prices FILE): %s",
			len(a.Unpriced), r.Totals.UnpricedGPUHours, firstN(a.UnpricedNodes(), 3))
	}
	if a.CPUOnlyNodes > 0 {
		add("info", "%d CPU-only node(s) are out of scope and not priced", a.CPUOnlyNodes)
	}
	if n, cost := nonGPUPodsOnGPUNodes(a); n > 0 {
		add("warning", "%d pod(s) without GPU requests run on GPU nodes, costing $%.0f/month in CPU and memory there; taint GPU nodes (gpuwise audit)",
			n, cost*pricing.HoursPerMonth/r.WindowHours)
	}
	for _, src := range priceSources(a) {
		add("info", "prices: %s", src)
	}
	for _, n := range a.Snapshot.Notes {
		add("info", "%s", n)
	}
	return out
}

func unmeasuredPods(a *Allocation) string {
	var names []string
	for i := range a.Lines {
		l := &a.Lines[i]
		if l.Pod != nil && l.GPUHours.Unmeasured > 0 {
			names = append(names, l.Pod.Key())
		}
	}
	sort.Strings(names)
	return fmt.Sprintf("%d pod(s): %s", len(names), firstN(names, 3))
}

func nonGPUPodsOnGPUNodes(a *Allocation) (int, float64) {
	var n int
	var cost float64
	for i := range a.Lines {
		l := &a.Lines[i]
		if l.Pod != nil && len(l.Pod.GPUs) == 0 && !l.Pod.RequestsGPU() {
			n++
			cost += l.CPU + l.Memory
		}
	}
	return n, cost
}

func priceSources(a *Allocation) []string {
	seen := map[string]bool{}
	for _, p := range a.Prices {
		if p.AsOf != "" {
			seen["catalog as of "+p.AsOf] = true
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func firstN(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}
