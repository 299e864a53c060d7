package cli

import (
	"fmt"
	"io"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/render"
)

// buildReport checks the snapshot and runs the cost engine on it.
func buildReport(s *cluster.Snapshot, opts cost.Options) (*cost.Report, error) {
	if _, err := cluster.Prepare(s); err != nil {
		return nil, inputError(fmt.Errorf("snapshot is inconsistent: %w", err))
	}
	a, err := cost.Allocate(s, opts)
	if err != nil {
		return nil, fmt.Errorf("allocating cost: %w", err)
	}
	r, err := cost.NewReport(a, opts)
	if err != nil {
		return nil, fmt.Errorf("building report: %w", err)
	}
	return r, nil
}

// writeReport renders the report with the recommendations summary of
// the same snapshot (see recommendationSummary).
func writeReport(w io.Writer, r *cost.Report, snap *cluster.Snapshot, prices cost.Pricer, f render.Format, s Streams) error {
	o := render.Options{Color: s.OutIsTTY, Recommendations: recommendationSummary(snap, prices)}
	if err := render.Report(w, r, f, o); err != nil {
		return fmt.Errorf("writing %s report: %w", f, err)
	}
	return nil
}
