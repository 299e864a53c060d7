package rightsize

import (
	"fmt"
	"math"
	"sort"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// hamiMemStepMiB rounds a recommended nvidia.com/gpumem ask up.
const hamiMemStepMiB = 256

// decideHAMi picks the shape of a workload holding a HAMi vGPU. Its share
// is its own shape: a smaller gpucores/gpumem ask where the measured use
// with the policy's headroom is below the current one, or a MIG profile
// where the GPU could be cut, whichever saves more; else it keeps its
// ask. Never a time-slice replica nor another GPU model (HAMi's scheduler
// places the vGPU on the GPUs it shares), and never a change that costs
// more: a HAMi ask is a hard cap, so a workload at its cap keeps it and
// the reason says so.
func (e *engine) decideHAMi(c *gpuCase, rec *GPURec) {
	cur := c.u.hami.ask
	rec.CurrentHAMi = &cur
	var opts []option
	var why []string
	for _, f := range []func(*gpuCase) (*option, string){e.hamiOption, e.migOption} {
		o, reason := f(c)
		switch {
		case o != nil && o.gain > 0:
			opts = append(opts, *o)
		case o != nil:
			why = append(why, fmt.Sprintf("%s: %s saves nothing ($%.2f/month)", o.Action, o.Reason, o.MonthlySavingsUSD))
		case reason != "":
			why = append(why, reason)
		}
	}
	sort.SliceStable(opts, func(i, j int) bool { return opts[i].gain > opts[j].gain })
	if len(opts) == 0 {
		apply(rec, e.keepHAMi(c, why), c)
		return
	}
	apply(rec, &opts[0], c)
	for _, o := range opts[1:] {
		rec.Alternatives = append(rec.Alternatives, o.Alternative)
	}
}

// hamiOption is the smallest HAMi ask that holds the workload's measured
// need: gpucores = compute (p95 activity + headroom) in whole percent
// (left unset when the pod asks no cap), gpumem = memory need (peak +
// headroom) in the ask's own unit (MiB rounded up to 256, or whole
// percent). nil, with why, when that ask is no smaller a share than the
// current one or the current one is below the need.
func (e *engine) hamiOption(c *gpuCase) (*option, string) {
	h := c.u.hami
	gpuMiB := h.gpuMiB
	if gpuMiB <= 0 {
		gpuMiB = c.model.MemoryMiB
	}
	cur, next := h.ask, h.ask
	if cur.CoresPercent > 0 {
		next.CoresPercent = min(max(int(math.Ceil(c.compute*100-1e-9)), 1), 100)
	}
	switch {
	case cur.MemoryPercent > 0:
		next.MemoryPercent = min(max(int(math.Ceil(c.need/float64(gpuMiB)*100-1e-9)), 1), 100)
	case cur.MemoryMiB > 0:
		next.MemoryMiB = max(int64(math.Ceil(c.need/hamiMemStepMiB))*hamiMemStepMiB, hamiMemStepMiB)
	}
	if next.CoresPercent > cur.CoresPercent || next.MemoryPercent > cur.MemoryPercent || next.MemoryMiB > cur.MemoryMiB {
		return nil, fmt.Sprintf("HAMi share: the measured need (%s%% compute, %s) is above its ask (%s)", pct(c.compute), mibText(c.need), askText(cur))
	}
	share := cluster.HAMiShare(&cluster.Unit{CoresPercent: next.CoresPercent, MemoryMiB: next.MemoryMiB, MemoryPercent: next.MemoryPercent}, gpuMiB, h.replicas)
	if share >= c.u.fraction {
		return nil, fmt.Sprintf("HAMi share: no smaller ask than %s holds %s%% compute and %s", askText(cur), pct(c.compute), mibText(c.need))
	}
	o := &option{resource: c.u.resource, hami: &next}
	o.Action, o.Fraction, o.TargetModel = UseHAMiShare, round4(share), c.model.Name
	o.MonthlySavingsUSD = e.saving(c, c.rate, share)
	o.gain = e.gain(c, o.MonthlySavingsUSD, share)
	o.Reason = fmt.Sprintf("HAMi share %s → %s of %s (the larger of compute and memory share: %s%% → %s%%): "+
		"p%s activity %s%% + %s%%, peak %s + %s%%; HAMi caps both, watch for GPU out-of-memory errors; "+
		"the saving is realised when HAMi's scheduler places other vGPUs in the freed share (gpuwise does not repack HAMi GPUs)",
		askText(cur), askText(next), c.model.Name, pct(c.u.fraction), pct(share),
		pct(e.p.GPU.ActivityPercentile), pct(c.p95), pct(e.p.GPU.ComputeHeadroom), mibText(c.u.framebuffer.Max), pct(e.p.GPU.MemoryHeadroom))
	return o, ""
}

// keepHAMi keeps the workload's HAMi ask, saying why nothing smaller was
// chosen.
func (e *engine) keepHAMi(c *gpuCase, why []string) *option {
	cur := c.u.hami.ask
	o := &option{resource: c.u.resource, hami: &cur}
	o.Action, o.Fraction, o.TargetModel = UseHAMiShare, round4(c.u.fraction), c.model.Name
	o.Reason = fmt.Sprintf("keep its HAMi share %s of %s (%s%% of the GPU): ", askText(cur), c.model.Name, pct(c.u.fraction))
	for i, w := range why {
		if i > 0 {
			o.Reason += "; "
		}
		o.Reason += w
	}
	return o
}

// askText is a HAMi ask as a person reads it: "gpucores 25%, gpumem 6144 MiB".
func askText(a HAMiAsk) string {
	cores := "no gpucores cap"
	if a.CoresPercent > 0 {
		cores = fmt.Sprintf("gpucores %d%%", a.CoresPercent)
	}
	switch {
	case a.MemoryPercent > 0:
		return fmt.Sprintf("%s, gpumem-percentage %d%%", cores, a.MemoryPercent)
	case a.MemoryMiB > 0:
		return fmt.Sprintf("%s, gpumem %d MiB", cores, a.MemoryMiB)
	}
	return cores + ", no gpumem ask"
}
