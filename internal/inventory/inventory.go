package inventory

import (
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Inventory is the GPU nodes of a snapshot at its window's end.
type Inventory struct {
	// Source is where the snapshot came from.
	Source string `json:"source"`
	// At is the window's end: the moment the inventory describes.
	At time.Time `json:"at"`
	// Nodes are the GPU nodes alive at At, by name: every node with
	// allocatable GPUs, and every node labelled or sold as a GPU node
	// that has none.
	Nodes []Node `json:"nodes"`
	// Summary groups the GPUs by model and sharing mode.
	Summary  []Group   `json:"summary"`
	Totals   Totals    `json:"totals"`
	Findings []Finding `json:"findings"`
	Notes    []string  `json:"notes,omitempty"`
	// DRA lists the Dynamic Resource Allocation drivers and device
	// classes present; nil when the source read no resource.k8s.io API.
	DRA *DRA `json:"dra,omitempty"`
}

// DRA is what the cluster's resource.k8s.io API holds for GPUs.
type DRA struct {
	// Drivers are the drivers publishing ResourceSlices, with their
	// device counts; DeviceClasses the classes pods ask from.
	Drivers       []cluster.DRADriver   `json:"drivers"`
	DeviceClasses []cluster.DeviceClass `json:"device_classes"`
	// GPUClaims are the allocated ResourceClaims holding GPU devices;
	// ClaimTemplates the ResourceClaimTemplates.
	GPUClaims      int `json:"gpu_claims"`
	ClaimTemplates int `json:"claim_templates"`
}

// Node is one GPU node.
type Node struct {
	Name string `json:"name"`
	// GPUModel is the normalized model ("H100-80GB"); empty when nothing
	// names it (no feature-discovery label).
	GPUModel string `json:"gpu_model"`
	// Vendor is the accelerators' vendor (nvidia, amd, aws-neuron,
	// intel-gaudi) and DeviceKind what one of them is (gpu,
	// neuron-device, hpu).
	Vendor     string `json:"vendor"`
	DeviceKind string `json:"device_kind"`
	// Product is the nvidia.com/gpu.product label as GFD wrote it.
	Product string `json:"gpu_product,omitempty"`
	// GPUs are the physical GPUs the node advertises through its
	// allocatable resources; Units the whole GPUs, MIG instances and
	// time-slice replicas carved from them; UnitsInUse those held by pods
	// running at the window's end.
	GPUs       int `json:"gpus"`
	Units      int `json:"units"`
	UnitsInUse int `json:"units_in_use"`
	// ExpectedGPUs is what the hardware has according to the
	// nvidia.com/gpu.count label or the instance type's catalog row
	// (ExpectedFrom says which); nil when neither says.
	ExpectedGPUs *int   `json:"expected_gpus"`
	ExpectedFrom string `json:"expected_from,omitempty"`
	// Sharing is the node's GPU sharing modes joined by "+" (exclusive,
	// mig, time-slicing, mps), or "none" when it advertises no GPU.
	Sharing string `json:"sharing"`
	MIG     MIG    `json:"mig"`
	// TimeSliceReplicas is the replicas per time-sliced GPU; 0 when none
	// is time-sliced.
	TimeSliceReplicas int `json:"time_slice_replicas"`
	// Layout is each physical GPU's current units.
	Layout []GPULayout `json:"layout"`
	// DevicePlugin and FeatureDiscovery are the two components the
	// scheduler and gpuwise depend on; Components every GPU operator
	// component seen on the node (a pod of its DaemonSet, or a
	// nvidia.com/gpu.deploy.* label).
	DevicePlugin     Component   `json:"device_plugin"`
	FeatureDiscovery Component   `json:"gpu_feature_discovery"`
	Components       []Component `json:"components"`
	Cloud            string      `json:"cloud,omitempty"`
	Region           string      `json:"region,omitempty"`
	Zone             string      `json:"zone,omitempty"`
	InstanceType     string      `json:"instance_type,omitempty"`
	// CapacityType is on-demand, spot, reserved, or "unknown".
	CapacityType string `json:"capacity_type"`
	// Price is the node's price; nil when unpriced, and then Unpriced says
	// why and what to add.
	Price    *Price `json:"price"`
	Unpriced string `json:"unpriced_reason,omitempty"`
	// Findings counts this node's entries in Inventory.Findings.
	Findings int `json:"findings"`
}

// MIG is a node's MIG state.
type MIG struct {
	// Strategy is none, single or mixed.
	Strategy string `json:"strategy"`
	// Config is the nvidia.com/mig.config label (the mig-parted
	// configuration asked for) and State its nvidia.com/mig.config.state
	// (pending, rebooting, success, failed); empty when unlabelled.
	Config string `json:"config,omitempty"`
	State  string `json:"state,omitempty"`
}

// GPULayout is one physical GPU's units.
type GPULayout struct {
	Index int `json:"index"`
	// Sharing is exclusive, mig, time-slicing, mps or hami.
	Sharing string `json:"sharing"`
	// Mechanism is how its units are allocated to pods: device-plugin,
	// mig, time-slicing (the device plugin's), dra or hami.
	Mechanism string `json:"mechanism,omitempty"`
	// Admission is "kueue-admitted" (cluster.ViaKueue) when a pod of a
	// workload Kueue admitted holds one of its units at the window's end;
	// empty otherwise.
	Admission string `json:"admission,omitempty"`
	// Profiles are the MIG instances' profiles, largest first; empty
	// unless Sharing is mig.
	Profiles []string `json:"profiles,omitempty"`
	// Replicas is the time-slice or MPS replicas; 1 otherwise.
	Replicas   int `json:"replicas"`
	Units      int `json:"units"`
	UnitsInUse int `json:"units_in_use"`
}

// Component is one part of the GPU software stack on a node.
type Component struct {
	// Name is device-plugin, gpu-feature-discovery, dcgm-exporter, dcgm,
	// mig-manager, driver, container-toolkit or operator-validator.
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Pods are its pods on the node ("namespace/name"), running at the
	// window's end.
	Pods []string `json:"pods,omitempty"`
	// Evidence says what the status was read from.
	Evidence string `json:"evidence"`
}

// Status is what the inventory can tell about a component on a node.
type Status string

// Component statuses.
const (
	// Running: a pod of the component runs on the node.
	Running Status = "running"
	// Present: not seen as a pod, but its work is: allocatable GPU
	// resources for the device plugin, GPU labels for feature discovery.
	Present Status = "present"
	// Missing: the node needs it and nothing shows it works.
	Missing Status = "missing"
	// Paused: the GPU operator paused it (nvidia.com/gpu.deploy.*
	// =paused-for-mig-change) while the MIG manager changes the layout.
	Paused Status = "paused"
	// Disabled: nvidia.com/gpu.deploy.*=false keeps the operator from
	// running it on this node.
	Disabled Status = "disabled"
	// Unknown: the source carries no node labels or pods to tell by.
	Unknown Status = "unknown"
	// NotApplicable: the component is NVIDIA's and the node's
	// accelerators are another vendor's (docs/accelerators.md).
	NotApplicable Status = "n/a"
)

// Price is a node's price and where it came from.
type Price struct {
	NodeUSDPerHour float64 `json:"node_usd_per_hour"`
	// GPUUSDPerHour is the GPU part of the node's price per physical GPU.
	GPUUSDPerHour float64 `json:"gpu_usd_per_hour"`
	// Origin is catalog, override (a user rule's price) or
	// catalog-discount (a user rule's discount on the catalog).
	Origin string `json:"origin"`
	// AsOf is the catalog price's date; empty for a user's own price.
	AsOf string `json:"as_of,omitempty"`
	// Source names the catalog row or the rule, for people.
	Source string `json:"source"`
}

// Group is the GPUs of one model and sharing mode.
type Group struct {
	// GPUModel is the normalized model, or "unknown"; Vendor its
	// vendor (nvidia, amd, aws-neuron, intel-gaudi), as the nodes'.
	GPUModel string `json:"gpu_model"`
	Vendor   string `json:"vendor"`
	// Sharing is exclusive, mig, time-slicing, mps, or "not advertised"
	// for GPU nodes whose GPUs the scheduler cannot see (counted from the
	// hardware they should have).
	Sharing    string `json:"sharing"`
	Nodes      int    `json:"nodes"`
	GPUs       int    `json:"gpus"`
	Units      int    `json:"units"`
	UnitsInUse int    `json:"units_in_use"`
	// USDPerHour is the priced nodes' price shared over their GPUs by
	// count (a node with no advertised GPU puts its whole price here);
	// nil when none of the group's nodes is priced. UnpricedNodes are left
	// out of it.
	USDPerHour    *float64 `json:"usd_per_hour"`
	UnpricedNodes int      `json:"unpriced_nodes"`
}

// Totals sum the inventory. USDPerHour is Σ priced nodes' prices (and Σ
// of the groups'); nil when no node is priced.
type Totals struct {
	Nodes int `json:"nodes"`
	// GPUs are the advertised physical GPUs; UnadvertisedGPUs those of
	// GPU nodes that advertise none (their hardware's count), so that
	// Σ Summary GPUs = GPUs + UnadvertisedGPUs.
	GPUs             int      `json:"gpus"`
	UnadvertisedGPUs int      `json:"unadvertised_gpus"`
	Units            int      `json:"units"`
	UnitsInUse       int      `json:"units_in_use"`
	PricedNodes      int      `json:"priced_nodes"`
	UnpricedNodes    int      `json:"unpriced_nodes"`
	USDPerHour       *float64 `json:"usd_per_hour"`
	// USDPerMonth is USDPerHour × pricing.HoursPerMonth.
	USDPerMonth *float64 `json:"usd_per_month"`
	// OtherNodes are nodes alive at the end that are not GPU nodes
	// (not listed); DeletedNodes GPU nodes deleted within the window.
	OtherNodes   int `json:"other_nodes"`
	DeletedNodes int `json:"deleted_nodes"`
	Findings     int `json:"findings"`
}

// Finding is a fault the inventory proves, with the fix.
type Finding struct {
	Node string `json:"node"`
	// Check names what was checked (see checks.go).
	Check   string `json:"check"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
}

// InstanceCatalog looks up an instance type's catalog row;
// *pricing.Catalog satisfies it.
type InstanceCatalog interface {
	Lookup(cloud, region, instanceType string) (pricing.Entry, bool)
}
