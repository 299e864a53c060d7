package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// ParseReportJSON reads a report as `-o json` writes it (gpuwise diff
// compares such files), strictly: one
// JSON object, no unknown field, a grouping, a window that ends after it
// starts, unique non-empty keys and finite, non-negative figures, active
// GPU-hours within allocated ones, utilizations within [0, 1] and
// allocation mechanisms that cluster.Mechanisms names, each once. The
// objects written beside the report (savings, idle_causes,
// reconciliation, kueue) are accepted and not read.
func ParseReportJSON(b []byte) (*Report, error) {
	var doc struct {
		Report
		// Written beside the report by the JSON renderer (render's
		// reportValue); diff reads none of them.
		Savings        json.RawMessage `json:"savings"`
		IdleCauses     json.RawMessage `json:"idle_causes"`
		Reconciliation json.RawMessage `json:"reconciliation"`
		Kueue          json.RawMessage `json:"kueue"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the report's JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the report's JSON object")
	}
	r := &doc.Report
	var probs []error
	bad := func(format string, args ...any) { probs = append(probs, fmt.Errorf(format, args...)) }
	if err := (ReportOptions{By: r.By}).Validate(); err != nil {
		bad("by: %v", err)
	}
	if r.Window.Start.IsZero() || !r.Window.End.After(r.Window.Start) {
		bad("window: %s..%s does not end after it starts", r.Window.Start.Format(time.RFC3339), r.Window.End.Format(time.RFC3339))
	}
	seen := make(map[string]bool, len(r.Rows))
	for i, row := range r.Rows {
		what := fmt.Sprintf("rows[%d] (%q)", i, row.Key)
		switch {
		case row.Key == "":
			bad("rows[%d]: empty key", i)
		case seen[row.Key]:
			bad("%s: listed twice", what)
		}
		seen[row.Key] = true
		h := row.GPUHours
		for name, v := range map[string]float64{"gpu_hours.allocated": h.Allocated, "gpu_hours.active": h.Active, "gpu_hours.idle": h.Idle,
			"gpu_hours.unmeasured": h.Unmeasured, "total_cost_usd": row.TotalCost, "unpriced_gpu_hours": row.UnpricedGPUHours} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				bad("%s: %s is %v, not a non-negative amount", what, name, v)
			}
		}
		if row.Pods < 0 {
			bad("%s: pods is %d", what, row.Pods)
		}
		if err := checkMechanisms(row.Mechanisms); err != nil {
			bad("%s: mechanisms: %v", what, err)
		}
		if h.Active > h.Allocated*(1+1e-9)+1e-9 {
			bad("%s: %v active GPU-hours exceed the %v allocated", what, h.Active, h.Allocated)
		}
		for name, u := range map[string]*float64{"gpu_utilization": row.GPUUtilization, "sm_utilization": row.SMUtilization} {
			if u != nil && !(*u >= 0 && *u <= 1) {
				bad("%s: %s %v is outside [0, 1]", what, name, *u)
			}
		}
		if len(probs) >= 10 {
			bad("stopped after 10 problems")
			break
		}
	}
	return r, errors.Join(probs...)
}

// checkMechanisms accepts the mechanisms a row lists when each is one of
// cluster.Mechanisms, once, in that order (as the report writes them).
func checkMechanisms(ms []string) error {
	last := -1
	for _, m := range ms {
		i := slices.Index(cluster.Mechanisms, m)
		switch {
		case i < 0:
			return fmt.Errorf("%q is not one of %v", m, cluster.Mechanisms)
		case i <= last:
			return fmt.Errorf("%q listed twice or out of order (%v)", m, cluster.Mechanisms)
		}
		last = i
	}
	return nil
}
