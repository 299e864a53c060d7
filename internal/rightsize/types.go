package rightsize

import "time"

// Result is every recommendation for a snapshot, and what was skipped.
type Result struct {
	Window     time.Duration
	Containers []ContainerRec
	GPU        []GPURec
	// Skipped lists workloads or containers without a recommendation and
	// why (too little data, unknown GPU model, unpriced node…).
	Skipped []Skip
	// MonthlySavingsUSD sums the priced recommendations' savings (CPU and
	// memory plus GPU shape); unpriced ones are counted in Unpriced.
	MonthlySavingsUSD float64
	Unpriced          int
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
	Window   time.Duration
	Observed time.Duration
	// Samples is the number of pods × containers merged; Coverage the
	// share of the workload's allocated time that had usage data (0–1).
	Pods     int
	Coverage float64
	// Percentiles of the measured quantity, keyed "p50", "p95", "p99",
	// "max" (cores, bytes, MiB or activity 0–1 as the field says).
	Percentiles map[string]float64
}

// ContainerRec is a CPU and memory recommendation for one container of a
// workload (all its pods merged).
type ContainerRec struct {
	Workload  string // "namespace/Kind/name", as cluster.Pod.WorkloadKey
	Namespace string
	OwnerKind string
	OwnerName string
	Container string

	CurrentCPUMilli    int64
	CurrentMemoryBytes int64 // request
	CurrentMemoryLimit int64 // 0: none
	CPUMilli           int64 // recommended request
	MemoryBytes        int64 // recommended request (= limit)
	RoundNumber        bool  // the current request looks guessed (8 cores, 64Gi)
	OOMBumped          bool
	CPUEvidence        Evidence
	MemoryEvidence     Evidence
	Confidence         Confidence
	MonthlySavingsUSD  float64 // negative when the container needs more
	Priced             bool
	Reason             string // one line a human reads
}

// GPUAction is what to do with a workload's GPUs.
type GPUAction string

// GPU actions.
const (
	KeepWhole    GPUAction = "keep-whole"
	UseMIG       GPUAction = "mig"
	UseTimeSlice GPUAction = "time-slice"
	CheaperModel GPUAction = "cheaper-model"
)

// GPURec is a GPU shape recommendation for one workload.
type GPURec struct {
	Workload  string
	Namespace string
	OwnerKind string
	OwnerName string
	// Pods is the workload's average concurrent pod count over the window.
	Pods       float64
	GPUsPerPod int
	// CurrentModel and CurrentResource are what each pod holds now
	// ("H100-80GB", "nvidia.com/gpu").
	CurrentModel    string
	CurrentResource string

	Action GPUAction
	// Profile is the MIG profile for UseMIG ("1g.10gb"); Resource is the
	// extended resource the pods should request afterwards
	// ("nvidia.com/mig-1g.10gb", "nvidia.com/gpu.shared", "nvidia.com/gpu").
	Profile  string
	Resource string
	// Replicas is the time-slicing replica count per GPU for UseTimeSlice.
	Replicas int
	// TargetModel is the GPU model for CheaperModel (and the model the MIG
	// profile is cut from for UseMIG).
	TargetModel string
	// Fraction is the share of one physical GPU each pod needs afterwards.
	Fraction float64

	// PeakFramebufferMiB, NeedMiB (= peak × headroom) and P95Activity are
	// the numbers the decision used.
	PeakFramebufferMiB float64
	NeedMiB            float64
	P95Activity        float64
	Evidence           Evidence
	Confidence         Confidence
	MonthlySavingsUSD  float64
	Priced             bool
	Reason             string
	// Alternatives are the other options that fit, best first, for the
	// reader who prefers less change.
	Alternatives []Alternative
}

// Alternative is an option not chosen and what it would save.
type Alternative struct {
	Action            GPUAction
	Profile           string
	TargetModel       string
	Replicas          int
	MonthlySavingsUSD float64
	Reason            string
}

// Skip is a workload or container left without a recommendation.
type Skip struct {
	Workload  string
	Container string // empty for a GPU shape skip
	Kind      string // "cpu-memory" or "gpu"
	Reason    string
}
