package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

type diffOptions struct {
	output    outputFlag
	by        string
	idleShare string
	prices    string
	bills     []string
}

func newDiffCmd(e *env) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff BEFORE AFTER",
		Short: "Compare two snapshots or reports key by key: utilization, idle $, OOM kills",
		Long: "diff compares two snapshot files (gpuwise collect, demo --save) or two report JSON files\n" +
			"(report -o json) — before and after a change — per workload (or --by): GPU utilization in\n" +
			"points, allocated GPU-hours, idle and total dollars and, for snapshots, OOM kills. Keys present\n" +
			"on one side only are shown as appearing or going away; figures a side does not know are n/a.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				// cobra.ExactArgs's error exited 1, "a bug" (issue 31).
				return usageErrorf("%s takes two files, BEFORE and AFTER, got %d (see %s --help)", cmd.CommandPath(), len(args), cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runDiff(cmd.Context(), o, e, args) },
	}
	def := app.DefaultDiffRequest()
	fs := cmd.Flags()
	o.output.register(fs, render.Formats)
	fs.StringVar(&o.by, "by", def.By, "group snapshots' rows by namespace, workload, pod, node, gpu-model, capacity-type, cluster or label:KEY")
	fs.StringVar(&o.idleShare, "idle-share", string(def.Cost.IdleShare), "where unallocated cost goes: none, node, cluster")
	fs.StringVar(&o.prices, "prices", "", "price override file (YAML or CSV), for snapshots")
	registerBill(fs, &o.bills)
	return cmd
}

func runDiff(ctx context.Context, o *diffOptions, e *env, args []string) error {
	var p flagProblems
	req := app.DefaultDiffRequest()
	req.Before, req.After, req.By, req.Prices = args[0], args[1], o.by, app.MustLoadPrices(o.prices, o.bills)
	req.Cost.IdleShare = app.IdleShare(o.idleShare)
	format := o.output.parse(&p)
	if err := p.check(req.Validate); err != nil {
		return err
	}
	d, err := e.app.Diff(ctx, req)
	if err != nil {
		return err
	}
	return render.Diff(e.Out, d, format, e.renderOptions())
}
