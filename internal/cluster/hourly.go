package cluster

import (
	"math"
	"sort"
)

// Hourly is the snapshot's time axis: hour-by-hour series per GPU workload.
// Hour h covers [Window.Start + h·1h, Window.Start + (h+1)·1h) clipped to
// the window, so the last hour of a window that is not a whole number of
// hours is partial (Window.HourCount).
type Hourly struct {
	// IdleThreshold is the activity below which GPUIdle counts GPU time as
	// idle (the default report threshold, 0.10, unless the source says).
	IdleThreshold float64 `json:"idle_threshold"`
	// Workloads are sorted by Workload, one entry per key.
	Workloads []WorkloadHours `json:"workloads"`
}

// DefaultIdleThreshold is the activity below which a GPU counts as idle
// unless the user says otherwise (DESIGN.md "Idle GPU-hours").
const DefaultIdleThreshold = 0.10

// Server names for WorkloadHours.Server: which inference server's
// counters the serving series come from.
const (
	ServerVLLM   = "vllm"
	ServerTriton = "triton"
	// ServerTGI is Hugging Face Text Generation Inference, of which only
	// the latency histogram (tgi_request_duration) is read.
	ServerTGI = "tgi"
)

// WorkloadHours is one GPU workload's hour-by-hour series, sparse in time:
// they start at hour From and every present series has the same length
// (the hours from the workload's first pod to its last). A nil series was
// not measured by the source; it is never a series of zeros. Within a
// present series, NaN is an hour without data (no pod with that series
// ran in it, or the source had no sample there); the pod and GPU-hour
// series come from the model itself and have no gaps.
//
// GPU series are GPU-hours within the hour, each unit weighted by its
// fraction of a physical GPU (for a whole hour: mean GPU-equivalents).
// CPU and memory series cover the containers that request GPUs, the ones
// whose starvation idles a GPU.
type WorkloadHours struct {
	// Workload is the key of the pods' top-level owner (Pod.WorkloadKey).
	Workload string `json:"workload"`
	// From is the index of the first hour (0 is the window's first).
	From int `json:"from"`

	// Pods is pod-hours of the workload's pods in each hour (for a whole
	// hour: the mean number of concurrent pods).
	Pods Series `json:"pods"`
	// GPUHeld is GPU-hours held: Σ unit fraction × hours held (the cost
	// engine's allocated GPU-hours, hour by hour).
	GPUHeld Series `json:"gpu_held"`
	// GPUMeasured is held GPU-hours with an activity series.
	GPUMeasured Series `json:"gpu_measured"`
	// GPUActive is Σ fraction × hours × activity; GPUIdle the measured
	// GPU-hours below IdleThreshold. Nil when nothing was measured.
	GPUActive Series `json:"gpu_active,omitempty"`
	GPUIdle   Series `json:"gpu_idle,omitempty"`

	// CPUThrottled is the share of CFS periods throttled (cAdvisor
	// container_cpu_cfs_throttled_periods_total / _periods_total); only
	// containers with a CPU limit have CFS periods.
	CPUThrottled Series `json:"cpu_throttled,omitempty"`
	// CPUOfLimit is CPU used / CPU limit over containers with a limit.
	CPUOfLimit Series `json:"cpu_of_limit,omitempty"`
	// MemoryOfLimit is the hour's peak working set / memory limit of the
	// most pressed container with a limit.
	MemoryOfLimit Series `json:"memory_of_limit,omitempty"`
	// OOMKills counts out-of-memory kills of the workload's containers.
	OOMKills Series `json:"oom_kills,omitempty"`
	// PCIeRx and NVLinkRx are mean receive bytes per second per measured
	// whole GPU (DCGM_FI_PROF_PCIE_RX_BYTES, DCGM_FI_PROF_NVLINK_RX_BYTES).
	PCIeRx   Series `json:"pcie_rx_bytes_per_second,omitempty"`
	NVLinkRx Series `json:"nvlink_rx_bytes_per_second,omitempty"`

	// Server is the inference server the serving series come from
	// (ServerVLLM, ServerTriton); empty when there are none.
	Server string `json:"server,omitempty"`
	// Requests counts requests completed successfully in the hour.
	Requests Series `json:"requests,omitempty"`
	// GenerationTokens and PromptTokens count tokens generated and
	// prompt tokens processed (vLLM; Triton counts no tokens).
	GenerationTokens Series `json:"generation_tokens,omitempty"`
	PromptTokens     Series `json:"prompt_tokens,omitempty"`
	// QueueDepth is the mean number of requests waiting, summed over pods.
	QueueDepth Series `json:"queue_depth,omitempty"`
	// Models split Requests and GenerationTokens by the model name the
	// server labels its counters with (vLLM model_name, Triton model),
	// sorted by Model; nil when no counter carried one. Each series has
	// the workload's hours; a counter without a model name counts in the
	// workload's totals only.
	Models []ModelHours `json:"models,omitempty"`
	// Latency is the servers' request latency histogram hour by hour
	// (vLLM vllm:e2e_request_latency_seconds, TGI tgi_request_duration);
	// nil when the source had none (Triton exposes only cumulative
	// durations, a mean: docs/serving-metrics.md).
	Latency *LatencyHours `json:"latency,omitempty"`
}

// ModelHours is one model name's requests and generated tokens within a
// workload, hour by hour (NaN: no data that hour; nil: not counted).
type ModelHours struct {
	Model            string `json:"model"`
	Requests         Series `json:"requests,omitempty"`
	GenerationTokens Series `json:"generation_tokens,omitempty"`
}

// named pairs each series of m with its JSON name.
func (m *ModelHours) named() []namedSeries {
	return []namedSeries{{"requests", &m.Requests, gaps}, {"generation_tokens", &m.GenerationTokens, gaps}}
}

// ModelSeries returns m's series with their JSON names, for codecs.
func (m *ModelHours) ModelSeries() []NamedSeries {
	ns := m.named()
	out := make([]NamedSeries, len(ns))
	for i, n := range ns {
		out[i] = NamedSeries{Name: n.name, Series: n.s}
	}
	return out
}

// Series is one value per hour. float32 keeps the snapshot small: its 24
// bits of mantissa hold any hourly figure to 6e-8 relative.
type Series []float32

// HourCount is the number of hours in the window, the last one possibly
// partial.
func (w Window) HourCount() int {
	return int(math.Ceil(w.Seconds() / 3600))
}

// Hours is the number of hours the workload's series cover.
func (w *WorkloadHours) Hours() int { return len(w.Pods) }

// Find returns the workload's series, or nil when there are none.
func (h *Hourly) Find(workload string) *WorkloadHours {
	if h == nil {
		return nil
	}
	i := sort.Search(len(h.Workloads), func(i int) bool { return h.Workloads[i].Workload >= workload })
	if i < len(h.Workloads) && h.Workloads[i].Workload == workload {
		return &h.Workloads[i]
	}
	return nil
}

// Sum is the series' total over the hours with data (NaN hours skipped),
// in float64.
func (s Series) Sum() float64 {
	var t float64
	for _, v := range s {
		if v == v {
			t += float64(v)
		}
	}
	return t
}

// At is the value of hour i as a float64, NaN when absent or out of range.
func (s Series) At(i int) float64 {
	if i < 0 || i >= len(s) {
		return math.NaN()
	}
	return float64(s[i])
}

// named pairs each series of w with its JSON name, in field order, for
// validation and codecs.
func (w *WorkloadHours) named() []namedSeries {
	return []namedSeries{
		{"pods", &w.Pods, noGaps}, {"gpu_held", &w.GPUHeld, noGaps}, {"gpu_measured", &w.GPUMeasured, noGaps},
		{"gpu_active", &w.GPUActive, noGaps}, {"gpu_idle", &w.GPUIdle, noGaps},
		{"cpu_throttled", &w.CPUThrottled, gaps}, {"cpu_of_limit", &w.CPUOfLimit, gaps},
		{"memory_of_limit", &w.MemoryOfLimit, gaps}, {"oom_kills", &w.OOMKills, gaps},
		{"pcie_rx_bytes_per_second", &w.PCIeRx, gaps}, {"nvlink_rx_bytes_per_second", &w.NVLinkRx, gaps},
		{"requests", &w.Requests, gaps}, {"generation_tokens", &w.GenerationTokens, gaps},
		{"prompt_tokens", &w.PromptTokens, gaps}, {"queue_depth", &w.QueueDepth, gaps},
	}
}

// Series returns every series of w with its JSON name, in field order; a
// codec walks them rather than listing fields again.
func (w *WorkloadHours) Series() []NamedSeries {
	ns := w.named()
	out := make([]NamedSeries, len(ns))
	for i, n := range ns {
		out[i] = NamedSeries{Name: n.name, Series: n.s}
	}
	return out
}

// NamedSeries is one series of a workload and its JSON name.
type NamedSeries struct {
	Name   string
	Series *Series
}

type namedSeries struct {
	name string
	s    *Series
	gaps bool // NaN (no data that hour) is allowed
}

const (
	noGaps = false
	gaps   = true
)
