package sim

import (
	"math"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// The simulated vLLM servers' end-to-end request latency: lognormal with
// a median of the decode time of a request's tokens (latencyPerToken a
// generated token) and a spread of latencySigma, the same at any load,
// so that a change's effect on it is known exactly: a backfiring change
// multiplies every request's latency by BackfireLatency from its hour on.
// The histogram is vLLM's (docs/serving-metrics.md).

// VLLMLatencyMetric is vLLM's end-to-end request latency histogram.
const VLLMLatencyMetric = "vllm:e2e_request_latency_seconds"

// VLLMLatencyBounds are vllm:e2e_request_latency_seconds' buckets
// (vLLM's request_latency_buckets), in seconds.
var VLLMLatencyBounds = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0,
	40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}

const (
	latencyPerToken = 0.025 // seconds a generated token (40 tokens/s decode)
	latencySigma    = 0.5
)

// BackfireLatency is the factor a backfiring change (a MIG profile or a
// memory request too small) multiplies the servers' latency by.
const BackfireLatency = 1.25

// latencyMedian is the server's median request latency in seconds; 0:
// the simulator gives it no histogram (Triton exposes none, only
// cumulative durations).
func (s *serveLoad) latencyMedian() float64 {
	if s == nil || s.server != cluster.ServerVLLM || s.genTok <= 0 {
		return 0
	}
	return s.genTok * latencyPerToken
}

// latencyShares are the shares of requests in each bucket of bounds (the
// last +Inf) for a lognormal latency of the median.
func latencyShares(bounds []float64, median float64) []float64 {
	out := make([]float64, len(bounds)+1)
	prev := 0.0
	for j := range out {
		cdf := 1.0
		if j < len(bounds) {
			cdf = 0.5 * math.Erfc(-(math.Log(bounds[j])-math.Log(median))/(latencySigma*math.Sqrt2))
		}
		out[j] = cdf - prev
		prev = cdf
	}
	return out
}

// latencyMean is the mean of the lognormal latency of the median.
func latencyMean(median float64) float64 {
	return median * math.Exp(latencySigma*latencySigma/2)
}

// slowDown multiplies the latency of the workload's requests from hour
// at on by factor: each hour's histogram, taken as uniform within each
// bucket (histogram_quantile's reading), is stretched by factor and binned
// again into the same bounds; the +Inf bucket stays where it is.
func slowDown(s *cluster.Snapshot, workload string, at int, factor float64) {
	wh := s.Hourly.Find(workload)
	if wh == nil || wh.Latency == nil {
		return
	}
	l := wh.Latency
	b := l.Buckets()
	counts := make(cluster.Series, len(l.Counts))
	copy(counts, l.Counts)
	for i := max(at-wh.From, 0); i < wh.Hours(); i++ {
		row := l.Hour(i)
		if row == nil {
			continue
		}
		out := stretch(l.Bounds, row, factor)
		for j := range out {
			counts[i*b+j] = float32(out[j])
		}
	}
	c := *l
	c.Counts = counts
	wh.Latency = &c
}

// stretch is the bucket counts of a histogram whose every value is factor
// times row's (uniform within each finite bucket).
func stretch(bounds []float64, row []float32, factor float64) []float64 {
	out := make([]float64, len(row))
	inf := len(bounds)
	out[inf] = float64(row[inf])
	for j := 0; j < inf; j++ {
		lo, hi := 0.0, bounds[j]*factor
		if j > 0 {
			lo = bounds[j-1] * factor
		}
		n := float64(row[j])
		if n == 0 {
			continue
		}
		left := n
		for k := 0; k < inf && left > 0; k++ {
			klo := 0.0
			if k > 0 {
				klo = bounds[k-1]
			}
			if over := min(hi, bounds[k]) - max(lo, klo); over > 0 {
				part := n * over / (hi - lo)
				out[k] += part
				left -= part
			}
		}
		out[inf] += max(left, 0)
	}
	return out
}
