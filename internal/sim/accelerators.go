package sim

import (
	"fmt"
	"strconv"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// The demo's other accelerators (docs/accelerators.md): an Azure ND MI300X
// v5 node (8 AMD MI300X, $48/h in eastus2) serving a model on half its
// GPUs, and an AWS trn1.32xlarge (16 Trainium devices, $21.50/h in
// us-east-1) running fine-tuning jobs with gaps between them. Their
// exporters have no SM-activity metric, so their holdings carry none.
var (
	ndMI300X = instance{"azure", "eastus2", "Standard_ND96isr_MI300X_v5", 8, 96, 1900, "MI300X", "AMD_Instinct_MI300X", 192 * 1024}
	trn1     = instance{"aws", "us-east-1", "trn1.32xlarge", 16, 128, 512, "Trainium", "", 32 * 1024}
)

// accelerators adds the two nodes and their pods. It runs after every
// other archetype, so the NVIDIA part of the cell draws the same random
// numbers with or without it.
func (c *cell) accelerators() {
	if c.cfg.AMD {
		c.amdServing()
	}
	if c.cfg.Neuron {
		c.neuronTraining()
	}
}

// amdServing is the MI300X node: a model served on 4 of its 8 GPUs.
func (c *cell) amdServing() {
	amd := c.addNode(nodeSpec{name: "serve-mi300x-1", inst: ndMI300X, capacity: cluster.OnDemand, created: -c.secs(3*day, 120*day)})
	vendorNode(amd, ndMI300X)
	hash := c.suffix(10) // the ReplicaSet's pod-template hash
	for r := range 4 {
		name := c.generated("inference", "llm-mi300x-"+hash)
		cv := curve{shape: diurnal, lo: c.between(0.05, 0.1), hi: c.between(0.45, 0.6), rnd: c.noise()}
		c.addAcceleratorPod(&podSpec{
			ns: "inference", name: name, owner: cluster.Owner{Kind: "Deployment", Name: c.pfx + "llm-mi300x"},
			labels: labels("inference", "llm-mi300x"), node: amd, from: -c.secs(2*day, 20*day), to: c.window,
			units: wholeGPUs(amd, r, 1), resource: cluster.ResAMDGPU,
			ctrs: []ctr{{name: "server", cpuReq: 8000, cpuLim: 8000, memReq: 96 * gi, memLim: 96 * gi,
				cpu: use{1, 6, 0.1}, mem: use{40 * gi, 60 * gi, 0.02}}},
			load: c.gpuLoad(cv, amd, 0.55, 0.1),
		})
	}
}

// neuronTraining is the Trainium node: fine-tuning Jobs on all 16
// devices, one after another with gaps.
func (c *cell) neuronTraining() {
	trn := c.addNode(nodeSpec{name: "train-trn1-1", inst: trn1, capacity: cluster.OnDemand, created: -c.secs(3*day, 120*day)})
	vendorNode(trn, trn1)
	t := -c.secs(0, 20*hour)
	for run := 1; t < c.window; run++ {
		end := t + c.secs(10*hour, 36*hour)
		job := fmt.Sprintf("%sfinetune-trn-%d", c.pfx, run)
		cv := curve{shape: bursty, lo: c.between(0.6, 0.7), hi: c.between(0.8, 0.9), rnd: c.noise()}
		c.addAcceleratorPod(&podSpec{
			ns: "research", name: c.generated("research", job), owner: cluster.Owner{Kind: "Job", Name: job},
			labels: labels("research", "finetune-trn"), node: trn, from: t, to: min(end, c.window),
			units: wholeGPUs(trn, 0, 16), resource: cluster.ResNeuron,
			ctrs: []ctr{{name: "main", cpuReq: 96000, cpuLim: 96000, memReq: 384 * gi, memLim: 384 * gi,
				cpu: use{10, 60, 0.1}, mem: use{120 * gi, 200 * gi, 0.03}}},
			load: c.gpuLoad(cv, trn, 0.5, 0.3),
		})
		t = end + c.secs(6*hour, 30*hour)
	}
}

// addAcceleratorPod adds a pod that tolerates its node's vendor taint and
// has no SM-activity series (no such metric outside DCGM).
func (c *cell) addAcceleratorPod(s *podSpec) {
	s.tolerations = []cluster.Toleration{{Key: s.resource, Operator: "Exists", Effect: "NoSchedule"}}
	s.load.noLinks = true
	n := len(c.pods)
	c.addPod(s)
	if len(c.pods) > n {
		for i := range c.pods[n].GPUs {
			c.pods[n].GPUs[i].SMActive = nil
		}
	}
}

// vendorNode gives an accelerator node its vendor's taint and labels in
// place of GPU feature discovery's: AMD's node labeller writes product
// name and VRAM; the Neuron device plugin writes none.
func vendorNode(n *cluster.Node, in instance) {
	for k := range n.Labels {
		if len(k) > 11 && k[:11] == "nvidia.com/" {
			delete(n.Labels, k)
		}
	}
	res := cluster.WholeResource(cluster.ModelVendor(in.model))
	n.Taints = []cluster.Taint{{Key: res, Value: "true", Effect: "NoSchedule"}}
	if in.product != "" {
		n.Labels["amd.com/gpu.product-name"] = in.product
		n.Labels["amd.com/gpu.vram"] = strconv.FormatInt(in.gpuMiB/1024, 10) + "G"
	}
}
