package lever

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/nodeprice"
)

// quantizeLever lists quantization candidates (package capacity): inference
// services whose GPU memory at a lower native precision would fit a MIG
// slice of their GPU. What that frees is an upper bound that needs a
// quality test, so it is never an action and never in the total: each
// candidate is not counted, its reason carrying the bound marked as such.
type quantizeLever struct{}

func (quantizeLever) Name() string { return LeverQuantize }

// QuantizeMark is the mark every quantization figure carries.
const QuantizeMark = "upper bound, needs a quality test (low confidence); not in the total"

func (quantizeLever) Propose(m *Model, env *Env) (Proposal, error) {
	var prop Proposal
	if env.capacity == nil {
		return prop, nil
	}
	rates := heldGPURates(env)
	for _, q := range env.capacity.quants {
		rate, ok := rates.of(q.Workload)
		bound := "unpriced"
		weight := 0.0
		if ok {
			weight = float64(q.GPUs) * (1 - q.Fraction) * rate * HoursPerMonth
			bound = CentsOf(weight).String() + "/month"
		}
		prop.NotCounted = append(prop.NotCounted, NotCounted{Lever: LeverQuantize, Target: q.Workload, weight: weight,
			Reason: fmt.Sprintf("quantize to %s (native on %s): %.1f GiB at today's precision → %.1f GiB with headroom fits a %s MIG slice (%.0f%% of the GPU) on %d GPU(s); frees at most %s — %s; volume %.0f %s",
				q.Precision, q.Model, q.PeakMiB/1024, q.NeedMiB/1024, q.Profile, q.Fraction*100, q.GPUs, bound, QuantizeMark, q.Volume, q.VolumeUnit)})
	}
	return prop, nil
}

// gpuRates are the $/h per GPU the cost report charges the GPUs each
// workload holds at the window's end (the GPU share of their nodes'
// prices, from the same pricer): summed and counted per workload.
type gpuRates map[string]*struct {
	usd  float64
	gpus int
}

// heldGPURates prices every GPU held at the window's end at its node's
// GPU rate. A node without a price leaves its GPUs out.
func heldGPURates(env *Env) gpuRates {
	s := env.Snapshot
	nodes := make(map[string]*cluster.Node, len(s.Nodes()))
	for i := range s.Nodes() {
		nodes[s.Nodes()[i].Name] = &s.Nodes()[i]
	}
	rate := map[string]float64{}
	out := gpuRates{}
	for i := range s.Pods() {
		p := &s.Pods()[i]
		n := nodes[p.Node]
		if len(p.GPUs) == 0 || n == nil || !p.End.IsZero() && p.End.Before(s.Window().End) {
			continue
		}
		r, ok := rate[n.Name]
		if !ok {
			if np, err := env.Prices.Price(nodeprice.Spec(n)); err == nil {
				r = np.GPUUSDPerHour
			} else {
				r = -1
			}
			rate[n.Name] = r
		}
		if r < 0 {
			continue
		}
		k := p.WorkloadKey()
		if out[k] == nil {
			out[k] = &struct {
				usd  float64
				gpus int
			}{}
		}
		out[k].usd += r * float64(len(p.GPUs))
		out[k].gpus += len(p.GPUs)
	}
	return out
}

// of is the workload's mean $/h per held GPU.
func (r gpuRates) of(workload string) (float64, bool) {
	x := r[workload]
	if x == nil || x.gpus == 0 {
		return 0, false
	}
	return x.usd / float64(x.gpus), true
}
