package lever

// Effort table: engineer-hours per unit of work, the defaults
// docs/savings.md documents. They are deliberately round: the point is
// the ranking and the order of magnitude of payback, not a quote.
const (
	// effortResize: review a right-sized request patch, apply it, watch a
	// rollout (per workload).
	effortResize = 0.5
	// effortTimeSlice: switch a workload to nvidia.com/gpu.shared (per
	// workload); the node's device-plugin config is effortNodeConfig.
	effortTimeSlice = 0.5
	// effortMIG: switch a workload to a MIG resource and check it on the
	// slice (per workload); the node's re-cut is effortNodeConfig.
	effortMIG = 1
	// effortCheaperModel: move a workload to another GPU model and
	// validate its latency and accuracy there (per workload).
	effortCheaperModel = 4
	// effortNodeConfig: change a node's MIG layout or time-slicing config:
	// cordon, drain, relabel, verify (per node).
	effortNodeConfig = 2
	// effortRemoveNode: cordon, drain and delete a node, shrink its node
	// group (per node).
	effortRemoveNode = 1
	// effortMove: a pod rescheduled elsewhere: check it came back healthy
	// (per pod).
	effortMove = 0.25
	// effortNodePool: write and roll out a node autoscaler's pool for a
	// GPU model (a Karpenter NodePool: taint, limits, consolidation) and
	// watch a scale-down and a scale-up.
	effortNodePool = 4
	// effortScaler: put a workload under a KEDA ScaledObject or an HPA and
	// load-test it (per workload).
	effortScaler = 2
	// effortSpotWorkload: point a training job at spot capacity (node
	// affinity, toleration), check it resumes from its checkpoint after
	// an interruption (per workload).
	effortSpotWorkload = 1
	// effortCommit: size, approve and buy a Savings Plan or reservations
	// with finance.
	effortCommit = 4
	// effortReclaim: agree an idle policy with the owner and enable
	// culling or a scale-to-zero schedule (per workload).
	effortReclaim = 1
	// effortQueue: cut a worker's loop into runs submitted as Kueue Jobs
	// to its team's LocalQueue (per workload).
	effortQueue = 2
	// effortRegion: stand up the node pool in the other region, copy the
	// data, move the workloads and cut traffic over (per pool).
	effortRegion = 16
	// effortAction: the fixed part of any action: a change ticket, a
	// review, a rollback plan.
	effortAction = 0.5
)

// Action kinds.
const (
	KindResize       = "resize"
	KindMIG          = "mig"
	KindTimeSlice    = "time-slice"
	KindCheaperModel = "cheaper-model"
	KindRemoveNodes  = "remove-nodes"
	KindPrepareNodes = "prepare-nodes"
	KindRepack       = "repack"
	KindScaleNodes   = "scale-nodes"
	KindAutoscale    = "autoscale-workloads"
	KindSpot         = "spot"
	KindCommit       = "commit"
	KindReclaim      = "reclaim"
	KindQueue        = "queue-batch"
	KindRegion       = "move-region"
)
