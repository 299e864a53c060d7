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
	// SavingsUSDPerMonth is Before − After over priced nodes only; nil
	// (null) when no node is priced.
	SavingsUSDPerMonth *float64    `json:"savings_usd_per_month"`
	Pools              []PoolPlan  `json:"pools"`
	Nodes              []NodePlan  `json:"nodes"`
	Placements         []Placement `json:"placements"`
	Moves              []Move      `json:"moves"`
	// Recuts are the kept GPUs whose MIG layout changes (mig-parted
	// clears every instance on them, so their pods restart).
	Recuts   []Recut    `json:"recuts"`
	Unplaced []Unplaced `json:"unplaced"`
	// Shapes says, for every workload with a right-sized GPU shape,
	// whether the plan applied it and, if not, why.
	Shapes []ShapeDecision `json:"shapes"`
	Notes  []string        `json:"notes,omitempty"`

	problem *Problem
}

// Totals describe the GPU nodes before or after the plan.
type Totals struct {
	Nodes int `json:"nodes"`
	GPUs  int `json:"gpus"`
	// USDPerMonth is Σ node $/h × 730 over priced nodes; UnpricedNodes
	// counts the others, whose cost is not in it. It is nil (null) when
	// every node counted is unpriced: unknown, not $0.
	USDPerMonth   *float64 `json:"usd_per_month"`
	UnpricedNodes int      `json:"unpriced_nodes"`
	// AllocatedGPUs is Σ the workloads' shares of a physical GPU (whole
	// GPUs count 1 each, a 1g.10gb instance 1/7, a time-slice replica
	// 1/replicas); Allocation = AllocatedGPUs / GPUs.
	AllocatedGPUs float64 `json:"allocated_gpus"`
	Allocation    float64 `json:"allocation"`
	// ActiveGPUs is Σ the measured workloads' busy GPU-equivalents (share ×
	// mean activity over the window); Utilization = ActiveGPUs / GPUs, or
	// null when no GPU workload has usage data (n/a, never 0%).
	// Unmeasured workloads add nothing and are counted.
	ActiveGPUs          float64  `json:"active_gpus"`
	Utilization         *float64 `json:"utilization"`
	Workloads           int      `json:"workloads"`
	UnmeasuredWorkloads int      `json:"unmeasured_workloads"`

	usd      float64 // the priced sum behind USDPerMonth
	priced   int     // priced nodes
	measured int     // GPU workloads with usage data
}

// USD is the priced $/month (0 when no node is priced), for arithmetic.
func (t Totals) USD() float64 {
	if t.USDPerMonth == nil {
		return 0
	}
	return *t.USDPerMonth
}

// dollars is v, or nil when nothing behind it is priced.
func dollars(v float64, priced bool) *float64 {
	if !priced {
		return nil
	}
	return &v
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
	// USDPerMonthBefore/After cover the pool's priced nodes; both are nil
	// (null) and Priced false when none of its nodes is priced.
	USDPerMonthBefore *float64 `json:"usd_per_month_before"`
	USDPerMonthAfter  *float64 `json:"usd_per_month_after"`
	Priced            bool     `json:"priced"`
	Unpriced          int      `json:"unpriced_nodes"`
}

// NodePlan is one node's fate and, when kept, how its GPUs are used.
type NodePlan struct {
	Name   string `json:"name"`
	Pool   string `json:"pool"`
	Model  string `json:"model"`
	Keep   bool   `json:"keep"`
	Reason string `json:"reason"`
	// USDPerHour is the node's price; nil (null) and Priced false when
	// unknown.
	USDPerHour *float64 `json:"usd_per_hour"`
	Priced     bool     `json:"priced"`
	// TimeSlicingReplicas is the device-plugin replica count for the
	// node's full GPUs; 0 means no time-slicing. It is the smallest count
	// any of its pods asks for, so every pod gets at least its share.
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
	// Layout is the MIG layout (mig-parted's mig-devices) for ModeMIG:
	// the GPU's current layout when its pods fit it (free instances
	// included), else the instances its pods hold.
	Layout gpushape.Layout `json:"layout,omitempty"`
	// Recut is set when the GPU's MIG layout changes (see Plan.Recuts).
	Recut bool `json:"recut,omitempty"`
	// Replicas and Class describe a time-sliced GPU: Class is its
	// holders' named class, "" when all are unclassified.
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
	CurrentShape bool `json:"current_shape,omitempty"`
	// GrantedReplicas is set for a time-sliced pod on a node time-sliced
	// fewer ways than it asked for: it gets 1/GrantedReplicas of a GPU,
	// more than its 1/Demand.Replicas.
	GrantedReplicas int    `json:"granted_replicas,omitempty"`
	Note            string `json:"note,omitempty"`
}

// Move is a workload that changes node, shape or both.
type Move struct {
	Workload  string `json:"workload"`
	Group     string `json:"group,omitempty"`
	From      string `json:"from"`
	To        string `json:"to"`
	FromShape string `json:"from_shape"`
	ToShape   string `json:"to_shape"`
	// Kind is "move" (node only), "reshape" (shape only),
	// "move+reshape", or "restart" (same node and shape, but its MIG
	// instance changes GPU or its GPU is re-cut).
	Kind string `json:"kind"`
}

// Recut is a kept GPU whose MIG layout changes.
type Recut struct {
	Node string `json:"node"`
	GPU  int    `json:"gpu"`
	// From and To are the layouts now and in the plan; empty means MIG off.
	From gpushape.Layout `json:"from"`
	To   gpushape.Layout `json:"to"`
}

// Decisions about a right-sized shape.
const (
	// ShapeApplied: the workload runs with its right-sized shape.
	ShapeApplied = "applied"
	// ShapeNoEffect: applied, but the node's time-slicing gives the pod
	// the share it has now.
	ShapeNoEffect = "no-effect"
	// ShapeReverted: the workload keeps its current shape; Reason says why.
	ShapeReverted = "reverted"
	// ShapeUnplaced: the workload fits nowhere.
	ShapeUnplaced = "unplaced"
)

// ShapeDecision is what the plan did with one right-sized GPU shape.
type ShapeDecision struct {
	Workload    string `json:"workload"`
	Group       string `json:"group,omitempty"`
	Current     string `json:"current"`
	Recommended string `json:"recommended"`
	Planned     string `json:"planned"`
	Decision    string `json:"decision"`
	Reason      string `json:"reason,omitempty"`
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
