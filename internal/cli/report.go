package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

type reportOptions struct {
	reportFlags
	sourceFlags
	compare compareFlags
	// csvTable picks the table -o csv writes: the cost rows or the bill
	// reconciliation (with --bill).
	csvTable string
}

func newReportCmd(e *env) *cobra.Command {
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
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReport(cmd.Context(), o, e) },
	}
	o.reportFlags.register(cmd.Flags())
	o.sourceFlags.register(cmd.Flags())
	o.compare.register(cmd.Flags())
	cmd.Flags().StringVar(&o.csvTable, "csv-table", "rows", "the table -o csv writes: rows (the cost rows), reconciliation (the bill against the node cost, with --bill) or kueue (the Kueue queues, where the cluster runs Kueue)")
	return cmd
}

func runReport(ctx context.Context, o *reportOptions, e *env) error {
	if o.compare.period != "" {
		return runCompare(ctx, o, e)
	}
	var p flagProblems
	req := app.ReportRequest{Data: o.sourceFlags.data(&p)}
	var format render.Format
	req.Cost, req.Report, format = o.reportFlags.options(&p)
	switch o.csvTable {
	case "rows":
	case "reconciliation":
		if format != render.CSV {
			p.addf("csv-table: --csv-table reconciliation picks the CSV table; with -o %s the reconciliation is already in the output: drop the flag or use -o csv", format)
		}
		if len(o.sourceFlags.bills) == 0 {
			p.addf("csv-table: the reconciliation needs a bill: give --bill FILE")
		}
	case "kueue":
		if format != render.CSV {
			p.addf("csv-table: --csv-table kueue picks the CSV table; with -o %s the Kueue queues are already in the output: drop the flag or use -o csv", format)
		}
	default:
		p.addf("csv-table: %q is not a table: use rows, reconciliation or kueue", o.csvTable)
	}
	if err := p.check(req.Validate); err != nil {
		return err
	}
	res, err := e.app.Report(ctx, req)
	if err != nil {
		return err
	}
	if o.csvTable == "reconciliation" {
		if err := render.ReconciliationCSV(e.Streams.Out, res.Reconciliation); err != nil {
			return err
		}
		return partial(res.Partial)
	}
	if o.csvTable == "kueue" {
		if err := render.KueueCSV(e.Streams.Out, res.Kueue); err != nil {
			return &app.Error{Kind: app.Input, Err: err}
		}
		return partial(res.Partial)
	}
	if err := writeReport(e.Streams, res, format); err != nil {
		return err
	}
	return partial(res.Partial)
}

// writeReport renders the report with its savings lines (none, rather
// than $0, when the ledger could not be built: stderr says why).
func writeReport(s Streams, res *app.ReportResult, f render.Format) error {
	if res.LedgerErr != nil {
		fmt.Fprintf(s.Err, "%s: note: the report has no savings lines: %v (the cost report itself is complete; `%s advise` shows the ledger's error)\n", s.name(), res.LedgerErr, s.name())
	}
	o := s.renderOptions().WithAnalyses(res.Ledger, res.IdleCauses)
	o.Reconciliation, o.Kueue = res.Reconciliation, res.Kueue
	if o.Savings != nil {
		o.Savings.Command = s.name() + " advise" // "kubectl gpuwise advise" for the plugin
	}
	return render.Report(s.Out, res.Report, f, o)
}
