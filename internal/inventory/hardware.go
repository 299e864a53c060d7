package inventory

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Node labels GPU feature discovery, NFD and the GPU operator write
// (../shared/reference/gpu-formats.md §1.6, §2.2).
const (
	lblProduct   = "nvidia.com/gpu.product"
	lblCount     = "nvidia.com/gpu.count"
	lblMemory    = "nvidia.com/gpu.memory"
	lblPresent   = "nvidia.com/gpu.present"
	lblSharing   = "nvidia.com/gpu.sharing-strategy"
	lblStrategy  = "nvidia.com/mig.strategy"
	lblMIGConfig = "nvidia.com/mig.config"
	lblMIGState  = "nvidia.com/mig.config.state"
	lblNFDNvidia = "feature.node.kubernetes.io/pci-10de.present"
	lblDeploy    = "nvidia.com/gpu.deploy."
	lblGFDTime   = "nvidia.com/gfd.timestamp"
)

// Sharing modes of a GPU, as Node.Sharing and Group.Sharing name them.
const (
	sharingExclusive   = "exclusive"
	sharingMIG         = "mig"
	sharingTimeSlicing = "time-slicing"
	sharingMPS         = "mps"
	sharingHAMi        = "hami"
	sharingNeuronCores = "neuron-cores"
	sharingNone        = "none"
	// NotAdvertised is the summary's sharing mode for GPU nodes that
	// advertise no GPU to the scheduler.
	NotAdvertised = "not advertised"
)

// isGPUNode reports whether n is a GPU node: it advertises GPUs, or GPU
// feature discovery, NFD or its instance type says it has them.
func (b *builder) isGPUNode(n *cluster.Node) bool {
	if n.HasGPUs() {
		return true
	}
	l := n.Labels
	if l[lblProduct] != "" || l[lblPresent] == "true" || l[lblNFDNvidia] == "true" || labelCount(l) > 0 {
		return true
	}
	e, ok := b.catalogRow(n)
	return ok && e.GPUCount >= 1
}

// expected is how many GPUs the hardware has: the gpu.count label (not on
// MIG nodes, where it counts MIG devices) or the catalog row's count.
func (b *builder) expected(n *cluster.Node) (*int, string) {
	if c := labelCount(n.Labels); c > 0 && migStrategy(n) == "none" {
		return &c, "label " + lblCount
	}
	if e, ok := b.catalogRow(n); ok && e.GPUCount >= 1 {
		c := int(math.Floor(e.GPUCount))
		return &c, fmt.Sprintf("catalog %s %s", e.Cloud, e.InstanceType)
	}
	return nil, ""
}

func (b *builder) catalogRow(n *cluster.Node) (pricing.Entry, bool) {
	if b.catalog == nil || n.InstanceType == "" {
		return pricing.Entry{}, false
	}
	return b.catalog.Lookup(n.Cloud, n.Region, n.InstanceType)
}

// labelCount is the gpu.count label; 0 when absent or not a count.
func labelCount(l map[string]string) int {
	c, err := strconv.Atoi(strings.TrimSpace(l[lblCount]))
	if err != nil || c < 0 {
		return 0
	}
	return c
}

// model is the node's GPU model: the snapshot's, else the product label's,
// else the instance type's catalog row; empty when nothing names it.
func (b *builder) model(n *cluster.Node) string {
	if n.GPUModel != "" {
		return n.GPUModel
	}
	if p := n.Labels[lblProduct]; p != "" {
		mem, _ := strconv.ParseInt(n.Labels[lblMemory], 10, 64)
		if m, _ := pricing.ModelFromProduct(p, mem); m != "" {
			return m
		}
	}
	if e, ok := b.catalogRow(n); ok {
		return e.GPUModel
	}
	return ""
}

// migStrategy is none, single or mixed, from the snapshot or the label.
func migStrategy(n *cluster.Node) string {
	for _, s := range []string{n.MIGStrategy, n.Labels[lblStrategy]} {
		if s == "single" || s == "mixed" {
			return s
		}
	}
	return "none"
}

// sharingOf names how g is offered: MPS shows as time-slice units in the
// snapshot and is told apart by the sharing-strategy label.
func sharingOf(n *cluster.Node, g *cluster.GPU) string {
	switch g.Sharing {
	case cluster.MIG:
		return sharingMIG
	case cluster.HAMi:
		return sharingHAMi
	case cluster.NeuronCores:
		return sharingNeuronCores
	case cluster.TimeSlicing:
		if n.Labels[lblSharing] == "mps" {
			return sharingMPS
		}
		return sharingTimeSlicing
	}
	return sharingExclusive
}
