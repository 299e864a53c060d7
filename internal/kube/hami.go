package kube

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// hamiAsks copies each HAMi pod's fractional asks onto the vGPUs it was
// given, container by container in the order units were assigned: per
// vGPU, nvidia.com/gpucores (percent of the GPU's compute), and
// nvidia.com/gpumem (MiB) or nvidia.com/gpumem-percentage. A container
// that asks neither memory figure is given the whole GPU's memory, as
// HAMi does with its chart's defaults (defaultMemory 0: 100%); compute
// defaults to defaultCores 0. Normalize prices each vGPU from them.
func hamiAsks(s *cluster.Snapshot) []string {
	ix := cluster.NewIndex(s)
	var notes []string
	for i := range s.Pods {
		p := &s.Pods[i]
		k := 0
		for _, c := range p.Containers {
			n := c.GPURequests[resGPU]
			for ; n > 0 && k < len(p.GPUs); k++ {
				ref, ok := ix.Units[p.GPUs[k].UnitID]
				if !ok || ref.GPU.Allocator != cluster.DevicePlugin {
					continue
				}
				n--
				if ref.GPU.Sharing != cluster.HAMi {
					continue
				}
				u := ref.Unit
				u.CoresPercent, u.MemoryMiB, u.MemoryPercent = int(min(c.GPUCores, 100)), c.GPUMemoryMiB, int(c.GPUMemoryPercent)
				if u.MemoryMiB == 0 && u.MemoryPercent == 0 {
					u.MemoryPercent = 100
				}
				if u.MemoryMiB > 0 && ref.GPU.MemoryMiB == 0 {
					notes = append(notes, fmt.Sprintf("pod %s: asks %d MiB of a HAMi GPU on node %s, whose memory is unknown (no %s label); its memory share counted as 1/%d",
						p.Key(), u.MemoryMiB, p.Node, lblMemory, ref.GPU.Replicas))
				}
			}
		}
	}
	return notes
}
