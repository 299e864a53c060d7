package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

type reportOptions struct {
	reportFlags
	promFlags
	kube kubeFlags
	from string
}

func newReportCmd(s Streams) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report [--from FILE | --prometheus URL | --context CTX]",
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
	o.promFlags.register(cmd.Flags())
	o.kube.register(cmd.Flags())
	cmd.Flags().StringVar(&o.from, "from", "", "snapshot file written by `gpuwise collect` or `gpuwise demo --save`")
	return cmd
}

func runReport(ctx context.Context, o *reportOptions, s Streams) error {
	if o.from != "" && o.url != "" {
		return usageErrorf("report reads one source: pass --from FILE or --prometheus URL, not both")
	}
	opts, format, err := o.costOptions()
	if err != nil {
		return err
	}
	snap, partial, err := o.load(ctx)
	if err != nil {
		return err
	}
	r, err := buildReport(snap, opts)
	if err != nil {
		return err
	}
	if err := writeReport(s.Out, r, format, s); err != nil {
		return err
	}
	return partial
}

// load reads the snapshot from its source; partial is an ExitPartial error
// to return once the report is written.
func (o *reportOptions) load(ctx context.Context) (snap *cluster.Snapshot, partial, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.url != "" {
		length := 7 * 24 * time.Hour
		if o.window != "" {
			if length, err = parseWindow(o.window); err != nil {
				return nil, nil, err
			}
		}
		snap, err = o.fromPrometheus(ctx, length)
		if snap != nil {
			return snap, err, nil
		}
		return nil, nil, err
	}
	if o.from == "" {
		return o.fromCluster(ctx)
	}
	snap, err = snapshot.ReadFile(o.from)
	if err != nil {
		return nil, nil, inputError(err)
	}
	if o.window != "" {
		d, err := parseWindow(o.window)
		if err != nil {
			return nil, nil, err
		}
		if have := snap.Window.End.Sub(snap.Window.Start); d != have {
			return nil, nil, usageErrorf("window: %s holds usage summaries for %s; a different --window (%s) needs a new collect", o.from, have, d)
		}
	}
	return snap, nil, nil
}

// fromCluster reads the live cluster's inventory for a window ending now
// (default 24h); usage is unmeasured without a Prometheus source.
func (o *reportOptions) fromCluster(ctx context.Context) (*cluster.Snapshot, error, error) {
	length := 24 * time.Hour
	if o.window != "" {
		var err error
		if length, err = parseWindow(o.window); err != nil {
			return nil, nil, err
		}
	}
	snap, err := liveSnapshot(ctx, &o.kube, time.Now().UTC(), length)
	return snap, nil, err
}
