package prom

import (
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// acceleratorGPUs lays out a node that advertises AMD GPUs, Neuron
// devices or Gaudis (and no nvidia.com resource) from kube-state-metrics,
// as the kube adapter does: one whole unit per device, the model from
// AMD's node labeller or the instance type's catalog row. The holders
// are placed from their requests; AMD's exporter's series (amdMetrics)
// measure them, Neuron's and Gaudi's are not read (acceleratorNote). ok
// is false for any other node.
func acceleratorGPUs(n *cluster.Node, alloc map[string]int) ([]cluster.GPU, bool) {
	count := 0
	for r, k := range alloc {
		switch {
		case strings.HasPrefix(r, "nvidia.com/") && k > 0:
			return nil, false
		case r == cluster.ResAMDGPU || r == cluster.ResGaudi:
			count = max(count, k)
		case r == cluster.ResNeuron || r == cluster.ResNeuronDevice:
			count = max(count, k)
		}
	}
	if count == 0 {
		return nil, false
	}
	var mem int64
	if alloc[cluster.ResAMDGPU] > 0 {
		n.GPUModel = cluster.AMDModel(n.Labels[cluster.LabelAMDProduct])
		mem, _ = cluster.AMDVRAMMiB(n.Labels[cluster.LabelAMDVRAM])
	}
	if n.GPUModel == "" {
		if e, ok := pricing.Embedded().Lookup(n.Cloud, n.Region, n.InstanceType); ok {
			n.GPUModel = e.GPUModel
		}
	}
	out := make([]cluster.GPU, min(count, maxGPUs))
	for i := range out {
		out[i] = cluster.GPU{Index: i, Model: n.GPUModel, MemoryMiB: mem, Sharing: cluster.Exclusive, Replicas: 1,
			Units: []cluster.Unit{{ID: fmt.Sprintf("%s/gpu%d", n.Name, i), Kind: cluster.WholeGPU}}}
	}
	return out, true
}

// acceleratorNote names the Neuron and Gaudi nodes, whose devices
// gpuwise cannot measure from Prometheus; "" when there are none.
func acceleratorNote(nodes []cluster.Node) string {
	var names []string
	for i := range nodes {
		if v := nodes[i].Vendor(); nodes[i].HasGPUs() && (v == cluster.VendorNeuron || v == cluster.VendorGaudi) {
			names = append(names, nodes[i].Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%d Neuron/Gaudi node(s) (%s): their devices and holders come from kube-state-metrics; "+
		"neuron-monitor's series carry no pod label and Gaudi's exporter's labels are undocumented, so they are not read: "+
		"their GPU-hours are unmeasured, never idle (docs/accelerators.md)",
		len(names), strings.Join(names, ", "))
}

// hasAMD says whether a node has AMD GPUs, whose exporter gpuwise reads.
func hasAMD(nodes []cluster.Node) bool {
	for i := range nodes {
		if nodes[i].HasGPUs() && nodes[i].Vendor() == cluster.VendorAMD {
			return true
		}
	}
	return false
}
