package generate

// This file holds the input types. Engines (rightsize, packing, plan) convert
// their results into these plain values; nothing here knows about snapshots
// or usage. Zero values mean "leave unchanged" or "use the default" where a
// field's comment says so; every other problem is reported by the generator.

// File is one generated artefact: a slash-separated path relative to the
// output directory, and its contents.
type File struct {
	Path string
	Data []byte
}

// WorkloadKind is the kind of a pod-owning workload gpuwise can patch.
type WorkloadKind string

// The workload kinds a patch or VPA can target.
const (
	Deployment  WorkloadKind = "Deployment"
	StatefulSet WorkloadKind = "StatefulSet"
	DaemonSet   WorkloadKind = "DaemonSet"
	Job         WorkloadKind = "Job"
	CronJob     WorkloadKind = "CronJob"
)

// Workload names one workload by kind, namespace and name.
type Workload struct {
	Kind      WorkloadKind
	Namespace string
	Name      string
}

// ResourcePatch is the resource change for one workload: one strategic-merge
// patch file is written per ResourcePatch.
type ResourcePatch struct {
	Workload Workload
	// Evidence is one line written as the file's header comment, e.g.
	// "p95 CPU 0.21 cores over 7d, 2,016 samples; saves $41.20/month".
	Evidence string
	// Containers lists the containers to change; containers not listed are
	// left as they are. At least one is required.
	Containers []ContainerResources
}

// ContainerResources is the new resources of one container. A zero quantity
// leaves that value unchanged; negative quantities are errors. At least one
// change is required.
type ContainerResources struct {
	Name string
	// CPURequestMilli is the CPU request in millicores (250 → "250m").
	CPURequestMilli int64
	// CPULimitMilli is the CPU limit in millicores; 0 leaves it unchanged.
	CPULimitMilli int64
	// RemoveCPULimit deletes the CPU limit (limits.cpu: null). It cannot be
	// combined with CPULimitMilli.
	RemoveCPULimit bool
	// MemoryRequestBytes and MemoryLimitBytes are in bytes
	// (1610612736 → "1536Mi"). Callers round them; they are written exactly.
	MemoryRequestBytes int64
	MemoryLimitBytes   int64
	// GPU, when set, swaps the container's GPU resources.
	GPU *GPUChange
}

// GPUChange replaces a container's GPU resources. Extended resources need
// request == limit, so Resource is written to both requests and limits, and
// every name in Remove is set to null in both (which is how a
// strategic-merge patch deletes a map key).
type GPUChange struct {
	// Resource is the new resource name, e.g. "nvidia.com/mig-1g.10gb" or
	// "nvidia.com/gpu.shared".
	Resource string
	// Count is the number of units of Resource; at least 1.
	Count int64
	// Remove lists old resource names to delete, e.g. "nvidia.com/gpu".
	Remove []string
}

// VPA is one VerticalPodAutoscaler in recommendation-only mode
// (updateMode "Off") for a workload: it makes the VPA recommender publish
// its own numbers beside gpuwise's without ever evicting a pod.
type VPA struct {
	Workload Workload
	// Name is the VPA object's name; empty means "<workload name>-vpa".
	Name string
	// Evidence is one line written as the file's header comment.
	Evidence string
	// Containers names the containers to control; empty means all ("*").
	Containers []string
	// MinCPUMilli and MinMemoryBytes are the policy minimums written as
	// minAllowed (gpuwise defaults: 10m and 64Mi); 0 omits that resource.
	MinCPUMilli    int64
	MinMemoryBytes int64
}

// Default names and values for the GPU Operator artefacts.
const (
	DefaultNamespace              = "gpu-operator"
	DefaultDevicePluginConfigMap  = "gpuwise-device-plugin-config"
	DefaultMIGPartedConfigMap     = "gpuwise-mig-parted-config"
	ExclusiveConfig               = "exclusive"
	AllDisabledConfig             = "all-disabled"
	DevicePluginConfigLabel       = "nvidia.com/device-plugin.config"
	MIGConfigLabel                = "nvidia.com/mig.config"
	MIGConfigStateLabel           = "nvidia.com/mig.config.state"
	ClusterPolicyName             = "cluster-policy"
	migPartedConfigMapKey         = "config.yaml"
	devicePluginConfigVersion     = "v1"
	migPartedConfigVersion        = "v1"
	migStrategyNone               = "none"
	migStrategyMixed              = "mixed"
	migStrategySingle             = "single"
	minTimeSlicingReplicas        = 2
	maxExtendedResourceNameLength = 63
)

// TimeSlicing is a device-plugin configuration set: one ConfigMap holding
// one device-plugin config per key, the ClusterPolicy pointing at it, and a
// node label choosing each node's key.
type TimeSlicing struct {
	// ConfigMap and Namespace default to DefaultDevicePluginConfigMap and
	// DefaultNamespace (the GPU Operator's namespace).
	ConfigMap string
	Namespace string
	// Default is the key nodes without a label use; empty means
	// ExclusiveConfig. The ExclusiveConfig key (no sharing, migStrategy
	// none) is always written and cannot be redefined.
	Default string
	// Configs are the named configs, e.g. "ts-4".
	Configs []SharingConfig
	// Nodes assigns configs to nodes.
	Nodes []NodeConfig
}

// SharingConfig is one device-plugin config (one ConfigMap key).
type SharingConfig struct {
	// Name is the ConfigMap key and node label value, e.g. "ts-4".
	Name string
	// MIGStrategy is "none" (default), "single" or "mixed". Use "mixed" to
	// time-slice MIG devices (resources named nvidia.com/mig-*).
	MIGStrategy string
	// RenameByDefault advertises every shared resource as "<name>.shared"
	// (nvidia.com/gpu.shared), which keeps exclusive requests distinct;
	// recommended.
	RenameByDefault bool
	// FailRequestsGreaterThanOne rejects containers asking for more than one
	// shared unit (a request of 2 does not buy 2x compute); recommended.
	FailRequestsGreaterThanOne bool
	// Resources are the time-sliced resources. Empty means no sharing: a
	// plain config with only the MIG strategy (e.g. mixed MIG, exclusive).
	Resources []SharedResource
}

// SharedResource is one time-sliced resource and its replica count.
type SharedResource struct {
	// Name is "nvidia.com/gpu" or a mixed-strategy "nvidia.com/mig-<profile>".
	Name string
	// Replicas is the number of slices per device; at least 2.
	Replicas int
}

// NodeConfig assigns a named config to a node.
type NodeConfig struct {
	Node   string
	Config string
}

// MIGParted is a mig-parted configuration set: one ConfigMap with key
// config.yaml holding every named layout (plus all-disabled), the
// ClusterPolicy pointing the MIG manager at it, and per-node relabelling.
type MIGParted struct {
	// ConfigMap and Namespace default to DefaultMIGPartedConfigMap and
	// DefaultNamespace.
	ConfigMap string
	Namespace string
	// Nodes are the per-node layouts. Nodes naming the same Config must
	// have identical Groups; the config is written once.
	Nodes []MIGNode
}

// MIGNode is the MIG layout of one node's GPUs.
type MIGNode struct {
	Node string
	// Config is the mig-parted config name (the nvidia.com/mig.config label
	// value), e.g. "gpuwise-a100-80gb-plan-7". AllDisabledConfig is
	// predefined and needs no Groups.
	Config string
	// Groups partition the node's GPUs; indices may not overlap.
	Groups []MIGDeviceGroup
}

// MIGDeviceGroup is one set of a node's GPUs sharing one layout.
type MIGDeviceGroup struct {
	// Model is the normalized GPU model ("A100-80GB", "H100-80GB", "A30"),
	// used to check that the layout fits on one GPU. Required when the
	// layout is non-empty.
	Model string
	// Devices are GPU indices; empty means all GPUs of the node.
	Devices []int
	// DeviceFilter optionally restricts the group to PCI device IDs
	// ("0x20B210DE"), for nodes that mix GPU types.
	DeviceFilter []string
	// Layout is profile name → count per GPU, e.g. {"1g.10gb": 7}. Empty
	// means MIG disabled on these GPUs.
	Layout map[string]int
}
