package exporter

import (
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/billing"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/kueue"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/tracker"
)

// Frame is what one scrape shows: the counters' totals and the results of
// the latest cycle on the rolling window. It is never changed once
// published.
type Frame struct {
	Totals *Totals
	Window cluster.Window
	// Partial is set when some of the window's data could not be read.
	Partial bool
	// Report is the window's report grouped by namespace; GPUModels the
	// same grouped by GPU model; Pods grouped by pod (nil unless pod
	// metrics are on).
	Report    *cost.Report
	GPUModels *cost.Report
	Pods      *cost.Report
	// Mechanisms is the same report grouped by allocation mechanism
	// (device-plugin, mig, time-slicing, dra, hami; docs/dra.md).
	Mechanisms *cost.Report
	Audit      *audit.Result
	// Fleet is the GPU nodes' sharing at the window's end and the spot
	// nodes that ended in it.
	Fleet *Fleet
	// Ledger is the savings ledger on the window (gpuwise advise, every
	// lever, the default policy); nil when it could not be built.
	Ledger *ledger.Ledger
	// Reconciliation is the bill against the window's node cost (serve
	// --bill); nil without a bill.
	Reconciliation *billing.Reconciliation
	// Kueue is the per-queue report of the cluster's Kueue queues
	// (docs/kueue.md); nil without Kueue.
	Kueue *kueue.Result
	// Plan and Proof are the tracked savings plan and what it realised
	// (docs/progress.md); nil before the first measurement.
	Plan  *tracker.Plan
	Proof *tracker.Proof
}

// Collector emits the metrics of the latest Frame. Scrapes never wait on
// a cycle: Publish swaps the frame atomically.
type Collector struct {
	frame atomic.Pointer[Frame]
	descs map[*Metric]*prometheus.Desc
}

// NewCollector returns a collector with no frame (it emits nothing until
// the first Publish).
func NewCollector() *Collector {
	c := &Collector{descs: map[*Metric]*prometheus.Desc{}}
	for _, m := range Families {
		c.descs[m] = m.desc()
	}
	return c
}

// Publish makes f what scrapes show.
func (c *Collector) Publish(f *Frame) { c.frame.Store(f) }

// Describe sends every family's descriptor.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range Families {
		ch <- c.descs[m]
	}
}

// Collect emits the latest frame's metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	f := c.frame.Load()
	if f == nil {
		return
	}
	e := emitter{ch: ch, descs: c.descs}
	if f.Totals != nil {
		e.totals(f.Totals)
	}
	e.window(f)
	if f.Report != nil {
		e.namespaces(f.Report)
		e.overall(f.Report)
	}
	if f.GPUModels != nil {
		e.models(f.GPUModels)
	}
	if f.Mechanisms != nil {
		e.mechanisms(f.Mechanisms)
	}
	if f.Audit != nil {
		e.audit(f.Audit)
	}
	if f.Fleet != nil {
		e.fleet(f.Fleet)
	}
	if f.Ledger != nil {
		e.savings(f.Ledger)
	}
	if f.Kueue != nil {
		e.kueue(f.Kueue)
	}
	if f.Plan != nil {
		e.plan(f.Plan, f.Proof)
	}
	if f.Pods != nil {
		e.pods(f.Pods)
	}
	if rc := f.Reconciliation; rc != nil {
		for _, k := range []struct {
			kind string
			v    float64
		}{{"bill", rc.BillUSD}, {"matched", rc.MatchedUSD}, {"cpu_nodes", rc.CPUNodesUSD}, {"unmatched", rc.UnmatchedBillUSD},
			{"unbilled_nodes", rc.UnbilledNodeUSD}, {"unused_commitment", rc.UnusedCommitmentUSD}} {
			e.emit(&BillUSD, k.v, k.kind)
		}
		e.emit(&BillUnmatchedGPUInstances, float64(len(rc.UnmatchedGPULines)))
	}
}

// hour is seconds per hour: the engines count GPU-hours, Prometheus'
// base unit is the second.
const hour = 3600

type emitter struct {
	ch    chan<- prometheus.Metric
	descs map[*Metric]*prometheus.Desc
}

func (e emitter) emit(m *Metric, v float64, labels ...string) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	e.ch <- prometheus.MustNewConstMetric(e.descs[m], m.valueType(), v, labels...)
}

// ratio emits a ratio that may be unknown (nil: no sample, never 0).
func (e emitter) ratio(m *Metric, v *float64, labels ...string) {
	if v != nil {
		e.emit(m, *v, labels...)
	}
}

func (e emitter) totals(t *Totals) {
	for _, k := range sortedKeys(t.workloads) {
		v := t.workloads[k]
		ns, w := splitWorkload(k)
		e.emit(&GPUAllocatedHours, hour*v.GPUAllocatedHours, ns, w)
		e.emit(&GPUActiveHours, hour*v.GPUActiveHours, ns, w)
		e.emit(&GPUIdleHours, hour*v.GPUIdleHours, ns, w)
		e.emit(&GPUUnmeasuredHours, hour*v.GPUUnmeasuredHours, ns, w)
		e.emit(&UnpricedHours, hour*v.UnpricedGPUHours, ns, w)
		e.emit(&OOMKills, float64(v.OOMKills), ns, w)
		for _, c := range []struct {
			name string
			v    float64
		}{{"gpu_active", v.GPUActiveUSD}, {"gpu_idle", v.GPUIdleUSD}, {"gpu_unmeasured", v.GPUUnmeasuredUSD}, {"cpu", v.CPUUSD}, {"memory", v.MemoryUSD}} {
			e.emit(&Cost, c.v, ns, w, c.name)
		}
	}
	for _, k := range sortedKeys(t.models) {
		v := t.models[k]
		e.emit(&UnallocatedHours, hour*v.GPUUnallocatedHours, k)
		e.emit(&UnallocatedCost, v.GPUUnallocatedUSD, k, "gpu")
		e.emit(&UnallocatedCost, v.CPUMemoryUnallocatedUSD, k, "cpu_memory")
	}
}

func (e emitter) window(f *Frame) {
	if f.Window.End.IsZero() {
		return
	}
	e.emit(&WindowSeconds, f.Window.End.Sub(f.Window.Start).Seconds())
	e.emit(&WindowEnd, float64(f.Window.End.UnixNano())/float64(time.Second))
	partial := 0.0
	if f.Partial {
		partial = 1
	}
	e.emit(&Partial, partial)
}

func (e emitter) namespaces(r *cost.Report) {
	for _, row := range r.Rows {
		if row.Key == cost.UnallocatedKey {
			continue
		}
		e.ratio(&NamespaceUtilization, row.GPUUtilization, row.Key)
		if !row.Unpriced {
			e.emit(&NamespaceCost, row.TotalCost, row.Key)
			e.emit(&NamespaceIdleCost, row.GPUCost.AllocatedIdle, row.Key)
		}
	}
}

func (e emitter) overall(r *cost.Report) {
	t := r.Totals
	e.ratio(&Utilization, t.GPUUtilizationOfProvisioned)
	e.ratio(&Coverage, t.MeasuredShare, "measured")
	if p := t.GPUHours.Provisioned; p > 0 {
		e.emit(&Coverage, 1-t.UnpricedGPUHours/p, "priced")
	}
	if !t.Unpriced {
		e.emit(&WindowCost, t.TotalCost)
		e.emit(&IdleCost, t.GPUCost.AllocatedIdle+t.GPUCost.Unallocated)
	}
}

func (e emitter) models(r *cost.Report) {
	if r.WindowHours <= 0 {
		return
	}
	for _, row := range r.Rows {
		if row.GPUHours.Provisioned > 0 {
			e.emit(&GPUs, row.GPUHours.Provisioned/r.WindowHours, row.Key)
		}
	}
}

// mechanisms emits the report by allocation mechanism: GPU-seconds held
// per mechanism, and every row's dollars (the pods holding no GPU unit on
// GPU nodes under mechanism "none"), so that the costs add up to
// gpuwise_window_cost_usd.
func (e emitter) mechanisms(r *cost.Report) {
	for _, row := range r.Rows {
		via := row.Key
		if len(row.Mechanisms) == 0 {
			via = "none"
		} else {
			e.emit(&MechanismAllocated, row.GPUHours.Allocated*hour, via)
		}
		if !row.Unpriced {
			e.emit(&MechanismCost, row.TotalCost, via)
		}
	}
}

func (e emitter) audit(r *audit.Result) {
	type key struct{ rule, sev string }
	counts := map[key]int{}
	usd := map[string]float64{}
	for _, f := range r.Findings {
		counts[key{f.Rule, f.Severity.String()}]++
		if f.MonthlyUSD != nil {
			usd[f.Rule] += *f.MonthlyUSD
		}
	}
	ks := make([]key, 0, len(counts))
	for k := range counts {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].rule+ks[i].sev < ks[j].rule+ks[j].sev })
	for _, k := range ks {
		e.emit(&Findings, float64(counts[k]), k.rule, k.sev)
	}
	for _, rule := range sortedKeys(usd) {
		e.emit(&FindingsUSD, usd[rule], rule)
	}
}

func (e emitter) pods(r *cost.Report) {
	for _, row := range r.Rows {
		ns, pod, ok := strings.Cut(row.Key, "/")
		if !ok {
			continue // the unallocated row
		}
		e.emit(&PodGPUAllocated, hour*row.GPUHours.Allocated, ns, pod)
		e.ratio(&PodUtilization, row.GPUUtilization, ns, pod)
		if !row.Unpriced {
			e.emit(&PodCost, row.TotalCost, ns, pod)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// plan is the tracked plan's checklist and what its actions realised.
func (e emitter) plan(p *tracker.Plan, pf *tracker.Proof) {
	c := p.Count()
	for _, s := range []struct {
		status string
		n      int
	}{{"pending", c.Pending}, {"partly", c.Partly}, {"applied", c.Applied}, {"rejected", c.Rejected}} {
		e.emit(&PlanActions, float64(s.n), s.status)
	}
	if pf == nil {
		return
	}
	levers := map[string]float64{}
	for _, r := range pf.Actions {
		if r.Status != tracker.Measured {
			continue
		}
		e.emit(&PlanRealised, r.RealisedUSDMonth, r.ID, r.Lever)
		e.emit(&PlanPredicted, r.PredictedUSDMonth, r.ID, r.Lever)
		levers[r.Lever] += r.RealisedUSDMonth
	}
	for _, l := range sortedKeys(levers) {
		e.emit(&PlanLeverRealised, levers[l], l)
	}
	if pf.Total.Status == tracker.Measured {
		e.emit(&PlanChange, pf.Total.ChangeUSDMonth)
	}
	for _, f := range pf.Flags {
		switch f.Status {
		case tracker.Firing:
			e.emit(&PlanRedFlag, 1, f.Action, f.Lever, f.Name)
		case tracker.Clear:
			e.emit(&PlanRedFlag, 0, f.Action, f.Lever, f.Name)
		default:
			e.emit(&PlanRedFlagUnwatched, 1, f.Action, f.Lever, f.Name)
		}
	}
}

// savings is the ledger's total and each lever's share of it (the levers
// add up to the total).
func (e emitter) savings(l *ledger.Ledger) {
	e.emit(&Savings, l.SavingUSDMonth)
	for _, lv := range l.Levers {
		e.emit(&LeverSavings, lv.SavingUSDMonth, lv.Name)
	}
}
