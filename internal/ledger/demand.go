package ledger

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// demand is the GPU share pods held over the window, per GPU model, as a
// step function: the consolidation lever checks the nodes a plan keeps
// against it, because a plan packs the pods running at the window's end
// and a batch burst earlier may have needed more.
type demand struct {
	window cluster.Window
	events []step // sorted by time
}

// step is a change in the GPU share a workload holds of a model.
type step struct {
	at       time.Time
	delta    float64
	model    string
	workload string
}

// reshape is a workload's planned GPU shape: its model and its new share
// over its current one.
type reshape struct {
	model  string
	factor float64
}

// gpuDemand sweeps every pod's held units (fraction of a physical GPU)
// over its life in the window.
func gpuDemand(s *cluster.Snapshot) *demand {
	type unit struct {
		model string
		frac  float64
	}
	units := map[string]unit{}
	for i := range s.Nodes {
		for _, g := range s.Nodes[i].GPUs {
			for _, u := range g.Units {
				units[u.ID] = unit{g.Model, u.Fraction}
			}
		}
	}
	d := &demand{window: s.Window}
	for i := range s.Pods {
		p := &s.Pods[i]
		from, to, ok := s.Window.Interval(p.Start, p.End)
		if !ok {
			continue
		}
		w := p.WorkloadKey()
		for _, h := range p.GPUs {
			if u, ok := units[h.UnitID]; ok && u.frac > 0 {
				d.events = append(d.events, step{from, u.frac, u.model, w}, step{to, -u.frac, u.model, w})
			}
		}
	}
	slices.SortFunc(d.events, func(a, b step) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.delta, b.delta)) })
	return d
}

// over returns the peak GPU share held of a model and the hours it
// exceeded capacity GPUs, with the planned shapes of reshaped workloads
// (a workload moved to another model counts there).
func (d *demand) over(model string, capacity float64, shapes map[string]reshape) (peak, hours float64) {
	var cur float64
	var last time.Time
	above := false
	for _, e := range d.events {
		m, delta := e.model, e.delta
		if r, ok := shapes[e.workload]; ok {
			m, delta = r.model, delta*r.factor
		}
		if m != model {
			continue
		}
		if above {
			hours += e.at.Sub(last).Hours()
		}
		cur += delta
		peak, last, above = max(peak, cur), e.at, cur > capacity+1e-9
	}
	return peak, hours
}

// Demand confidence thresholds: the share of the window in which pods
// held more GPUs of a model than the plan keeps.
const (
	// shortHistory caps confidence at medium: fewer than three days do
	// not show a weekly pattern of batch bursts.
	shortHistory = 72.0
	// mediumOver: up to this share of the window above the kept
	// capacity is medium confidence; more is low.
	mediumOver = 0.05
)

// confidence grades a set of kept GPUs per model against the window's
// demand: the worst model decides. Evidence gets the peak and hours over
// of that model.
func (d *demand) confidence(kept map[string]int, models []string, shapes map[string]reshape) (Level, string, []Evidence) {
	w := d.window.Hours()
	level, why := High, fmt.Sprintf("at no time in the %.0f h window did pods hold more GPUs of %s than the plan keeps", w, listText(models))
	var ev []Evidence
	worst := -1.0
	for _, m := range models {
		peak, over := d.over(m, float64(kept[m]), shapes)
		if over <= worst {
			continue
		}
		worst = over
		ev = []Evidence{{Name: "peak_gpus_held_" + m, Value: round2(peak), Unit: "GPUs"}, {Name: "gpus_kept_" + m, Value: float64(kept[m]), Unit: "GPUs"},
			{Name: "hours_above_kept_" + m, Value: round2(over), Unit: "hours"}}
		switch {
		case over == 0:
			why = fmt.Sprintf("at no time in the %.0f h window did pods hold more %s GPUs than the plan keeps (peak %.1f of %d kept)", w, m, peak, kept[m])
		case over <= mediumOver*w:
			level, why = Medium, fmt.Sprintf("pods held more %s GPUs than the plan keeps for %.1f h of %.0f h (peak %.1f, %d kept): an autoscaler must add nodes back then", m, over, w, peak, kept[m])
		default:
			level, why = Low, fmt.Sprintf("pods held more %s GPUs than the plan keeps for %.1f h of %.0f h (peak %.1f, %d kept): the plan packs the pods of the window's end only", m, over, w, peak, kept[m])
		}
	}
	if w < shortHistory && level == High {
		level, why = Medium, why+"; but less than 3 days of history"
	}
	return level, why, ev
}

// listText joins names for prose.
func listText(xs []string) string {
	switch len(xs) {
	case 0:
		return "any model"
	case 1:
		return xs[0]
	}
	out := xs[0]
	for _, x := range xs[1 : len(xs)-1] {
		out += ", " + x
	}
	return out + " or " + xs[len(xs)-1]
}
