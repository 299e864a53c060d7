package cost

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Limits on a page of a report's rows (the API's offset and limit,
// docs/serve.md "Paging").
const (
	DefaultPageLimit = 50
	MaxPageLimit     = 500
)

// PageRequest asks for one page of a report's per-row lists: its rows
// (most dollars first) and its low-utilization units (most dollars
// first), optionally only the rows of one namespace.
type PageRequest struct {
	// Namespace keeps the rows of that namespace only: its own row
	// grouped by namespace, its workloads' or pods' rows grouped by
	// workload or pod (never the unallocated row). Empty: every row.
	Namespace string
	Offset    int
	// Limit is the most rows (and units) the page holds, 0..MaxPageLimit;
	// 0 is none: only the counts and the sum.
	Limit int
}

// Validate lists every problem with the request for a report grouped by
// by, each naming its parameter.
func (p PageRequest) Validate(by string) error {
	errs := p.bounds()
	switch {
	case p.Namespace == "":
	case strings.Contains(p.Namespace, "/"):
		errs = append(errs, fmt.Sprintf("namespace: %q is a namespace's name, without /", p.Namespace))
	case by != "namespace" && by != "workload" && by != "pod":
		errs = append(errs, fmt.Sprintf("namespace: filters rows grouped by namespace, workload or pod, not by %s (give by=workload)", by))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// bounds are the problems with the request's offset and limit.
func (p PageRequest) bounds() []string {
	var errs []string
	if p.Offset < 0 {
		errs = append(errs, fmt.Sprintf("offset: %d is negative", p.Offset))
	}
	if p.Limit < 0 || p.Limit > MaxPageLimit {
		errs = append(errs, fmt.Sprintf("limit: %d is not in 0..%d", p.Limit, MaxPageLimit))
	}
	return errs
}

// ValidateUnits lists every problem with the request for a page of a
// low-utilization list (LowUtil.Paged), each naming its parameter.
func (p PageRequest) ValidateUnits() error {
	errs := p.bounds()
	if strings.Contains(p.Namespace, "/") {
		errs = append(errs, fmt.Sprintf("namespace: %q is a namespace's name, without /", p.Namespace))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// Page says what a page of a report holds and what it was taken from:
// how many rows matched in all and their sum (every matched row, not
// only the page's: a page never changes a total), and how many units
// the low-utilization list has in all. The report's totals stay the
// whole report's.
type Page struct {
	Namespace string
	Offset    int
	Limit     int
	// Rows is the number of rows matched (all of them without a
	// namespace); Sum their sums.
	Rows int
	Sum  Costs
	// LowUtilUnits is the number of units in the whole low-utilization
	// list, when the report has one.
	LowUtilUnits *int
	priced       bool
}

// MarshalJSON writes the sum's dollars as null when the report is
// unpriced, as its rows and totals are.
func (p Page) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Namespace    string    `json:"namespace,omitempty"`
		Offset       int       `json:"offset"`
		Limit        int       `json:"limit"`
		Rows         int       `json:"rows"`
		Sum          costsJSON `json:"sum"`
		LowUtilUnits *int      `json:"low_utilization_units,omitempty"`
	}{p.Namespace, p.Offset, p.Limit, p.Rows, p.Sum.toJSON(p.priced), p.LowUtilUnits})
}

// Paged is one page of r: a copy holding the rows (and low-utilization
// units) req asks for, in r's order, and the Page that says what they
// were taken from. r is not changed.
func (r *Report) Paged(req PageRequest) (*Report, error) {
	if err := req.Validate(r.By); err != nil {
		return nil, err
	}
	out := *r
	p := &Page{Namespace: req.Namespace, Offset: req.Offset, Limit: req.Limit, priced: !r.Totals.Unpriced}
	out.Rows = []Row{}
	for _, row := range r.Rows {
		if !r.inNamespace(row, req.Namespace) {
			continue
		}
		if p.Rows >= req.Offset && len(out.Rows) < req.Limit {
			out.Rows = append(out.Rows, row)
		}
		p.Rows++
		s := &p.Sum
		s.GPUHours.add(row.GPUHours)
		s.GPUCost.add(row.GPUCost)
		s.CPUCost += row.CPUCost
		s.MemoryCost += row.MemoryCost
		s.CPUMemoryUnallocated += row.CPUMemoryUnallocated
		s.UnheldCPUMemory += row.UnheldCPUMemory
		s.TotalCost += row.TotalCost
	}
	if r.WindowHours > 0 {
		p.Sum.finish(pricing.HoursPerMonth / r.WindowHours)
	}
	if lu := r.LowUtilization; lu != nil {
		n := len(lu.Units)
		p.LowUtilUnits = &n
		l := *lu
		l.Units = pageOf(lu.Units, req.Offset, req.Limit)
		out.LowUtilization = &l
	}
	out.Page = p
	return &out, nil
}

// inNamespace is whether row belongs to namespace ns (every row when ns
// is empty; never the unallocated row otherwise).
func (r *Report) inNamespace(row Row, ns string) bool {
	switch {
	case ns == "":
		return true
	case row.Key == UnallocatedKey:
		return false
	case r.By == "namespace":
		return row.Key == ns
	case r.By == "pod":
		return strings.HasPrefix(row.Workload, ns+"/")
	}
	return strings.HasPrefix(row.Key, ns+"/")
}

// pageOf is xs[offset:offset+limit], clipped, never nil.
func pageOf[T any](xs []T, offset, limit int) []T {
	if offset >= len(xs) {
		return []T{}
	}
	return append([]T{}, xs[offset:min(len(xs), offset+limit)]...)
}

// LowUtilPage says what a page of a low-utilization list holds and what
// it was taken from: how many units matched in all and their dollars
// (every matched unit's, not only the page's; without a namespace the
// list's own usd exactly). The list's usd stays the whole list's.
type LowUtilPage struct {
	Namespace string `json:"namespace,omitempty"`
	Offset    int    `json:"offset"`
	Limit     int    `json:"limit"`
	// Units is the number of units matched (all of them without a
	// namespace); USD their dollars, summed in the list's order.
	Units int     `json:"units"`
	USD   float64 `json:"usd"`
}

// Paged is one page of l: a copy holding the units req asks for, in l's
// order (most dollars first), and the page that says what they were
// taken from. A namespace keeps the units a workload of that namespace
// held (a unit nobody held is in no namespace). l is not changed.
func (l *LowUtil) Paged(req PageRequest) (*LowUtil, *LowUtilPage, error) {
	if err := req.ValidateUnits(); err != nil {
		return nil, nil, err
	}
	out := *l
	p := &LowUtilPage{Namespace: req.Namespace, Offset: req.Offset, Limit: req.Limit}
	out.Units = []LowUtilUnit{}
	for _, u := range l.Units {
		if !u.heldIn(req.Namespace) {
			continue
		}
		if p.Units >= req.Offset && len(out.Units) < req.Limit {
			out.Units = append(out.Units, u)
		}
		p.Units++
		if u.USD != nil {
			p.USD += *u.USD
		}
	}
	return &out, p, nil
}

// heldIn is whether a workload of namespace ns held u (every unit when
// ns is empty).
func (u *LowUtilUnit) heldIn(ns string) bool {
	if ns == "" {
		return true
	}
	for _, h := range u.Holders {
		if strings.HasPrefix(h, ns+"/") {
			return true
		}
	}
	return false
}
