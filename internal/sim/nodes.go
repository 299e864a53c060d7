package sim

import (
	"fmt"
	"strconv"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// instance is a machine type. GPU count, vCPUs and memory are those of its
// row in the price catalog (internal/pricing/data/catalog.csv, AWS
// us-east-1 and Azure eastus); product and memory are what GPU feature
// discovery labels its GPUs with.
type instance struct {
	cloud, region, name string
	gpus, vcpus         int
	memGiB              int64
	model               string // normalized, as cluster.Node.GPUModel
	product             string // nvidia.com/gpu.product
	gpuMiB              int64  // nvidia.com/gpu.memory
}

var (
	p5     = instance{"aws", "us-east-1", "p5.48xlarge", 8, 192, 2048, "H100-80GB", "NVIDIA-H100-80GB-HBM3", 81559}
	p4d    = instance{"aws", "us-east-1", "p4d.24xlarge", 8, 96, 1152, "A100-40GB", "NVIDIA-A100-SXM4-40GB", 40960}
	p4de   = instance{"aws", "us-east-1", "p4de.24xlarge", 8, 96, 1152, "A100-80GB", "NVIDIA-A100-SXM4-80GB", 81920}
	g6x12  = instance{"aws", "us-east-1", "g6.12xlarge", 4, 48, 192, "L4", "NVIDIA-L4", 23034}
	g6x1   = instance{"aws", "us-east-1", "g6.xlarge", 1, 4, 16, "L4", "NVIDIA-L4", 23034}
	g5x12  = instance{"aws", "us-east-1", "g5.12xlarge", 4, 48, 192, "A10G", "NVIDIA-A10G", 23028}
	ndH100 = instance{"azure", "eastus", "Standard_ND96isr_H100_v5", 8, 96, 1900, "H100-80GB", "NVIDIA-H100-80GB-HBM3", 81559}
	ncA100 = instance{"azure", "eastus", "Standard_NC24ads_A100_v4", 1, 24, 220, "A100-80GB", "NVIDIA-A100-80GB-PCIe", 81920}
	// dgxA100 is an on-prem DGX A100 640GB: no catalog row, so unpriced.
	dgxA100 = instance{"", "", "dgx-a100-640gb", 8, 256, 2048, "A100-80GB", "NVIDIA-A100-SXM4-80GB", 81920}
	// m7i is the CPU-only system node; CPU-only nodes are out of the
	// GPU cost report's scope, so it needs no price.
	m7i = instance{"aws", "us-east-1", "m7i.4xlarge", 0, 16, 64, "", "", 0}
)

// gpuTaint is the taint that keeps pods without a GPU toleration off.
var gpuTaint = cluster.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}

// migShapes are the A100/H100-80GB MIG profiles: compute and memory slices.
var migShapes = map[string][2]int{
	"1g.10gb": {1, 1}, "1g.20gb": {1, 2}, "2g.20gb": {2, 2},
	"3g.40gb": {3, 4}, "4g.40gb": {4, 4}, "7g.80gb": {7, 8},
}

// nodeSpec is what the layout decides about one node.
type nodeSpec struct {
	name     string
	inst     instance
	capacity string
	tainted  bool
	replicas int        // time-slicing replicas per GPU; 0: not shared
	mig      [][]string // MIG profiles per GPU (mixed strategy); nil: MIG off
	// created and deleted bound the node's life in seconds from the window
	// start; deleted 0 means the node outlives the window.
	created, deleted int64
	// endReason is why the node went away (cluster.Node.EndReason).
	endReason string
}

// addNode builds a node with its GPUs and units and adds it to the cell.
func (c *cell) addNode(s nodeSpec) *cluster.Node {
	name := c.pfx + s.name
	n := &cluster.Node{
		Name: name, Cloud: s.inst.cloud, Region: s.inst.region, InstanceType: s.inst.name,
		Capacity: s.capacity, CPUMilli: int64(s.inst.vcpus) * 1000, MemoryBytes: s.inst.memGiB << 30,
		GPUModel: s.inst.model, Created: c.at(s.created),
	}
	if s.inst.cloud != "" {
		n.Zone = c.zone(s.inst)
	}
	if s.deleted > 0 {
		n.Deleted, n.EndReason = c.at(s.deleted), s.endReason
	}
	if s.tainted {
		n.Taints = []cluster.Taint{gpuTaint}
	}
	if s.mig != nil {
		n.MIGStrategy = "mixed"
	}
	n.GPUs = c.gpus(name, s)
	n.Labels = nodeLabels(n, s)
	c.nodes = append(c.nodes, n)
	return n
}

func (c *cell) zone(in instance) string {
	if in.cloud == "azure" {
		return in.region + "-" + strconv.Itoa(1+c.rng.IntN(3))
	}
	return in.region + string("abcdf"[c.rng.IntN(5)])
}

func (c *cell) gpus(node string, s nodeSpec) []cluster.GPU {
	out := make([]cluster.GPU, s.inst.gpus)
	for i := range out {
		g := cluster.GPU{Index: i, UUID: c.gpuUUID(), Model: s.inst.model, MemoryMiB: s.inst.gpuMiB, Sharing: cluster.Exclusive, Replicas: 1}
		base := fmt.Sprintf("%s/gpu%d", node, i)
		switch {
		case s.mig != nil:
			g.Sharing = cluster.MIG
			for k, prof := range s.mig[i] {
				sh := migShapes[prof]
				g.Units = append(g.Units, cluster.Unit{
					ID: fmt.Sprintf("%s/mig-%s-%d", base, prof, k), Kind: cluster.MIGSlice,
					Profile: prof, ComputeSlices: sh[0], MemorySlices: sh[1],
				})
			}
		case s.replicas > 1:
			g.Sharing, g.Replicas = cluster.TimeSlicing, s.replicas
			for r := range s.replicas {
				g.Units = append(g.Units, cluster.Unit{ID: fmt.Sprintf("%s/ts-%d", base, r), Kind: cluster.TimeSlice})
			}
		default:
			g.Units = []cluster.Unit{{ID: base, Kind: cluster.WholeGPU}}
		}
		// Fractions now, for the hourly series; Prepare sets the same.
		g.Normalize()
		out[i] = g
	}
	return out
}

// gpuUUID returns a UUID in nvidia-smi's form, GPU-xxxxxxxx-xxxx-….
func (c *cell) gpuUUID() string {
	a, b := c.rng.Uint64(), c.rng.Uint64()
	return fmt.Sprintf("GPU-%08x-%04x-%04x-%04x-%012x", a>>32, a>>16&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

// nodeLabels are the well-known labels the kubelet, the cloud provider,
// Karpenter and GPU feature discovery put on a node.
func nodeLabels(n *cluster.Node, s nodeSpec) map[string]string {
	l := map[string]string{
		"kubernetes.io/hostname":           n.Name,
		"kubernetes.io/os":                 "linux",
		"kubernetes.io/arch":               "amd64",
		"node.kubernetes.io/instance-type": n.InstanceType,
	}
	if n.Cloud != "" {
		l["topology.kubernetes.io/region"] = n.Region
		l["topology.kubernetes.io/zone"] = n.Zone
		l["karpenter.sh/capacity-type"] = n.Capacity
	}
	if !n.HasGPUs() {
		return l
	}
	l["nvidia.com/gpu.present"] = "true"
	l["nvidia.com/gpu.product"] = s.inst.product
	l["nvidia.com/gpu.count"] = strconv.Itoa(len(n.GPUs))
	l["nvidia.com/gpu.memory"] = strconv.FormatInt(s.inst.gpuMiB, 10)
	l["nvidia.com/gpu.replicas"] = strconv.Itoa(max(s.replicas, 1))
	l["nvidia.com/gpu.sharing-strategy"] = "none"
	if s.replicas > 1 {
		l["nvidia.com/gpu.sharing-strategy"] = "time-slicing"
		l["nvidia.com/device-plugin.config"] = "ts-" + strconv.Itoa(s.replicas)
	}
	if s.mig != nil {
		migLabels(l, s.mig)
	}
	return l
}

func migLabels(l map[string]string, layout [][]string) {
	l["nvidia.com/mig.capable"] = "true"
	l["nvidia.com/mig.strategy"] = "mixed"
	l["nvidia.com/mig.config"] = "custom-mixed"
	l["nvidia.com/mig.config.state"] = "success"
	counts := map[string]int{}
	for _, g := range layout {
		for _, prof := range g {
			counts[prof]++
		}
	}
	for prof, n := range counts {
		l["nvidia.com/mig-"+prof+".count"] = strconv.Itoa(n)
	}
}
