package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/compare"
	"github.com/gpuwise/gpuwise/internal/history"
	"github.com/gpuwise/gpuwise/internal/tally"
)

// LabelKind is the history kind of a label the service records
// (serve --history-labels): "label:team" keys rows by the label's value,
// as report --by label:team groups them.
func LabelKind(label string) string { return "label:" + label }

// ShowbackRequest asks for the showback table of one history kind over
// [From, To) of the history, against the comparison period Compare (nil:
// no trend).
type ShowbackRequest struct {
	// Cluster is the cluster whose rows to read (AllClusters or "": all).
	Cluster string
	// Kind is a history kind: namespace, workload, node, gpu_model or a
	// recorded label (LabelKind).
	Kind     string
	From, To time.Time
	Compare  *cluster.Window
	// IdleShare is where the unallocated cost goes: none or cluster.
	IdleShare string
}

// Validate lists every problem with the request, each naming its
// parameter.
func (r ShowbackRequest) Validate() error {
	var errs []error
	if !strings.HasPrefix(r.Kind, "label:") {
		if err := CheckHistoryKind(r.Kind); err != nil {
			errs = append(errs, fmt.Errorf("by: %q is not namespace, workload, node, gpu-model or a label the history keeps (label:KEY)", r.Kind))
		}
	} else if len(r.Kind) == len("label:") {
		errs = append(errs, errors.New("by: label: names no label (label:team)"))
	}
	switch r.IdleShare {
	case compare.ShareNone, compare.ShareCluster:
	case "node":
		errs = append(errs, errors.New("idle-share: node needs each group's split by node, which the history does not keep: use none or cluster (report?idle-share=node answers on the service's window)"))
	default:
		errs = append(errs, fmt.Errorf("idle-share: %q is not none or cluster", r.IdleShare))
	}
	errs = append(errs, checkRange("from..to", r.From, r.To))
	if r.Compare != nil {
		errs = append(errs, checkRange("compare", r.Compare.Start, r.Compare.End))
	}
	return errors.Join(errs...)
}

func checkRange(name string, from, to time.Time) error {
	switch {
	case !to.After(from):
		return fmt.Errorf("%s: %s is not after %s", name, to.UTC().Format(time.RFC3339), from.UTC().Format(time.RFC3339))
	case to.Sub(from) > maxHourlyRange:
		return fmt.Errorf("%s: %s is longer than the %s of hourly rows one answer reads", name, FormatWindow(to.Sub(from)), FormatWindow(maxHourlyRange))
	}
	return nil
}

// Showback sums the kind's hourly rows over the range (and the comparison
// period) and builds the table (compare.NewShowback): for a range equal to
// the service's window it is the window's report grouped the same way,
// to the cent. A label the history holds no rows for is a usage error
// naming the labels it keeps.
func (h *History) Showback(ctx context.Context, req ShowbackRequest) (*compare.Showback, error) {
	if err := req.Validate(); err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	cl := storeCluster(req.Cluster)
	if strings.HasPrefix(req.Kind, "label:") {
		kinds, err := h.st.Kinds(ctx)
		if err != nil {
			return nil, err
		}
		found := false
		var labels []string
		for _, k := range kinds {
			found = found || k == req.Kind
			if strings.HasPrefix(k, "label:") {
				labels = append(labels, k)
			}
		}
		if !found {
			return nil, &Error{Kind: Usage, Err: fmt.Errorf("by: the history keeps no rows by %s (it keeps %s): start serve with --history-labels naming it; rows are recorded from then on",
				req.Kind, orNone(labels))}
		}
	}
	side := func(w cluster.Window) (compare.ShowbackSide, error) {
		q := history.Query{Cluster: cl, Kind: req.Kind, From: w.Start, To: w.End, Granularity: history.Hourly}
		tot, err := h.st.Totals(ctx, q)
		if err != nil {
			return compare.ShowbackSide{}, err
		}
		cov, err := h.st.Coverage(ctx, cl, w.Start, w.End)
		if err != nil {
			return compare.ShowbackSide{}, err
		}
		return compare.ShowbackSide{Window: w, Keys: tot, Covered: cov.Seconds >= w.Seconds()*0.999}, nil
	}
	cur, err := side(cluster.Window{Start: req.From, End: req.To})
	if err != nil {
		return nil, err
	}
	var prev *compare.ShowbackSide
	if req.Compare != nil {
		p, err := side(*req.Compare)
		if err != nil {
			return nil, err
		}
		prev = &p
	}
	by := req.Kind
	if by == tally.GPUModel {
		by = "gpu-model"
	}
	s, err := compare.NewShowback(by, req.IdleShare, cur, prev)
	if err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	return s, nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "no label"
	}
	return strings.Join(s, ", ")
}
