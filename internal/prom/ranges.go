package prom

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gpuwise/gpuwise/internal/prom/query"
)

// Range checks on every exporter value (issue 31 M3): a sample a metric
// cannot hold — an activity ratio of 500 from a percent-scaled recording
// rule, a negative byte count — is never clamped into a plausible
// figure. It is left out (its time is not measured, as a gap) and the
// read's notes say how many samples of which metric were, the first of
// them, and what was done.

// The metrics of the cAdvisor reads, by name.
const (
	memMetric = "container_memory_working_set_bytes"
	cpuMetric = "container_cpu_usage_seconds_total"
)

// ratioMax is a ratio's upper bound: 1, with room for float rounding in
// an exporter's or a recording rule's arithmetic.
const ratioMax = 1 + 1e-6

// dcgmRange is what a DCGM field can hold, before scale: ratios in
// [0, 1] (DCGM_FI_DEV_GPU_UTIL, scale 0.01, in percent: [0, 100]),
// framebuffer MiB up to 16 TiB, link rates up to 10 TB/s.
func dcgmRange(f field, scale float64) query.Range {
	switch f {
	case activityField, smField:
		return query.Range{Min: 0, Max: ratioMax / scale}
	case fbField:
		return query.Range{Min: 0, Max: 1 << 24}
	}
	return query.Range{Min: 0, Max: 1e13}
}

// ctrRange is what a cAdvisor metric can hold: a working set up to
// 1 PiB, counters ≥ 0 (finite; a drop is a reset, handled later).
func ctrRange(metric string) query.Range {
	if metric == memMetric {
		return query.Range{Min: 0, Max: 1 << 50}
	}
	return query.Range{Min: 0, Max: math.MaxFloat64}
}

// rangeNotes say, per metric, how many samples were left out for being
// out of range.
func rangeNotes(g gpuRead, c ctrRead, sv serveRead) []string {
	var out []string
	note := func(metric string, r query.Range, hint string) {
		if r.Out == 0 {
			return
		}
		out = append(out, fmt.Sprintf("%d sample(s) of %s outside [%s, %s] (the first: %s%s) were left out: their time counts as not measured, never clamped into a figure",
			r.Out, metric, num(r.Min), num(r.Max), num(r.First), hint))
	}
	if u := g.usage; u != nil {
		u.mu.Lock()
		act := g.metric
		if act == "" {
			act = "the activity metric"
		}
		hint := ""
		if r := u.ranges[activityField]; r.First > 1 && r.First <= 100 && activityScale(act) == 1 {
			hint = "; a percent-scaled recording rule?"
		}
		note(act, u.ranges[activityField], hint)
		note("DCGM_FI_PROF_SM_ACTIVE", u.ranges[smField], "")
		note("DCGM_FI_DEV_FB_USED", u.ranges[fbField], "")
		note(pcieMetric, u.ranges[pcieField], "")
		note(nvlinkMetric, u.ranges[nvlinkField], "")
		u.mu.Unlock()
	}
	if u := c.usage; u != nil {
		u.mu.Lock()
		note(memMetric, u.memRange, "")
		note(cpuMetric, u.cpuRange, "")
		for k := cfsPeriods; k < nCounterKinds; k++ {
			note(ctrCounterMetrics[k], u.counterRanges[k], "")
		}
		u.mu.Unlock()
	}
	if u := sv.usage; u != nil {
		u.mu.Lock()
		for _, m := range serveMetrics {
			if r := u.ranges[m.name]; r != nil {
				note(m.name, *r, "")
			}
		}
		u.mu.Unlock()
	}
	return out
}

func num(v float64) string {
	if v == math.MaxFloat64 {
		return "∞"
	}
	return strconv.FormatFloat(v, 'g', 7, 64)
}
