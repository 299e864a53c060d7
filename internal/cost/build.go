package cost

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// NewReport groups an allocation into a report.
func NewReport(a *Allocation, opts ReportOptions) (*Report, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := a.Snapshot
	monthFactor := pricing.HoursPerMonth / s.Window().Hours()
	r := &Report{
		Partial: s.Partial(), Window: s.Window(), WindowHours: s.Window().Hours(), Source: s.Source(),
		ActivityMetric: s.ActivityMetric(), IdleThreshold: a.Options.IdleThreshold,
		IdleShare: a.Options.IdleShare, By: opts.By,
	}
	r.Rows = groupRows(a.Lines, opts.By, monthFactor)
	r.Totals = totals(a, monthFactor)
	r.TopIdle = topIdle(a.Lines, s.Window().Hours(), monthFactor, opts.TopN)
	if opts.LowUtil.On() {
		r.LowUtilization = lowUtil(a, s.Index(), opts.LowUtil)
	}
	r.Notes = notes(a, r)
	return r, r.Reconcile()
}

func groupRows(lines []Line, by string, monthFactor float64) []Row {
	key, _ := keyFunc(by)
	idx := map[string]int{}
	var rows []Row
	pods := map[string]map[*cluster.Pod]bool{}
	priced := map[string]bool{}
	via := map[string]map[string]bool{}
	for i := range lines {
		l := &lines[i]
		k := key(l)
		if l.Mechanism != "" && l.GPUHours.Allocated+l.GPUHours.Unallocated > 0 {
			if via[k] == nil {
				via[k] = map[string]bool{}
			}
			for _, m := range strings.Split(l.Mechanism, "+") {
				via[k][m] = true
			}
		}
		j, ok := idx[k]
		if !ok {
			j = len(rows)
			idx[k] = j
			rows = append(rows, Row{Key: k})
			pods[k] = map[*cluster.Pod]bool{}
		}
		rows[j].addLine(l)
		if (by == "gpu-model" || by == "node") && l.Node.GPUModel != "" && l.Node.HasGPUs() {
			rows[j].Vendor = l.Node.Vendor()
		}
		if l.Priced {
			priced[k] = true
		} else {
			rows[j].UnpricedGPUHours += l.GPUHours.Allocated + l.GPUHours.Unallocated
		}
		if l.Pod != nil {
			pods[k][l.Pod] = true
			if by == "pod" {
				rows[j].Workload = l.Pod.WorkloadKey()
				for _, hd := range l.Pod.GPUs {
					if !slices.Contains(rows[j].GPUUnits, hd.UnitID) {
						rows[j].GPUUnits = append(rows[j].GPUUnits, hd.UnitID)
					}
				}
			}
		}
	}
	for i := range rows {
		rows[i].Pods = len(pods[rows[i].Key])
		rows[i].Unpriced = !priced[rows[i].Key]
		for _, m := range cluster.Mechanisms {
			if via[rows[i].Key][m] {
				rows[i].Mechanisms = append(rows[i].Mechanisms, m)
			}
		}
		slices.Sort(rows[i].GPUUnits)
		rows[i].finish(monthFactor)
	}
	sortRows(rows)
	return rows
}

func totals(a *Allocation, monthFactor float64) Totals {
	var t Totals
	var spotGPUHours float64
	priced := 0
	holders, requesters := 0, 0
	seenPods := map[*cluster.Pod]bool{}
	for i := range a.Lines {
		l := &a.Lines[i]
		t.addLine(l)
		if l.Pod == nil {
			t.Nodes++
			t.GPUs += len(l.Node.GPUs)
			if l.Node.Capacity == cluster.Spot {
				spotGPUHours += l.GPUHours.Provisioned
			}
			if !l.Priced {
				t.UnpricedGPUHours += l.GPUHours.Provisioned
			} else {
				priced++
			}
			continue
		}
		if !seenPods[l.Pod] {
			seenPods[l.Pod] = true
			t.Pods++
			if len(l.Pod.GPUs) > 0 {
				t.GPUPods++
				holders++
			}
			if requestsGPUs(l.Pod) {
				requesters++
			}
		}
	}
	t.NodeCost = a.NodeCost
	t.Unpriced = t.Nodes > 0 && priced == 0
	t.finish(monthFactor)
	h := t.GPUHours
	t.GPUUtilizationOfProvisioned = utilizationOfProvisioned(h)
	t.MeasuredShare = ratio(h.Allocated-h.Unmeasured, h.Allocated)
	if holders > 0 && requesters == 0 {
		// GPUs held, and no pod requests any: the holders came from the
		// exporter alone (a source without request or limit series), so
		// GPU pods it did not see are missing from allocation, and the
		// share measured of it is unknown, never a confident 100 %.
		t.MeasuredShare = nil
	}
	t.IdleShare = ratio(h.Idle, h.Allocated-h.Unmeasured)
	t.UnallocatedShare = ratio(h.Unallocated, h.Provisioned)
	t.SpotShare = ratio(spotGPUHours, h.Provisioned)
	return t
}

// utilizationOfProvisioned is active GPU-hours over the provisioned hours
// whose state is known: unmeasured allocated time is left out rather than
// counted as 0% busy, and with allocated time but none of it measured
// there is no figure at all (nil), never 0%.
func utilizationOfProvisioned(h Hours) *float64 {
	if h.Allocated > 1e-12 && h.Allocated-h.Unmeasured <= 1e-12 {
		return nil
	}
	return ratio(h.Active, h.Provisioned-h.Unmeasured)
}

func topIdle(lines []Line, windowHours, monthFactor float64, n int) []Workload {
	idx := map[string]*Workload{}
	active := map[string]float64{}
	measured := map[string]float64{}
	for i := range lines {
		l := &lines[i]
		// Unpriced lines have no dollars to rank: they are not $0 idle.
		if l.Pod == nil || len(l.Pod.GPUs) == 0 || !l.Priced {
			continue
		}
		k := l.Pod.WorkloadKey()
		w := idx[k]
		if w == nil {
			w = &Workload{Key: k, Namespace: l.Pod.Namespace}
			idx[k] = w
		}
		w.Pods++
		w.AvgGPUs += l.GPUHours.Allocated / windowHours
		w.IdleCost += l.GPUCost.AllocatedIdle
		w.UnmeasuredGPU += l.GPUHours.Unmeasured
		active[k] += l.GPUHours.Active
		measured[k] += l.GPUHours.Allocated - l.GPUHours.Unmeasured
	}
	out := make([]Workload, 0, len(idx))
	for k, w := range idx {
		w.Utilization = ratio(active[k], measured[k])
		w.MonthlyIdle = w.IdleCost * monthFactor
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b Workload) int {
		if c := cmp.Compare(b.IdleCost, a.IdleCost); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return out[:min(n, len(out))]
}

// Reconcile checks the report's invariant: the rows' dollars add up to the
// priced nodes' cost for the window, to the cent, and so do the totals.
func (r *Report) Reconcile() error {
	var rows float64
	for _, row := range r.Rows {
		rows += row.TotalCost
	}
	const cent = 0.005
	if d := rows - r.Totals.NodeCost; d > cent || d < -cent {
		return fmt.Errorf("cost does not reconcile: rows sum to $%.4f, priced nodes cost $%.4f (off by $%.4f)", rows, r.Totals.NodeCost, d)
	}
	if d := r.Totals.TotalCost - r.Totals.NodeCost; d > cent || d < -cent {
		return fmt.Errorf("cost does not reconcile: totals sum to $%.4f, priced nodes cost $%.4f", r.Totals.TotalCost, r.Totals.NodeCost)
	}
	return nil
}

// requestsGPUs reports whether any container of p requests a GPU unit.
func requestsGPUs(p *cluster.Pod) bool {
	for _, c := range p.Containers {
		for _, n := range c.GPURequests {
			if n > 0 {
				return true
			}
		}
	}
	return false
}
