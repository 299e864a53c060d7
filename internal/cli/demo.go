package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

type demoOptions struct {
	reportFlags
	dataFlags
	demo       app.DemoSource
	save       string
	saveBill   string
	billFormat string
}

func newDemoCmd(e *env) *cobra.Command {
	o := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the full report on the embedded simulated cluster (no cluster needed)",
		Long: "demo generates a deterministic simulated GPU cluster (training, inference, idle notebooks,\n" +
			"MIG and time-sliced nodes, spot and on-demand capacity on AWS and Azure) with a week of usage,\n" +
			"and prints the same report `gpuwise report` gives for a real cluster.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDemo(cmd.Context(), o, e) },
	}
	def := app.DefaultDemo()
	o.reportFlags.register(cmd.Flags())
	o.dataFlags.register(cmd.Flags())
	cmd.Flags().Uint64Var(&o.demo.Seed, "seed", def.Seed, "simulation seed")
	cmd.Flags().IntVar(&o.demo.Scale, "scale", def.Scale, "cluster size multiplier")
	cmd.Flags().StringVar(&o.save, "save", "", "also write the simulated snapshot to this file (a gpuwise snapshot, for --from)")
	cmd.Flags().StringVar(&o.saveBill, "save-bill", "", "also write the simulated nodes' billing export to this `FILE` (for report --from SNAP --bill FILE)")
	cmd.Flags().StringVar(&o.billFormat, "bill-format", "focus", "--save-bill's schema: focus (FOCUS 1.2 columns, AWS and Azure) or cur2 (AWS CUR 2.0, AWS rows only)")
	return cmd
}

func runDemo(ctx context.Context, o *demoOptions, e *env) error {
	var p flagProblems
	demo := o.demo
	req := app.ReportRequest{Data: o.dataFlags.data(&p, app.Source{Demo: &demo}), SaveSnapshot: o.save,
		SaveBill: o.saveBill, BillFormat: o.billFormat}
	var format render.Format
	req.Cost, req.Report, format = o.reportFlags.options(&p)
	if err := p.check(req.Validate); err != nil {
		return err
	}
	res, err := e.app.Report(ctx, req)
	if err != nil {
		return err
	}
	return writeReport(e.Streams, res, format)
}
