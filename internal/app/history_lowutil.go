package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/history"
)

// HistoryLowUtilRequest asks for the low-utilization list over the hours
// [From, To) of the history store (serve's): the units below LowUtil's
// threshold for at least its hours in that range. The store keeps units
// per hour, so From is taken back and To on to whole hours (the answer
// says the range read).
type HistoryLowUtilRequest struct {
	// Cluster is the cluster whose rows to read (AllClusters or "": all;
	// with several, units and nodes are named "cluster/…").
	Cluster string
	From    time.Time
	To      time.Time
	// LowUtil is the threshold and least time (ParseLowUtil); zero: the
	// default 30 % for 6 hours.
	LowUtil cost.LowUtilOptions
}

// Validate lists every problem with the request, each naming its
// parameter.
func (r HistoryLowUtilRequest) Validate() error {
	var errs []error
	if err := r.options().Validate(); err != nil {
		errs = append(errs, err)
	}
	switch {
	case !r.To.After(r.From):
		errs = append(errs, fmt.Errorf("to: %s is not after from %s", r.To.Format(time.RFC3339), r.From.Format(time.RFC3339)))
	case r.To.Sub(r.From) > maxHourlyRange:
		errs = append(errs, fmt.Errorf("from..to: %s is longer than the %s of hourly rows one answer reads", r.To.Sub(r.From), maxHourlyRange))
	}
	return errors.Join(errs...)
}

func (r HistoryLowUtilRequest) options() cost.LowUtilOptions {
	if !r.LowUtil.On() {
		return cost.LowUtilOptions{Threshold: cost.DefaultLowUtilThreshold, MinHours: cost.DefaultLowUtilHours}
	}
	return r.LowUtil
}

// HistoryLowUtil is the low-utilization list over a range of the history,
// with the store's coverage of the range.
type HistoryLowUtil struct {
	Cluster string `json:"cluster"`
	// From and To are the whole hours read.
	From           time.Time        `json:"from"`
	To             time.Time        `json:"to"`
	Coverage       history.Coverage `json:"coverage"`
	LowUtilization *cost.LowUtil    `json:"low_utilization"`
	// Page says what a page of the list holds (PagedHistoryLowUtil);
	// absent on the whole list.
	Page  *cost.LowUtilPage `json:"page,omitempty"`
	Notes []string          `json:"notes"`
}

// LowUtil reads the units' hourly rows of the range one at a time and
// builds the list from them as a report builds it from a snapshot
// (cost.LowUtilFrom, a row at a time): the history of a week gives the list
// the snapshot of that week gives. It holds a sum per unit, not the
// range's unit-hours (1.7 million over a week at 10,000 GPUs).
func (h *History) LowUtil(ctx context.Context, req HistoryLowUtilRequest) (*HistoryLowUtil, error) {
	if err := req.Validate(); err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	req.From = req.From.Truncate(time.Hour)
	if t := req.To.Truncate(time.Hour); !t.Equal(req.To) {
		req.To = t.Add(time.Hour)
	}
	cl := storeCluster(req.Cluster)
	clusters := []string{cl}
	if cl == "" {
		var err error
		if clusters, err = h.st.UnitClusters(ctx, req.From, req.To); err != nil {
			return nil, err
		}
	}
	list := cost.NewLowUtilBuilder(req.options())
	var rows int
	err := h.st.EachUnit(ctx, cl, req.From, req.To, func(r *history.UnitRow) error {
		rows++
		if len(clusters) > 1 { // several clusters' units apart, named as a merged snapshot names them
			r.Unit, r.Node = r.Cluster+"/"+r.Unit, r.Cluster+"/"+r.Node
		}
		list.Add(&r.UnitHours)
		return nil
	})
	if err != nil {
		return nil, err
	}
	cov, err := h.st.Coverage(ctx, cl, req.From, req.To)
	if err != nil {
		return nil, err
	}
	out := &HistoryLowUtil{Cluster: req.Cluster, From: req.From, To: req.To, Coverage: cov,
		LowUtilization: list.List(), Notes: []string{}}
	if want := req.To.Sub(req.From).Seconds(); cov.Seconds < want*0.999 {
		out.Notes = append(out.Notes, fmt.Sprintf("the history covers %.0f%% of the range: hours it did not record count for nothing, neither below the threshold nor unheld", 100*cov.Seconds/want))
	}
	if cov.Cycles > 0 && rows == 0 {
		out.Notes = append(out.Notes, "the history holds cycles in the range but no GPU unit rows: they were recorded by a gpuwise before the units were kept (schema 3); the list starts with the next cycles")
	}
	return out, nil
}
