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
		switch {
		case cores > 0 && cores%neuron == 0 && neuron <= maxDevices && cores/neuron <= maxCoresPerDevice:
			b.neuronCores(neuron, int(cores/neuron))
		case cores > 0:
			b.vendorDevices(neuron, []string{cluster.ResNeuron, cluster.ResNeuronDevice})
			b.notef("advertises %d %s on %d Neuron devices, not a whole number of cores per device: pods asking for NeuronCores are not given units; pods asking for %s are",
				cores, cluster.ResNeuronCore, neuron, cluster.ResNeuron)
		default:
			b.vendorDevices(neuron, []string{cluster.ResNeuron, cluster.ResNeuronDevice})
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

// neuronCores lays out count Neuron devices of perDevice NeuronCores
// each, offered core by core (cluster.NeuronCores): one unit per core,
// numbered as neuron-monitor numbers cores on the instance. The core
// units are aws.amazon.com/neuroncore's pool and, device by device, the
// whole-device resources' (assignPod gives a whole-device pod every core
// of a free device).
func (b *gpuBuilder) neuronCores(count int64, perDevice int) {
	for range count {
		g := b.newGPU(cluster.NeuronCores, perDevice)
		for c := range perDevice {
			id := cluster.NeuronCoreUnitID(b.node.Name, g.Index, g.Index*perDevice+c)
			g.Units = append(g.Units, cluster.Unit{ID: id, Kind: cluster.NeuronCoreUnit})
			for _, r := range []string{cluster.ResNeuronCore, cluster.ResNeuron, cluster.ResNeuronDevice} {
				b.pools[r] = append(b.pools[r], id)
			}
		}
	}
}

// maxCoresPerDevice bounds the NeuronCores read per Neuron device (a
// Trainium2 has 8).
const maxCoresPerDevice = 16

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
