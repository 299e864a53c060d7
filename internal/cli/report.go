package cli

import (
	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/snapshot"
)

type reportOptions struct {
	reportFlags
	from string
}

func newReportCmd(s Streams) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report --from FILE",
		Short: "Report allocated vs active GPU-hours and their cost per namespace, workload or label",
		Long: "report prices every GPU node for the window and splits the cost per pod into active,\n" +
			"allocated-but-idle, unmeasured and unallocated GPU dollars plus CPU and memory, then groups\n" +
			"rows with --by. Totals reconcile to the node bill to the cent.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runReport(o, s) },
	}
	o.register(cmd.Flags())
	cmd.Flags().StringVar(&o.from, "from", "", "snapshot file written by `gpuwise collect` or `gpuwise demo --save`")
	return cmd
}

func runReport(o *reportOptions, s Streams) error {
	if o.from == "" {
		return usageErrorf("report needs a source: pass --from FILE (a snapshot from `gpuwise collect` or `gpuwise demo --save`)")
	}
	opts, format, err := o.costOptions()
	if err != nil {
		return err
	}
	snap, err := snapshot.ReadFile(o.from)
	if err != nil {
		return inputError(err)
	}
	if o.window != "" {
		d, err := parseWindow(o.window)
		if err != nil {
			return err
		}
		if have := snap.Window.End.Sub(snap.Window.Start); d != have {
			return usageErrorf("window: %s holds usage summaries for %s; a different --window (%s) needs a new collect", o.from, have, d)
		}
	}
	r, err := buildReport(snap, opts)
	if err != nil {
		return err
	}
	return writeReport(s.Out, r, format, s)
}
