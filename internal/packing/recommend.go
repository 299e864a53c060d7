package packing

// Recommendations are the right-sized shapes and requests that
// RecommendedShapes packs, in the planner's own terms: the use case (or
// the savings ledger) that composes right-sizing with packing converts its
// results into them, so that this engine imports no other.
type Recommendations struct {
	// Shapes are the recommended GPU shapes by workload key
	// (cluster.Pod.WorkloadKey).
	Shapes map[string]Reshape
	// Requests are the right-sized CPU and memory requests by workload
	// key and container name; other containers keep their requests.
	Requests map[ContainerKey]Requests
}

// ContainerKey names a container of a workload.
type ContainerKey struct{ Workload, Container string }

// Requests are a container's CPU and memory requests.
type Requests struct {
	CPUMilli    int64
	MemoryBytes int64
}

// ReshapeKind is what a recommendation does with a workload's GPUs.
type ReshapeKind int

// Reshape kinds.
const (
	// KeepShape keeps the current GPU shape (a recommendation that changes
	// no shape still marks the workload as considered).
	KeepShape ReshapeKind = iota
	// ToMIG moves each GPU unit to the MIG Profile of TargetModel.
	ToMIG
	// ToTimeSlice shares GPUs among Replicas time-slice replicas.
	ToTimeSlice
	// ToCheaperModel moves the pods to GPUsPerPod whole GPUs of
	// TargetModel.
	ToCheaperModel
)

// Reshape is a recommended GPU shape for a workload's pods.
type Reshape struct {
	Kind ReshapeKind
	// Profile is the MIG profile for ToMIG ("1g.10gb").
	Profile string
	// Replicas is the time-slice replica count for ToTimeSlice.
	Replicas int
	// TargetModel is the GPU model for ToCheaperModel and ToMIG; empty
	// means the node's own model.
	TargetModel string
	// GPUsPerPod is the whole GPUs per pod for ToCheaperModel.
	GPUsPerPod int
	// Reason is the recommendation's reason, kept as the workload's note.
	Reason string
}
