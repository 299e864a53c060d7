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
// measure them, Neuron's neuron-monitor's where attributable
// (measureNeuron), Gaudi's Intel's exporter's by pod (measureGaudi). ok
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
	devs, cores := max(alloc[cluster.ResNeuron], alloc[cluster.ResNeuronDevice]), alloc[cluster.ResNeuronCore]
	if devs > 0 && cores > 0 && cores%devs == 0 && devs <= maxGPUs && cores/devs <= maxCoresPerDevice {
		return neuronCoreGPUs(n, devs, cores/devs), true
	}
	out := make([]cluster.GPU, min(count, maxGPUs))
	for i := range out {
		out[i] = cluster.GPU{Index: i, Model: n.GPUModel, MemoryMiB: mem, Sharing: cluster.Exclusive, Replicas: 1,
			Units: []cluster.Unit{{ID: fmt.Sprintf("%s/gpu%d", n.Name, i), Kind: cluster.WholeGPU}}}
	}
	return out, true
}

// maxCoresPerDevice bounds the NeuronCores read per Neuron device (a
// Trainium2 has 8).
const maxCoresPerDevice = 16

// neuronCoreGPUs lays out a Neuron node whose device plugin advertises
// NeuronCores beside its devices as the kube adapter does: each device
// offered core by core (cluster.NeuronCores), one unit per core numbered
// as neuron-monitor numbers them; a whole-device pod holds every core of
// a device (placeUnmeasured).
func neuronCoreGPUs(n *cluster.Node, devs, perDevice int) []cluster.GPU {
	out := make([]cluster.GPU, devs)
	for i := range out {
		g := cluster.GPU{Index: i, Model: n.GPUModel, Sharing: cluster.NeuronCores, Replicas: perDevice}
		for c := range perDevice {
			g.Units = append(g.Units, cluster.Unit{ID: cluster.NeuronCoreUnitID(n.Name, i, i*perDevice+c), Kind: cluster.NeuronCoreUnit})
		}
		out[i] = g
	}
	return out
}

// acceleratorNote says which accelerator devices gpuwise could not
// measure from Prometheus: the Gaudi holdings no exporter series named
// the pod of, the Neuron nodes whose held devices sent no
// neuron-monitor series, and the Neuron holdings of pods that shared
// their node's devices with other pods at the same time; "" when there
// are none.
func acceleratorNote(nodes []cluster.Node, nm neuronMeasure) string {
	var parts []string
	if nm.gaudiUnmeasured > 0 {
		var gaudi []string
		for i := range nodes {
			if nodes[i].HasGPUs() && nodes[i].Vendor() == cluster.VendorGaudi {
				gaudi = append(gaudi, nodes[i].Name)
			}
		}
		parts = append(parts, fmt.Sprintf("%d Gaudi device holding(s) on %d Gaudi node(s) (%s) had no %s series naming their pod (the exporter not scraped, "+
			"or run outside Kubernetes, without the kubelet's pod-resources socket): their GPU-hours are unmeasured, never idle",
			nm.gaudiUnmeasured, len(gaudi), strings.Join(gaudi, ", "), gaudiActivity))
	}
	if len(nm.silent) > 0 {
		parts = append(parts, fmt.Sprintf("%d Neuron node(s) (%s) held devices and sent no %s series (neuron-monitor not scraped, "+
			"or its instance_id is not the node's providerID): their holders' GPU-hours are unmeasured, never idle",
			len(nm.silent), strings.Join(nm.silent, ", "), neuronMetric))
	}
	if nm.shared > 0 {
		parts = append(parts, fmt.Sprintf("%d Neuron device or NeuronCore holding(s) of pods that shared their node's Neuron devices with other pods at the same time are unmeasured, never idle: "+
			"neuron-monitor's series carry no pod label, and which devices or cores the device plugin gave each pod is not in Prometheus", nm.shared))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + " (docs/accelerators.md)"
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
