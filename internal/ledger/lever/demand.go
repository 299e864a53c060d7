package lever

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
	// models and workloads name the steps' indexes.
	models, workloads []string
}

// step is a change in the GPU share a workload holds of a model, at an
// offset from the window's start (24 bytes: a 10k-GPU week has about
// 200,000 steps).
type step struct {
	at       time.Duration
	delta    float64
	model    int32
	workload int32
}

// reshape is a workload's planned GPU shape: its model and its new share
// over its current one.
type reshape struct {
	model  string
	factor float64
}

// gpuDemand sweeps every pod's held units (fraction of a physical GPU)
// over its life in the window.
func gpuDemand(s *cluster.Prepared) *demand {
	d := &demand{window: s.Window()}
	models, workloads := map[string]int32{}, map[string]int32{}
	for i := range s.Pods() {
		p := &s.Pods()[i]
		from, to, ok := s.Window().Interval(p.Start, p.End)
		if !ok {
			continue
		}
		w := int32(-1)
		for _, h := range p.GPUs {
			ref, ok := s.Index().Units[h.UnitID]
			if !ok || ref.Unit.Fraction <= 0 {
				continue
			}
			if w < 0 {
				w = index(workloads, &d.workloads, p.WorkloadKey())
			}
			m, frac := index(models, &d.models, ref.GPU.Model), ref.Unit.Fraction
			d.events = append(d.events, step{from.Sub(s.Window().Start), frac, m, w}, step{to.Sub(s.Window().Start), -frac, m, w})
		}
	}
	slices.SortFunc(d.events, func(a, b step) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.delta, b.delta)) })
	return d
}

// index numbers a name: its index in names, added when new.
func index(ids map[string]int32, names *[]string, name string) int32 {
	id, ok := ids[name]
	if !ok {
		id = int32(len(*names))
		ids[name] = id
		*names = append(*names, name)
	}
	return id
}

// over returns the peak GPU share held of a model and the hours it
// exceeded capacity GPUs, with the planned shapes of reshaped workloads
// (a workload moved to another model counts there).
func (d *demand) over(model string, capacity float64, shapes map[string]reshape) (peak, hours float64) {
	var cur float64
	var last time.Duration
	above := false
	for _, e := range d.events {
		m, delta := d.models[e.model], e.delta
		if r, ok := shapes[d.workloads[e.workload]]; ok {
			m, delta = r.model, delta*r.factor
		}
		if m != model {
			continue
		}
		if above {
			hours += (e.at - last).Hours()
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
	level, why := High, fmt.Sprintf("at no time in the %.0f h window did pods hold more GPUs of %s than the plan keeps", w, ListText(models))
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

// ListText joins names for prose.
func ListText(xs []string) string {
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
