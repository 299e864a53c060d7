package cli

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

// compareFlags turn report into a comparison of two periods.
type compareFlags struct {
	period  string
	history string
	cluster string
}

func (f *compareFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.period, "compare", "", "compare the window with the same-length window PERIOD earlier (e.g. 7d: this week against last), key by key")
	fs.StringVar(&f.history, "history", "", "with --compare: read both periods from a gpuwise serve history file instead of a source")
	fs.StringVar(&f.cluster, "cluster", "", "with --history: the cluster to read (default: every cluster, summed)")
}

// runCompare is report --compare: two windows of the source, or of a serve
// history, compared key by key.
func runCompare(ctx context.Context, o *reportOptions, e *env) error {
	var p flagProblems
	period := parseWindow(&p, o.compare.period)
	format := o.output.parse(&p)
	data := o.sourceFlags.data(&p)
	if o.compare.history != "" {
		if err := p.check(func() error { return nil }); err != nil {
			return err
		}
		return compareHistory(ctx, o, e, period, data.Window, format)
	}
	req := app.CompareRequest{Data: data, Period: period, By: o.by}
	req.Cost, _, _ = o.reportFlags.options(&p)
	if err := p.check(req.Validate); err != nil {
		return err
	}
	d, err := e.app.ComparePeriods(ctx, req)
	if err != nil {
		return err
	}
	return render.Diff(e.Out, d, format, e.renderOptions())
}

// compareHistory compares the window ending at the last recorded cycle
// with the same window period earlier (the window defaults to the period).
func compareHistory(ctx context.Context, o *reportOptions, e *env, period, window time.Duration, format render.Format) error {
	kind, ok := app.HistoryKinds[o.by]
	if !ok {
		return usageErrorf("by: the history holds namespace, workload, node and gpu-model, not %q", o.by)
	}
	h, err := app.OpenExistingHistory(ctx, o.compare.history)
	if err != nil {
		return withCode(ExitInput, err)
	}
	defer h.Close()
	d, err := h.Compare(ctx, app.HistoryCompareRequest{Cluster: o.compare.cluster, Kind: kind, Window: window, Period: period})
	if err != nil {
		return withCode(ExitInput, err)
	}
	return render.Diff(e.Out, d, format, e.renderOptions())
}
