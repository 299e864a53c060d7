package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/config"
	"github.com/gpuwise/gpuwise/internal/generate"
)

// AutoscaleOverrides are autoscaling policy values given as flags; nil
// fields keep the policy file's value or the default.
type AutoscaleOverrides struct {
	TargetActivity *float64
	MinReplicas    *int
	MaxReplicas    *int
	Stabilization  *time.Duration
	Startup        *time.Duration
}

// autoscaleFlags names each policy field's flag, so that a bad flag value
// is reported under the flag the user typed.
var autoscaleFlags = strings.NewReplacer(
	"autoscaling.targetActivity", "--target-activity", "autoscaling.minReplicas", "--min-replicas",
	"autoscaling.maxReplicas", "--max-replicas", "autoscaling.stabilization", "--scale-down-stabilization",
	"autoscaling.startup", "--startup-time")

// over sets the given fields on p.
func (o AutoscaleOverrides) over(p capacity.AutoscalePolicy) capacity.AutoscalePolicy {
	set(&p.TargetActivity, o.TargetActivity)
	set(&p.MinReplicas, o.MinReplicas)
	set(&p.MaxReplicas, o.MaxReplicas)
	set(&p.Stabilization, o.Stabilization)
	set(&p.Startup, o.Startup)
	return p
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// validate checks the flag values over the defaults: a bad one is a usage
// error naming its flag.
func (o AutoscaleOverrides) validate(p *problems) {
	if err := o.over(capacity.DefaultAutoscalePolicy()).Validate(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			p.add(fmt.Errorf("%s", autoscaleFlags.Replace(line)))
		}
	}
}

// AutoscalingRequest asks for the autoscalers of the GPU services.
type AutoscalingRequest struct {
	RecommendRequest
	Autoscale AutoscaleOverrides
	// HPA writes autoscaling/v2 HPAs instead of KEDA ScaledObjects;
	// PrometheusAddress is the server KEDA queries.
	HPA               bool
	PrometheusAddress string
}

// DefaultPrometheusAddress is the in-cluster Prometheus KEDA queries
// unless told otherwise (kube-prometheus-stack's service in monitoring).
const DefaultPrometheusAddress = "http://prometheus-operated.monitoring:9090"

// Validate lists every problem with the request.
func (r AutoscalingRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	r.Autoscale.validate(&p)
	if !r.HPA && !strings.HasPrefix(r.PrometheusAddress, "http://") && !strings.HasPrefix(r.PrometheusAddress, "https://") {
		p.add(fmt.Errorf("--prometheus-address %q: want the http:// or https:// URL KEDA reaches Prometheus at", r.PrometheusAddress))
	}
	return p.err()
}

// GenerateAutoscaling writes a KEDA ScaledObject (or an HPA) per GPU
// service whose troughs free GPUs: the autoscale lever's services.
func (a *App) GenerateAutoscaling(ctx context.Context, req AutoscalingRequest) (*GenerateResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	pol, err := a.autoscalePolicy(req.PolicyFile, req.Autoscale)
	if err != nil {
		return nil, err
	}
	in, err := a.load(ctx, req.Source, req.Window, liveReportWindow)
	if err != nil {
		return nil, err
	}
	if in.snap.Hourly == nil {
		return &GenerateResult{Notes: []string{"no hourly series in this source (a version 3 snapshot, Prometheus or --demo has them): the replicas each hour needs are unknown"}, Partial: in.partial}, nil
	}
	scs, skipped, err := capacity.Autoscale(in.snap.Snapshot, pol)
	if err != nil {
		return nil, withKind(Input, err)
	}
	scalers, notes := generate.Autoscaled(scs, pol)
	for _, s := range skipped {
		notes = append(notes, s.Workload+": not scaled: "+s.Reason)
	}
	files, err := generate.Scalers(scalers, generate.ScalerOptions{PrometheusAddress: req.PrometheusAddress, HPA: req.HPA})
	if err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	return &GenerateResult{Files: files, Notes: notes, Partial: in.partial}, nil
}

// autoscalePolicy is the policy file's autoscaling section (or the
// defaults) with the flags over it.
func (a *App) autoscalePolicy(file string, o AutoscaleOverrides) (capacity.AutoscalePolicy, error) {
	pol, err := capacityPolicies(file, o)
	return pol.Autoscale, err
}

// capacityPolicies are the policy file's sections (or the defaults) with
// the autoscaling flags over its autoscaling section.
func capacityPolicies(file string, o AutoscaleOverrides) (config.Policies, error) {
	pol, err := loadPolicies(file)
	if err != nil {
		return pol, err
	}
	return withAutoscaleFlags(pol, file, o)
}

// withAutoscaleFlags puts the autoscaling flags over the policy file's
// autoscaling section and checks the result.
func withAutoscaleFlags(pol config.Policies, file string, o AutoscaleOverrides) (config.Policies, error) {
	pol.Autoscale = o.over(pol.Autoscale)
	if err := pol.Autoscale.Validate(); err != nil {
		return pol, withKind(Input, fmt.Errorf("policy %s with the flags: %w", file, err))
	}
	return pol, nil
}

// NodePoolRequest asks for Karpenter NodePools for the GPU pools.
type NodePoolRequest struct {
	Data
	// GPUQuota caps each pool's nvidia.com/gpu limit (0: today's GPUs).
	GPUQuota int
	// NodeClass is "Kind/name" of the cloud's node class, in Group.
	NodeClass      string
	NodeClassGroup string
}

// DefaultNodeClass is the AWS provider's node class gpuwise names unless
// told otherwise.
const (
	DefaultNodeClass      = "EC2NodeClass/gpu"
	DefaultNodeClassGroup = "karpenter.k8s.aws"
)

// Validate lists every problem with the request.
func (r NodePoolRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	if r.GPUQuota < 0 {
		p.add(fmt.Errorf("--gpu-quota: %d is negative", r.GPUQuota))
	}
	kind, name, ok := strings.Cut(r.NodeClass, "/")
	if !ok || kind == "" || name == "" {
		p.add(fmt.Errorf("--node-class %q: want Kind/name, e.g. EC2NodeClass/gpu or AKSNodeClass/default", r.NodeClass))
	}
	if r.NodeClassGroup == "" {
		p.add(fmt.Errorf("--node-class-group: empty; e.g. karpenter.k8s.aws or karpenter.azure.com"))
	} else if _, ok := cloudOfGroup(r.NodeClassGroup); !ok {
		p.add(fmt.Errorf("--node-class-group %q: not a Karpenter provider's group gpuwise writes NodePools for: want karpenter.k8s.aws (AWS) or karpenter.azure.com (Azure)", r.NodeClassGroup))
	}
	if ok && kind != "" && name != "" && r.NodeClassGroup != "" {
		// A name Kubernetes refuses was written into the NodePools.
		if err := generate.CheckNodeClassRef(r.NodeClassGroup, kind, name); err != nil {
			p.add(err)
		}
	}
	return p.err()
}

// cloudOfGroup is the cloud whose provider owns a node class API group.
func cloudOfGroup(group string) (string, bool) {
	for cloud, nc := range generate.DefaultNodeClasses() {
		if nc.Group == group {
			return cloud, true
		}
	}
	return "", false
}

// nodeClasses are the node class per cloud: the defaults, with the one of
// the cloud whose group the flags name replaced by them.
func nodeClasses(class, group string) map[string]generate.NodeClassRef {
	out := generate.DefaultNodeClasses()
	kind, name, _ := strings.Cut(class, "/")
	if cloud, ok := cloudOfGroup(group); ok {
		out[cloud] = generate.NodeClassRef{Group: group, Kind: kind, Name: name}
	}
	return out
}

// GenerateNodePools writes one Karpenter NodePool per GPU model of the
// nodes alive at the window's end.
func (a *App) GenerateNodePools(ctx context.Context, req NodePoolRequest) (*GenerateResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	in, err := a.load(ctx, req.Source, req.Window, liveReportWindow)
	if err != nil {
		return nil, err
	}
	pools, notes := generate.GPUNodePools(in.snap.Snapshot, generate.NodePoolOptions{GPUQuota: req.GPUQuota,
		NodeClasses: nodeClasses(req.NodeClass, req.NodeClassGroup), ConsolidateAfter: "10m"})
	files, err := generate.NodePools(pools)
	if err != nil {
		return nil, generateErr(err)
	}
	return &GenerateResult{Files: files, Notes: notes, Partial: in.partial}, nil
}

// SpotRequest asks for spot placements of the checkpointed training jobs.
type SpotRequest struct {
	Data
	NodeClass, NodeClassGroup string
}

// Validate lists every problem with the request.
func (r SpotRequest) Validate() error {
	return NodePoolRequest{Data: r.Data, NodeClass: r.NodeClass, NodeClassGroup: r.NodeClassGroup}.Validate()
}

// GenerateSpot writes, for every checkpointed training workload not on
// spot yet, its spot placement, and per GPU model a NodePool with spot
// first and on-demand fallback.
func (a *App) GenerateSpot(ctx context.Context, req SpotRequest) (*GenerateResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	in, err := a.load(ctx, req.Source, req.Window, liveReportWindow)
	if err != nil {
		return nil, err
	}
	s := in.snap.Snapshot
	cands := capacity.SpotCandidates(s)
	limits := map[string]int{}
	all, _ := generate.GPUNodePools(s, generate.NodePoolOptions{})
	for _, np := range all {
		limits[np.Name+"-spot"] = np.GPULimit
	}
	placements, pools, limitNotes := spotArtefacts(s, cands, nodeClasses(req.NodeClass, req.NodeClassGroup), limits)
	for i := range pools {
		if pools[i].GPULimit == 0 {
			// No node of the pool is alive at the window's end (issue 31,
			// M8): the limit is the most GPUs its nodes had at once.
			m, cloud := pools[i].model, pools[i].cloud
			pools[i].GPULimit = max(peakGPUs(s, m, cloud), 1)
			limitNotes = append(limitNotes, fmt.Sprintf("NodePool %s: no %s node on %s is alive at the window's end (its nodes were deleted in the window): the GPU limit %d is the most such GPUs alive at once in the window",
				pools[i].Name, m, cloud, pools[i].GPULimit))
		}
	}
	files, notes, err := generate.SpotPlacements(placements)
	if err != nil {
		return nil, generateErr(err)
	}
	nps := make([]generate.NodePool, len(pools))
	for i := range pools {
		nps[i] = pools[i].NodePool
	}
	np, err := generate.NodePools(nps)
	if err != nil {
		return nil, generateErr(err)
	}
	return &GenerateResult{Files: append(files, np...), Notes: append(notes, limitNotes...), Partial: in.partial}, nil
}

// peakGPUs is the most GPUs of a model on one cloud's nodes alive at once
// in the window (node lives clipped to it).
func peakGPUs(s *cluster.Snapshot, model, cloud string) int {
	type ev struct {
		at    time.Time
		delta int
	}
	var evs []ev
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if !n.HasGPUs() || n.GPUs[0].Model != model || !strings.EqualFold(n.Cloud, cloud) {
			continue
		}
		start, end := n.Created, n.Deleted
		if start.IsZero() || start.Before(s.Window.Start) {
			start = s.Window.Start
		}
		if end.IsZero() || end.After(s.Window.End) {
			end = s.Window.End
		}
		if end.After(start) {
			evs = append(evs, ev{start, len(n.GPUs)}, ev{end, -len(n.GPUs)})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta // ends first: a node and its replacement of one instant do not overlap
	})
	level, peak := 0, 0
	for _, e := range evs {
		level += e.delta
		peak = max(peak, level)
	}
	return peak
}

// spotPool is a spot NodePool with the model and cloud it is for.
type spotPool struct {
	generate.NodePool
	model, cloud string
}

// spotArtefacts are the placements and the spot NodePools per GPU model
// and cloud (each with its provider's node class; limits are today's GPUs
// of each pool, by spot pool name). Instance types of a cloud without a
// Karpenter provider (on-premises) are in no pool: a note says so.
func spotArtefacts(s *cluster.Snapshot, cands []capacity.SpotWorkload, classes map[string]generate.NodeClassRef, limits map[string]int) ([]generate.SpotPlacement, []spotPool, []string) {
	cloudOf := map[string]string{}
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.InstanceType != "" {
			cloudOf[n.InstanceType] = strings.ToLower(n.Cloud)
		}
	}
	var out []generate.SpotPlacement
	var notes []string
	pools := map[string]*spotPool{}
	var names []string
	for _, c := range cands {
		out = append(out, generate.SpotPlacement{Kind: c.Kind, Namespace: c.Namespace, Name: c.Name,
			Evidence: fmt.Sprintf("checkpoints every %v (%s): an interruption loses about %v plus the restart", c.Checkpoint, capacity.SpotRestart, c.Checkpoint/2)})
		for _, it := range c.InstanceTypes {
			cloud := cloudOf[it]
			if !slices.Contains(capacity.KarpenterClouds, cloud) {
				notes = append(notes, fmt.Sprintf("%s: instance type %s is not on a cloud with a Karpenter provider (AWS, Azure): no spot NodePool for it", c.Workload, it))
				continue
			}
			name := capacity.NodePoolNameIn(c.Model, cloud) + "-spot"
			np := pools[name]
			if np == nil {
				nc := classes[cloud]
				np = &spotPool{NodePool: generate.NodePool{Name: name, CapacityTypes: []string{"spot", "on-demand"}, Weight: 100,
					ConsolidateAfter: "10m", NodeClassGroup: nc.Group, NodeClassKind: nc.Kind, NodeClassName: nc.Name}, model: c.Model, cloud: cloud}
				pools[name], names = np, append(names, name)
			}
			if !slices.Contains(np.InstanceTypes, it) {
				np.InstanceTypes = append(np.InstanceTypes, it)
			}
		}
	}
	slices.Sort(names)
	var nps []spotPool
	for _, name := range names {
		np := pools[name]
		slices.Sort(np.InstanceTypes)
		np.GPULimit = limits[np.Name]
		np.Evidence = fmt.Sprintf("%s training on %s spot, on-demand when no spot capacity is left (Karpenter tries spot first)", np.model, np.cloud)
		nps = append(nps, *np)
	}
	return out, nps, notes
}

// ReclaimRequest asks for idle-reclaim suggestions.
type ReclaimRequest struct {
	Data
	// PolicyFile is a policy file whose reclaim section (docs/capacity.md)
	// replaces the defaults; empty means the defaults.
	PolicyFile string
}

// Validate lists every problem with the request.
func (r ReclaimRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	return p.err()
}

// GenerateReclaim writes a suggestion per notebook or dev box with long
// idle stretches (capacity.Reclaim with the policy file's reclaim section,
// or its defaults).
func (a *App) GenerateReclaim(ctx context.Context, req ReclaimRequest) (*GenerateResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	pols, err := loadPolicies(req.PolicyFile)
	if err != nil {
		return nil, err
	}
	in, err := a.load(ctx, req.Source, req.Window, liveReportWindow)
	if err != nil {
		return nil, err
	}
	if in.snap.Hourly == nil {
		return &GenerateResult{Notes: []string{"no hourly series in this source (a version 3 snapshot, Prometheus or --demo has them): idle stretches are unknown"}, Partial: in.partial}, nil
	}
	pol := pols.Reclaim
	idles, err := capacity.Reclaim(in.snap.Snapshot, pol)
	if err != nil {
		return nil, withKind(Input, err)
	}
	var rs []generate.Reclaim
	for _, id := range idles {
		rs = append(rs, generate.Reclaim{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, IdleMinutes: pol.MinIdleHours * 60,
			Evidence: fmt.Sprintf("%d stretch(es) of %d h or more below %.0f%% GPU activity, %.0f h in all (longest %d h): %.0f of %.0f GPU-hours held in the window",
				id.Stretches, pol.MinIdleHours, pol.MaxActivity*100, id.IdleHours, id.Longest, id.IdleGPUHours, id.HeldGPUHours)})
	}
	files, err := generate.Reclaims(rs)
	if err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	return &GenerateResult{Files: files, Partial: in.partial}, nil
}
