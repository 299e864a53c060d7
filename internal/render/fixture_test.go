package render

import (
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// The fixture is a hand-built week on a 16-GPU cluster. It has a row with
// no utilization (all unmeasured), an unpriced row, a tiny-cost row with a
// long key, and warning notes, so every display rule has something to show.

const fixtureHours = 168

func monthFactor() float64 { return pricing.HoursPerMonth / float64(fixtureHours) }

func ptr(v float64) *float64 { return &v }

// utilization mirrors cost: active over measured allocated, nil without data.
func utilization(h cost.Hours) *float64 {
	if measured := h.Allocated - h.Unmeasured; measured > 0 {
		return ptr(h.Active / measured)
	}
	return nil
}

// finish fills the derived fields the way cost does.
func finish(c cost.Costs) cost.Costs {
	c.TotalCost = c.GPUCost.Total() + c.CPUCost + c.MemoryCost + c.CPUMemoryUnallocated
	c.GPUUtilization = utilization(c.GPUHours)
	c.MonthlyCost = c.TotalCost * monthFactor()
	c.MonthlyGPUIdle = (c.GPUCost.AllocatedIdle + c.GPUCost.Unallocated) * monthFactor()
	return c
}

func row(key string, pods int, h cost.Hours, g cost.GPUCost, cpu, mem float64) cost.Row {
	return cost.Row{Key: key, Pods: pods, Costs: finish(cost.Costs{GPUHours: h, GPUCost: g, CPUCost: cpu, MemoryCost: mem})}
}

func fixtureRows() []cost.Row {
	unpriced := row("research", 3, cost.Hours{Allocated: 168, Active: 20, Idle: 100}, cost.GPUCost{}, 0, 0)
	unpriced.Unpriced, unpriced.UnpricedGPUHours = true, 168
	return []cost.Row{
		row("ml-training", 6, cost.Hours{Allocated: 800, Active: 280, Idle: 300},
			cost.GPUCost{Active: 1400, AllocatedIdle: 2600}, 120.5, 40.25),
		row("inference", 4, cost.Hours{Allocated: 600, Active: 420, Idle: 60, Unmeasured: 100},
			cost.GPUCost{Active: 2100, AllocatedIdle: 400, Unmeasured: 500}, 60, 20),
		row(cost.UnallocatedKey, 0, cost.Hours{Provisioned: 2688, Unallocated: 1068},
			cost.GPUCost{Unallocated: 2000}, 55.5, 24.5),
		row("notebooks", 2, cost.Hours{Allocated: 50, Unmeasured: 50},
			cost.GPUCost{Unmeasured: 250}, 5, 2),
		row("platform-team-experiments-with-a-very-long-namespace-name", 1,
			cost.Hours{Allocated: 2, Active: 1.5, Idle: 0.2}, cost.GPUCost{Active: 0.2, AllocatedIdle: 0.05}, 0.04, 0.01),
		unpriced,
	}
}

func fixtureTotals(rows []cost.Row) cost.Totals {
	t := cost.Totals{Nodes: 5, GPUs: 16, Pods: 18, GPUPods: 15, UnpricedGPUHours: 168}
	for _, r := range rows {
		t.GPUHours = addHours(t.GPUHours, r.GPUHours)
		g := &t.GPUCost
		g.Active, g.AllocatedIdle = g.Active+r.GPUCost.Active, g.AllocatedIdle+r.GPUCost.AllocatedIdle
		g.Unmeasured, g.Unallocated = g.Unmeasured+r.GPUCost.Unmeasured, g.Unallocated+r.GPUCost.Unallocated
		t.CPUCost += r.CPUCost
		t.MemoryCost += r.MemoryCost
	}
	t.Costs = finish(t.Costs)
	t.NodeCost = t.TotalCost
	h := t.GPUHours
	t.GPUUtilizationOfProvisioned = ptr(h.Active / h.Provisioned)
	t.MeasuredShare = ptr((h.Allocated - h.Unmeasured) / h.Allocated)
	t.IdleShare = ptr(h.Idle / (h.Allocated - h.Unmeasured))
	t.UnallocatedShare = ptr(h.Unallocated / h.Provisioned)
	t.SpotShare = ptr(0.25)
	return t
}

func addHours(a, b cost.Hours) cost.Hours {
	return cost.Hours{
		Provisioned: a.Provisioned + b.Provisioned, Allocated: a.Allocated + b.Allocated,
		Active: a.Active + b.Active, Idle: a.Idle + b.Idle,
		Unmeasured: a.Unmeasured + b.Unmeasured, Unallocated: a.Unallocated + b.Unallocated,
	}
}

func fixtureTopIdle() []cost.Workload {
	return []cost.Workload{
		{Key: "ml-training/Job/llama-finetune", Namespace: "ml-training", Pods: 4, AvgGPUs: 3.5,
			Utilization: ptr(0.3), IdleCost: 2000, MonthlyIdle: 2000 * monthFactor()},
		{Key: "inference/Deployment/embedder", Namespace: "inference", Pods: 2, AvgGPUs: 2,
			Utilization: ptr(0.8), IdleCost: 400, MonthlyIdle: 400 * monthFactor(), UnmeasuredGPU: 100},
		{Key: "notebooks/StatefulSet/jupyter-alice", Namespace: "notebooks", Pods: 2, AvgGPUs: 0.29,
			IdleCost: 0, UnmeasuredGPU: 50},
	}
}

func fixtureNotes() []cost.Note {
	return []cost.Note{
		{Severity: "info", Text: "GPU activity from DCGM_FI_PROF_GR_ENGINE_ACTIVE; idle means below 10% activity"},
		{Severity: "warning", Text: "150.0 of 1620.0 allocated GPU-hours (9.3%) have no usage data and are shown as unmeasured, not idle"},
		{Severity: "warning", Text: "1 GPU node(s) have no price, so their 168.0 GPU-hours carry no dollars; add a price override (--prices FILE): gpu-node-9"},
		{Severity: "info", Text: "prices: catalog as of 2025-01"},
	}
}

// sampleReport is the fixture every golden file renders.
func sampleReport() *cost.Report {
	start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	rows := fixtureRows()
	return &cost.Report{
		Window:         cluster.Window{Start: start, End: start.Add(fixtureHours * time.Hour)},
		WindowHours:    fixtureHours,
		Source:         "prometheus",
		ActivityMetric: "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
		IdleThreshold:  0.1,
		IdleShare:      cost.ShareNone,
		By:             "namespace",
		Totals:         fixtureTotals(rows),
		Rows:           rows,
		TopIdle:        fixtureTopIdle(),
		Notes:          fixtureNotes(),
	}
}
