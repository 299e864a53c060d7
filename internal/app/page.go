package app

import (
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// Paging of answers with per-row lists (the service's offset, limit and
// namespace; docs/serve.md "Paging"): the engines' own requests, so that
// the service pages what the engines validate.
type (
	// ReportPage asks for a page of a report's rows and low-utilization
	// units (cost.Report.Paged).
	ReportPage = cost.PageRequest
	// RecommendPage asks for a page of the recommendations' lists
	// (rightsize.Result.Paged).
	RecommendPage = rightsize.PageRequest
)

// Limits on a page, the same on every answer that pages.
const (
	DefaultPageLimit = cost.DefaultPageLimit
	MaxPageLimit     = cost.MaxPageLimit
)

// PagedReport is the page p of the report r (r unchanged); a bad request
// is a usage error naming the parameter.
func PagedReport(r *cost.Report, p ReportPage) (*cost.Report, error) {
	out, err := r.Paged(p)
	if err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	return out, nil
}

// PagedRecommendations is the page p of the recommendations r.
func PagedRecommendations(r *rightsize.Result, p RecommendPage) (*rightsize.Result, error) {
	out, err := r.Paged(p, MaxPageLimit)
	if err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	return out, nil
}

// PagedHistoryLowUtil is the page p of the history's low-utilization list
// h (h unchanged): its units from p's offset, those a workload of p's
// namespace held when it names one; the range, coverage and the list's
// dollars stay the whole list's. A bad request is a usage error naming
// the parameter.
func PagedHistoryLowUtil(h *HistoryLowUtil, p ReportPage) (*HistoryLowUtil, error) {
	l, page, err := h.LowUtilization.Paged(p)
	if err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	out := *h
	out.LowUtilization, out.Page = l, page
	return &out, nil
}
