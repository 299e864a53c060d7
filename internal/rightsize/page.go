package rightsize

import (
	"fmt"
	"slices"
	"strings"
)

// PageRequest asks for one page of the recommendations: each list
// (containers, gpu, skipped) filtered to the workloads or the namespace
// given, then offset and limit taken from it, in the list's order. The
// API's offset and limit (docs/serve.md "Paging"), with the limits the
// report's rows have.
type PageRequest struct {
	// Workloads (namespace/Kind/name each) keeps those workloads'
	// entries only; Namespace that namespace's. At most one.
	Workloads []string
	Namespace string
	Offset    int
	// Limit is the most entries of each list the page holds, 0..maxLimit.
	Limit int
}

// Validate lists every problem with the request, each naming its
// parameter; maxLimit is the API's largest page.
func (p PageRequest) Validate(maxLimit int) error {
	var errs []string
	if p.Offset < 0 {
		errs = append(errs, fmt.Sprintf("offset: %d is negative", p.Offset))
	}
	if p.Limit < 0 || p.Limit > maxLimit {
		errs = append(errs, fmt.Sprintf("limit: %d is not in 0..%d", p.Limit, maxLimit))
	}
	if len(p.Workloads) > 0 && p.Namespace != "" {
		errs = append(errs, "namespace: give workload or namespace, not both")
	}
	for _, w := range p.Workloads {
		if strings.Count(w, "/") < 2 {
			errs = append(errs, fmt.Sprintf("workload: %q is not namespace/Kind/name", w))
		}
	}
	if strings.Contains(p.Namespace, "/") {
		errs = append(errs, fmt.Sprintf("namespace: %q is a namespace's name, without /", p.Namespace))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// Page says what a page of the recommendations holds: how many entries
// of each list matched in all. MonthlySavingsUSD and Unpriced stay the
// whole result's (a page never changes a total).
type Page struct {
	Workloads  []string `json:"workloads,omitempty"`
	Namespace  string   `json:"namespace,omitempty"`
	Offset     int      `json:"offset"`
	Limit      int      `json:"limit"`
	Containers int      `json:"containers"`
	GPU        int      `json:"gpu"`
	Skipped    int      `json:"skipped"`
}

// Paged is one page of r (a copy; r is not changed).
func (r *Result) Paged(req PageRequest, maxLimit int) (*Result, error) {
	if err := req.Validate(maxLimit); err != nil {
		return nil, err
	}
	keep := func(workload, namespace string) bool {
		switch {
		case len(req.Workloads) > 0:
			return slices.Contains(req.Workloads, workload)
		case req.Namespace != "":
			return namespace == req.Namespace
		}
		return true
	}
	out := *r
	p := &Page{Workloads: req.Workloads, Namespace: req.Namespace, Offset: req.Offset, Limit: req.Limit}
	out.Containers, p.Containers = pageOf(r.Containers, req, func(c ContainerRec) bool { return keep(c.Workload, c.Namespace) })
	out.GPU, p.GPU = pageOf(r.GPU, req, func(g GPURec) bool { return keep(g.Workload, g.Namespace) })
	out.Skipped, p.Skipped = pageOf(r.Skipped, req, func(s Skip) bool { return keep(s.Workload, strings.SplitN(s.Workload, "/", 2)[0]) })
	out.Page = p
	return &out, nil
}

// pageOf is the page of the entries of xs that keep accepts, and how many
// it accepts in all.
func pageOf[T any](xs []T, req PageRequest, keep func(T) bool) ([]T, int) {
	out, n := []T{}, 0
	for _, x := range xs {
		if !keep(x) {
			continue
		}
		if n >= req.Offset && len(out) < req.Limit {
			out = append(out, x)
		}
		n++
	}
	return out, n
}
