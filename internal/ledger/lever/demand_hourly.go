package lever

import (
	"time"
)

// hourly is the most GPU share pods held of a model in each hour of the
// window (the last hour may be partial): nodes must cover the peak inside
// an hour, not its mean. Planned shapes apply as in over.
func (d *demand) hourly(model string, shapes map[string]reshape) []float64 {
	out := make([]float64, d.window.HourCount())
	var cur float64
	h := 0
	for i, e := range d.events {
		m, delta := d.models[e.model], e.delta
		if r, ok := shapes[d.workloads[e.workload]]; ok {
			m, delta = r.model, delta*r.factor
		}
		if m != model {
			continue
		}
		at := min(max(int(e.at/time.Hour), 0), len(out)-1)
		for ; h < at; h++ { // hours since the last event hold cur
			out[h] = max(out[h], cur)
		}
		if e.at > time.Duration(at)*time.Hour {
			out[at] = max(out[at], cur) // and so does hour at, up to the event
		}
		if cur += delta; cur < 1e-9 {
			cur = 0
		}
		if i+1 == len(d.events) || d.events[i+1].at != e.at {
			out[at] = max(out[at], cur) // the level once every change at this instant is in
		}
	}
	for ; h < len(out); h++ {
		out[h] = max(out[h], cur)
	}
	return out
}

// hourLength is the length of window hour h in hours (the last may be
// partial).
func (d *demand) hourLength(h int) float64 {
	start := d.window.Start.Add(time.Duration(h) * time.Hour)
	return min(d.window.End.Sub(start).Hours(), 1)
}
