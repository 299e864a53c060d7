package cost

import "encoding/json"

// The JSON form of rows and totals (docs/report-format.md) writes the
// dollars of anything unpriced as null: a number there would be read as
// $0, and unpriced is never $0. Hours and ratios are written either way.
// Field order follows the structs; TestJSONCarriesEveryField keeps these
// mirrors in step with them.

// costsJSON mirrors Costs with nullable dollars.
type costsJSON struct {
	GPUHours             Hours       `json:"gpu_hours"`
	GPUCost              gpuCostJSON `json:"gpu_cost_usd"`
	CPUCost              *float64    `json:"cpu_cost_usd"`
	MemoryCost           *float64    `json:"memory_cost_usd"`
	CPUMemoryUnallocated *float64    `json:"cpu_memory_unallocated_usd"`
	TotalCost            *float64    `json:"total_cost_usd"`
	GPUUtilization       *float64    `json:"gpu_utilization"`
	SMUtilization        *float64    `json:"sm_utilization"`
	MonthlyCost          *float64    `json:"monthly_cost_usd"`
	MonthlyGPUIdle       *float64    `json:"monthly_gpu_idle_usd"`
}

type gpuCostJSON struct {
	Active        *float64 `json:"active"`
	AllocatedIdle *float64 `json:"allocated_idle"`
	Unmeasured    *float64 `json:"unmeasured"`
	Unallocated   *float64 `json:"unallocated"`
}

// usd is &v when priced, else nil (null).
func usd(v float64, priced bool) *float64 {
	if !priced {
		return nil
	}
	return &v
}

func (c *Costs) toJSON(priced bool) costsJSON {
	g := c.GPUCost
	return costsJSON{
		GPUHours: c.GPUHours,
		GPUCost: gpuCostJSON{Active: usd(g.Active, priced), AllocatedIdle: usd(g.AllocatedIdle, priced),
			Unmeasured: usd(g.Unmeasured, priced), Unallocated: usd(g.Unallocated, priced)},
		CPUCost: usd(c.CPUCost, priced), MemoryCost: usd(c.MemoryCost, priced),
		CPUMemoryUnallocated: usd(c.CPUMemoryUnallocated, priced), TotalCost: usd(c.TotalCost, priced),
		GPUUtilization: c.GPUUtilization, SMUtilization: c.SMUtilization,
		MonthlyCost: usd(c.MonthlyCost, priced), MonthlyGPUIdle: usd(c.MonthlyGPUIdle, priced),
	}
}

// MarshalJSON writes the row with null dollars when it is unpriced.
func (r Row) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Key  string `json:"key"`
		Pods int    `json:"pods"`
		costsJSON
		Unpriced         bool     `json:"unpriced"`
		UnpricedGPUHours float64  `json:"unpriced_gpu_hours"`
		Mechanisms       []string `json:"mechanisms,omitempty"`
		Vendor           string   `json:"vendor,omitempty"`
		Workload         string   `json:"workload,omitempty"`
		GPUUnits         []string `json:"gpu_units,omitempty"`
	}{r.Key, r.Pods, r.Costs.toJSON(!r.Unpriced), r.Unpriced, r.UnpricedGPUHours, r.Mechanisms, r.Vendor, r.Workload, r.GPUUnits})
}

// MarshalJSON writes the totals with null dollars when no node is priced.
func (t Totals) MarshalJSON() ([]byte, error) {
	priced := !t.Unpriced
	return json.Marshal(struct {
		Nodes    int      `json:"nodes"`
		GPUs     int      `json:"gpus"`
		Pods     int      `json:"pods"`
		GPUPods  int      `json:"gpu_pods"`
		NodeCost *float64 `json:"node_cost_usd"`
		costsJSON
		GPUUtilizationOfProvisioned *float64 `json:"gpu_utilization_of_provisioned"`
		MeasuredShare               *float64 `json:"measured_share"`
		IdleShare                   *float64 `json:"idle_share_of_gpu_hours"`
		UnallocatedShare            *float64 `json:"unallocated_share_of_gpu_hours"`
		SpotShare                   *float64 `json:"spot_share_of_gpu_hours"`
		UnpricedGPUHours            float64  `json:"unpriced_gpu_hours"`
		Unpriced                    bool     `json:"unpriced"`
	}{
		t.Nodes, t.GPUs, t.Pods, t.GPUPods, usd(t.NodeCost, priced), t.Costs.toJSON(priced),
		t.GPUUtilizationOfProvisioned, t.MeasuredShare, t.IdleShare, t.UnallocatedShare, t.SpotShare,
		t.UnpricedGPUHours, t.Unpriced,
	})
}
