package lever

import (
	"fmt"
	"math"

	"github.com/gpuwise/gpuwise/internal/capacity"
)

// poolScaling is one GPU model's kept nodes and the hourly demand on them.
type poolScaling struct {
	env     *Env
	model   string
	nodes   []*Node // cheapest per GPU first
	demand  []float64
	freed   []float64 // GPUs the scaled workloads free per window hour
	scaled  []capacity.Scaling
	slack   int // nodes the packer needs beyond the GPU count at the peak
	lengths []float64
}

func newPoolScaling(m *Model, env *Env, model string, scs []capacity.Scaling) *poolScaling {
	p := &poolScaling{env: env, model: model, nodes: nodesByPrice(m, model), scaled: scs,
		demand: env.peaks.hourly(model, nil)}
	p.lengths = make([]float64, len(p.demand))
	p.freed = make([]float64, len(p.demand))
	for h := range p.lengths {
		p.lengths[h] = env.peaks.hourLength(h)
	}
	for _, sc := range scs {
		for i := range sc.FreedPerHour {
			if h := sc.From + i; h < len(p.freed) && p.lengths[h] > 0 {
				p.freed[h] += sc.Freed(i) / p.lengths[h]
			}
		}
	}
	p.slack = max(0, len(p.nodes)-p.nodesFor(maxOf(p.demand)))
	return p
}

// nodesFor is the fewest nodes (cheapest first) whose GPUs cover g.
func (p *poolScaling) nodesFor(g float64) int {
	have := 0.0
	for k, n := range p.nodes {
		if have >= g-1e-6 {
			return k
		}
		have += float64(n.GPUs)
	}
	return len(p.nodes)
}

// need is the nodes each hour needs with the demand less what autoscaled
// workloads free (freed nil: as they run now).
func (p *poolScaling) need(freed []float64) []int {
	out := make([]int, len(p.demand))
	for h, d := range p.demand {
		if freed != nil {
			d = max(0, d-freed[h])
		}
		out[h] = min(len(p.nodes), p.nodesFor(d)+p.slack)
	}
	return out
}

// hours is node-hours a month per node (in p.nodes' order) when need[h]
// nodes run in hour h: the first need[h] for the whole hour, plus the ones
// the next hour adds (booted ahead) and the ones the last hour had (gone
// after consolidateAfter).
func (p *poolScaling) hours(need []int) []float64 {
	out := make([]float64, len(p.nodes))
	for h, n := range need {
		for j := range p.nodes {
			held := 0.0
			switch {
			case j < n:
				held = p.lengths[h]
			default:
				if h+1 < len(need) && j < need[h+1] {
					held += nodeBootHours
				}
				if h > 0 && j < need[h-1] {
					held += consolidateAfterHour
				}
			}
			out[j] += min(held, p.lengths[h])
		}
	}
	scale := HoursPerMonth / p.env.Snapshot.Window().Hours()
	for j := range out {
		out[j] = math.Min(out[j]*scale, HoursPerMonth)
	}
	return out
}

// changes are the pool's two actions, each only when it lowers the cost.
func (p *poolScaling) changes() []Change {
	if len(p.nodes) == 0 {
		return nil
	}
	base, wl := p.hours(p.need(nil)), p.hours(p.need(p.freed))
	var out []Change
	poolSaves, wlSaves := p.saves(base, nil), p.saves(wl, base)
	if poolSaves || wlSaves {
		out = append(out, p.scaleNodes(base))
	}
	if wlSaves {
		out = append(out, p.autoscaleWorkloads(wl))
	}
	return out
}

// saves: some node runs fewer hours under hours than under than (nil: all
// month).
func (p *poolScaling) saves(hours, than []float64) bool {
	for j, h := range hours {
		ref := float64(HoursPerMonth)
		if than != nil {
			ref = than[j]
		}
		if h < ref-1e-9 && p.nodes[j].Priced {
			return true
		}
	}
	return false
}

// apply sets the nodes' hours (never more than they run already).
func (p *poolScaling) apply(hours []float64) func(m *Model) {
	names := make([]string, len(p.nodes))
	for j, n := range p.nodes {
		names[j] = n.Name
	}
	return func(m *Model) {
		for j, name := range names {
			if n := m.Node(name); n != nil {
				n.Hours = math.Min(n.Hours, hours[j])
			}
		}
	}
}

// nodeHours sums hours a month over the nodes.
func nodeHours(hours []float64) float64 {
	var t float64
	for _, h := range hours {
		t += h
	}
	return t
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func minOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m := math.Inf(1)
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

// nodeNames are the pool's node names, as targets.
func (p *poolScaling) targets() []Target {
	out := []Target{{Kind: "pool", Name: p.model + " GPU nodes"}}
	for _, n := range p.nodes {
		out = append(out, Target{Kind: "node", Name: n.Name})
	}
	return out
}

func (p *poolScaling) windowText() string {
	return fmt.Sprintf("%.0f h window", p.env.Snapshot.Window().Hours())
}
