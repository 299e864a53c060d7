package cli

import (
	"context"

	"github.com/spf13/cobra"
)

type reportOptions struct {
	reportFlags
	sourceFlags
}

func newReportCmd(s Streams) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report [--from FILE | --prometheus URL | --demo | --context CTX]",
		Short: "Report allocated vs active GPU-hours and their cost per namespace, workload or label",
		Long: "report prices every GPU node for the window and splits the cost per pod into active,\n" +
			"allocated-but-idle, unmeasured and unallocated GPU dollars plus CPU and memory, then groups\n" +
			"rows with --by. Totals reconcile to the node bill to the cent.\n\n" +
			"With --prometheus the whole snapshot (nodes, GPUs, pods including gone ones, owners, usage)\n" +
			"comes from DCGM-exporter, cAdvisor and kube-state-metrics history; see docs/prometheus.md.\n" +
			"With neither, it reads the live cluster's inventory through your kubeconfig (read-only):\n" +
			"without usage data every GPU-hour is shown as unmeasured, never as idle.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReport(cmd.Context(), o, s) },
	}
	o.reportFlags.register(cmd.Flags())
	o.sourceFlags.register(cmd.Flags())
	return cmd
}

func runReport(ctx context.Context, o *reportOptions, s Streams) error {
	opts, ropts, format, err := o.costOptions()
	if err != nil {
		return err
	}
	snap, partial, err := o.load(ctx, o.window)
	if err != nil {
		return err
	}
	prep, err := prepare(snap)
	if err != nil {
		return err
	}
	r, why, err := buildReport(prep, opts, ropts)
	if err != nil {
		return err
	}
	if err := writeReport(s.Out, r, why, prep, opts.Prices, format, s); err != nil {
		return err
	}
	return partial
}
