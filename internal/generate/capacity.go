package generate

import (
	"fmt"
	"slices"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Autoscaled turns the autoscaling lever's sizings into scalers: one per
// GPU service whose troughs free GPU-hours; the others are named in notes.
func Autoscaled(scs []capacity.Scaling, p capacity.AutoscalePolicy) ([]Scaler, []string) {
	var out []Scaler
	var notes []string
	for _, sc := range scs {
		if sc.FreedGPUHours <= 0 {
			notes = append(notes, fmt.Sprintf("%s: not scaled: every hour needs the %d replica(s) it runs at %.0f%% activity", sc.Workload, sc.Replicas, p.TargetActivity*100))
			continue
		}
		out = append(out, Scaler{
			Workload: Workload{Kind: WorkloadKind(sc.Kind), Namespace: sc.Namespace, Name: sc.Name},
			Evidence: fmt.Sprintf("%d replica(s) now; %d to %d needed an hour at %.0f%% GPU activity (sized on %s); frees %.0f of %.0f GPU-hours in the window; signal: %s",
				sc.Replicas, sc.Trough, sc.Peak, p.TargetActivity*100, sc.Sizing, sc.FreedGPUHours, sc.HeldGPUHours, sc.Signal.Describe()),
			MinReplicas: max(1, sc.MinReplicas), MaxReplicas: max(1, sc.MinReplicas, sc.MaxReplicas), FallbackReplicas: sc.Replicas,
			Metric: sc.Signal.Metric, Query: sc.Signal.Query(sc.Namespace, sc.Kind, sc.Name),
			Threshold: sc.Signal.Threshold, PerReplica: sc.Signal.PerReplica,
			ScaleDownStabilizationSeconds: int(p.Stabilization.Seconds()),
		})
	}
	return out, notes
}

// NodePoolOptions steer GPUNodePools.
type NodePoolOptions struct {
	// GPUQuota caps every pool's GPU limit (0: no quota, today's GPUs).
	GPUQuota int
	// NodeClass names the cloud's node class for every pool.
	NodeClassGroup, NodeClassKind, NodeClassName string
	// ConsolidateAfter is how long an empty node waits before it goes.
	ConsolidateAfter string
}

// GPUNodePools are one Karpenter NodePool per GPU model of the nodes alive
// at the window's end: their instance types, spot first with on-demand
// fallback where spot nodes ran, only empty nodes consolidated (a GPU job
// is not moved mid-run), and a GPU limit of today's GPUs of the model or
// the quota, whichever is lower.
func GPUNodePools(s *cluster.Snapshot, o NodePoolOptions) ([]NodePool, []string) {
	type pool struct {
		types, capacities []string
		gpus              int
	}
	pools := map[string]*pool{}
	var models []string
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if !n.HasGPUs() || !n.Deleted.IsZero() && n.Deleted.Before(s.Window.End) || n.InstanceType == "" {
			continue
		}
		m := n.GPUs[0].Model
		if pools[m] == nil {
			pools[m], models = &pool{}, append(models, m)
		}
		p := pools[m]
		p.gpus += len(n.GPUs)
		p.types = addOnce(p.types, n.InstanceType)
		p.capacities = addOnce(p.capacities, capacityOf(n.Capacity))
	}
	slices.Sort(models)
	var out []NodePool
	var notes []string
	for _, m := range models {
		p := pools[m]
		slices.Sort(p.types)
		limit := p.gpus
		if o.GPUQuota > 0 && o.GPUQuota < limit {
			notes = append(notes, fmt.Sprintf("NodePool %s: the GPU quota %d is below the %d %s GPUs running now", capacity.NodePoolName(m), o.GPUQuota, p.gpus, m))
			limit = o.GPUQuota
		}
		out = append(out, NodePool{Name: capacity.NodePoolName(m), InstanceTypes: p.types, CapacityTypes: preferSpot(p.capacities), GPULimit: limit,
			Evidence:         fmt.Sprintf("%s: %d GPU(s) on %d instance type(s) now; capacity %v", m, p.gpus, len(p.types), preferSpot(p.capacities)),
			ConsolidateAfter: o.ConsolidateAfter, NodeClassGroup: o.NodeClassGroup, NodeClassKind: o.NodeClassKind, NodeClassName: o.NodeClassName})
	}
	return out, notes
}

// capacityOf maps a node's capacity type to Karpenter's (unknown:
// on-demand, the safe default).
func capacityOf(c string) string {
	if c == cluster.Spot || c == cluster.Reserved {
		return c
	}
	return cluster.OnDemand
}

// preferSpot orders capacity types spot first and always ends with
// on-demand, the fallback when no spot capacity is left.
func preferSpot(cs []string) []string {
	var out []string
	for _, c := range []string{cluster.Spot, cluster.Reserved} {
		if slices.Contains(cs, c) {
			out = append(out, c)
		}
	}
	return append(out, cluster.OnDemand)
}

func addOnce(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}
