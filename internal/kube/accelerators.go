package kube

import (
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// The other vendors' node labels: cluster.LabelAMDProduct and
// cluster.LabelAMDVRAM (AMD's node labeller); Neuron and Gaudi nodes
// carry none gpuwise reads.
const (
	lblAMDProduct = cluster.LabelAMDProduct
	lblAMDVRAM    = cluster.LabelAMDVRAM
)

// accelerators lays out a node's AMD GPUs, AWS Neuron devices or Intel
// Gaudi accelerators when it advertises one of their resources and no
// NVIDIA one; each device is a whole unit under the resource it is
// advertised as. It reports whether it did.
func (b *gpuBuilder) accelerators(counts map[string]int64) bool {
	for name := range counts {
		if !cluster.IsAcceleratorResource(name) {
			return false
		}
	}
	amd, gaudi := counts[cluster.ResAMDGPU], counts[cluster.ResGaudi]
	neuron := max(counts[cluster.ResNeuron], counts[cluster.ResNeuronDevice])
	cores := counts[cluster.ResNeuronCore]
	switch {
	case amd > 0:
		b.node.GPUModel, b.memMiB = amdModel(b.node.Labels[lblAMDProduct]), b.amdVRAM()
		b.vendorDevices(amd, []string{cluster.ResAMDGPU})
	case neuron > 0:
		b.node.GPUModel = catalogModel(b.node)
		b.vendorDevices(neuron, []string{cluster.ResNeuron, cluster.ResNeuronDevice})
		if cores > 0 {
			b.notef("advertises %d %s on %d Neuron devices: pods asking for NeuronCores are not given units (a NeuronCore is not modelled apart from its device); pods asking for %s are",
				cores, cluster.ResNeuronCore, neuron, cluster.ResNeuron)
		}
	case gaudi > 0:
		b.node.GPUModel = catalogModel(b.node)
		b.vendorDevices(gaudi, []string{cluster.ResGaudi})
	case cores > 0:
		b.notef("advertises %d %s but no %s: its Neuron devices are not counted", cores, cluster.ResNeuronCore, cluster.ResNeuron)
	default:
		return false
	}
	if b.node.GPUModel == "" {
		b.notef("no label or catalog row names its accelerator model; pricing by instance type only")
	}
	return true
}

// vendorDevices adds count whole devices, each unit advertised under
// every one of resources (one device, several names).
func (b *gpuBuilder) vendorDevices(count int64, resources []string) {
	for range min(count, maxDevices) {
		g := b.newGPU(cluster.Exclusive, 1)
		id := fmt.Sprintf("%s/gpu%d", b.node.Name, g.Index)
		g.Units = append(g.Units, cluster.Unit{ID: id, Kind: cluster.WholeGPU})
		for _, r := range resources {
			b.pools[r] = append(b.pools[r], id)
		}
	}
}

// maxDevices bounds the devices read from one node's allocatable count.
const maxDevices = 64

// amdModel is the model the labeller's product names, or the product
// normalized when it names no Instinct model.
func amdModel(product string) string {
	if m := cluster.AMDModel(product); m != "" {
		return m
	}
	return pricing.NormalizeGPUModel(strings.ReplaceAll(product, "_", " "), 0)
}

// amdVRAM is the amd.com/gpu.vram label in MiB; 0 when absent or not a
// size (a note).
func (b *gpuBuilder) amdVRAM() int64 {
	v := b.node.Labels[lblAMDVRAM]
	if v == "" {
		return 0
	}
	mib, ok := cluster.AMDVRAMMiB(v)
	if !ok {
		b.notef("label %s=%q is not a size such as 192G; ignored", lblAMDVRAM, v)
	}
	return mib
}

// catalogModel is the accelerator model of the node's instance type in the
// embedded catalog: Neuron and Gaudi nodes carry no model label.
func catalogModel(n *cluster.Node) string {
	if e, ok := pricing.Embedded().Lookup(n.Cloud, n.Region, n.InstanceType); ok {
		return e.GPUModel
	}
	return ""
}
