package capacity

import (
	"math"
	"slices"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// Quantization candidates (docs/capacity.md): an inference service whose
// GPU memory at FP16 would fit a MIG slice of its GPU at a lower precision
// the GPU runs natively. The memory factor applies to the whole measured
// footprint (weights and KV cache shrink, activations and the runtime do
// not), so what it frees is an upper bound that needs a quality test: the
// ledger lists it, marked, and never adds it to its total.

// Precisions a GPU model runs natively, best quality first (FP8 needs
// Hopper or Ada; T4, A10G and A100 have INT8 and INT4 tensor cores, not
// FP8).
var precisions = map[string][]string{
	"T4": {"INT8", "INT4"}, "A10G": {"INT8", "INT4"}, "A10": {"INT8", "INT4"}, "A30": {"INT8", "INT4"},
	"A100-40GB": {"INT8", "INT4"}, "A100-80GB": {"INT8", "INT4"},
	"L4": {"FP8", "INT8", "INT4"}, "L40S": {"FP8", "INT8", "INT4"},
	"H100-80GB": {"FP8", "INT8", "INT4"}, "H100-94GB": {"FP8", "INT8", "INT4"}, "H200-141GB": {"FP8", "INT8", "INT4"},
}

// memoryFactor is a precision's bytes per value over FP16's.
var memoryFactor = map[string]float64{"FP8": 0.5, "INT8": 0.5, "INT4": 0.25}

// quantHeadroom is the margin over the scaled footprint, as right-sizing
// keeps for GPU memory.
const quantHeadroom = 1.2

// Precisions returns the precisions a model runs natively (nil: unknown).
func Precisions(model string) []string { return precisions[model] }

// Quantizable is one candidate.
type Quantizable struct {
	Workload string `json:"workload"`
	Model    string `json:"model"`
	// PeakMiB is the peak framebuffer per GPU at today's precision;
	// NeedMiB the footprint at Precision with the headroom.
	PeakMiB   float64 `json:"peak_mib"`
	Precision string  `json:"precision"`
	NeedMiB   float64 `json:"need_mib"`
	// Profile is the smallest MIG slice that holds NeedMiB, Fraction its
	// share of the GPU.
	Profile  string  `json:"profile"`
	Fraction float64 `json:"fraction"`
	// GPUs is the whole GPUs the service holds at the window's end; Volume
	// its requests in the window (or GPU-hours held without counters),
	// VolumeUnit which.
	GPUs       int     `json:"gpus"`
	Volume     float64 `json:"volume"`
	VolumeUnit string  `json:"volume_unit"`
}

// Quantize lists the inference services (workloads with a server's
// counters) whose footprint fits a smaller MIG slice at a native lower
// precision, highest volume first.
func Quantize(s *cluster.Snapshot) []Quantizable {
	if s.Hourly == nil {
		return nil
	}
	peaks, gpus, models := servicePeaks(s)
	var out []Quantizable
	for i := range s.Hourly.Workloads {
		w := &s.Hourly.Workloads[i]
		if w.Server == "" || peaks[w.Workload] <= 0 {
			continue
		}
		if q, ok := fit(models[w.Workload], peaks[w.Workload]); ok {
			q.Workload, q.GPUs = w.Workload, gpus[w.Workload]
			q.Volume, q.VolumeUnit = w.Requests.Sum(), "requests"
			if !present(w.Requests) {
				q.Volume, q.VolumeUnit = w.GPUHeld.Sum(), "GPU-hours"
			}
			out = append(out, q)
		}
	}
	slices.SortStableFunc(out, func(a, b Quantizable) int { return compare(b.Volume, a.Volume) })
	return out
}

// fit finds the best-quality precision whose footprint fits a MIG slice
// smaller than the whole GPU.
func fit(model string, peakMiB float64) (Quantizable, bool) {
	m, ok := gpushape.Lookup(model)
	if !ok || !m.MIGCapable() {
		return Quantizable{}, false
	}
	for _, prec := range precisions[model] {
		need := peakMiB * memoryFactor[prec] * quantHeadroom
		for _, p := range m.Profiles {
			frac := math.Max(float64(p.ComputeSlices)/float64(m.ComputeSlices), float64(p.MemorySlices)/float64(m.MemorySlices))
			if float64(p.MemoryMiB) >= need && frac < 1 && !p.MediaExtensions {
				return Quantizable{Model: model, PeakMiB: peakMiB, Precision: prec, NeedMiB: need, Profile: p.Name, Fraction: frac}, true
			}
		}
	}
	return Quantizable{}, false
}

// servicePeaks are, per workload running at the window's end on whole
// GPUs, the peak framebuffer of any of its GPUs, the whole GPUs it holds
// at the end, and their model.
func servicePeaks(s *cluster.Snapshot) (map[string]float64, map[string]int, map[string]string) {
	whole := map[string]string{}
	for i := range s.Nodes {
		for _, g := range s.Nodes[i].GPUs {
			if len(g.Units) == 1 && g.Units[0].Fraction >= 1 {
				whole[g.Units[0].ID] = g.Model
			}
		}
	}
	peaks, gpus, models := map[string]float64{}, map[string]int{}, map[string]string{}
	for i := range s.Pods {
		p := &s.Pods[i]
		if !p.End.IsZero() && p.End.Before(s.Window.End) {
			continue
		}
		k := p.WorkloadKey()
		for _, h := range p.GPUs {
			model, ok := whole[h.UnitID]
			if !ok || h.FramebufferMiB == nil {
				continue
			}
			peaks[k] = math.Max(peaks[k], h.FramebufferMiB.Max)
			gpus[k]++
			models[k] = model
		}
	}
	return peaks, gpus, models
}
