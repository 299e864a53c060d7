package collector

import (
	"context"
	"fmt"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/exporter"
	"github.com/gpuwise/gpuwise/internal/history"
	"github.com/gpuwise/gpuwise/internal/rolling"
	"github.com/gpuwise/gpuwise/internal/tally"
)

// record computes the cost of one interval (the inventory with the
// interval's usage, through the same allocation as every report) per
// workload, namespace, node and GPU model, and adds it to the history and
// the counters. It returns 1 when the history took the interval, 0 when it
// had it already.
func (s *Collector) record(ctx context.Context, inv *cluster.Snapshot, span *rolling.Span, partial string) (int, error) {
	prep, err := app.Prepare(rolling.Attach(inv, span.Window, span))
	if err != nil {
		return 0, err
	}
	counts := inference(prep.Hourly()) // read before the report releases the series
	req := app.DefaultBreakdownRequest()
	req.Source, req.Prices = app.Source{Snapshot: &app.InMemory{Prepared: prep}}, s.prices.Load()
	req.Units = true
	for _, l := range s.opts.HistoryLabels {
		req.By = append(req.By, app.LabelKind(l))
	}
	bd, err := s.app.Breakdown(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("costing %s: %w", span.Window, err)
	}
	secs := span.Window.End.Sub(span.Window.Start).Seconds()
	oom := map[string]map[string]int{}
	for _, by := range req.By {
		if _, ok := app.HistoryKinds[by]; ok {
			oom[by] = app.OOMKills(prep, by) // nil where not counted (node, gpu-model)
		}
	}
	c := history.Cycle{Cluster: s.opts.Cluster, Start: span.Window.Start, End: span.Window.End, Partial: partial,
		Fleet: fleet(inv, span.Window), Units: bd.Units, Inference: counts}
	for _, by := range req.By {
		kind, ok := app.HistoryKinds[by]
		if !ok {
			kind = by // a label: its kind is label:KEY, as --by writes it
		}
		c.Entries = append(c.Entries, history.Entries(kind, bd.Reports[by], secs, oom[by])...)
	}
	ok, err := s.store.Record(ctx, c)
	if err != nil || !ok {
		s.onRecordErr(err) // the service notes a damaged history
		return 0, err
	}
	t := s.totals.Clone()
	t.AddWorkloads(values(bd.Reports["workload"], secs, oom["workload"]))
	t.AddModels(exporter.ModelValues(bd.Reports["gpu-model"], secs))
	s.totals = t
	return 1, nil
}

func values(r *cost.Report, secs float64, oom map[string]int) map[string]tally.Values {
	out := make(map[string]tally.Values, len(r.Rows))
	for _, row := range r.Rows {
		out[row.Key] = cost.RowValues(row, secs, oom[row.Key])
	}
	return out
}

// inference are the cycle's request and generated-token counts per
// serving workload (a workload without a request series counts nothing:
// it is not in the list) and per model name within it, from the cycle's
// hourly series; a server that counts no tokens has nil Tokens.
func inference(h *cluster.Hourly) []history.Inference {
	if h == nil {
		return nil
	}
	tokens := func(s cluster.Series) *float64 {
		if s == nil {
			return nil
		}
		v := s.Sum()
		return &v
	}
	var out []history.Inference
	for i := range h.Workloads {
		w := &h.Workloads[i]
		if w.Requests == nil {
			continue
		}
		out = append(out, history.Inference{Workload: w.Workload, Server: w.Server, Requests: w.Requests.Sum(), Tokens: tokens(w.GenerationTokens)})
		for _, m := range w.Models {
			if m.Requests == nil || m.Model == "" { // "" is the workload's own row
				continue
			}
			out = append(out, history.Inference{Workload: w.Workload, Model: m.Model, Server: w.Server, Requests: m.Requests.Sum(), Tokens: tokens(m.GenerationTokens)})
		}
	}
	return out
}

// fleet is the GPUs by model and sharing mode at w's end, the counts
// gpuwise_window_end_gpus exports; nil (not read) when the inventory
// has no nodes.
func fleet(inv *cluster.Snapshot, w cluster.Window) []history.FleetGPUs {
	if len(inv.Nodes) == 0 {
		return nil
	}
	f := exporter.NewFleet(inv.Nodes, w)
	out := make([]history.FleetGPUs, 0, len(f.GPUs))
	for k, n := range f.GPUs {
		out = append(out, history.FleetGPUs{Model: k.Model, Sharing: string(k.Sharing), GPUs: int64(n)})
	}
	return out
}
