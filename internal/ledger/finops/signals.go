package finops

import (
	"math"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// requestCounters names the counter behind each inference server's
// request series (the servers' own metric names).
var requestCounters = map[string]string{
	cluster.ServerVLLM:   "vllm:request_success_total",
	cluster.ServerTriton: "nv_inference_request_success",
}

// snapshotSignals is what the metrics need from the snapshot's hourly
// series (per GPU workload), read once: OOM kills per window hour and
// each served workload's counts.
type snapshotSignals struct {
	oom    []int
	oomOK  bool
	counts []InferenceCount
}

// SnapshotSignals reads the hour-by-hour data and request counters the
// metrics need from the snapshot's hourly series; nil, nil when it has
// none. What it returns holds no reference to the series, so a caller
// done with them may release them before Build.
func SnapshotSignals(s *cluster.Prepared) (Hourly, Counters) {
	if s == nil || s.Hourly() == nil {
		return nil, nil
	}
	sig := &snapshotSignals{counts: inferenceCounts(s.Hourly())}
	sig.oom, sig.oomOK = oomPerHour(s.Hourly(), s.Window().HourCount())
	return sig, sig
}

// GPUActivity: the snapshot's series are per workload, not per physical
// GPU, so the 6-hour rule per GPU cannot be answered from them.
func (*snapshotSignals) GPUActivity() (map[string][]float64, bool) { return nil, false }

// OOMKills is the workloads' OOM kills per window hour (the containers
// that request GPUs); false when no workload has an OOM-kill series.
func (s *snapshotSignals) OOMKills() ([]int, bool) { return s.oom, s.oomOK }

// Inference is each served workload's requests and generated tokens over
// the window; false when no workload has a request series.
func (s *snapshotSignals) Inference() ([]InferenceCount, bool) { return s.counts, len(s.counts) > 0 }

// oomPerHour sums the workloads' OOM-kill series per window hour.
func oomPerHour(h *cluster.Hourly, hours int) ([]int, bool) {
	sum := make([]float64, hours)
	found := false
	for i := range h.Workloads {
		w := &h.Workloads[i]
		if w.OOMKills == nil {
			continue
		}
		found = true
		for j, v := range w.OOMKills {
			if at := w.From + j; v == v && at >= 0 && at < hours {
				sum[at] += float64(v)
			}
		}
	}
	if !found {
		return nil, false
	}
	out := make([]int, hours)
	for i, v := range sum {
		out[i] = int(math.Round(v))
	}
	return out, true
}

// inferenceCounts are the requests and generated tokens of each workload
// with a request series.
func inferenceCounts(h *cluster.Hourly) []InferenceCount {
	var out []InferenceCount
	for i := range h.Workloads {
		w := &h.Workloads[i]
		if w.Requests == nil {
			continue
		}
		ic := InferenceCount{Workload: w.Workload, Requests: w.Requests.Sum(),
			Tokens: w.GenerationTokens.Sum(), Metric: counterName(w.Server)}
		for _, m := range w.Models {
			ic.Models = append(ic.Models, ModelCount{Model: m.Model, Requests: m.Requests.Sum(), Tokens: m.GenerationTokens.Sum()})
		}
		out = append(out, ic)
	}
	return out
}

// counterName is the request counter of a server, or the server's name
// when it is not one the table knows.
func counterName(server string) string {
	if n, ok := requestCounters[server]; ok {
		return n
	}
	return server + " request counter"
}
