package cli

import (
	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

// reportFlags are the cost report's flags (report and demo).
type reportFlags struct {
	output        outputFlag
	by            string
	idleShare     string
	idleThreshold float64
	top           int
	lowUtil       string
}

func (f *reportFlags) register(fs *pflag.FlagSet) {
	alloc, rep := app.DefaultCostOptions(), app.DefaultReportOptions()
	f.output.register(fs, render.Formats)
	fs.StringVar(&f.by, "by", rep.By, "group rows by namespace, workload, pod, node, gpu-model, capacity-type, mechanism, cluster or label:KEY")
	fs.StringVar(&f.idleShare, "idle-share", string(alloc.IdleShare), "where unallocated cost goes: none (own rows), node, cluster")
	fs.Float64Var(&f.idleThreshold, "idle-threshold", alloc.IdleThreshold, "activity below which a GPU counts as idle: a whole percent in [0, 1], e.g. 0.1")
	fs.IntVar(&f.top, "top", rep.TopN, "how many workloads the idle leaderboard shows")
	fs.StringVar(&f.lowUtil, "low-util", "", "list the GPUs and MIG slices below PERCENT utilization for at least DURATION of the window, with node, model, holders and $, e.g. 30%:6h (default off; 30% alone: 6h)")
}

// options are the engine settings the flags describe, and the format.
func (f *reportFlags) options(p *flagProblems) (app.CostOptions, app.ReportOptions, render.Format) {
	format := f.output.parse(p)
	low, err := app.ParseLowUtil(f.lowUtil)
	p.add(err)
	return app.CostOptions{IdleThreshold: f.idleThreshold, IdleShare: app.IdleShare(f.idleShare)},
		app.ReportOptions{By: f.by, TopN: f.top, LowUtil: low}, format
}
