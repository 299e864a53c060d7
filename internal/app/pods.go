package app

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
)

// PodsRequest asks for one page of the pods of a workload or of a
// namespace: the rows of the report grouped by pod (report --by pod) that
// belong to it, most dollars first. A page, so that a workload of
// thousands of replicas does not make a page of megabytes.
type PodsRequest struct {
	// Workload (namespace/Kind/name) or Namespace: at most one; neither
	// is every pod.
	Workload  string
	Namespace string
	// Pod (namespace/name), when set, keeps that pod only.
	Pod    string
	Offset int
	Limit  int
}

// Limits on a page of pods.
const (
	DefaultPodsLimit = 50
	MaxPodsLimit     = 500
)

// Validate lists every problem with the request, each naming its
// parameter.
func (r PodsRequest) Validate() error {
	var errs []error
	switch {
	case r.Workload != "" && r.Namespace != "":
		errs = append(errs, errors.New("namespace: give workload or namespace, not both"))
	case r.Workload != "" && strings.Count(r.Workload, "/") < 2:
		errs = append(errs, fmt.Errorf("workload: %q is not namespace/Kind/name", r.Workload))
	}
	if r.Pod != "" && strings.Count(r.Pod, "/") != 1 {
		errs = append(errs, fmt.Errorf("pod: %q is not namespace/name", r.Pod))
	}
	if r.Offset < 0 {
		errs = append(errs, fmt.Errorf("offset: %d is negative", r.Offset))
	}
	if r.Limit < 1 || r.Limit > MaxPodsLimit {
		errs = append(errs, fmt.Errorf("limit: %d is not in 1..%d", r.Limit, MaxPodsLimit))
	}
	return errors.Join(errs...)
}

// PodSum is the sum of every matched pod's row (not only the page's).
type PodSum struct {
	Pods     int          `json:"pods"`
	GPUHours cost.Hours   `json:"gpu_hours"`
	GPUCost  cost.GPUCost `json:"gpu_cost_usd"`
	CPUCost  float64      `json:"cpu_cost_usd"`
	Memory   float64      `json:"memory_cost_usd"`
	Total    float64      `json:"total_cost_usd"`
}

// PodPage is one page of a workload's or namespace's pods on the report's
// window: the report's pod rows (each with its workload and the GPU units
// it held), the number matched and their sum.
type PodPage struct {
	Window      cluster.Window `json:"window"`
	WindowHours float64        `json:"window_hours"`
	Workload    string         `json:"workload,omitempty"`
	Namespace   string         `json:"namespace,omitempty"`
	Pod         string         `json:"pod,omitempty"`
	Matched     int            `json:"matched"`
	Offset      int            `json:"offset"`
	Limit       int            `json:"limit"`
	Rows        []cost.Row     `json:"rows"`
	Sum         PodSum         `json:"sum"`
}

// PodsOf is the page req asks for of r, a report grouped by pod (its rows
// in the report's order: most dollars first).
func PodsOf(r *cost.Report, req PodsRequest) (*PodPage, error) {
	if err := req.Validate(); err != nil {
		return nil, &Error{Kind: Usage, Err: err}
	}
	if r.By != "pod" {
		return nil, fmt.Errorf("pods: the report is grouped by %q, not pod", r.By)
	}
	p := &PodPage{Window: r.Window, WindowHours: r.WindowHours, Workload: req.Workload, Namespace: req.Namespace, Pod: req.Pod,
		Offset: req.Offset, Limit: req.Limit, Rows: []cost.Row{}}
	for _, row := range r.Rows {
		if row.Workload == "" { // the unallocated row
			continue
		}
		if req.Workload != "" && row.Workload != req.Workload || req.Namespace != "" && !strings.HasPrefix(row.Workload, req.Namespace+"/") ||
			req.Pod != "" && row.Key != req.Pod {
			continue
		}
		if p.Matched >= req.Offset && len(p.Rows) < req.Limit {
			p.Rows = append(p.Rows, row)
		}
		p.Matched++
		s := &p.Sum
		s.Pods++
		s.GPUHours.Allocated += row.GPUHours.Allocated
		s.GPUHours.Active += row.GPUHours.Active
		s.GPUHours.Idle += row.GPUHours.Idle
		s.GPUHours.Unmeasured += row.GPUHours.Unmeasured
		s.GPUCost.Active += row.GPUCost.Active
		s.GPUCost.AllocatedIdle += row.GPUCost.AllocatedIdle
		s.GPUCost.Unmeasured += row.GPUCost.Unmeasured
		s.GPUCost.Unallocated += row.GPUCost.Unallocated
		s.CPUCost += row.CPUCost
		s.Memory += row.MemoryCost
		s.Total += row.TotalCost
	}
	return p, nil
}
