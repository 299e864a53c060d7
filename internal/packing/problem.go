package packing

import (
	"errors"
	"fmt"
	"math"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// MilliPerGPU is one whole GPU in milli-GPU.
const MilliPerGPU = 1000

// Kind is how a workload asks for GPU.
type Kind string

// Kinds of GPU demand.
const (
	// NoGPU is a pod without GPUs that lives on a GPU node and needs a home
	// among the planned nodes (CPU-only nodes are outside the plan).
	NoGPU Kind = "none"
	// Whole is Demand.GPUs exclusive GPUs on one node.
	Whole Kind = "whole"
	// MIG is one MIG instance of Demand.Profile.
	MIG Kind = "mig"
	// TimeSlice is one replica of a GPU time-sliced Demand.Replicas ways.
	TimeSlice Kind = "time-slice"
	// Shared is Demand.Milli thousandths of one GPU, packed with other
	// shares up to 1000 per GPU (the openb trace's gpu_milli; GPU-sharing
	// schedulers such as HAMi).
	Shared Kind = "shared"
)

// Demand is the GPU shape of one pod.
type Demand struct {
	Kind Kind `json:"kind"`
	// GPUs is the whole-GPU count (Whole); 1 for the other GPU kinds.
	GPUs int `json:"gpus,omitempty"`
	// Profile is the MIG profile ("1g.10gb") for MIG.
	Profile string `json:"profile,omitempty"`
	// Replicas is the time-slicing replica count per GPU for TimeSlice.
	Replicas int `json:"replicas,omitempty"`
	// Class keeps time-sliced nodes apart: a node's replicas go to pods of
	// at most one named class ("dev" notebooks never share with
	// inference); "" is unclassified (time-sliced today, no
	// recommendation) and goes with any class.
	Class string `json:"class,omitempty"`
	// Milli is the share of one GPU for Shared, 1–999.
	Milli int64 `json:"milli,omitempty"`
}

// Workload is one pod to place.
type Workload struct {
	// ID is unique in the problem, e.g. the pod's "namespace/name".
	ID string `json:"id"`
	// Group is the owning workload ("namespace/Kind/name"), for patches.
	Group  string `json:"group,omitempty"`
	Demand Demand `json:"demand"`
	// Current is the shape the pod holds now; zero means Demand.
	Current Demand `json:"current,omitzero"`
	// Models are the GPU models the pod may run on; empty means any.
	Models       []string             `json:"models,omitempty"`
	CPUMilli     int64                `json:"cpu_milli"`
	MemoryBytes  int64                `json:"memory_bytes"`
	Tolerations  []cluster.Toleration `json:"tolerations,omitempty"`
	NodeSelector map[string][]string  `json:"node_selector,omitempty"`
	// Node is where the pod runs now; empty for a pod not yet placed.
	Node string `json:"node,omitempty"`
	// CurrentGPUs are the indices of the GPUs it holds on Node now; the
	// planner keeps a pod whose shape and node stay on these GPUs where it
	// can (a MIG instance cannot move between GPUs without a restart).
	CurrentGPUs []int `json:"current_gpus,omitempty"`
	// Pinned workloads stay on Node with their current shape (a bare pod
	// that no controller would recreate); PinReason says why.
	Pinned    bool   `json:"pinned,omitempty"`
	PinReason string `json:"pin_reason,omitempty"`
	// ActiveGPUs is the measured busy GPU-equivalents (Σ fraction × mean
	// activity); meaningful only when Measured.
	ActiveGPUs float64 `json:"active_gpus,omitempty"`
	Measured   bool    `json:"measured,omitempty"`
	// Note explains the shape choice ("right-sized to 1g.10gb: p95 …").
	Note string `json:"note,omitempty"`
}

// Node is one GPU node that may be kept or removed.
type Node struct {
	Name string `json:"name"`
	// Pool groups interchangeable nodes: instance type, capacity type,
	// GPU model and the labels and taints scheduling looks at.
	Pool  string `json:"pool"`
	Model string `json:"model"`
	GPUs  int    `json:"gpus"`
	// CPUMilli and MemoryBytes are what planned workloads may use:
	// allocatable less what the node's DaemonSets request.
	CPUMilli    int64 `json:"cpu_milli"`
	MemoryBytes int64 `json:"memory_bytes"`
	// MaxPods is how many planned workloads the node may run: its
	// allocatable pod count less its DaemonSet pods (the scheduler refuses
	// a pod beyond it). Nil means no limit (problems built from traces).
	MaxPods    *int              `json:"max_pods,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	Taints     []cluster.Taint   `json:"taints,omitempty"`
	USDPerHour float64           `json:"usd_per_hour"`
	Priced     bool              `json:"priced"`
	// CurrentMIG is each MIG-enabled GPU's layout now, by GPU index
	// (instances in use or not). A kept GPU whose pods fit its current
	// layout keeps it; one whose layout changes is re-cut.
	CurrentMIG map[int]gpushape.Layout `json:"current_mig,omitempty"`
	// Keep forces the node to stay (a control-plane or system node);
	// KeepReason says why.
	Keep       bool   `json:"keep,omitempty"`
	KeepReason string `json:"keep_reason,omitempty"`
}

// Problem is what Solve packs.
type Problem struct {
	Nodes     []Node
	Workloads []Workload
	// Models override the built-in GPU table per model name (live node
	// data from gpushape.FromNode); models not listed come from
	// gpushape.Lookup, and unknown ones are planned without MIG.
	Models map[string]gpushape.Model
	// Notes travel into the plan (shape decisions, data caveats).
	Notes []string
}

// Fraction is the share of one physical GPU the demand takes on a GPU of
// model m (whole GPUs count as their number).
func (d Demand) Fraction(m gpushape.Model) float64 {
	switch d.Kind {
	case Whole:
		return float64(d.GPUs)
	case MIG:
		if p, ok := m.Profile(gpushape.CanonicalProfile(d.Profile)); ok {
			return m.Fraction(p)
		}
		return 0
	case TimeSlice:
		if d.Replicas > 0 {
			return 1 / float64(d.Replicas)
		}
	case Shared:
		return float64(d.Milli) / MilliPerGPU
	}
	return 0
}

// String is the shape as a person reads it: "2×GPU", "mig 1g.10gb",
// "time-slice 1/4", "gpu 300m", "no GPU".
func (d Demand) String() string {
	switch d.Kind {
	case Whole:
		return fmt.Sprintf("%d×GPU", d.GPUs)
	case MIG:
		return "mig " + d.Profile
	case TimeSlice:
		s := fmt.Sprintf("time-slice 1/%d", d.Replicas)
		if d.Class != "" {
			s += " (" + d.Class + ")"
		}
		return s
	case Shared:
		return fmt.Sprintf("gpu %dm", d.Milli)
	}
	return "no GPU"
}

func (w *Workload) current() Demand {
	if w.Current.Kind == "" {
		return w.Demand
	}
	return w.Current
}

// Validate returns every problem with the input, each naming the node or
// workload and the fix.
func (p *Problem) Validate() error {
	var errs []error
	nodes := make(map[string]bool, len(p.Nodes))
	for i := range p.Nodes {
		n := &p.Nodes[i]
		switch {
		case n.Name == "" || nodes[n.Name]:
			errs = append(errs, fmt.Errorf("node %q: empty or duplicate name", n.Name))
		case n.GPUs < 0 || n.CPUMilli < 0 || n.MemoryBytes < 0 || (n.MaxPods != nil && *n.MaxPods < 0):
			errs = append(errs, fmt.Errorf("node %s: negative capacity (%d GPUs, %dm CPU, %d bytes, %v pods)", n.Name, n.GPUs, n.CPUMilli, n.MemoryBytes, derefInt(n.MaxPods)))
		case n.GPUs > 0 && n.Model == "":
			errs = append(errs, fmt.Errorf("node %s: %d GPUs of unknown model; label it nvidia.com/gpu.product", n.Name, n.GPUs))
		case !(n.USDPerHour >= 0) || math.IsInf(n.USDPerHour, 0):
			errs = append(errs, fmt.Errorf("node %s: price %v $/h is not a non-negative number", n.Name, n.USDPerHour))
		}
		nodes[n.Name] = true
	}
	ids := make(map[string]bool, len(p.Workloads))
	for i := range p.Workloads {
		w := &p.Workloads[i]
		if w.ID == "" || ids[w.ID] {
			errs = append(errs, fmt.Errorf("workload %q: empty or duplicate id", w.ID))
		}
		ids[w.ID] = true
		if err := w.Demand.validate(); err != nil {
			errs = append(errs, fmt.Errorf("workload %s: %w", w.ID, err))
		}
		if w.CPUMilli < 0 || w.MemoryBytes < 0 {
			errs = append(errs, fmt.Errorf("workload %s: negative CPU or memory request", w.ID))
		}
		if w.Pinned && !nodes[w.Node] {
			errs = append(errs, fmt.Errorf("workload %s: pinned to node %q, which is not in the problem", w.ID, w.Node))
		}
	}
	return errors.Join(errs...)
}

func derefInt(p *int) any {
	if p == nil {
		return "unlimited"
	}
	return *p
}

func (d Demand) validate() error {
	switch d.Kind {
	case NoGPU:
		return nil
	case Whole:
		if d.GPUs < 1 {
			return fmt.Errorf("whole-GPU demand of %d GPUs; want at least 1", d.GPUs)
		}
	case MIG:
		if d.Profile == "" {
			return errors.New("MIG demand without a profile")
		}
	case TimeSlice:
		if d.Replicas < 2 {
			return fmt.Errorf("time-slice demand with %d replicas; the device plugin needs at least 2", d.Replicas)
		}
	case Shared:
		if d.Milli < 1 || d.Milli >= MilliPerGPU {
			return fmt.Errorf("shared demand of %d milli-GPU; want 1–999 (1000 or more is a whole GPU)", d.Milli)
		}
	default:
		return fmt.Errorf("unknown GPU demand kind %q (want none, whole, mig, time-slice or shared)", d.Kind)
	}
	return nil
}
