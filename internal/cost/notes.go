package cost

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
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
	if r.Totals.GPUHours.Provisioned == 0 {
		add("warning", "no GPU node was alive in the window (the snapshot has %d GPU node(s) and %d pod(s)): there is nothing to price, so $0 here means no data, not no cost",
			r.Totals.Nodes, len(a.Snapshot.Pods()))
	}
	if key, ok := strings.CutPrefix(r.By, "label:"); ok && !anyPodLabel(a, key) {
		add("warning", "no pod carries the label %s, so every pod is in the row (no %s); from Prometheus, kube-state-metrics exports only the pod labels its --metric-labels-allowlist allows (e.g. pods=[%s])", key, key, key)
	}
	if text := unmeasuredNote(a, r.Totals.GPUHours); text != "" {
		add("warning", "%s", text)
	}
	if len(a.Unpriced) > 0 {
		add("warning", "%d GPU node(s) have no price, so their %s GPU-hours carry no dollars; add a price override (--prices FILE): %s",
			len(a.Unpriced), gpuHours(r.Totals.UnpricedGPUHours), firstN(a.UnpricedNodes(), 3))
	}
	if len(a.OffNode) > 0 {
		add("warning", "%d pod(s) ran in the window only while their node did not exist, so none of their time is counted; the snapshot's node lifetimes look wrong: %s",
			len(a.OffNode), firstN(sorted(a.OffNode), 3))
	}
	if len(a.Clipped) > 0 {
		add("info", "%d pod(s) ran beyond their node's lifetime; only their time on the node is counted: %s",
			len(a.Clipped), firstN(sorted(a.Clipped), 3))
	}
	if a.CPUOnlyNodes > 0 {
		add("info", "%d CPU-only node(s) are out of scope and not priced", a.CPUOnlyNodes)
	}
	if n, cost := nonGPUPodsOnGPUNodes(a); n > 0 {
		add("warning", "%d pod(s) without GPU requests run on GPU nodes, costing $%.0f/month in CPU and memory there; taint GPU nodes (gpuwise audit)",
			n, cost*pricing.HoursPerMonth/r.WindowHours)
	}
	for _, w := range a.PriceWarnings {
		add("warning", "%s", w)
	}
	for _, src := range priceSources(a) {
		add("info", "prices: %s", src)
	}
	for _, n := range a.Snapshot.Notes() {
		add("info", "%s", n)
	}
	return out
}

// unmeasuredNote says how much allocated time has no usage data, in words
// that stay true for tiny amounts and for "all of it".
func unmeasuredNote(a *Allocation, h Hours) string {
	switch {
	case h.Unmeasured <= 0:
		return ""
	case h.Unmeasured >= h.Allocated*(1-1e-9):
		return fmt.Sprintf("no allocated GPU-hour has usage data (%s GPU-hours held, all unmeasured): they are shown as unmeasured, not idle, and utilization is n/a; %s",
			gpuHours(h.Allocated), unmeasuredPods(a))
	}
	return fmt.Sprintf("%s of %s allocated GPU-hours (%.1f%%) have no usage data and are shown as unmeasured, not idle; %s",
		gpuHours(h.Unmeasured), gpuHours(h.Allocated), 100*h.Unmeasured/h.Allocated, unmeasuredPods(a))
}

// gpuHours writes GPU-hours for a note: one decimal, or two significant
// digits below 0.1 so that a small amount never reads "0.0".
func gpuHours(v float64) string {
	if v != 0 && math.Abs(v) < 0.1 {
		decimals := min(1-int(math.Floor(math.Log10(math.Abs(v)))), 9)
		return strconv.FormatFloat(v, 'f', decimals, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func sorted(items []string) []string {
	out := slices.Clone(items)
	slices.Sort(out)
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
		switch {
		case p.AsOf == "":
		case p.Origin == pricing.OriginBill:
			seen["bill charges up to "+p.AsOf+" (effective rates)"] = true
		default:
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

// anyPodLabel reports whether some pod in the allocation carries key.
func anyPodLabel(a *Allocation, key string) bool {
	for i := range a.Lines {
		if p := a.Lines[i].Pod; p != nil && p.Labels[key] != "" {
			return true
		}
	}
	return false
}
