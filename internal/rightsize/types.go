package rightsize

import "time"

// Result is every recommendation for a snapshot, and what was skipped.
type Result struct {
	Window     time.Duration  `json:"-"`
	Containers []ContainerRec `json:"containers"`
	GPU        []GPURec       `json:"gpu"`
	// Skipped lists workloads or containers without a recommendation and
	// why (too little data, unknown GPU model, unpriced node…).
	Skipped []Skip `json:"skipped"`
	// MonthlySavingsUSD sums the priced recommendations' savings (CPU and
	// memory plus GPU shape); unpriced ones are counted in Unpriced, and
	// changes that cost more (negative figures) are not counted.
	MonthlySavingsUSD float64 `json:"monthly_savings_usd"`
	Unpriced          int     `json:"unpriced"`
	// Notes are data notes: unpriced nodes, GPU models planned from live
	// node data.
	Notes []string `json:"notes"`
	// Page, on a page of the result (Paged: the API's offset, limit,
	// workload and namespace), says how many entries each list has in
	// all; absent on the whole result.
	Page *Page `json:"page,omitempty"`
}

// Confidence says how far a recommendation can be trusted, from the data
// behind it.
type Confidence string

// Confidence levels.
const (
	High   Confidence = "high"
	Medium Confidence = "medium"
	Low    Confidence = "low"
)

// Evidence is what a recommendation stands on.
type Evidence struct {
	// Window is the analysis window; Observed the usage time behind the
	// numbers (summed over the workload's pods).
	Window   time.Duration `json:"-"`
	Observed time.Duration `json:"-"`
	// Samples is the number of pods × containers merged; Coverage the
	// share of the workload's allocated time that had usage data (0–1).
	Pods     int     `json:"pods"`
	Coverage float64 `json:"coverage"`
	// Percentiles of the measured quantity, keyed "p50", "p95", "p99",
	// "max" (cores, bytes, MiB or activity 0–1 as the field says).
	Percentiles map[string]float64 `json:"percentiles,omitempty"`
	// Span is the wall-clock time the data covers: Observed divided by
	// the workload's average concurrent pods. Confidence is read from it.
	Span time.Duration `json:"-"`
}

// ContainerRec is a CPU and memory recommendation for one container of a
// workload (all its pods merged).
type ContainerRec struct {
	Workload  string `json:"workload"` // "namespace/Kind/name", as cluster.Pod.WorkloadKey
	Namespace string `json:"namespace"`
	OwnerKind string `json:"owner_kind"`
	OwnerName string `json:"owner_name"`
	Container string `json:"container,omitempty"`

	CurrentCPUMilli    int64 `json:"current_cpu_milli"`
	CurrentCPULimit    int64 `json:"current_cpu_limit_milli"` // 0: none
	CurrentMemoryBytes int64 `json:"current_memory_bytes"`    // request
	CurrentMemoryLimit int64 `json:"current_memory_limit"`    // 0: none
	CPUMilli           int64 `json:"cpu_milli"`               // recommended request
	// CPULimitMilli is the recommended CPU limit, 0 to leave it as it is:
	// equal to the request for a container that requests a GPU (Guaranteed
	// QoS, what audit rule GW003 asks of GPU containers), or raised to
	// the request where the current limit is below it.
	CPULimitMilli int64 `json:"cpu_limit_milli"`
	MemoryBytes   int64 `json:"memory_bytes"` // recommended request (= limit)
	RoundNumber   bool  `json:"round_number"` // the current request looks guessed (8 cores, 64Gi)
	OOMBumped     bool  `json:"oom_bumped"`
	// CPUStarved: a GPU container throttled at its CPU limit while its GPU
	// idled; CPUMilli (and the limit with it) is raised and never cut, so
	// that the GPU is fed.
	CPUStarved     bool     `json:"cpu_starved"`
	CPUEvidence    Evidence `json:"cpu_evidence"`
	MemoryEvidence Evidence `json:"memory_evidence"`
	// Template names the repeated-job template the evidence was read
	// from ("research/Job/rl-sim-*"), Runs its run count; empty and 1 when
	// the workload's own pods are the evidence (docs/recommendations.md).
	Template          string     `json:"template,omitempty"`
	Runs              int        `json:"runs"`
	Confidence        Confidence `json:"confidence"`
	ConfidenceReason  string     `json:"confidence_reason"`
	MonthlySavingsUSD float64    `json:"monthly_savings_usd"` // negative when the container needs more
	Priced            bool       `json:"priced"`
	Reason            string     `json:"reason"` // one line a human reads
}

// GPUAction is what to do with a workload's GPUs.
type GPUAction string

// GPU actions.
const (
	KeepWhole    GPUAction = "keep-whole"
	UseMIG       GPUAction = "mig"
	UseTimeSlice GPUAction = "time-slice"
	CheaperModel GPUAction = "cheaper-model"
	// UseHAMiShare sets a HAMi vGPU's ask (nvidia.com/gpucores and
	// nvidia.com/gpumem or gpumem-percentage): a HAMi share is its own
	// shape, never a time-slice replica (docs/recommendations.md).
	UseHAMiShare GPUAction = "hami-share"
)

// HAMiAsk is a HAMi vGPU's ask: the percent of the GPU's compute
// (nvidia.com/gpucores; 0: no cap asked) and its memory, in MiB
// (nvidia.com/gpumem) or percent (nvidia.com/gpumem-percentage), one of
// the two. Its share of the GPU is cluster.HAMiShare's, the larger of the
// compute and memory shares.
type HAMiAsk struct {
	CoresPercent  int   `json:"gpucores"`
	MemoryMiB     int64 `json:"gpumem_mib,omitempty"`
	MemoryPercent int   `json:"gpumem_percent,omitempty"`
}

// GPURec is a GPU shape recommendation for one workload.
type GPURec struct {
	Workload  string `json:"workload"`
	Namespace string `json:"namespace"`
	OwnerKind string `json:"owner_kind"`
	OwnerName string `json:"owner_name"`
	// Pods is the workload's average concurrent pod count over the window.
	Pods       float64 `json:"pods"`
	GPUsPerPod int     `json:"gpus_per_pod"`
	// CurrentModel and CurrentResource are what each pod holds now
	// ("H100-80GB", "nvidia.com/gpu").
	CurrentModel    string `json:"current_model"`
	CurrentResource string `json:"current_resource"`

	Action GPUAction `json:"action"`
	// Profile is the MIG profile for UseMIG ("1g.10gb"); Resource is the
	// extended resource the pods should request afterwards
	// ("nvidia.com/mig-1g.10gb", "nvidia.com/gpu.shared", "nvidia.com/gpu").
	Profile  string `json:"profile,omitempty"`
	Resource string `json:"resource,omitempty"`
	// DRASelector is, for a workload holding DRA devices, the CEL
	// selector its ResourceClaim's request of Resource (the device class)
	// should name: the MIG profile for UseMIG.
	DRASelector string `json:"dra_selector,omitempty"`
	// Replicas is the time-slicing replica count per GPU for UseTimeSlice.
	Replicas int `json:"replicas,omitempty"`
	// TargetModel is the GPU model for CheaperModel (and the model the MIG
	// profile is cut from for UseMIG).
	TargetModel string `json:"target_model,omitempty"`
	// Fraction is the share of one physical GPU each of the pod's GPU
	// units needs afterwards: per GPU, not per pod, so a pod of 8 whole
	// GPUs kept whole has Fraction 1 (GPUsPerPod says how many).
	Fraction float64 `json:"fraction"`

	// PeakFramebufferMiB, NeedMiB (= peak × headroom) and P95Activity are
	// the numbers the decision used.
	PeakFramebufferMiB float64    `json:"peak_framebuffer_mib"`
	NeedMiB            float64    `json:"need_mib"`
	P95Activity        float64    `json:"p95_activity"`
	Evidence           Evidence   `json:"evidence"`
	Template           string     `json:"template,omitempty"`
	Runs               int        `json:"runs"`
	Confidence         Confidence `json:"confidence"`
	ConfidenceReason   string     `json:"confidence_reason"`
	MonthlySavingsUSD  float64    `json:"monthly_savings_usd"`
	Priced             bool       `json:"priced"`
	Reason             string     `json:"reason"`
	// Alternatives are the other options that fit, best first, for the
	// reader who prefers less change.
	Alternatives []Alternative `json:"alternatives,omitempty"`

	// CurrentFraction is the share of a physical GPU each of the pod's GPU
	// units holds now, in Fraction's unit (per GPU): 1 for whole GPUs
	// however many the pod has, 0.25 for a quarter time-slice.
	CurrentFraction float64 `json:"current_fraction"`
	// TargetInstanceType is the cheapest instance type of TargetModel in
	// the node's cloud and region that holds one pod (CheaperModel).
	TargetInstanceType string `json:"target_instance_type,omitempty"`
	// Container is the container that requests the GPU.
	Container string `json:"container,omitempty"`
	// CurrentHAMi is the HAMi vGPU ask the pods hold now and HAMi the ask
	// recommended (UseHAMiShare); nil for GPUs HAMi does not share.
	CurrentHAMi *HAMiAsk `json:"current_hami,omitempty"`
	HAMi        *HAMiAsk `json:"hami,omitempty"`
	// Nodes are the nodes the workload's pods ran on, with how many of its
	// pods each ran at the end of the window (or, when none ran then, in
	// the window): where MIG layouts and time-slicing configs would go.
	Nodes []NodePods `json:"nodes"`
}

// NodePods is a node and a workload's pod count on it.
type NodePods struct {
	Node string `json:"node"`
	Pods int    `json:"pods"`
}

// Alternative is an option not chosen and what it would save.
type Alternative struct {
	Action            GPUAction `json:"action"`
	Profile           string    `json:"profile,omitempty"`
	TargetModel       string    `json:"target_model,omitempty"`
	Replicas          int       `json:"replicas,omitempty"`
	MonthlySavingsUSD float64   `json:"monthly_savings_usd"`
	Reason            string    `json:"reason"`
	// Fraction and TargetInstanceType as in GPURec.
	Fraction           float64 `json:"fraction"`
	TargetInstanceType string  `json:"target_instance_type,omitempty"`
}

// Skip is a workload or container left without a recommendation.
type Skip struct {
	Workload  string `json:"workload"`
	Container string `json:"container,omitempty"` // empty for a GPU shape skip
	Kind      string `json:"kind"`                // "cpu-memory" or "gpu"
	Reason    string `json:"reason"`
}
