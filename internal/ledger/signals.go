package ledger

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

// snapshotSignals reads the hour-by-hour data and request counters the
// metrics need from the snapshot's hourly series (per GPU workload).
type snapshotSignals struct {
	h     *cluster.Hourly
	hours int
}

// withSnapshotSignals fills Hourly and Counters the caller left nil from
// the snapshot's hourly series, when it carries them.
func withSnapshotSignals(in Input) Input {
	if in.Snapshot == nil || in.Snapshot.Snapshot == nil || in.Snapshot.Hourly == nil {
		return in
	}
	s := in.Snapshot.Snapshot
	sig := snapshotSignals{h: s.Hourly, hours: s.Window.HourCount()}
	if in.Hourly == nil {
		in.Hourly = sig
	}
	if in.Counters == nil {
		in.Counters = sig
	}
	return in
}

// GPUActivity: the snapshot's series are per workload, not per physical
// GPU, so the 6-hour rule per GPU cannot be answered from them.
func (snapshotSignals) GPUActivity() (map[string][]float64, bool) { return nil, false }

// OOMKills sums the workloads' OOM-kill series per window hour (the
// containers that request GPUs); false when no workload has one.
func (s snapshotSignals) OOMKills() ([]int, bool) {
	sum := make([]float64, s.hours)
	found := false
	for i := range s.h.Workloads {
		w := &s.h.Workloads[i]
		if w.OOMKills == nil {
			continue
		}
		found = true
		for j, v := range w.OOMKills {
			if h := w.From + j; v == v && h >= 0 && h < s.hours {
				sum[h] += float64(v)
			}
		}
	}
	if !found {
		return nil, false
	}
	out := make([]int, s.hours)
	for h, v := range sum {
		out[h] = int(math.Round(v))
	}
	return out, true
}

// Inference is each served workload's requests and generated tokens over
// the window; false when no workload has a request series.
func (s snapshotSignals) Inference() ([]InferenceCount, bool) {
	var out []InferenceCount
	for i := range s.h.Workloads {
		w := &s.h.Workloads[i]
		if w.Requests == nil {
			continue
		}
		out = append(out, InferenceCount{Workload: w.Workload, Requests: w.Requests.Sum(),
			Tokens: w.GenerationTokens.Sum(), Metric: counterName(w.Server)})
	}
	return out, len(out) > 0
}

// counterName is the request counter of a server, or the server's name
// when it is not one the table knows.
func counterName(server string) string {
	if n, ok := requestCounters[server]; ok {
		return n
	}
	return server + " request counter"
}
