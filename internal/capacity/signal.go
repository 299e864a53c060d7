package capacity

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Signal is the metric a generated scaler reads, best first: the
// server's queue depth (requests waiting: demand before it reaches the
// GPU), then its request rate, then DCGM GPU activity.
type Signal struct {
	// Kind is SignalQueue, SignalRequests or SignalActivity.
	Kind string `json:"kind"`
	// Metric is the Prometheus metric read; Server the inference server
	// that exports it (empty for DCGM).
	Metric string `json:"metric"`
	Server string `json:"server,omitempty"`
	// Threshold is the value per replica the scaler holds the signal at:
	// requests waiting, requests per second, or activity (0–1).
	Threshold float64 `json:"threshold"`
	// PerReplica says the threshold is an average per replica (KEDA
	// metricType AverageValue); false for activity, a utilization (Value).
	PerReplica bool `json:"per_replica"`
}

// Signal kinds.
const (
	SignalQueue    = "queue-depth"
	SignalRequests = "request-rate"
	SignalActivity = "gpu-activity"
)

// Metric names the scalers read (docs/capacity.md).
const (
	MetricVLLMQueue     = "vllm:num_requests_waiting"
	MetricVLLMRequests  = "vllm:request_success_total"
	MetricTritonQueue   = "nv_inference_queue_duration_us"
	MetricTritonSuccess = "nv_inference_request_success"
	MetricDCGMActivity  = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
)

// signalOf picks the best signal the workload's series show.
func signalOf(w *cluster.WorkloadHours) Signal {
	queue := map[string]string{cluster.ServerVLLM: MetricVLLMQueue, cluster.ServerTriton: MetricTritonQueue}
	reqs := map[string]string{cluster.ServerVLLM: MetricVLLMRequests, cluster.ServerTriton: MetricTritonSuccess}
	switch {
	case present(w.QueueDepth) && queue[w.Server] != "":
		return Signal{Kind: SignalQueue, Metric: queue[w.Server], Server: w.Server, PerReplica: true}
	case present(w.Requests) && reqs[w.Server] != "":
		return Signal{Kind: SignalRequests, Metric: reqs[w.Server], Server: w.Server, PerReplica: true}
	}
	return Signal{Kind: SignalActivity, Metric: MetricDCGMActivity}
}

// present: the series exists and has at least one hour with data.
func present(s cluster.Series) bool {
	return slices.ContainsFunc(s, func(v float32) bool { return v == v })
}

// threshold is the signal's value per replica when the fleet runs at the
// target: activity is the target itself; requests per second per replica
// is the target's share of a replica's full-activity rate; queue depth is
// the median, over the busiest quarter of hours, of requests waiting per
// replica needed (what each replica carried when sized at the target),
// at least 1.
func threshold(w *cluster.WorkloadHours, sc Scaling, load []float64, target float64) float64 {
	switch sc.Signal.Kind {
	case SignalRequests:
		perRequest, ok := gpuHoursPerRequest(w)
		if !ok { // sized on the busiest hour: that hour's rate per replica
			return round3(maxPerReplica(w) / 3600)
		}
		return round3(sc.GPUsPerReplica * target / perRequest / 3600)
	case SignalQueue:
		return queuePerReplica(w, sc, load)
	}
	return target
}

// maxPerReplica is the busiest hour's requests per replica.
func maxPerReplica(w *cluster.WorkloadHours) float64 {
	peak := 0.0
	for i := 0; i < w.Hours(); i++ {
		if r, pods := w.Requests.At(i), w.Pods.At(i); r == r && pods >= 1-1e-6 {
			peak = max(peak, r/pods)
		}
	}
	return peak
}

// queuePerReplica: see threshold.
func queuePerReplica(w *cluster.WorkloadHours, sc Scaling, load []float64) float64 {
	type hour struct{ load, perReplica float64 }
	var hs []hour
	for i, n := range sc.Needed {
		if q := w.QueueDepth.At(i); q == q && n > 0 && load[i] == load[i] {
			hs = append(hs, hour{load[i], q / float64(n)})
		}
	}
	if len(hs) == 0 {
		return 1
	}
	slices.SortFunc(hs, func(a, b hour) int { return -compare(a.load, b.load) })
	busy := hs[:max(1, len(hs)/4)]
	vals := make([]float64, len(busy))
	for i, h := range busy {
		vals[i] = h.perReplica
	}
	slices.Sort(vals)
	return max(1, math.Round(vals[len(vals)/2]))
}

func compare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// Describe says what the signal is, for evidence and notes.
func (s Signal) Describe() string {
	switch s.Kind {
	case SignalQueue:
		return fmt.Sprintf("queue depth (%s), %g waiting per replica", s.Metric, s.Threshold)
	case SignalRequests:
		return fmt.Sprintf("request rate (%s), %g/s per replica", s.Metric, s.Threshold)
	}
	return fmt.Sprintf("GPU activity (%s) at %g", s.Metric, s.Threshold)
}

// Query is the PromQL a scaler runs for the workload: one value, the
// signal summed over its pods (activity: averaged). Series are matched by
// the namespace and pod labels dcgm-exporter sets and that a Kubernetes
// service-discovery scrape of vLLM and Triton usually carries.
func (s Signal) Query(ns, kind, name string) string {
	sel := fmt.Sprintf(`{namespace=%q,pod=~%q}`, ns, PodPattern(kind, name))
	switch {
	case s.Kind == SignalQueue && s.Server == cluster.ServerTriton:
		// Little's law: queue-microseconds per second of wall time is
		// the mean number of requests waiting.
		return "sum(rate(" + s.Metric + sel + "[2m])) / 1e6"
	case s.Kind == SignalQueue:
		return "sum(" + s.Metric + sel + ")"
	case s.Kind == SignalRequests:
		return "sum(rate(" + s.Metric + sel + "[2m]))"
	}
	return "avg(" + s.Metric + sel + ")"
}

// PodPattern matches the pods of a Deployment (name-<hash>-<id>) or a
// StatefulSet (name-<ordinal>) and not those of a workload whose name
// only starts with the same text.
func PodPattern(kind, name string) string {
	if kind == "StatefulSet" {
		return regexpQuote(name) + "-[0-9]+"
	}
	return regexpQuote(name) + "-[a-z0-9]+-[a-z0-9]+"
}

// regexpQuote escapes the dots a DNS name may hold.
func regexpQuote(s string) string { return strings.ReplaceAll(s, ".", `\.`) }

// NodePoolName is the generated node pool's name for a GPU model:
// "gpu-h100-80gb".
func NodePoolName(model string) string {
	return "gpu-" + strings.ToLower(strings.NewReplacer(" ", "-", "_", "-", ".", "-").Replace(model))
}

// KarpenterClouds are the clouds with a Karpenter provider, whose nodes a
// generated NodePool can launch: AWS (EC2NodeClass) and Azure
// (AKSNodeClass). Other nodes — on-premises, GCP — are in no NodePool.
var KarpenterClouds = []string{"aws", "azure"}

// NodePoolNameIn is the generated node pool's name for a GPU model on one
// cloud: "gpu-h100-80gb-aws". A NodePool launches one provider's
// instances with that provider's node class, so a model on two clouds has
// two pools.
func NodePoolNameIn(model, cloud string) string {
	return NodePoolName(model) + "-" + strings.ToLower(cloud)
}
