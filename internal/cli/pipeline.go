package cli

import (
	"fmt"
	"io"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
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

// buildReport runs the cost engine on a prepared snapshot.
func buildReport(s *cluster.Prepared, opts cost.Options, ropts cost.ReportOptions) (*cost.Report, error) {
	a, err := cost.Allocate(s, opts)
	if err != nil {
		return nil, fmt.Errorf("allocating cost: %w", err)
	}
	r, err := cost.NewReport(a, ropts)
	if err != nil {
		return nil, fmt.Errorf("building report: %w", err)
	}
	return r, nil
}

// writeReport renders the report with the recommendations summary of
// the same snapshot (see recommendationSummary).
func writeReport(w io.Writer, r *cost.Report, snap *cluster.Prepared, prices pricing.Pricer, f render.Format, s Streams) error {
	o := render.Options{Color: s.OutIsTTY, Savings: savingsSummary(snap, prices)}
	if err := render.Report(w, r, f, o); err != nil {
		return fmt.Errorf("writing %s report: %w", f, err)
	}
	return nil
}
