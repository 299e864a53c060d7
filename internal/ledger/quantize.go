package ledger

import (
	"fmt"
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
	for _, q := range env.capacity.quants {
		rate, ok := gpuRate(m, q.Model)
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

// gpuRate is the mean $/h per GPU of the model's priced kept nodes.
func gpuRate(m *Model, model string) (float64, bool) {
	var usd float64
	gpus := 0
	for i := range m.Nodes {
		if n := &m.Nodes[i]; n.Kept && n.Priced && n.GPUModel == model {
			usd, gpus = usd+n.USDPerHour, gpus+n.GPUs
		}
	}
	if gpus == 0 {
		return 0, false
	}
	return usd / float64(gpus), true
}
