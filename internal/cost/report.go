package cost

import (
	"cmp"
	"slices"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Report is the cost report: totals, rows grouped by one key, the idle
// leaderboard and data-quality notes. Its JSON form is documented in
// docs/report-format.md and is stable.
type Report struct {
	// Partial says what the source could not read and which figures that
	// changes (cluster.Snapshot.Partial); renderers show it first.
	Partial        []string       `json:"partial,omitempty"`
	Window         cluster.Window `json:"window"`
	WindowHours    float64        `json:"window_hours"`
	Source         string         `json:"source"`
	ActivityMetric string         `json:"activity_metric"`
	IdleThreshold  float64        `json:"idle_threshold"`
	IdleShare      IdleShare      `json:"idle_share"`
	By             string         `json:"by"`
	Totals         Totals         `json:"totals"`
	Rows           []Row          `json:"rows"`
	TopIdle        []Workload     `json:"top_idle_workloads"`
	// LowUtilization is the low-utilization list, when asked for
	// (ReportOptions.LowUtil).
	LowUtilization *LowUtil `json:"low_utilization,omitempty"`
	Notes          []Note   `json:"notes"`
	// Page, on a page of the report (Paged: the API's offset, limit and
	// namespace), says which rows it holds, how many matched in all and
	// their sum; absent on the whole report.
	Page *Page `json:"page,omitempty"`
}

// Row is one group's sums.
type Row struct {
	Key   string `json:"key"`
	Pods  int    `json:"pods"`
	Costs        // inlined dollar and hour fields
	// Unpriced is true when every line of the row is on an unpriced node:
	// its dollars are absent (null in JSON, empty in CSV), not zero.
	Unpriced bool `json:"unpriced"`
	// UnpricedGPUHours are the row's allocated and unallocated GPU-hours
	// on unpriced nodes, whose dollars are missing from the row.
	UnpricedGPUHours float64 `json:"unpriced_gpu_hours"`
	// Mechanisms are how the row's GPU-hours are allocated
	// (cluster.Mechanisms: device-plugin, mig, time-slicing, dra, hami),
	// in that order; empty for a row without GPU-hours.
	Mechanisms []string `json:"mechanisms,omitempty"`
	// Vendor is the accelerators' vendor (nvidia, amd, aws-neuron,
	// intel-gaudi) of a GPU model's or a GPU node's row (--by gpu-model,
	// --by node); absent on other groupings, on CPU nodes and on the
	// unknown model's row.
	Vendor string `json:"vendor,omitempty"`
	// Workload and GPUUnits are a pod row's (--by pod): the pod's
	// workload (namespace/Kind/name) and the GPU units it held (ids as
	// the low-utilization list and the history name them, sorted); absent
	// on other groupings and on the unallocated row.
	Workload string   `json:"workload,omitempty"`
	GPUUnits []string `json:"gpu_units,omitempty"`
}

// Costs are the dollar and hour fields shared by rows and totals.
type Costs struct {
	GPUHours             Hours   `json:"gpu_hours"`
	GPUCost              GPUCost `json:"gpu_cost_usd"`
	CPUCost              float64 `json:"cpu_cost_usd"`
	MemoryCost           float64 `json:"memory_cost_usd"`
	CPUMemoryUnallocated float64 `json:"cpu_memory_unallocated_usd"`
	// UnheldCPUMemory is the CPU and memory cost, within CPUCost and
	// MemoryCost, of capacity no pod held (lines without a pod): what
	// gpuwise_unallocated_cost_usd_total{component="cpu_memory"} counts.
	// Not in the report's JSON (CPUCost and MemoryCost hold it).
	UnheldCPUMemory float64  `json:"-"`
	TotalCost       float64  `json:"total_cost_usd"`
	GPUUtilization  *float64 `json:"gpu_utilization"`
	// SMUtilization is SM_ACTIVE-weighted over allocated time that reports
	// it; the graphics-engine metric behind GPUUtilization overstates use.
	SMUtilization  *float64 `json:"sm_utilization"`
	MonthlyCost    float64  `json:"monthly_cost_usd"`
	MonthlyGPUIdle float64  `json:"monthly_gpu_idle_usd"`
}

func (c *Costs) addLine(l *Line) {
	c.GPUHours.add(l.GPUHours)
	c.GPUCost.add(l.GPUCost)
	c.CPUCost += l.CPU
	c.MemoryCost += l.Memory
	c.CPUMemoryUnallocated += l.CPUMemoryUnallocated
	if l.Pod == nil {
		c.UnheldCPUMemory += l.CPU + l.Memory
	}
	c.TotalCost += l.Total()
}

func (c *Costs) finish(monthFactor float64) {
	c.GPUUtilization = ratio(c.GPUHours.Active, c.GPUHours.Allocated-c.GPUHours.Unmeasured)
	c.SMUtilization = ratio(c.GPUHours.SMActive, c.GPUHours.SMMeasured)
	c.MonthlyCost = c.TotalCost * monthFactor
	c.MonthlyGPUIdle = (c.GPUCost.AllocatedIdle + c.GPUCost.Unallocated) * monthFactor
}

// ratio is a/b, or nil when b is (near) zero: no data is not 0%.
func ratio(a, b float64) *float64 {
	if b <= 1e-12 {
		return nil
	}
	r := a / b
	return &r
}

// Totals are the whole report's sums and FinOps metrics.
type Totals struct {
	Nodes    int     `json:"nodes"`
	GPUs     int     `json:"gpus"`
	Pods     int     `json:"pods"`
	GPUPods  int     `json:"gpu_pods"`
	NodeCost float64 `json:"node_cost_usd"`
	Costs
	// GPUUtilizationOfProvisioned is active GPU-hours over the provisioned
	// GPU-hours whose state is known (provisioned − unmeasured): unmeasured
	// time is left out, not counted as 0% busy. Nil when allocated time
	// exists but none of it was measured.
	GPUUtilizationOfProvisioned *float64 `json:"gpu_utilization_of_provisioned"`
	// MeasuredShare is the share of allocated GPU-hours with usage data.
	MeasuredShare *float64 `json:"measured_share"`
	// IdleShare is idle / measured allocated GPU-hours.
	IdleShare *float64 `json:"idle_share_of_gpu_hours"`
	// UnallocatedShare is unallocated / provisioned GPU-hours.
	UnallocatedShare *float64 `json:"unallocated_share_of_gpu_hours"`
	// SpotShare is the share of provisioned GPU-hours on spot nodes.
	SpotShare *float64 `json:"spot_share_of_gpu_hours"`
	// UnpricedGPUHours are provisioned GPU-hours on nodes without a price.
	UnpricedGPUHours float64 `json:"unpriced_gpu_hours"`
	// Unpriced is true when no GPU node in the report has a price: every
	// dollar figure is absent (null in JSON, n/a for people), not $0.
	Unpriced bool `json:"unpriced"`
}

// Workload is one entry of the idle leaderboard.
type Workload struct {
	Key           string   `json:"key"`
	Namespace     string   `json:"namespace"`
	Pods          int      `json:"pods"`
	AvgGPUs       float64  `json:"avg_gpus_held"`
	Utilization   *float64 `json:"gpu_utilization"`
	IdleCost      float64  `json:"allocated_idle_usd"`
	MonthlyIdle   float64  `json:"monthly_allocated_idle_usd"`
	UnmeasuredGPU float64  `json:"unmeasured_gpu_hours"`
}

// Note is one data-quality or context line.
type Note struct {
	Severity string `json:"severity"` // info | warning
	Text     string `json:"text"`
}

func sortRows(rows []Row) {
	slices.SortFunc(rows, func(a, b Row) int {
		if c := cmp.Compare(b.TotalCost, a.TotalCost); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
}
