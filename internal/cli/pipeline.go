package cli

import (
	"fmt"
	"io"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/idlecause"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/render"
)

// prepare checks the snapshot: the one validation path of every command.
func prepare(s *cluster.Snapshot) (*cluster.Prepared, error) {
	p, err := cluster.Prepare(s)
	if err != nil {
		return nil, inputError(fmt.Errorf("snapshot is inconsistent: %w", err))
	}
	return p, nil
}

// buildReport runs the cost engine on a prepared snapshot and explains
// its idle GPUs (see idleCauses).
func buildReport(s *cluster.Prepared, opts cost.Options, ropts cost.ReportOptions) (*cost.Report, *idlecause.Result, error) {
	a, err := cost.Allocate(s, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("allocating cost: %w", err)
	}
	r, err := cost.NewReport(a, ropts)
	if err != nil {
		return nil, nil, fmt.Errorf("building report: %w", err)
	}
	why, err := idleCauses(s, a, ropts.TopN)
	if err != nil {
		return nil, nil, err
	}
	return r, why, nil
}

// writeReport renders the report with the recommendations summary of
// the same snapshot (see recommendationSummary) and why its GPUs idle.
func writeReport(w io.Writer, r *cost.Report, why *idlecause.Result, snap *cluster.Prepared, prices pricing.Pricer, f render.Format, s Streams) error {
	o := render.Options{Color: s.OutIsTTY, Recommendations: recommendationSummary(snap, prices), IdleCauses: why}
	if err := render.Report(w, r, f, o); err != nil {
		return fmt.Errorf("writing %s report: %w", f, err)
	}
	return nil
}

// idleCauses splits the allocation's idle GPU-hours and dollars by cause
// with the default policy, keeping the top workloads by idle dollars.
func idleCauses(s *cluster.Prepared, a *cost.Allocation, top int) (*idlecause.Result, error) {
	byWorkload := a.IdleByWorkload()
	idle := make([]idlecause.Idle, len(byWorkload))
	for i, w := range byWorkload {
		idle[i] = idlecause.Idle{Workload: w.Workload, GPUHours: w.IdleGPUHours, USD: w.IdleUSD, Priced: w.Priced}
	}
	r, err := idlecause.Explain(s, idle, idlecause.DefaultPolicy())
	if err != nil {
		return nil, fmt.Errorf("explaining idle GPUs: %w", err)
	}
	return r.Top(top), nil
}
