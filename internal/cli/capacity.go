package cli

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/capacity"
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
	d := capacity.DefaultAutoscalePolicy()
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
	var dir, prom string
	var hpa bool
	cmd := &cobra.Command{
		Use:   "autoscaling [--from FILE | --prometheus URL | --demo | --context CTX] [--hpa] [-d DIR]",
		Short: "KEDA ScaledObjects (or HPAs with --hpa) for the GPU services whose troughs free GPUs (docs/capacity.md)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p flagProblems
			req := app.AutoscalingRequest{RecommendRequest: o.request(&p), Autoscale: as.overrides(), HPA: hpa, PrometheusAddress: prom}
			if err := p.check(req.Validate); err != nil {
				return err
			}
			return emitGenerated(e.Streams, dir, func() (*app.GenerateResult, error) { return e.app.GenerateAutoscaling(cmd.Context(), req) })
		},
	}
	o.register(cmd.Flags())
	as.register(cmd.Flags())
	cmd.Flags().BoolVar(&hpa, "hpa", false, "write autoscaling/v2 HorizontalPodAutoscalers on External metrics instead of KEDA ScaledObjects")
	cmd.Flags().StringVar(&prom, "prometheus-address", app.DefaultPrometheusAddress, "the Prometheus URL KEDA queries from inside the cluster")
	cmd.Flags().StringVarP(&dir, "dir", "d", "", dirUsage)
	return cmd
}

// newGenerateNodePoolCmd is `gpuwise generate nodepool`.
func newGenerateNodePoolCmd(e *env) *cobra.Command {
	o := &sourceFlags{}
	req := app.NodePoolRequest{}
	var dir string
	cmd := &cobra.Command{
		Use:   "nodepool [--from FILE | --prometheus URL | --demo | --context CTX] [--gpu-quota N] [-d DIR]",
		Short: "Karpenter NodePools for the GPU pools: GPU taint, spot with on-demand fallback, empty-node consolidation, GPU limits",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p flagProblems
			req.Data = o.data(&p)
			if err := p.check(req.Validate); err != nil {
				return err
			}
			return emitGenerated(e.Streams, dir, func() (*app.GenerateResult, error) { return e.app.GenerateNodePools(cmd.Context(), req) })
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().IntVar(&req.GPUQuota, "gpu-quota", 0, "cap every pool's nvidia.com/gpu limit at your quota (0: today's GPUs of the pool)")
	cmd.Flags().StringVar(&req.NodeClass, "node-class", app.DefaultNodeClass, "the cloud's node class as Kind/name (AKS: AKSNodeClass/default)")
	cmd.Flags().StringVar(&req.NodeClassGroup, "node-class-group", app.DefaultNodeClassGroup, "the node class's API group (AKS: karpenter.azure.com)")
	cmd.Flags().StringVarP(&dir, "dir", "d", "", dirUsage)
	return cmd
}

// newGenerateSpotCmd is `gpuwise generate spot`.
func newGenerateSpotCmd(e *env) *cobra.Command {
	o := &sourceFlags{}
	req := app.SpotRequest{}
	var dir string
	cmd := &cobra.Command{
		Use:   "spot [--from FILE | --prometheus URL | --demo | --context CTX] [-d DIR]",
		Short: "Spot placements (node affinity, tolerations) for checkpointed training jobs, and spot NodePools with on-demand fallback",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p flagProblems
			req.Data = o.data(&p)
			if err := p.check(req.Validate); err != nil {
				return err
			}
			return emitGenerated(e.Streams, dir, func() (*app.GenerateResult, error) { return e.app.GenerateSpot(cmd.Context(), req) })
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().StringVar(&req.NodeClass, "node-class", app.DefaultNodeClass, "the cloud's node class as Kind/name (AKS: AKSNodeClass/default)")
	cmd.Flags().StringVar(&req.NodeClassGroup, "node-class-group", app.DefaultNodeClassGroup, "the node class's API group (AKS: karpenter.azure.com)")
	cmd.Flags().StringVarP(&dir, "dir", "d", "", dirUsage)
	return cmd
}

// newGenerateReclaimCmd is `gpuwise generate reclaim`.
func newGenerateReclaimCmd(e *env) *cobra.Command {
	o := &sourceFlags{}
	var dir string
	cmd := &cobra.Command{
		Use:   "reclaim [--from FILE | --prometheus URL | --demo | --context CTX] [-d DIR]",
		Short: "Suggested scale-to-zero patches and culling settings for notebooks and dev boxes idle for long stretches",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p flagProblems
			req := app.ReclaimRequest{Data: o.data(&p)}
			if err := p.check(req.Validate); err != nil {
				return err
			}
			return emitGenerated(e.Streams, dir, func() (*app.GenerateResult, error) { return e.app.GenerateReclaim(cmd.Context(), req) })
		},
	}
	o.register(cmd.Flags())
	cmd.Flags().StringVarP(&dir, "dir", "d", "", dirUsage)
	return cmd
}
