package capacity

import (
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Spot for interruptible training (docs/capacity.md). A training pod
// (owner kind Job, CronJob or a training-operator job) that carries the
// checkpoint hint (cluster.CheckpointHint) tolerates a restart: an
// interruption loses on average half a checkpoint interval plus the
// restart. Serving pods are never candidates: latency-bound work does not
// tolerate a two-minute notice.

// TrainingKinds are the owner kinds counted as training.
var TrainingKinds = []string{"Job", "CronJob", "PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob", "TrainJob", "RayJob", "JobSet"}

// SpotTolerant says whether a pod is a spot candidate, and why not.
func SpotTolerant(p *cluster.Pod) (bool, string) {
	switch {
	case !contains(TrainingKinds, p.Owner.Kind):
		return false, "not a training job (owner kind " + p.Owner.Kind + "): serving and interactive work stays on on-demand"
	case p.CheckpointSeconds <= 0:
		return false, "no checkpoint hint (" + cluster.CheckpointHint + "): an interruption would restart it from the beginning"
	}
	return true, ""
}

// Interruption rates a spot GPU node is assumed to suffer, per month,
// unless the window shows more (docs/capacity.md): the largest GPU
// instances are the most reclaimed.
const (
	LargeGPUInterruptionsPerMonth = 0.20
	GPUInterruptionsPerMonth      = 0.10
	// SpotRestart is what a restart costs besides the lost work: a new
	// node, the image and the last checkpoint loaded.
	SpotRestart = 10 * time.Minute
	// SpotWidenLimit is the seeds' threshold: more interruptions a week
	// than this and spot is not widened.
	SpotWidenLimit = 3.0
	hoursPerMonth  = 730.0
)

// largeGPUFamilies are instance families of 8-GPU nodes.
var largeGPUFamilies = []string{"p4d", "p4de", "p5", "p5e", "p5en", "p6", "standard_nd"}

// InterruptionRate is the assumed interruptions per node-hour of an
// instance type on spot.
func InterruptionRate(instanceType string) float64 {
	it := strings.ToLower(instanceType)
	for _, f := range largeGPUFamilies {
		if strings.HasPrefix(it, f) {
			return LargeGPUInterruptionsPerMonth / hoursPerMonth
		}
	}
	return GPUInterruptionsPerMonth / hoursPerMonth
}

// Rework is the expected share of a spot node's hours lost to
// interruptions: rate per hour × (half the checkpoint interval + the
// restart).
func Rework(ratePerHour float64, checkpoint time.Duration) float64 {
	return ratePerHour * (checkpoint.Hours()/2 + SpotRestart.Hours())
}

// SpotObserved is the window's spot interruptions: spot nodes that went
// away, their rate per spot node-hour and per week.
type SpotObserved struct {
	Interruptions int     `json:"interruptions"`
	NodeHours     float64 `json:"spot_node_hours"`
	PerWeek       float64 `json:"per_week"`
}

// ObserveSpot counts the spot node interruptions of the window.
func ObserveSpot(s *cluster.Snapshot) SpotObserved {
	var o SpotObserved
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Capacity == cluster.Spot && n.HasGPUs() {
			o.NodeHours += s.Window.Clip(n.Created, n.Deleted) / 3600
		}
	}
	for _, it := range cluster.Interruptions(s) {
		if it.Kind == "node" && it.Reason == cluster.NodeSpotInterrupted {
			o.Interruptions++
		}
	}
	o.PerWeek = cluster.PerWeek(o.Interruptions, s.Window)
	return o
}

// Rate is the observed interruptions per spot node-hour (0 without spot
// hours).
func (o SpotObserved) Rate() float64 {
	if o.NodeHours <= 0 {
		return 0
	}
	return float64(o.Interruptions) / o.NodeHours
}

// SpotWorkload is a training workload that tolerates spot, running at the
// window's end on on-demand (or unknown) capacity.
type SpotWorkload struct {
	Workload, Namespace, Kind, Name string
	Checkpoint                      time.Duration
	// Model and InstanceTypes are where its GPU pods run now.
	Model         string
	InstanceTypes []string
}

// SpotCandidates lists the spot-tolerant training workloads not on spot
// yet, in workload order.
func SpotCandidates(s *cluster.Snapshot) []SpotWorkload {
	nodes := map[string]*cluster.Node{}
	for i := range s.Nodes {
		nodes[s.Nodes[i].Name] = &s.Nodes[i]
	}
	byKey := map[string]*SpotWorkload{}
	var keys []string
	for i := range s.Pods {
		p := &s.Pods[i]
		n := nodes[p.Node]
		if ok, _ := SpotTolerant(p); !ok || n == nil || !n.HasGPUs() || n.Capacity == cluster.Spot || len(p.GPUs) == 0 ||
			!p.End.IsZero() && p.End.Before(s.Window.End) {
			continue
		}
		k := p.WorkloadKey()
		w := byKey[k]
		if w == nil {
			ns, kind, name, _ := splitKey(k)
			w = &SpotWorkload{Workload: k, Namespace: ns, Kind: kind, Name: name, Model: n.GPUs[0].Model}
			byKey[k], keys = w, append(keys, k)
		}
		w.Checkpoint = max(w.Checkpoint, time.Duration(p.CheckpointSeconds)*time.Second)
		if !contains(w.InstanceTypes, n.InstanceType) && n.InstanceType != "" {
			w.InstanceTypes = append(w.InstanceTypes, n.InstanceType)
		}
	}
	slices.Sort(keys)
	out := make([]SpotWorkload, len(keys))
	for i, k := range keys {
		out[i] = *byKey[k]
	}
	return out
}
