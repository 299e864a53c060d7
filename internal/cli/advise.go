package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

// adviseOptions are the flags of `gpuwise advise`.
type adviseOptions struct {
	recommendFlags
	output outputFlag
	levers []string
	rate   float64
	as     autoscaleFlags
	region app.RegionPolicy
	by     string
	// csvTable picks the table -o csv writes: the actions or the unit
	// costs.
	csvTable string
}

// request is the advise request the flags describe.
func (o *adviseOptions) request(p *flagProblems) app.AdviseRequest {
	return app.AdviseRequest{RecommendRequest: o.recommendFlags.request(p), Levers: o.levers, EngineerUSDPerHour: o.rate, Autoscale: o.as.overrides(), Region: o.region, By: o.by}
}

func newAdviseCmd(e *env) *cobra.Command {
	o := &adviseOptions{}
	cmd := &cobra.Command{
		Use:   "advise [--from FILE | --prometheus URL | --demo | --context CTX]",
		Short: "The savings ledger: what to do first, and what each action is worth on top of the ones before it",
		Long: "advise applies the levers in order to one modelled cluster — right-size CPU/memory requests,\n" +
			"GPU shapes (MIG, time-slicing, cheaper models), consolidation — and lists the actions that get\n" +
			"there, each with the $/month it adds on top of the ones before it, effort, payback, confidence,\n" +
			"risk, prerequisites, evidence and the `gpuwise generate` command that carries it out; ranked by\n" +
			"saving per engineer-hour and phased over 30/60/90 days, with FinOps metrics and red flags. The\n" +
			"actions add up to before − after to the cent. Nothing is applied. Reference: docs/savings.md.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAdvise(cmd.Context(), o, e) },
	}
	o.recommendFlags.register(cmd.Flags())
	o.output.register(cmd.Flags(), render.Formats)
	cmd.Flags().StringSliceVar(&o.levers, "levers", nil, "levers to apply (default all but region, which --region-data-gb turns on; always in this order): "+strings.Join(app.LeverNames(), ", "))
	cmd.Flags().Float64Var(&o.rate, "engineer-rate", app.DefaultEngineerUSDPerHour, "engineering cost in $ per hour, for payback")
	o.as.register(cmd.Flags())
	cmd.Flags().StringVar(&o.by, "by", "", "cluster: each cluster's own ledger and their sum (what advise gives several clusters' snapshots, --from NAME=FILE repeated)")
	cmd.Flags().StringVar(&o.csvTable, "csv-table", "actions", "the table -o csv writes: actions (one row per action and groundwork item) or unit-costs (cost per 1,000 inferences and per 100,000 tokens per serving workload and model name)")
	cmd.Flags().Float64Var(&o.region.DataGB, "region-data-gb", 0, "data a region move takes, in GB (datasets, checkpoints, weights); given, the region lever applies (default 0: unknown, the lever is off)")
	cmd.Flags().Float64Var(&o.region.MaxPaybackMonths, "region-max-payback", app.DefaultRegionMaxPaybackMonths, "longest payback in months of a region move's data transfer that the region lever counts")
	return cmd
}

func runAdvise(ctx context.Context, o *adviseOptions, e *env) error {
	var p flagProblems
	req := o.request(&p)
	format := o.output.parse(&p)
	switch o.csvTable {
	case "actions":
	case "unit-costs":
		if format != render.CSV {
			p.addf("csv-table: --csv-table unit-costs picks the CSV table; with -o %s the unit costs are already in the output: drop the flag or use -o csv", format)
		}
	default:
		p.addf("csv-table: %q is not a table: use actions or unit-costs", o.csvTable)
	}
	if err := p.check(req.Validate); err != nil {
		return err
	}
	res, err := e.app.Advise(ctx, req)
	if err != nil {
		return err
	}
	if o.csvTable == "unit-costs" {
		cl := []render.ClusterLedger{{Ledger: res.Ledger}}
		if len(res.Clusters) > 0 {
			cl = cl[:0]
			for _, c := range res.Clusters {
				cl = append(cl, render.ClusterLedger{Cluster: c.Cluster, Ledger: c.Ledger})
			}
		}
		if err := render.UnitCostsCSV(e.Out, cl); err != nil {
			return err
		}
		return partial(res.Partial)
	}
	if len(res.Clusters) > 0 { // several clusters (or --by cluster), each its own ledger
		cl := make([]render.ClusterLedger, len(res.Clusters))
		for i, c := range res.Clusters {
			cl[i] = render.ClusterLedger{Cluster: c.Cluster, Ledger: c.Ledger}
		}
		if err := render.ClusterLedgers(e.Out, cl, format, e.renderOptions()); err != nil {
			return err
		}
		return partial(res.Partial)
	}
	if err := render.Ledger(e.Out, res.Ledger, format, e.renderOptions()); err != nil {
		return err
	}
	return partial(res.Partial)
}
