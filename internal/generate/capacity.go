package generate

import (
	"fmt"
	"slices"
	"strings"

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

// NodeClassRef is a Karpenter provider's node class.
type NodeClassRef struct{ Group, Kind, Name string }

// DefaultNodeClasses are the node classes gpuwise names per cloud unless
// told otherwise: AWS's EC2NodeClass "gpu", Azure's AKSNodeClass "gpu"
// (which gpuwise writes: nodeClassFiles; not "default", which AKS node
// auto-provisioning owns).
func DefaultNodeClasses() map[string]NodeClassRef {
	return map[string]NodeClassRef{
		"aws":   {Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "gpu"},
		"azure": {Group: "karpenter.azure.com", Kind: "AKSNodeClass", Name: "gpu"},
	}
}

// NodePoolOptions steer GPUNodePools.
type NodePoolOptions struct {
	// GPUQuota caps every pool's GPU limit (0: no quota, today's GPUs).
	GPUQuota int
	// NodeClasses are the node class per cloud (capacity.KarpenterClouds);
	// nil: DefaultNodeClasses.
	NodeClasses map[string]NodeClassRef
	// ConsolidateAfter is how long an empty node waits before it goes.
	ConsolidateAfter string
}

// karpenterCloud is the node's cloud when Karpenter has a provider for it.
func karpenterCloud(n *cluster.Node) (string, bool) {
	c := strings.ToLower(n.Cloud)
	return c, slices.Contains(capacity.KarpenterClouds, c)
}

// GPUNodePools are one Karpenter NodePool per GPU model and cloud of the
// nodes alive at the window's end: that cloud's instance types and node
// class, spot first with on-demand fallback where spot nodes ran, only
// empty nodes consolidated (a GPU job is not moved mid-run), and a GPU
// limit of the pool's own GPUs today or the quota, whichever is lower.
// Nodes of a cloud without a Karpenter provider (on-premises, GCP) are in
// no pool: a note names them.
func GPUNodePools(s *cluster.Snapshot, o NodePoolOptions) ([]NodePool, []string) {
	type pool struct {
		model, cloud      string
		types, capacities []string
		gpus, nodes       int
	}
	classes := o.NodeClasses
	if classes == nil {
		classes = DefaultNodeClasses()
	}
	pools := map[string]*pool{}
	var names, outside []string
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if !n.HasGPUs() || !n.Deleted.IsZero() && n.Deleted.Before(s.Window.End) {
			continue
		}
		cloud, ok := karpenterCloud(n)
		if !ok || n.InstanceType == "" {
			outside = append(outside, n.Name)
			continue
		}
		m := n.GPUs[0].Model
		name := capacity.NodePoolNameIn(m, cloud)
		if pools[name] == nil {
			pools[name], names = &pool{model: m, cloud: cloud}, append(names, name)
		}
		p := pools[name]
		p.gpus, p.nodes = p.gpus+len(n.GPUs), p.nodes+1
		p.types = addOnce(p.types, n.InstanceType)
		p.capacities = addOnce(p.capacities, capacityOf(n.Capacity))
	}
	slices.Sort(names)
	var out []NodePool
	var notes []string
	if len(outside) > 0 {
		slices.Sort(outside)
		notes = append(notes, fmt.Sprintf("%d GPU node(s) in no NodePool: %s — not on a cloud with a Karpenter provider (AWS, Azure): on-premises nodes and other clouds keep their own provisioning",
			len(outside), strings.Join(outside, ", ")))
	}
	for _, name := range names {
		p := pools[name]
		slices.Sort(p.types)
		limit := p.gpus
		if o.GPUQuota > 0 && o.GPUQuota < limit {
			notes = append(notes, fmt.Sprintf("NodePool %s: the GPU quota %d is below the %d %s GPUs running now", name, o.GPUQuota, p.gpus, p.model))
			limit = o.GPUQuota
		}
		nc := classes[p.cloud]
		out = append(out, NodePool{Name: name, InstanceTypes: p.types, CapacityTypes: preferSpot(p.capacities), GPULimit: limit,
			Resource:         cluster.WholeResource(cluster.ModelVendor(p.model)),
			Evidence:         fmt.Sprintf("%s on %s: %d GPU(s) on %d node(s) of %d instance type(s) now; capacity %v", p.model, p.cloud, p.gpus, p.nodes, len(p.types), preferSpot(p.capacities)),
			ConsolidateAfter: o.ConsolidateAfter, NodeClassGroup: nc.Group, NodeClassKind: nc.Kind, NodeClassName: nc.Name})
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
