package cost

import "github.com/gpuwise/gpuwise/internal/cluster"

// Hours are GPU-hours, each weighted by the unit's fraction of its GPU.
type Hours struct {
	// Provisioned is GPU capacity that existed (node rows and totals).
	Provisioned float64 `json:"provisioned"`
	// Allocated is time units were held by pods.
	Allocated float64 `json:"allocated"`
	// Active is allocated time weighted by measured activity.
	Active float64 `json:"active"`
	// Idle is measured allocated time below the idle threshold.
	Idle float64 `json:"idle"`
	// Unmeasured is allocated time with no usage data.
	Unmeasured float64 `json:"unmeasured"`
	// Unallocated is provisioned time no pod held.
	Unallocated float64 `json:"unallocated"`
	// SMActive weights held time by DCGM_FI_PROF_SM_ACTIVE, over the
	// holdings that report it (SMMeasured); zero where no series has it.
	SMActive   float64 `json:"sm_active"`
	SMMeasured float64 `json:"sm_measured"`
}

func (h *Hours) add(o Hours) {
	h.Provisioned += o.Provisioned
	h.Allocated += o.Allocated
	h.Active += o.Active
	h.Idle += o.Idle
	h.Unmeasured += o.Unmeasured
	h.Unallocated += o.Unallocated
	h.SMActive += o.SMActive
	h.SMMeasured += o.SMMeasured
}

// GPUCost splits GPU dollars. Active + AllocatedIdle + Unmeasured is what
// the holders' allocation cost; Unallocated is capacity nobody held (on a
// pod row under a sharing mode: the pod's share of it).
type GPUCost struct {
	Active        float64 `json:"active"`
	AllocatedIdle float64 `json:"allocated_idle"`
	Unmeasured    float64 `json:"unmeasured"`
	Unallocated   float64 `json:"unallocated"`
}

func (c *GPUCost) add(o GPUCost) {
	c.Active += o.Active
	c.AllocatedIdle += o.AllocatedIdle
	c.Unmeasured += o.Unmeasured
	c.Unallocated += o.Unallocated
}

// Allocated is what holders pay for GPU time they held.
func (c GPUCost) Allocated() float64 { return c.Active + c.AllocatedIdle + c.Unmeasured }

// Total is all GPU dollars of the line or row.
func (c GPUCost) Total() float64 { return c.Allocated() + c.Unallocated }

// Line is the atom of allocation: one pod on one node, or one node's
// unallocated remainder (Pod nil). Rows are sums of lines.
type Line struct {
	Pod  *cluster.Pod
	Node *cluster.Node
	// Priced is false for lines on nodes the catalog could not price: their
	// hours count, their dollars are absent (never a silent zero).
	Priced   bool
	GPUHours Hours
	GPUCost  GPUCost
	// CPU and Memory are the pod's CPU and memory cost (max of request and
	// mean usage); on an unallocated line, the node's unheld CPU/memory.
	CPU    float64
	Memory float64
	// CPUMemoryUnallocated is the pod's share of unheld CPU/memory cost
	// under a sharing mode.
	CPUMemoryUnallocated float64
	// Mechanism is how the pod holds its GPUs (cluster.PodMechanism:
	// "device-plugin", "mig", "time-slicing", "dra", "hami", joined with
	// "+" when several); on an unallocated line the node's
	// (cluster.NodeMechanism).
	Mechanism string
}

// Total is the line's dollars.
func (l *Line) Total() float64 {
	return l.GPUCost.Total() + l.CPU + l.Memory + l.CPUMemoryUnallocated
}
