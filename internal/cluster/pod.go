package cluster

import (
	"time"

	"github.com/gpuwise/gpuwise/internal/usage"
)

// Pod is one pod over the window, with what it asked for, where it ran,
// what it held and, where measured, what it used.
type Pod struct {
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	UID       string            `json:"uid,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
	Owner     Owner             `json:"owner"`
	Node      string            `json:"node,omitempty"`
	Phase     string            `json:"phase,omitempty"`
	// Start is when the pod was bound and started; End when it terminated
	// (zero: still running at the end of the window).
	Start       time.Time    `json:"start,omitzero"`
	End         time.Time    `json:"end,omitzero"`
	Tolerations []Toleration `json:"tolerations,omitempty"`
	// NodeSelector holds nodeSelector terms and required node-affinity
	// In-terms flattened to key → allowed values.
	NodeSelector map[string][]string `json:"node_selector,omitempty"`
	Containers   []Container         `json:"containers"`
	// GPUs are the units the pod held, with their measured activity.
	GPUs []Holding `json:"gpus,omitempty"`
	// Claims are the GPU ResourceClaims ("namespace/name") the pod holds
	// through DRA: a GPU pod without any nvidia.com/gpu request.
	Claims []string `json:"resource_claims,omitempty"`
	// OOMKills counts out-of-memory kills over the window.
	OOMKills int `json:"oom_kills,omitempty"`
	// EndReason is why the pod ended, as Kubernetes recorded it: its
	// status reason ("Evicted", "NodeLost", "Shutdown") or the reason of
	// its DisruptionTarget condition ("PreemptionByScheduler",
	// "EvictionByEvictionAPI", …); empty when none was given.
	EndReason string `json:"end_reason,omitempty"`
	// CheckpointSeconds is the longest time between the pod's checkpoints
	// from its CheckpointHint label or annotation; 0: no hint.
	CheckpointSeconds int64 `json:"checkpoint_interval_seconds,omitempty"`
}

// Owner is a pod's top-level workload (ReplicaSet resolved to Deployment,
// Job to CronJob); a bare pod owns itself with Kind "Pod".
type Owner struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// Toleration is a pod toleration.
type Toleration struct {
	Key      string `json:"key,omitempty"`
	Operator string `json:"operator,omitempty"`
	Value    string `json:"value,omitempty"`
	Effect   string `json:"effect,omitempty"`
}

// Container holds requests, limits and measured usage of one container.
type Container struct {
	Name            string `json:"name"`
	CPURequestMilli int64  `json:"cpu_request_milli,omitempty"`
	CPULimitMilli   int64  `json:"cpu_limit_milli,omitempty"`
	MemoryRequest   int64  `json:"memory_request_bytes,omitempty"`
	MemoryLimit     int64  `json:"memory_limit_bytes,omitempty"`
	// GPURequests maps an extended resource name ("nvidia.com/gpu",
	// "nvidia.com/mig-3g.40gb", "nvidia.com/gpu.shared") to its count;
	// request equals limit for extended resources.
	GPURequests map[string]int64 `json:"gpu_requests,omitempty"`
	// GPUCores, GPUMemoryMiB and GPUMemoryPercent are HAMi's fractional
	// asks per vGPU (nvidia.com/gpucores: percent of the GPU's compute;
	// nvidia.com/gpumem: MiB; nvidia.com/gpumem-percentage); 0: not asked.
	GPUCores         int64 `json:"hami_gpucores,omitempty"`
	GPUMemoryMiB     int64 `json:"hami_gpumem_mib,omitempty"`
	GPUMemoryPercent int64 `json:"hami_gpumem_percent,omitempty"`
	// CPU is usage in cores; Memory is working set in bytes. Nil: unmeasured.
	CPU    *usage.Gauge `json:"cpu_usage,omitempty"`
	Memory *usage.Gauge `json:"memory_usage,omitempty"`
}

// Holding is one GPU unit a pod held and its activity on it. Activity is
// relative to the unit (1 = the unit's whole share busy); nil means the
// unit had no usage series: unmeasured, never 0%.
type Holding struct {
	UnitID   string          `json:"unit"`
	Activity *usage.Activity `json:"activity,omitempty"`
	// SMActive is DCGM_FI_PROF_SM_ACTIVE where present, shown beside
	// activity because the graphics-engine metric overstates real use.
	SMActive *usage.Activity `json:"sm_active,omitempty"`
	// FramebufferMiB is framebuffer used, for right-sizing.
	FramebufferMiB *usage.Gauge `json:"framebuffer_mib,omitempty"`
}

// Key is "namespace/name".
func (p *Pod) Key() string { return p.Namespace + "/" + p.Name }

// WorkloadKey is "namespace/Kind/name" of the pod's top-level owner.
func (p *Pod) WorkloadKey() string {
	if p.Owner.Name == "" {
		return p.Namespace + "/Pod/" + p.Name
	}
	return p.Namespace + "/" + p.Owner.Kind + "/" + p.Owner.Name
}

// CPURequestCores sums the containers' CPU requests in cores.
func (p *Pod) CPURequestCores() float64 {
	var m int64
	for _, c := range p.Containers {
		m += c.CPURequestMilli
	}
	return float64(m) / 1000
}

// MemoryRequestBytes sums the containers' memory requests.
func (p *Pod) MemoryRequestBytes() int64 {
	var b int64
	for _, c := range p.Containers {
		b += c.MemoryRequest
	}
	return b
}

// RequestsGPU reports whether any container asks for a GPU resource or
// the pod holds a GPU ResourceClaim.
func (p *Pod) RequestsGPU() bool {
	if len(p.Claims) > 0 {
		return true
	}
	for _, c := range p.Containers {
		for _, n := range c.GPURequests {
			if n > 0 {
				return true
			}
		}
	}
	return false
}
