package capacity

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Scaling is one GPU service's autoscaling opportunity: the replicas it
// needs each hour at the target activity, and the GPU-hours it would stop
// holding. Hours are the workload's (index 0 is window hour From).
type Scaling struct {
	Workload  string `json:"workload"`
	Namespace string `json:"namespace"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	From      int    `json:"from"`
	// GPUsPerReplica is GPU-hours held per pod-hour (a whole-GPU pod: 1).
	GPUsPerReplica float64 `json:"gpus_per_replica"`
	// MinReplicas and MaxReplicas are the floor and ceiling the scaler
	// gets; Replicas the most the workload ran at once.
	MinReplicas int `json:"min_replicas"`
	MaxReplicas int `json:"max_replicas"`
	Replicas    int `json:"replicas"`
	// Signal is what the generated scaler reads; Sizing what the hourly
	// need was computed from ("requests" or "gpu-activity").
	Signal Signal `json:"signal"`
	Sizing string `json:"sizing"`
	// Needed is the replicas needed per hour at the target activity,
	// clamped to the floor and to the replicas held that hour.
	Needed []int32 `json:"needed"`
	// FreedPerHour is GPU-hours held now less those held under the scaler
	// (stabilization and start-up paid), per hour; float32 keeps 10k GPUs'
	// worth small while the report's ledger holds it.
	FreedPerHour []float32 `json:"freed_per_hour"`
	// HeldGPUHours, FreedGPUHours sum them over the window.
	HeldGPUHours  float64 `json:"held_gpu_hours"`
	FreedGPUHours float64 `json:"freed_gpu_hours"`
	// Trough and Peak are the fewest and most replicas needed in an hour
	// the workload ran.
	Trough int `json:"trough_replicas"`
	Peak   int `json:"peak_replicas"`
}

// Freed is GPU-hours no longer held in workload hour i (0 when none).
func (s *Scaling) Freed(i int) float64 { return float64(s.FreedPerHour[i]) }

// Skipped is a GPU service the lever looked at and cannot size, with why.
type Skipped struct {
	Workload string `json:"workload"`
	Reason   string `json:"reason"`
}

// scalable are the owner kinds a horizontal scaler can drive.
var scalable = []string{"Deployment", "StatefulSet"}

// Autoscale sizes every GPU Deployment and StatefulSet with hourly series,
// but those whose pods hold DRA devices or HAMi vGPUs (skipped, as the
// planner keeps such nodes as they are).
// Workloads without the series it needs are skipped with the reason
// (missing data is never zero). The policy must be valid.
func Autoscale(s *cluster.Snapshot, p AutoscalePolicy) ([]Scaling, []Skipped, error) {
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	if s.Hourly == nil {
		return nil, nil, nil
	}
	var out []Scaling
	var skipped []Skipped
	kept := keptAllocations(s)
	for i := range s.Hourly.Workloads {
		w := &s.Hourly.Workloads[i]
		ns, kind, name, ok := splitKey(w.Workload)
		if !ok || !contains(scalable, kind) || w.GPUHeld.Sum() <= 0 {
			continue
		}
		if via := kept[w.Workload]; via != "" {
			skipped = append(skipped, Skipped{Workload: w.Workload, Reason: "holds its GPUs through " + via +
				", which gpuwise keeps as they are (a shared claim holds its GPU whatever the replica count)"})
			continue
		}
		sc, why := size(w, p)
		if why != "" {
			skipped = append(skipped, Skipped{Workload: w.Workload, Reason: why})
			continue
		}
		sc.Namespace, sc.Kind, sc.Name = ns, kind, name
		out = append(out, sc)
	}
	return out, skipped, nil
}

// size computes one workload's hourly need and what the scaler holds.
func size(w *cluster.WorkloadHours, p AutoscalePolicy) (Scaling, string) {
	sc := Scaling{Workload: w.Workload, From: w.From, GPUsPerReplica: w.GPUHeld.Sum() / w.Pods.Sum()}
	load, sizing := loads(w)
	if w.GPUActive == nil {
		var ok bool
		if load, ok = peakLoads(w, sc.GPUsPerReplica, p.TargetActivity); !ok {
			return Scaling{}, "no GPU activity series (unmeasured) and no request counters: the replicas it needs are unknown"
		}
		sizing = SizingPeak
	}
	sc.Sizing, sc.Signal = sizing, signalOf(w)
	sc.Replicas = int(math.Ceil(maxOf(w.Pods) - 1e-6))
	sc.MinReplicas, sc.MaxReplicas = min(p.MinReplicas, sc.Replicas), p.MaxReplicas
	if sc.MaxReplicas == 0 {
		sc.MaxReplicas = sc.Replicas
	}
	sc.MinReplicas = min(sc.MinReplicas, sc.MaxReplicas)
	sc.Needed = needed(w, load, sc, p.TargetActivity)
	sc.hold(w, p)
	sc.Signal.Threshold = threshold(w, sc, load, p.TargetActivity)
	return sc, ""
}

// loads is the hour's work in GPUs at full activity: from the request
// counters when the server has them (requests × the window's GPU-hours per
// request, so noise in DCGM's sampling does not size replicas), else the
// measured activity extended to the unmeasured held time. An hour without
// data is NaN.
func loads(w *cluster.WorkloadHours) ([]float64, string) {
	out := make([]float64, w.Hours())
	for i := range out {
		out[i] = math.NaN()
		if m := w.GPUMeasured.At(i); m > 0 {
			out[i] = w.GPUActive.At(i) / m * w.GPUHeld.At(i)
		}
	}
	perRequest, ok := gpuHoursPerRequest(w)
	if !ok {
		return out, SizingActivity
	}
	for i := range out {
		if r := w.Requests.At(i); r == r {
			out[i] = r * perRequest
		}
	}
	return out, SizingRequests
}

// Sizings: what a service's hourly need was computed from.
const (
	SizingRequests = "requests"
	SizingActivity = "gpu-activity"
)

// SizingPeak names the sizing of a service without GPU activity series:
// on its request counters, assuming its busiest hour ran at the target.
const SizingPeak = "requests, busiest hour at the target (no GPU activity series)"

// peakLoads sizes a service that has request counters and no GPU activity
// series: its busiest hour per replica is taken to have run at the target
// activity (the fleet sized for its peak), so an hour's load is its
// requests over that rate. An assumption, not a measurement: the ledger
// gives it low confidence.
func peakLoads(w *cluster.WorkloadHours, gpr, target float64) ([]float64, bool) {
	if w.Requests == nil {
		return nil, false
	}
	peak := maxPerReplica(w)
	if peak <= 0 {
		return nil, false
	}
	out := make([]float64, w.Hours())
	for i := range out {
		out[i] = w.Requests.At(i) / peak * gpr * target
	}
	return out, true
}

// gpuHoursPerRequest is active GPU-hours per request over the hours with
// both.
func gpuHoursPerRequest(w *cluster.WorkloadHours) (float64, bool) {
	if w.Requests == nil {
		return 0, false
	}
	var act, reqs float64
	for i := 0; i < w.Hours(); i++ {
		r, a := w.Requests.At(i), w.GPUActive.At(i)
		if r == r && a == a && w.GPUMeasured.At(i) > 0 {
			act, reqs = act+a/w.GPUMeasured.At(i)*w.GPUHeld.At(i), reqs+r
		}
	}
	if reqs <= 0 || act <= 0 {
		return 0, false
	}
	return act / reqs, true
}

// needed is the replicas per hour at the target activity, between the
// floor and the replicas held that hour (a scaler never holds more than
// the workload does now: its ceiling is today's fleet). An hour without
// data keeps what was held.
func needed(w *cluster.WorkloadHours, load []float64, sc Scaling, target float64) []int32 {
	out := make([]int32, w.Hours())
	for i := range out {
		pods := w.Pods.At(i)
		if pods <= 0 {
			continue
		}
		held := int(math.Ceil(pods - 1e-6))
		n := held
		if l := load[i]; l == l {
			n = int(math.Ceil(l/(sc.GPUsPerReplica*target) - 1e-9))
		}
		out[i] = int32(min(max(n, sc.MinReplicas), held, sc.MaxReplicas))
	}
	return out
}

// hold prices the scaler's hours: each hour holds its need, plus the
// previous hour's larger fleet for the stabilization window (replicas go
// only once demand stayed low that long) and the next hour's larger fleet
// for the start-up time (replicas come that far ahead of demand), never
// more than was held.
func (sc *Scaling) hold(w *cluster.WorkloadHours, p AutoscalePolicy) {
	n := len(sc.Needed)
	sc.FreedPerHour = make([]float32, n)
	stab, start := p.Stabilization.Hours(), p.Startup.Hours()
	sc.Trough, sc.Peak = math.MaxInt, 0
	for i, need := range sc.Needed {
		held := w.GPUHeld.At(i)
		if w.Pods.At(i) <= 0 {
			continue
		}
		sc.Trough, sc.Peak = min(sc.Trough, int(need)), max(sc.Peak, int(need))
		reps := float64(need)
		if i > 0 {
			reps += float64(max(0, sc.Needed[i-1]-need)) * stab
		}
		if i+1 < n {
			reps += float64(max(0, sc.Needed[i+1]-need)) * start
		}
		scaled := min(reps*sc.GPUsPerReplica*min(1, w.Pods.At(i)/math.Ceil(w.Pods.At(i)-1e-6)), held)
		sc.FreedPerHour[i] = float32(max(0, held-scaled))
		sc.HeldGPUHours += held
		sc.FreedGPUHours += max(0, held-scaled)
	}
	if sc.Peak == 0 {
		sc.Trough = 0
	}
}

// splitKey splits "namespace/Kind/name".
func splitKey(key string) (ns, kind, name string, ok bool) {
	parts := strings.SplitN(key, "/", 3)
	if len(parts) != 3 {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// maxOf is the largest value of a series (NaN skipped).
func maxOf(s cluster.Series) float64 {
	m := 0.0
	for _, v := range s {
		if v == v {
			m = max(m, float64(v))
		}
	}
	return m
}

// String describes the scaling in one line for notes and evidence.
func (s *Scaling) String() string {
	return fmt.Sprintf("%s: %d→%d replicas (trough %d, peak %d), %.0f of %.0f GPU-hours freed", s.Workload, s.Replicas, s.MinReplicas, s.Trough, s.Peak, s.FreedGPUHours, s.HeldGPUHours)
}

// keptAllocations maps each workload ("namespace/Kind/name") whose pods
// hold a DRA device or a HAMi vGPU to how ("DRA ResourceClaims", "HAMi
// vGPUs").
func keptAllocations(s *cluster.Snapshot) map[string]string {
	ix := cluster.NewIndex(s)
	out := map[string]string{}
	for i := range s.Pods {
		p := &s.Pods[i]
		for _, h := range p.GPUs {
			ref, ok := ix.Units[h.UnitID]
			switch {
			case !ok:
			case ref.GPU.Allocator == cluster.DRA:
				out[p.WorkloadKey()] = "DRA ResourceClaims"
			case ref.GPU.Sharing == cluster.HAMi:
				out[p.WorkloadKey()] = "HAMi vGPUs"
			}
		}
	}
	return out
}
