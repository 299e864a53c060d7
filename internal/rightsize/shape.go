package rightsize

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// timeSliceOption shares a whole GPU among replicas: as many as its memory
// holds (time-slicing has no memory isolation, so every replica's need
// must fit at once) and its compute holds at p95, clamped to the policy's
// range. Dev and notebook namespaces only.
func (e *engine) timeSliceOption(c *gpuCase) (*option, string) {
	if !c.dev {
		return nil, ""
	}
	usable := float64(c.model.UsableMiB())
	byMem := int(math.Floor(usable / math.Max(c.need, 1)))
	byAct := e.p.GPU.MaxReplicas
	if c.compute > 0 {
		byAct = int(math.Floor(1 / c.compute))
	}
	n := min(byMem, byAct, e.p.GPU.MaxReplicas)
	if n < e.p.GPU.MinReplicas {
		return nil, fmt.Sprintf("time-slicing: %s usable holds %d replica(s) of its memory and its compute %d; fewer than %d",
			mibText(usable), byMem, byAct, e.p.GPU.MinReplicas)
	}
	frac := 1 / float64(n)
	o := &option{resource: "nvidia.com/gpu.shared"}
	o.Action, o.Replicas, o.Fraction, o.TargetModel = UseTimeSlice, n, round4(frac), c.model.Name
	o.MonthlySavingsUSD = e.saving(c, c.rate, frac)
	o.gain = e.gain(c, o.MonthlySavingsUSD, frac)
	o.Reason = fmt.Sprintf("dev/notebook namespace: time-slice %s %d ways (memory allows %d at %s each of %s usable, p%s activity %s%% + %s%% allows %d, clamped to %d..%d); "+
		"schedule it only on GPUs shared with other dev workloads, never with inference; the saving is realised when they share GPUs (gpuwise plan enforces both)",
		c.model.Name, n, byMem, mibText(c.need), mibText(usable), pct(e.p.GPU.ActivityPercentile), pct(c.p95),
		pct(e.p.GPU.ComputeHeadroom), byAct, e.p.GPU.MinReplicas, e.p.GPU.MaxReplicas)
	return o, ""
}

// migOption is the smallest MIG profile of the current model that holds
// the memory need and the compute share.
func (e *engine) migOption(c *gpuCase) (*option, string) {
	switch {
	case !c.model.MIGCapable():
		return nil, fmt.Sprintf("MIG: %s has no MIG", c.model.Name)
	case c.need > maxMIGNeedMiB:
		return nil, "MIG: needs more than 40 GB; gpuwise never recommends MIG above 40 GB"
	}
	fit, ok := c.model.SmallestFit(int64(math.Ceil(c.need)), c.compute)
	if !ok {
		return nil, fmt.Sprintf("MIG: no %s profile below the whole GPU holds %s and %s%% compute", c.model.Name, mibText(c.need), pct(c.compute))
	}
	o := &option{resource: "nvidia.com/mig-" + strings.ReplaceAll(fit.Profile.Name, "+", ".")}
	o.Action, o.Profile, o.Fraction, o.TargetModel = UseMIG, fit.Profile.Name, round4(fit.Fraction), c.model.Name
	o.MonthlySavingsUSD = e.saving(c, c.rate, fit.Fraction)
	o.gain = e.gain(c, o.MonthlySavingsUSD, fit.Fraction)
	if c.u.kind == cluster.MIGSlice && gpushape.CanonicalProfile(c.u.profile) == fit.Profile.Name {
		o.Reason = "already on the smallest MIG profile that fits: "
	}
	o.Reason += fmt.Sprintf("MIG %s on %s: %s usable holds %s (peak %s + %s%%), %d/%d compute holds p%s activity %s%% + %s%%; "+
		"the saving is realised when the freed slices are packed (gpuwise plan)",
		fit.Profile.Name, c.model.Name, mibText(float64(fit.Profile.MemoryMiB)), mibText(c.need), mibText(c.u.framebuffer.Max),
		pct(e.p.GPU.MemoryHeadroom), fit.Profile.ComputeSlices, c.model.ComputeSlices,
		pct(e.p.GPU.ActivityPercentile), pct(c.p95), pct(e.p.GPU.ComputeHeadroom))
	return o, ""
}

// cheaperOptions are whole GPUs of other models in the node's cloud and
// region that hold the memory need, the pod's CPU and memory requests and
// the compute (p95 activity + headroom, in the current model's dense
// TFLOPS), at a lower price per pod than now; the cheapest instance type
// per model. Reasons nothing qualifies are appended to why.
func (e *engine) cheaperOptions(c *gpuCase, why *[]string) []option {
	n := c.u.node
	cur, ok := c.model.TFLOPS()
	switch {
	case !c.priced:
		*why = append(*why, "cheaper model: the current node is unpriced, so prices cannot be compared")
		return nil
	case !ok:
		*why = append(*why, fmt.Sprintf("cheaper model: compute of %s unknown", c.model.Name))
		return nil
	case n.Cloud == "" || n.Region == "":
		*why = append(*why, "cheaper model: the node has no cloud and region to look offers up in")
		return nil
	}
	needT := c.compute * cur
	cpu, mem := podRequests(c.w)
	best := map[string]option{}
	offers := e.offers(n.Cloud, n.Region)
	for i := range offers {
		o, ok := e.offerOption(c, &offers[i], needT, cpu, mem)
		if !ok {
			continue
		}
		if b, seen := best[o.TargetModel]; !seen || o.gain > b.gain {
			best[o.TargetModel] = o
		}
	}
	var out []option
	for _, o := range best {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].gain > out[j].gain || (out[i].gain == out[j].gain && out[i].TargetModel < out[j].TargetModel)
	})
	if len(out) == 0 {
		*why = append(*why, fmt.Sprintf("cheaper model: no cheaper GPU in %s %s holds %s and %.0f dense TFLOPS", n.Cloud, n.Region, mibText(c.need), needT))
	}
	return out
}

// offerOption prices one catalog row as a target, if it fits and saves.
func (e *engine) offerOption(c *gpuCase, offer *offer, needT, cpuCores, memGiB float64) (option, bool) {
	// Never across vendors: a CUDA workload does not run on an AMD GPU,
	// nor a ROCm or Neuron one on an NVIDIA GPU.
	if offer.GPUCount < 1 || strings.EqualFold(offer.GPUModel, c.model.Name) ||
		cluster.ModelVendor(offer.GPUModel) != cluster.ModelVendor(c.model.Name) {
		return option{}, false
	}
	m, t := offer.model, offer.tflops
	perGPU := offer.GPUCount
	cur, _ := c.model.TFLOPS()
	if !offer.known || !offer.hasT || float64(m.UsableMiB()) < c.need || t < needT ||
		float64(offer.VCPUs)/perGPU < cpuCores || offer.MemoryGiB/perGPU < memGiB {
		return option{}, false
	}
	p, err := e.offerPrice(offer.Entry, c.capacity)
	if err != nil || p.GPUUSDPerHour <= 0 {
		return option{}, false
	}
	s := e.saving(c, p.GPUUSDPerHour, 1)
	if s <= 0 {
		return option{}, false
	}
	o := option{resource: "nvidia.com/gpu"}
	o.Action, o.TargetModel, o.TargetInstanceType, o.Fraction = CheaperModel, m.Name, offer.InstanceType, 1
	o.MonthlySavingsUSD, o.gain = s, s
	o.Reason = fmt.Sprintf("cheaper model %s (%s, $%.3f/GPU-h vs $%.3f): %s usable holds %s, %.0f dense TFLOPS hold %.0f (p%s activity %s%% + %s%% of %s's %.0f)",
		m.Name, offer.InstanceType, p.GPUUSDPerHour, c.u.fraction*c.rate, mibText(float64(m.UsableMiB())), mibText(c.need), t, needT,
		pct(e.p.GPU.ActivityPercentile), pct(c.p95), pct(e.p.GPU.ComputeHeadroom), c.model.Name, cur)
	return o, true
}

// gain ranks an option: its saving when priced, else the GPU share freed.
func (e *engine) gain(c *gpuCase, saving, fraction float64) float64 {
	if c.priced {
		return saving
	}
	return c.u.fraction - fraction
}

// podRequests are the current pod's CPU cores and memory GiB requests: a
// target instance must hold them beside its GPU.
func podRequests(w *workload) (cores, gib float64) {
	p := w.latest()
	return p.CPURequestCores(), float64(p.MemoryRequestBytes()) / float64(1<<30)
}
