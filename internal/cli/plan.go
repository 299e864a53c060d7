package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

// planOptions are the flags of `gpuwise plan` and `gpuwise generate mig|plan`.
type planOptions struct {
	recommendFlags
	output outputFlag
	shapes string
	dir    string
	by     string
}

func (o *planOptions) register(cmd *cobra.Command, output bool) {
	o.recommendFlags.register(cmd.Flags())
	cmd.Flags().StringVar(&o.shapes, "shapes", string(app.DefaultShapes), "GPU shapes to pack: recommended (right-sized as gpuwise recommend does) or current (consolidation alone)")
	if output {
		o.output.register(cmd.Flags(), render.Formats)
		cmd.Flags().StringVar(&o.by, "by", "", "cluster: pack each cluster alone, its own plan and totals, then their sum (several clusters' snapshots: --from NAME=FILE repeated)")
	}
}

// request is the plan request the flags describe.
func (o *planOptions) request(p *flagProblems) app.PlanRequest {
	return app.PlanRequest{RecommendRequest: o.recommendFlags.request(p), Shapes: app.Shapes(o.shapes), By: o.by}
}

func newPlanCmd(e *env) *cobra.Command {
	o := &planOptions{}
	cmd := &cobra.Command{
		Use:   "plan [--from FILE | --prometheus URL | --demo | --context CTX]",
		Short: "Consolidation plan: pack GPU workloads onto the fewest, cheapest nodes, with $ before and after",
		Long: "plan packs the GPU pods running at the end of the window (with their right-sized shapes, or\n" +
			"their current ones with --shapes current) onto the fewest and cheapest GPU nodes that respect\n" +
			"GPU models, taints, node selectors, CPU and memory and MIG placement rules. It prints the nodes\n" +
			"kept and removed per pool, each kept GPU's MIG layout or time-slicing, the moves, the pods that\n" +
			"fit nowhere and why, and $/month and GPU utilization before and after. It changes nothing;\n" +
			"`gpuwise generate plan` writes the configs. How it works: docs/planning.md.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPlan(cmd.Context(), o, e) },
	}
	o.register(cmd, true)
	return cmd
}

func runPlan(ctx context.Context, o *planOptions, e *env) error {
	var p flagProblems
	req := o.request(&p)
	format := o.output.parse(&p)
	if err := p.check(req.Validate); err != nil {
		return err
	}
	res, err := e.app.Plan(ctx, req)
	if err != nil {
		return err
	}
	if len(res.Clusters) > 0 {
		cl := make([]render.ClusterPlan, len(res.Clusters))
		for i, c := range res.Clusters {
			cl[i] = render.ClusterPlan{Cluster: c.Cluster, Plan: c.Plan}
		}
		if err := render.ClusterPlans(e.Out, cl, req.Shapes, format, e.renderOptions()); err != nil {
			return err
		}
		return partial(res.Partial)
	}
	if err := render.Plan(e.Out, res.Plan, req.Shapes, format, e.renderOptions()); err != nil {
		return err
	}
	return partial(res.Partial)
}
