package prom

import (
	"fmt"
	"strings"
)

// missingFamilies says, first in a read's partial list, which whole
// exporter families the window lacks while the cluster needs them: no
// DCGM activity series at all with GPUs in the inventory (every GPU is
// then unmeasured, never idle and never unallocated: its holders come
// from kube-state-metrics), and no cAdvisor series at all with pods to
// measure. A failed request is said elsewhere (failedUsage): these are
// series that are not there.
func missingFamilies(a assembly) []string {
	var out []string
	if a.gpu.metric == "" && len(a.gpu.failed) == 0 && hasGPUs(a) {
		out = append(out, "no DCGM series in the window (looked for "+strings.Join(activityMetrics, ", ")+
			"; is dcgm-exporter running and scraped?): every GPU is unmeasured — its holders come from kube-state-metrics, "+
			"so allocation stands, but utilization, idle GPU cost and GPU right-sizing have no data")
	}
	if a.ctr.usage != nil && len(a.ctr.usage.ctrs) == 0 && len(a.ctr.failed) == 0 && len(a.pods) > 0 {
		out = append(out, fmt.Sprintf("no cAdvisor series in the window (container_cpu_usage_seconds_total, container_memory_working_set_bytes; is the kubelet's cAdvisor endpoint scraped?): "+
			"the %d pods' CPU and memory usage is unknown, so their cost counts requests only and CPU and memory right-sizing has no data", len(a.pods)))
	}
	return out
}

// hasGPUs reports whether the inventory has GPUs or any pod requests one.
func hasGPUs(a assembly) bool {
	for _, n := range a.gpu.nodes {
		if n.HasGPUs() {
			return true
		}
	}
	for _, p := range a.pods {
		for _, c := range p.pod.Containers {
			if len(c.GPURequests) > 0 {
				return true
			}
		}
	}
	return false
}

// unplacedPartial says which GPU pods requested more units than the
// inventory shows free on their node (a layout neither DCGM nor the
// node's advertised resources give): their GPU-hours are missing from
// allocation, so the read is partial, never a confident "unallocated".
func unplacedPartial(unplaced []string) []string {
	if len(unplaced) == 0 {
		return nil
	}
	set := map[string]bool{}
	for _, k := range unplaced {
		set[k] = true
	}
	return []string{fmt.Sprintf("%d GPU pod(s) (%s) requested more GPU units than the inventory shows free on their node (no DCGM series and no advertised MIG or GPU resources say which): "+
		"the GPU-hours of their extra requests are missing from allocation and count as unallocated capacity", len(set), list(set))}
}
