package cli

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/app"
)

// autoscaleFlags are the autoscaling policy's flags (advise, generate
// autoscaling); only the flags given override the policy file.
type autoscaleFlags struct {
	fs          *pflag.FlagSet
	target      float64
	minR, maxR  int
	stab, start time.Duration
}

func (f *autoscaleFlags) register(fs *pflag.FlagSet) {
	d := app.DefaultAutoscalePolicy()
	f.fs = fs
	fs.Float64Var(&f.target, "target-activity", d.TargetActivity, "autoscaling: GPU activity each replica is sized for, in (0, 1]")
	fs.IntVar(&f.minR, "min-replicas", d.MinReplicas, "autoscaling: the floor of replicas a GPU service keeps")
	fs.IntVar(&f.maxR, "max-replicas", d.MaxReplicas, "autoscaling: the ceiling (0: the most replicas seen in the window)")
	fs.DurationVar(&f.stab, "scale-down-stabilization", d.Stabilization, "autoscaling: how long demand stays low before a replica goes")
	fs.DurationVar(&f.start, "startup-time", d.Startup, "autoscaling: how long a GPU pod takes to serve (replicas start this far ahead)")
}

// overrides are the flags the user gave.
func (f *autoscaleFlags) overrides() app.AutoscaleOverrides {
	var o app.AutoscaleOverrides
	if f.fs.Changed("target-activity") {
		o.TargetActivity = &f.target
	}
	if f.fs.Changed("min-replicas") {
		o.MinReplicas = &f.minR
	}
	if f.fs.Changed("max-replicas") {
		o.MaxReplicas = &f.maxR
	}
	if f.fs.Changed("scale-down-stabilization") {
		o.Stabilization = &f.stab
	}
	if f.fs.Changed("startup-time") {
		o.Startup = &f.start
	}
	return o
}

// newGenerateAutoscalingCmd is `gpuwise generate autoscaling`.
func newGenerateAutoscalingCmd(e *env) *cobra.Command {
	o := &recommendFlags{}
	var as autoscaleFlags
	var prom string
	var hpa bool
	return generateCmd(e, "autoscaling "+dataUsage+" [--hpa]",
		"KEDA ScaledObjects (or HPAs with --hpa) for the GPU services whose troughs free GPUs (docs/capacity.md)",
		func(fs *pflag.FlagSet) {
			o.register(fs)
			as.register(fs)
			fs.BoolVar(&hpa, "hpa", false, "write autoscaling/v2 HorizontalPodAutoscalers on External metrics instead of KEDA ScaledObjects")
			fs.StringVar(&prom, "prometheus-address", app.DefaultPrometheusAddress, "the Prometheus URL KEDA queries from inside the cluster")
		},
		func(p *flagProblems) app.AutoscalingRequest {
			return app.AutoscalingRequest{RecommendRequest: o.request(p), Autoscale: as.overrides(), HPA: hpa, PrometheusAddress: prom}
		},
		(*app.App).GenerateAutoscaling)
}

// newGenerateNodePoolCmd is `gpuwise generate nodepool`.
func newGenerateNodePoolCmd(e *env) *cobra.Command {
	o := &sourceFlags{}
	req := app.NodePoolRequest{}
	return generateCmd(e, "nodepool "+dataUsage+" [--gpu-quota N]",
		"Karpenter NodePools for the GPU pools: GPU taint, spot with on-demand fallback, empty-node consolidation, GPU limits",
		func(fs *pflag.FlagSet) {
			o.register(fs)
			fs.IntVar(&req.GPUQuota, "gpu-quota", 0, "cap every pool's nvidia.com/gpu limit at your quota (0: today's GPUs of the pool)")
			nodeClassFlags(fs, &req.NodeClass, &req.NodeClassGroup)
		},
		func(p *flagProblems) app.NodePoolRequest { req.Data = o.data(p); return req },
		(*app.App).GenerateNodePools)
}

// newGenerateSpotCmd is `gpuwise generate spot`.
func newGenerateSpotCmd(e *env) *cobra.Command {
	o := &sourceFlags{}
	req := app.SpotRequest{}
	return generateCmd(e, "spot "+dataUsage,
		"Spot placements (node affinity, tolerations) for checkpointed training jobs, and spot NodePools with on-demand fallback",
		func(fs *pflag.FlagSet) {
			o.register(fs)
			nodeClassFlags(fs, &req.NodeClass, &req.NodeClassGroup)
		},
		func(p *flagProblems) app.SpotRequest { req.Data = o.data(p); return req },
		(*app.App).GenerateSpot)
}

// nodeClassFlags are the Karpenter node class flags of nodepool and spot.
func nodeClassFlags(fs *pflag.FlagSet, class, group *string) {
	fs.StringVar(class, "node-class", app.DefaultNodeClass, "a node class as Kind/name; replaces the default (AWS EC2NodeClass/gpu, Azure AKSNodeClass/gpu, which gpuwise writes) of the provider its group names")
	fs.StringVar(group, "node-class-group", app.DefaultNodeClassGroup, "the node class's API group (AKS: karpenter.azure.com)")
}

// newGenerateReclaimCmd is `gpuwise generate reclaim`.
func newGenerateReclaimCmd(e *env) *cobra.Command {
	o := &sourceFlags{}
	var policy string
	return generateCmd(e, "reclaim "+dataUsage+" [--policy FILE]",
		"Suggested scale-to-zero patches and culling settings for notebooks and dev boxes idle for long stretches",
		func(fs *pflag.FlagSet) {
			o.register(fs)
			fs.StringVar(&policy, "policy", "", "policy file whose reclaim section (maxActivity, minIdleHours, namespaces) replaces the defaults; see docs/capacity.md")
		},
		func(p *flagProblems) app.ReclaimRequest {
			return app.ReclaimRequest{Data: o.data(p), Policies: app.MustLoadPolicies(policy)}
		},
		(*app.App).GenerateReclaim)
}
