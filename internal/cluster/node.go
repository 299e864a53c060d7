package cluster

import (
	"strings"
	"time"
)

// ClusterLabel is the node label naming the cluster a node belongs to
// when snapshots of several clusters are merged into one (report --from
// A --from B --by cluster).
const ClusterLabel = "gpuwise.io/cluster"

// Capacity types of a node, as clouds and Karpenter name them.
const (
	OnDemand = "on-demand"
	Spot     = "spot"
	Reserved = "reserved"
)

// Node is one machine in the snapshot. GPU nodes carry their physical GPUs;
// CPU-only nodes have none and are out of the cost report's scope.
type Node struct {
	Name         string            `json:"name"`
	Labels       map[string]string `json:"labels,omitempty"`
	Taints       []Taint           `json:"taints,omitempty"`
	Cloud        string            `json:"cloud,omitempty"`
	Region       string            `json:"region,omitempty"`
	Zone         string            `json:"zone,omitempty"`
	InstanceType string            `json:"instance_type,omitempty"`
	Capacity     string            `json:"capacity_type,omitempty"`
	CPUMilli     int64             `json:"cpu_milli"`
	MemoryBytes  int64             `json:"memory_bytes"`
	// Pods is the node's allocatable pod count (the kubelet's max-pods);
	// 0 means unknown (snapshots from before it was collected).
	Pods int `json:"pods,omitempty"`
	// GPUModel is the normalized model name, e.g. "H100-80GB".
	GPUModel string `json:"gpu_model,omitempty"`
	GPUs     []GPU  `json:"gpus,omitempty"`
	// MIGStrategy is "single", "mixed" or "" (MIG off).
	MIGStrategy string `json:"mig_strategy,omitempty"`
	// Created and Deleted bound the node's life; zero means beyond the window.
	Created time.Time `json:"created,omitzero"`
	Deleted time.Time `json:"deleted,omitzero"`
	// EndReason is why the node went away before the window's end, where
	// the source can tell (NodeSpotInterrupted, NodeScaledDown); empty
	// when it cannot. See Interruptions.
	EndReason string `json:"end_reason,omitempty"`
	// ProviderID is the node's spec.providerID ("aws:///us-east-1a/i-…",
	// "azure:///subscriptions/…", "gce://project/zone/name"): the key a
	// cloud bill's resource id is matched on. Empty when the source has
	// none (on-prem, older snapshots).
	ProviderID string `json:"provider_id,omitempty"`
}

// Taint is a node taint.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// Sharing is how a physical GPU is offered to pods.
type Sharing string

// Ways a GPU is shared.
const (
	Exclusive   Sharing = "exclusive"
	MIG         Sharing = "mig"
	TimeSlicing Sharing = "time-slicing"
	// HAMi: HAMi's vGPUs, each pod granted the share of compute
	// (nvidia.com/gpucores) and memory (nvidia.com/gpumem,
	// nvidia.com/gpumem-percentage) it asked for; see docs/dra.md.
	HAMi Sharing = "hami"
	// NeuronCores: an AWS Neuron device on a node whose device plugin
	// also advertises aws.amazon.com/neuroncore, offered core by core;
	// one NeuronCore unit per core, a whole-device pod holding all of a
	// device's cores (docs/accelerators.md).
	NeuronCores Sharing = "neuron-cores"
)

// Allocators: who grants a GPU's units to pods (GPU.Allocator).
const (
	// DevicePlugin: the NVIDIA device plugin's extended resources (the
	// empty value in snapshots).
	DevicePlugin = ""
	// DRA: Dynamic Resource Allocation (resource.k8s.io ResourceClaims).
	DRA = "dra"
)

// GPU is one physical GPU and the units carved from it.
type GPU struct {
	Index     int     `json:"index"`
	UUID      string  `json:"uuid,omitempty"`
	Model     string  `json:"model"`
	MemoryMiB int64   `json:"memory_mib,omitempty"`
	Sharing   Sharing `json:"sharing"`
	// Replicas is the time-slicing replica count (1 when not shared).
	Replicas int    `json:"replicas,omitempty"`
	Units    []Unit `json:"units"`
	// Allocator is who grants the GPU's units: DevicePlugin ("") or DRA
	// (a DRA driver's ResourceSlice device, Driver/Pool/Device naming it).
	Allocator string `json:"allocator,omitempty"`
	// Driver, Pool and Device name a DRA GPU's device in its
	// ResourceSlice (a MIG GPU's parent: Device is the parent's UUID
	// there, its units' Device the MIG devices).
	Driver string `json:"dra_driver,omitempty"`
	Pool   string `json:"dra_pool,omitempty"`
}

// UnitKind says what a GPU unit is.
type UnitKind string

// Kinds of GPU unit.
const (
	WholeGPU  UnitKind = "gpu"
	MIGSlice  UnitKind = "mig"
	TimeSlice UnitKind = "time-slice"
	// NeuronCoreUnit is one NeuronCore of a Neuron device (NeuronCores
	// sharing), its Fraction 1 / the device's cores.
	NeuronCoreUnit UnitKind = "neuroncore"
)

// Unit is what a pod is granted: a whole GPU, a MIG instance or a
// time-slice replica. Its Fraction is its share of the physical GPU.
type Unit struct {
	ID   string   `json:"id"`
	Kind UnitKind `json:"kind"`
	// Profile is the MIG profile ("3g.40gb"); empty otherwise.
	Profile       string `json:"profile,omitempty"`
	ComputeSlices int    `json:"compute_slices,omitempty"`
	MemorySlices  int    `json:"memory_slices,omitempty"`
	// Fraction is set by Normalize; see DESIGN.md "GPU unit".
	Fraction float64 `json:"fraction"`
	// Device is a DRA unit's device name in its ResourceSlice ("gpu-0",
	// "gpu-0-mig-1g10gb-19-0"); Claim the ResourceClaim ("namespace/name")
	// allocated it, empty when free.
	Device string `json:"dra_device,omitempty"`
	Claim  string `json:"dra_claim,omitempty"`
	// CoresPercent, MemoryPercent and MemoryMiB are what the HAMi pod
	// holding the unit asked for (nvidia.com/gpucores,
	// nvidia.com/gpumem-percentage, nvidia.com/gpumem); all zero on a free
	// HAMi unit. Normalize prices the unit from them.
	CoresPercent  int   `json:"hami_cores_percent,omitempty"`
	MemoryPercent int   `json:"hami_memory_percent,omitempty"`
	MemoryMiB     int64 `json:"hami_memory_mib,omitempty"`
}

// HasGPUs reports whether the node has at least one physical GPU.
func (n *Node) HasGPUs() bool { return len(n.GPUs) > 0 }

// CPUCores is the node's allocatable CPU in cores.
func (n *Node) CPUCores() float64 { return float64(n.CPUMilli) / 1000 }

// MemoryGiB is the node's allocatable memory in GiB.
func (n *Node) MemoryGiB() float64 { return float64(n.MemoryBytes) / (1 << 30) }

// Allocation mechanisms of a GPU unit, as outputs name them.
const (
	ViaDevicePlugin = "device-plugin"
	ViaMIG          = "mig"
	ViaTimeSlicing  = "time-slicing"
	ViaDRA          = "dra"
	ViaHAMi         = "hami"
	// ViaKueue (kueue.go) is for pods a Kueue Workload admitted: a
	// property of the pod, not of the unit (PodMechanism adds it).
)

// Mechanisms lists the allocation mechanisms in the order outputs show
// them.
var Mechanisms = []string{ViaDevicePlugin, ViaMIG, ViaTimeSlicing, ViaDRA, ViaHAMi, ViaKueue}

// PodMechanism is how p holds its GPU units: the distinct mechanisms of
// the units (Mechanism), in Mechanisms order, joined with "+" ("dra",
// "device-plugin+mig" for a pod holding both), with ViaKueue after them
// when a Kueue Workload admitted the pod ("device-plugin+kueue-admitted");
// "" for a pod that holds none.
func PodMechanism(p *Pod, ix *Index) string {
	seen := map[string]bool{}
	for _, h := range p.GPUs {
		if ref, ok := ix.Units[h.UnitID]; ok {
			seen[Mechanism(ref.GPU, ref.Unit)] = true
		}
	}
	if len(seen) > 0 && ix.Admitted[p.Namespace+"/"+p.Name] != "" {
		seen[ViaKueue] = true
	}
	return joinMechanisms(seen)
}

// NodeMechanism is the distinct mechanisms of n's GPU units, joined as
// PodMechanism joins them; "" for a node without GPUs.
func NodeMechanism(n *Node) string {
	seen := map[string]bool{}
	for i := range n.GPUs {
		g := &n.GPUs[i]
		for j := range g.Units {
			seen[Mechanism(g, &g.Units[j])] = true
		}
	}
	return joinMechanisms(seen)
}

func joinMechanisms(seen map[string]bool) string {
	var out []string
	for _, m := range Mechanisms {
		if seen[m] {
			out = append(out, m)
		}
	}
	return strings.Join(out, "+")
}

// Mechanism is how unit u of g is allocated to pods: DRA for a DRA
// driver's device (whole or MIG), HAMi for a HAMi vGPU, else the device
// plugin's MIG instance, time-slice replica or whole GPU.
func Mechanism(g *GPU, u *Unit) string {
	switch {
	case g.Allocator == DRA:
		return ViaDRA
	case g.Sharing == HAMi:
		return ViaHAMi
	case u.Kind == MIGSlice:
		return ViaMIG
	case u.Kind == TimeSlice:
		return ViaTimeSlicing
	}
	return ViaDevicePlugin
}
