package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/capacity"
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
	r.Data.pricesNothing(&p)
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
	pols, err := req.Policies.get()
	if err != nil {
		return nil, err
	}
	withFlags, err := withAutoscaleFlags(pols, req.Policies.name(), req.Autoscale)
	if err != nil {
		return nil, err
	}
	pol := withFlags.Autoscale
	in, err := a.load(ctx, req.Source, req.Window, liveReportWindow)
	if err != nil {
		return nil, err
	}
	if in.snap.Hourly() == nil {
		return &GenerateResult{Notes: []string{"no hourly series in this source (a version 3 snapshot, Prometheus or --demo has them): the replicas each hour needs are unknown"}, Partial: in.partial}, nil
	}
	scs, skipped, err := capacity.Autoscale(in.snap.View(), pol)
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
	r.Data.pricesNothing(&p)
	if r.GPUQuota < 0 {
		p.add(fmt.Errorf("--gpu-quota: %d is negative", r.GPUQuota))
	}
	kind, name, ok := strings.Cut(r.NodeClass, "/")
	if !ok || kind == "" || name == "" {
		p.add(fmt.Errorf("--node-class %q: want Kind/name, e.g. EC2NodeClass/gpu or AKSNodeClass/mine", r.NodeClass))
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
	pools, notes := generate.GPUNodePools(in.snap.View(), generate.NodePoolOptions{GPUQuota: req.GPUQuota,
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
	s := in.snap.View()
	placements, pools, limitNotes := generate.SpotArtefacts(s, capacity.SpotCandidates(s), nodeClasses(req.NodeClass, req.NodeClassGroup))
	files, notes, err := generate.SpotPlacements(placements)
	if err != nil {
		return nil, generateErr(err)
	}
	np, err := generate.NodePools(pools)
	if err != nil {
		return nil, generateErr(err)
	}
	return &GenerateResult{Files: append(files, np...), Notes: append(notes, limitNotes...), Partial: in.partial}, nil
}

// ReclaimRequest asks for idle-reclaim suggestions.
type ReclaimRequest struct {
	Data
	// Policies is the loaded policy file whose reclaim section
	// (docs/capacity.md) replaces the defaults; nil means the defaults.
	Policies *Policies
}

// Validate lists every problem with the request.
func (r ReclaimRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	r.Data.pricesNothing(&p)
	return p.err()
}

// GenerateReclaim writes a suggestion per notebook or dev box with long
// idle stretches (capacity.Reclaim with the policy file's reclaim section,
// or its defaults).
func (a *App) GenerateReclaim(ctx context.Context, req ReclaimRequest) (*GenerateResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	pols, err := req.Policies.get()
	if err != nil {
		return nil, err
	}
	in, err := a.load(ctx, req.Source, req.Window, liveReportWindow)
	if err != nil {
		return nil, err
	}
	if in.snap.Hourly() == nil {
		return &GenerateResult{Notes: []string{"no hourly series in this source (a version 3 snapshot, Prometheus or --demo has them): idle stretches are unknown"}, Partial: in.partial}, nil
	}
	pol := pols.Reclaim
	idles, err := capacity.Reclaim(in.snap.View(), pol)
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
