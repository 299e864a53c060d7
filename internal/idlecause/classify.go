package idlecause

import (
	"math"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Cause is why a GPU idled in an hour.
type Cause string

// The causes, in the order reports show them.
const (
	CPUStarved      Cause = "cpu-starved"
	InputBound      Cause = "input-bound"
	MemoryPressured Cause = "memory-pressured"
	NoWork          Cause = "no-work"
	Unknown         Cause = "unknown"
)

// Causes lists every cause in report order.
var Causes = []Cause{CPUStarved, InputBound, MemoryPressured, NoWork, Unknown}

// limits says which limits a workload's GPU containers set. A container
// without a CPU limit has no CFS quota and cannot be throttled; one
// without a memory limit has no limit to press against (OOM kills still
// count).
type limits struct{ cpu, memory bool }

func limitsOf(pods []*cluster.Pod) limits {
	var l limits
	for _, p := range pods {
		for _, c := range p.Containers {
			if len(c.GPURequests) == 0 {
				continue
			}
			l.cpu = l.cpu || c.CPULimitMilli > 0
			l.memory = l.memory || c.MemoryLimit > 0
		}
	}
	return l
}

// test is one cause's test on one hour: whether it fired, and whether
// the series that decide it were there.
type test struct{ fired, known bool }

// classify decides hour i of w: memory pressure first (an OOM kill
// restarts the process whatever else holds), then CPU starvation, then
// input; no-work only when every deciding series was there and quiet.
// missing names the absent series of an unknown hour.
func (p Policy) classify(w *cluster.WorkloadHours, i int, l limits) (Cause, []string) {
	mem, cpu, in := p.memory(w, i, l), p.cpu(w, i, l), p.input(w, i)
	switch {
	case mem.fired:
		return MemoryPressured, nil
	case cpu.fired:
		return CPUStarved, nil
	case in.fired:
		return InputBound, nil
	case mem.known && cpu.known && in.known:
		return NoWork, nil
	}
	var missing []string
	if !mem.known {
		missing = append(missing, "memory (oom_kills, memory_of_limit)")
	}
	if !cpu.known {
		missing = append(missing, "CPU throttling (cpu_throttled, cpu_of_limit)")
	}
	if !in.known {
		missing = append(missing, "PCIe receive (pcie_rx_bytes_per_second)")
	}
	return Unknown, missing
}

func (p Policy) memory(w *cluster.WorkloadHours, i int, l limits) test {
	kills, peak := w.OOMKills.At(i), w.MemoryOfLimit.At(i)
	fired := kills >= 1 || peak >= p.MemoryAtLimit
	known := !math.IsNaN(kills) && (!l.memory || !math.IsNaN(peak))
	return test{fired, known}
}

func (p Policy) cpu(w *cluster.WorkloadHours, i int, l limits) test {
	if !l.cpu {
		return test{false, true}
	}
	thr, used := w.CPUThrottled.At(i), w.CPUOfLimit.At(i)
	return test{thr >= p.CPUThrottled || used >= p.CPUAtLimit, !math.IsNaN(thr) || !math.IsNaN(used)}
}

// input fires on PCIe or NVLink receive in an hour of low mean activity;
// PCIe decides whether the hour is known, since NVLink is absent from
// GPUs that have none and off by default in dcgm-exporter.
func (p Policy) input(w *cluster.WorkloadHours, i int) test {
	pcie, nv := w.PCIeRx.At(i), w.NVLinkRx.At(i)
	low := w.GPUActive.At(i) < p.InputActivity*w.GPUMeasured.At(i)
	return test{low && (pcie >= p.PCIeBusy || nv >= p.NVLinkBusy), !math.IsNaN(pcie)}
}
