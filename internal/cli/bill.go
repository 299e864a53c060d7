package cli

import (
	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/render"
)

func newBillCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bill",
		Short: "Check cloud billing exports (FOCUS, AWS CUR 2.0) before reconciling with --bill",
		Args:  noArgs,
	}
	cmd.AddCommand(newBillInspectCmd(e))
	return cmd
}

func newBillInspectCmd(e *env) *cobra.Command {
	var output outputFlag
	cmd := &cobra.Command{
		Use:   "inspect FILE...",
		Short: "Print what billing exports hold: rows, providers, periods, cost sums, GPU instances",
		Long: "inspect reads FOCUS 1.0-1.2 (CSV, gzip CSV, Parquet) and AWS CUR 2.0 (gzip CSV, Parquet)\n" +
			"exports and prints their rows, providers and billing periods, the sums of BilledCost,\n" +
			"EffectiveCost and ListCost per provider and service, and the GPU instances billed, so that\n" +
			"an export can be checked before `gpuwise report --bill FILE` reconciles it. See docs/billing.md.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var p flagProblems
			format := output.parse(&p)
			if err := p.check(func() error { return nil }); err != nil {
				return err
			}
			in, err := e.app.InspectBill(args)
			if err != nil {
				return err
			}
			return render.BillInspection(e.Out, in, format, e.renderOptions())
		},
	}
	output.register(cmd.Flags(), []render.Format{render.Table, render.JSON, render.YAML, render.CSV})
	return cmd
}
