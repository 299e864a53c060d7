package packing

import (
	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// Plan is a consolidation plan: which nodes stay, how their GPUs are cut,
// where every workload goes, what moves, what fits nowhere, and what it
// all costs before and after. It is a value; nothing is applied.
type Plan struct {
	Before Totals `json:"before"`
	After  Totals `json:"after"`
	// SavingsUSDPerMonth is Before − After over priced nodes only.
	SavingsUSDPerMonth float64     `json:"savings_usd_per_month"`
	Pools              []PoolPlan  `json:"pools"`
	Nodes              []NodePlan  `json:"nodes"`
	Placements         []Placement `json:"placements"`
	Moves              []Move      `json:"moves"`
	Unplaced           []Unplaced  `json:"unplaced"`
	Notes              []string    `json:"notes,omitempty"`

	problem *Problem
}

// Totals describe the GPU nodes before or after the plan.
type Totals struct {
	Nodes int `json:"nodes"`
	GPUs  int `json:"gpus"`
	// USDPerMonth is Σ node $/h × 730 over priced nodes; UnpricedNodes
	// counts the others, whose cost is not in it.
	USDPerMonth   float64 `json:"usd_per_month"`
	UnpricedNodes int     `json:"unpriced_nodes"`
	// AllocatedGPUs is Σ the workloads' shares of a physical GPU (whole
	// GPUs count 1 each, a 1g.10gb instance 1/7, a time-slice replica
	// 1/replicas); Allocation = AllocatedGPUs / GPUs.
	AllocatedGPUs float64 `json:"allocated_gpus"`
	Allocation    float64 `json:"allocation"`
	// ActiveGPUs is Σ the measured workloads' busy GPU-equivalents (share ×
	// mean activity over the window); Utilization = ActiveGPUs / GPUs.
	// Unmeasured workloads add nothing and are counted.
	ActiveGPUs          float64 `json:"active_gpus"`
	Utilization         float64 `json:"utilization"`
	Workloads           int     `json:"workloads"`
	UnmeasuredWorkloads int     `json:"unmeasured_workloads"`
}

// PoolPlan is what happens to one pool of interchangeable nodes.
type PoolPlan struct {
	Pool     string `json:"pool"`
	Model    string `json:"model"`
	Nodes    int    `json:"nodes"`
	Kept     int    `json:"kept"`
	Removed  int    `json:"removed"`
	GPUs     int    `json:"gpus"`
	GPUsKept int    `json:"gpus_kept"`
	// USDPerMonthBefore/After cover the pool's priced nodes.
	USDPerMonthBefore float64 `json:"usd_per_month_before"`
	USDPerMonthAfter  float64 `json:"usd_per_month_after"`
	Unpriced          int     `json:"unpriced_nodes"`
}

// NodePlan is one node's fate and, when kept, how its GPUs are used.
type NodePlan struct {
	Name   string `json:"name"`
	Pool   string `json:"pool"`
	Model  string `json:"model"`
	Keep   bool   `json:"keep"`
	Reason string `json:"reason"`
	// USDPerHour is the node's price (0 and Priced false when unknown).
	USDPerHour float64 `json:"usd_per_hour"`
	Priced     bool    `json:"priced"`
	// TimeSlicingReplicas is the device-plugin replica count for the
	// node's full GPUs; 0 means no time-slicing.
	TimeSlicingReplicas int       `json:"time_slicing_replicas,omitempty"`
	GPUs                []GPUPlan `json:"gpus,omitempty"`
	Workloads           int       `json:"workloads"`
	CPUMilli            int64     `json:"cpu_milli"`
	CPUMilliUsed        int64     `json:"cpu_milli_used"`
	MemoryBytes         int64     `json:"memory_bytes"`
	MemoryBytesUsed     int64     `json:"memory_bytes_used"`
}

// GPU modes in a plan.
const (
	ModeFree      = "free"
	ModeWhole     = "whole"
	ModeMIG       = "mig"
	ModeTimeSlice = "time-slice"
	ModeShared    = "shared"
)

// GPUPlan is one GPU of a kept node.
type GPUPlan struct {
	Index int    `json:"index"`
	Mode  string `json:"mode"`
	// Layout is the MIG layout (mig-parted's mig-devices) for ModeMIG.
	Layout gpushape.Layout `json:"layout,omitempty"`
	// Replicas and Class describe a time-sliced GPU.
	Replicas int    `json:"replicas,omitempty"`
	Class    string `json:"class,omitempty"`
	// UsedMilli is the shares taken on a shared GPU.
	UsedMilli int64    `json:"used_milli,omitempty"`
	Workloads []string `json:"workloads,omitempty"`
}

// Placement is where one workload runs in the plan.
type Placement struct {
	Workload string `json:"workload"`
	Group    string `json:"group,omitempty"`
	Node     string `json:"node"`
	GPUs     []int  `json:"gpus,omitempty"`
	Demand   Demand `json:"demand"`
	// KeptShape is set when the workload keeps its current shape and node
	// (pinned, or its new shape fits nowhere); Note says why.
	KeptShape bool `json:"kept_shape,omitempty"`
	// CurrentShape is set when the workload keeps its current shape on
	// another node of the same GPU model (its planned shape fit nowhere
	// that lets a node go).
	CurrentShape bool   `json:"current_shape,omitempty"`
	Note         string `json:"note,omitempty"`
}

// Move is a workload that changes node, shape or both.
type Move struct {
	Workload  string `json:"workload"`
	Group     string `json:"group,omitempty"`
	From      string `json:"from"`
	To        string `json:"to"`
	FromShape string `json:"from_shape"`
	ToShape   string `json:"to_shape"`
	// Kind is "move" (node only), "reshape" (shape only) or
	// "move+reshape".
	Kind string `json:"kind"`
}

// Unplaced is a workload that fits nowhere, and why.
type Unplaced struct {
	Workload string `json:"workload"`
	Group    string `json:"group,omitempty"`
	Node     string `json:"node,omitempty"`
	Demand   Demand `json:"demand"`
	Reason   string `json:"reason"`
}

// Problem returns the input the plan was made from.
func (pl *Plan) Problem() *Problem { return pl.problem }
