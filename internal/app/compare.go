package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/compare"
	"github.com/gpuwise/gpuwise/internal/cost"
)

// ReportFigures are a report's rows as one side of a comparison; oom, when
// not nil, gives each key's OOM kills (a report does not carry them).
func ReportFigures(r *cost.Report, oom map[string]int) map[string]compare.Figures {
	out := make(map[string]compare.Figures, len(r.Rows))
	for _, row := range r.Rows {
		f := compare.Figures{Pods: row.Pods, GPUAllocatedHours: row.GPUHours.Allocated, GPUActiveHours: row.GPUHours.Active,
			GPUIdleHours: row.GPUHours.Idle, GPUUnmeasuredHours: row.GPUHours.Unmeasured, Utilization: row.GPUUtilization}
		if !row.Unpriced {
			idle, total := row.GPUCost.AllocatedIdle+row.GPUCost.Unallocated, row.TotalCost
			f.IdleUSD, f.TotalUSD = &idle, &total
		}
		if oom != nil {
			n := oom[row.Key]
			f.OOMKills = &n
		}
		out[row.Key] = f
	}
	return out
}

// DiffRequest compares two files: snapshots (each priced and grouped
// like a report) or report JSON files (`-o json` output, grouped as they
// were written).
type DiffRequest struct {
	Before, After string
	// By groups snapshots' rows; a report file must have been grouped the
	// same way.
	By     string
	Cost   cost.Options
	Prices *Prices
}

// DefaultDiffRequest compares by workload with the default allocation.
func DefaultDiffRequest() DiffRequest {
	return DiffRequest{By: "workload", Cost: cost.DefaultOptions()}
}

// Validate lists every problem with the request.
func (r DiffRequest) Validate() error {
	var p problems
	if r.Before == "" || r.After == "" {
		p.add(errors.New("diff needs two files: BEFORE AFTER"))
	}
	p.add(cost.ReportOptions{By: r.By}.Validate())
	p.add(r.Cost.Validate())
	return p.err()
}

// Diff compares two snapshots or reports key by key: utilization,
// GPU-hours, idle and total dollars and (for snapshots, by workload or
// namespace) OOM kills.
func (a *App) Diff(ctx context.Context, req DiffRequest) (*compare.Diff, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	before, err := a.side(ctx, req, req.Before)
	if err != nil {
		return nil, err
	}
	after, err := a.side(ctx, req, req.After)
	if err != nil {
		return nil, err
	}
	return compare.Compare(req.By, before, after), nil
}

// side reads one file as a side: a report JSON, else a snapshot.
func (a *App) side(ctx context.Context, req DiffRequest, path string) (compare.Side, error) {
	if r, ok, err := readReportFile(path); err != nil {
		return compare.Side{}, err
	} else if ok {
		if r.By != req.By {
			return compare.Side{}, usageErrorf("by: %s is a report grouped by %s; pass --by %s or a snapshot", path, r.By, r.By)
		}
		return compare.Side{Label: path, Window: r.Window, Keys: ReportFigures(r, nil)}, nil
	}
	br := DefaultBreakdownRequest()
	br.Source, br.By, br.Cost, br.Prices = Source{File: path}, []string{req.By}, req.Cost, req.Prices
	res, err := a.Breakdown(ctx, br)
	if err != nil {
		return compare.Side{}, err
	}
	return compare.Side{Label: path, Window: res.Snapshot.Window(), Keys: ReportFigures(res.Reports[req.By], OOMKills(res.Snapshot, req.By))}, nil
}

// readReportFile reads path as a report's JSON; ok is false when it is not
// one (a snapshot, or not readable: the snapshot reader says why). A file
// that is a report (a JSON object with "by") but not a sound one is an
// input error naming what is wrong (issue 31: anything was taken).
func readReportFile(path string) (*cost.Report, bool, error) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 || b[0] != '{' {
		return nil, false, nil
	}
	var head map[string]json.RawMessage
	if json.NewDecoder(bytes.NewReader(b)).Decode(&head) != nil || head["by"] == nil || head["kind"] != nil {
		return nil, false, nil // a version 1 snapshot has a kind, a report has by
	}
	r, err := cost.ParseReportJSON(b)
	if err != nil {
		return nil, true, withKind(Input, fmt.Errorf("%s: not a usable report (gpuwise report -o json): %w", path, err))
	}
	return r, true, nil
}

// OOMKills counts the pods' OOM kills per key of by (workload or
// namespace); nil for other groupings, whose OOM kills are not counted.
func OOMKills(s *cluster.Prepared, by string) map[string]int {
	key := map[string]func(p *cluster.Pod) string{
		"workload": (*cluster.Pod).WorkloadKey, "namespace": func(p *cluster.Pod) string { return p.Namespace },
		"pod": (*cluster.Pod).Key}[by]
	if key == nil {
		return nil
	}
	out := map[string]int{}
	for i := range s.Pods() {
		out[key(&s.Pods()[i])] += s.Pods()[i].OOMKills
	}
	return out
}

// CompareRequest compares a window with the same-length window Period
// earlier, read from the source twice (Prometheus, the simulator).
type CompareRequest struct {
	Data
	Period time.Duration
	By     string
	Cost   cost.Options
}

// Validate lists every problem with the request.
func (r CompareRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	if r.Period <= 0 {
		p.add(errors.New("compare: the period must be positive (e.g. 7d)"))
	}
	if r.Source.Prometheus == nil && r.Source.Demo == nil {
		p.add(errors.New("compare: reads two windows from --prometheus or --demo; a snapshot file holds one window (gpuwise diff BEFORE AFTER compares two files; --history reads a serve history)"))
	}
	p.add(cost.ReportOptions{By: r.By}.Validate())
	return p.err()
}

// ComparePeriods reports the window and the window Period before it, and
// compares them key by key.
func (a *App) ComparePeriods(ctx context.Context, req CompareRequest) (*compare.Diff, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	after, err := a.periodSide(ctx, req, 0)
	if err != nil {
		return nil, err
	}
	before, err := a.periodSide(ctx, req, req.Period)
	if err != nil {
		return nil, err
	}
	return compare.Compare(req.By, before, after), nil
}

// periodSide reads the request's window moved back by shift.
func (a *App) periodSide(ctx context.Context, req CompareRequest, shift time.Duration) (compare.Side, error) {
	br := DefaultBreakdownRequest()
	br.Data, br.By, br.Cost = req.Data, []string{req.By}, req.Cost
	switch src := &br.Source; {
	case src.Prometheus != nil:
		p := *src.Prometheus
		if p.End.IsZero() {
			p.End = a.now().UTC().Truncate(p.Step)
		}
		p.End = p.End.Add(-shift)
		src.Prometheus = &p
	case src.Demo != nil:
		d := *src.Demo
		d.Shift = shift
		src.Demo = &d
	}
	res, err := a.Breakdown(ctx, br)
	if err != nil {
		return compare.Side{}, err
	}
	w := res.Snapshot.Window()
	label := fmt.Sprintf("%s..%s", w.Start.UTC().Format(time.RFC3339), w.End.UTC().Format(time.RFC3339))
	return compare.Side{Label: label, Window: w, Keys: ReportFigures(res.Reports[req.By], OOMKills(res.Snapshot, req.By))}, nil
}
