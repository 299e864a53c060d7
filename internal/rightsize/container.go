package rightsize

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/usage"
)

const (
	mib = int64(1) << 20
	gib = int64(1) << 30
	// cpuStepMilli rounds CPU recommendations up to a readable step.
	cpuStepMilli = 10
)

// containerUsage is one container name's usage merged over a workload's
// pods.
type containerUsage struct {
	name         string
	cpu, mem     usage.Gauge
	cpuPods      int
	memPods      int
	allocatedSec float64 // running seconds of the pods that have it
	oomKilled    bool    // a pod with it was OOM-killed
	peakNearLim  bool    // its peak reached 90% of its limit in such a pod
}

func (e *engine) containers(w *workload, r *Result) {
	cur := w.latest()
	for _, u := range mergeContainers(w) {
		spec := containerSpec(cur, u.name)
		if spec == nil {
			continue // a container the current spec no longer has
		}
		rec, reason := e.containerRec(w, u, spec)
		if reason != "" {
			r.Skipped = append(r.Skipped, Skip{Workload: w.key, Container: u.name, Kind: "cpu-memory", Reason: reason})
			continue
		}
		r.Containers = append(r.Containers, rec)
	}
}

func mergeContainers(w *workload) []*containerUsage {
	var order []*containerUsage
	by := map[string]*containerUsage{}
	for i, pod := range w.runs {
		for _, c := range pod.Containers {
			u := by[c.Name]
			if u == nil {
				u = &containerUsage{name: c.Name}
				by[c.Name] = u
				order = append(order, u)
			}
			u.allocatedSec += w.runSeconds[i]
			if c.CPU != nil {
				u.cpu.Merge(c.CPU)
				u.cpuPods++
			}
			if c.Memory != nil {
				u.mem.Merge(c.Memory)
				u.memPods++
			}
			if pod.OOMKills > 0 {
				u.oomKilled = true
				if c.Memory != nil && c.MemoryLimit > 0 && c.Memory.Max >= 0.9*float64(c.MemoryLimit) {
					u.peakNearLim = true
				}
			}
		}
	}
	return order
}

func containerSpec(p *cluster.Pod, name string) *cluster.Container {
	for i := range p.Containers {
		if p.Containers[i].Name == name {
			return &p.Containers[i]
		}
	}
	return nil
}

// containerRec sizes one container, or says why it cannot.
func (e *engine) containerRec(w *workload, u *containerUsage, spec *cluster.Container) (ContainerRec, string) {
	if why := e.enoughData("CPU", "cAdvisor container_cpu_usage_seconds_total", &u.cpu, u.allocatedSec); why != "" {
		return ContainerRec{}, why
	}
	if why := e.enoughData("memory", "cAdvisor container_memory_working_set_bytes", &u.mem, u.allocatedSec); why != "" {
		return ContainerRec{}, why
	}
	pol := e.p
	rec := ContainerRec{
		Workload: w.key, Namespace: w.namespace, OwnerKind: w.kind, OwnerName: w.name, Container: u.name,
		CurrentCPUMilli: spec.CPURequestMilli, CurrentCPULimit: spec.CPULimitMilli, CurrentMemoryBytes: spec.MemoryRequest, CurrentMemoryLimit: spec.MemoryLimit,
		RoundNumber:    cluster.RoundCPU(spec.CPURequestMilli) || cluster.RoundMemory(spec.MemoryRequest),
		CPUEvidence:    e.evidence(w, &u.cpu, u.cpuPods, u.allocatedSec),
		MemoryEvidence: e.evidence(w, &u.mem, u.memPods, u.allocatedSec),
		Template:       w.template,
		Runs:           w.nRuns,
	}
	cpuCores := withHeadroom(u.cpu.Quantile(pol.CPU.Percentile), pol.CPU.Headroom)
	rec.CPUMilli = max(roundUp(int64(math.Ceil(cpuCores*1000)), cpuStepMilli), pol.CPU.MinMilli)
	memQ := u.mem.Quantile(pol.Memory.Percentile)
	if pol.Memory.Percentile == 1 {
		memQ = u.mem.Max
	}
	mem := roundUp(int64(math.Ceil(withHeadroom(memQ, pol.Memory.Headroom))), mib)
	why := []string{fmt.Sprintf("CPU p%s %s, memory p%s %s over %s",
		pct(pol.CPU.Percentile), cores(u.cpu.Quantile(pol.CPU.Percentile)),
		pct(pol.Memory.Percentile), bytesText(memQ), durationText(time.Duration(u.cpu.Seconds*float64(time.Second))))}
	if w.template != "" {
		why[0] += fmt.Sprintf(" of %d runs of %s", w.nRuns, w.template)
	}
	if pol.Memory.Headroom > 0 {
		why[0] += fmt.Sprintf(" (+%s%% memory headroom)", pct(pol.Memory.Headroom))
	}
	if u.oomKilled && (u.peakNearLim || spec.MemoryLimit > 0) {
		base := spec.MemoryLimit
		if base == 0 {
			base = max(spec.MemoryRequest, int64(u.mem.Max))
		}
		if bumped := roundUp(int64(math.Ceil(float64(base)*(1+pol.Memory.OOMBump))), mib); bumped > mem {
			mem, rec.OOMBumped = bumped, true
			why = append(why, fmt.Sprintf("OOM-killed: memory raised to the limit %s + %s%%", bytesText(float64(base)), pct(pol.Memory.OOMBump)))
		}
	}
	if thr, ok := e.cpuStarved(w, spec); ok {
		why = append(why, starve(&rec, spec, thr))
	}
	rec.MemoryBytes = max(mem, pol.Memory.MinBytes)
	rec.CPULimitMilli = cpuLimit(spec, rec.CPUMilli)
	if rec.RoundNumber {
		why = append(why, "current request is a round number, likely guessed")
	}
	t := trustOf(w)
	t.oomKilled = u.oomKilled
	rec.Confidence, rec.ConfidenceReason = confidence(t, rec.CPUEvidence, rec.MemoryEvidence)
	rec.Reason = strings.Join(why, "; ")
	e.priceContainer(w, &rec)
	return rec, ""
}

// cpuLimit is the CPU limit to recommend beside a new request, 0 to leave
// the current one: a GPU container gets limit = request, so that with
// memory limit = request it runs in Guaranteed QoS (audit GW003: evictions
// and noisy neighbours idle the GPU); another container's limit is raised
// only when it is below the new request, which Kubernetes would refuse.
func cpuLimit(spec *cluster.Container, request int64) int64 {
	for _, n := range spec.GPURequests {
		if n > 0 {
			return request
		}
	}
	if spec.CPULimitMilli > 0 && spec.CPULimitMilli < request {
		return request
	}
	return 0
}

// priceContainer sets the monthly saving of moving the requests to the
// recommendation: Δcores × $/core-h + ΔGiB × $/GiB-h, × 730 h × the
// workload's average pod count. A container that requested nothing saves
// nothing (its cost is its usage, which does not change).
func (e *engine) priceContainer(w *workload, rec *ContainerRec) {
	cpuRate, ok := e.rate(w, func(p *pricing.NodePrice) float64 { return p.CPUUSDPerCoreHour })
	if !ok {
		return
	}
	memRate, _ := e.rate(w, func(p *pricing.NodePrice) float64 { return p.MemoryUSDPerGiBHour })
	rec.Priced = true
	var hourly float64
	if rec.CurrentCPUMilli > 0 {
		hourly += float64(rec.CurrentCPUMilli-rec.CPUMilli) / 1000 * cpuRate
	}
	if rec.CurrentMemoryBytes > 0 {
		hourly += float64(rec.CurrentMemoryBytes-rec.MemoryBytes) / float64(gib) * memRate
	}
	rec.MonthlySavingsUSD = roundCents(hourly * pricing.HoursPerMonth * w.avgPods)
}

// enoughData says why a gauge cannot back a recommendation, or "".
func (e *engine) enoughData(what, metric string, g *usage.Gauge, allocatedSec float64) string {
	h := e.p.History
	switch {
	case g.Seconds == 0:
		return fmt.Sprintf("unmeasured: no %s usage series (%s); never treated as idle", what, metric)
	case g.Seconds < h.MinObserved.Seconds():
		return fmt.Sprintf("too little data: %s of %s usage, the policy needs %s (history.minObserved)",
			durationText(time.Duration(g.Seconds*float64(time.Second))), what, durationText(h.MinObserved))
	case allocatedSec > 0 && g.Seconds/allocatedSec < h.MinCoverage:
		return fmt.Sprintf("too little data: %s usage covers %s%% of the running time, the policy needs %s%% (history.minCoverage)",
			what, pct(g.Seconds/allocatedSec), pct(h.MinCoverage))
	}
	return ""
}

func roundUp(v, step int64) int64 {
	if v <= 0 {
		return 0
	}
	return (v + step - 1) / step * step
}

func roundCents(v float64) float64 { return math.Round(v*100) / 100 }

// maxStarvedRaise caps how far a starved container's CPU is raised at
// once: twice its limit; the next window's throttling says if it needs more.
const maxStarvedRaise = 2

// cpuStarved says whether a GPU container with a CPU limit was starved:
// its workload's hourly CFS throttling or CPU use of the limit, averaged
// over the hours with data, at the policy's thresholds. It returns the
// mean throttled share (0 when only the use of the limit is known).
func (e *engine) cpuStarved(w *workload, spec *cluster.Container) (float64, bool) {
	h := e.s.Hourly().Find(w.key)
	if h == nil || spec.CPULimitMilli <= 0 || len(spec.GPURequests) == 0 {
		return 0, false
	}
	thr, okThr := meanOf(h.CPUThrottled)
	used, okUsed := meanOf(h.CPUOfLimit)
	starved := (okThr && thr >= e.p.CPU.StarvedThrottled) || (okUsed && used >= e.p.CPU.StarvedAtLimit)
	return thr, starved
}

// starve raises a starved container's CPU: never below its request or
// limit, and to limit / (1 − throttled share) — the CPU it asked for in
// the periods it was throttled — at most twice the limit. Generate raises
// the limit with the request (a limit below the request is invalid).
func starve(rec *ContainerRec, spec *cluster.Container, thr float64) string {
	lim := float64(spec.CPULimitMilli)
	want := lim * maxStarvedRaise
	if thr < 1-1/float64(maxStarvedRaise) {
		want = lim / (1 - thr)
	}
	raised := roundUp(int64(math.Ceil(want)), cpuStepMilli)
	rec.CPUMilli = max(rec.CPUMilli, spec.CPURequestMilli, spec.CPULimitMilli, raised)
	rec.CPUStarved = true
	return fmt.Sprintf("CPU-starved: throttled in %s%% of CFS periods at its %s limit while its GPU idled; CPU raised to %s (request and limit) to feed the GPU, never cut",
		pct(thr), cores(lim/1000), cores(float64(rec.CPUMilli)/1000))
}

// meanOf is a series' mean over its hours with data.
func meanOf(s cluster.Series) (float64, bool) {
	var sum float64
	var n int
	for _, v := range s {
		if v == v {
			sum += float64(v)
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}
