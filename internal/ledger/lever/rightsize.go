package lever

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// rightsizeLever sets CPU and memory requests to right-sizing's
// recommendations: one action, one item per workload. Requests are not the
// bill: the action saves nothing on its own, and the consolidation lever
// realises it when the smaller requests let a node go.
type rightsizeLever struct{}

func (rightsizeLever) Name() string { return LeverRightsize }

func (rightsizeLever) Propose(_ *Model, env *Env) (Proposal, error) {
	var p Proposal
	byWorkload := map[string][]rightsize.ContainerRec{}
	var order []string
	for _, c := range env.Recs.Containers {
		if c.CPUMilli == c.CurrentCPUMilli && c.MemoryBytes == c.CurrentMemoryBytes {
			continue // no change: not a recommendation
		}
		if _, ok := byWorkload[c.Workload]; !ok {
			order = append(order, c.Workload)
		}
		byWorkload[c.Workload] = append(byWorkload[c.Workload], c)
	}
	if len(order) > 0 {
		p.Changes = append(p.Changes, resizeChange(order, byWorkload))
	}
	for _, k := range env.Recs.Skipped {
		if k.Kind == "cpu-memory" {
			p.NotCounted = append(p.NotCounted, NotCounted{Lever: LeverRightsize, Target: strings.TrimSuffix(k.Workload+" "+k.Container, " "), Reason: k.Reason})
		}
	}
	return p, nil
}

// resizeChange is the request change of every right-sized workload, one
// item each.
func resizeChange(order []string, recs map[string][]rightsize.ContainerRec) Change {
	key := LeverRightsize + ":" + KindResize
	a := Action{Key: key, Kind: KindResize,
		title:     func(n int) string { return fmt.Sprintf("Right-size CPU/memory requests of %d workload(s)", n) },
		Why:       "frees CPU and memory on GPU nodes (requests sized on measured use, docs/recommendations.md); money only once a node goes",
		Artefacts: []Artefact{{Command: "gpuwise generate resources -d out/"}}}
	var changes []WorkloadChange
	for _, w := range order {
		it := resizeItem(w, recs[w])
		a.Items = append(a.Items, it)
		changes = append(changes, WorkloadChange{Action: it.key, Group: key, Lever: LeverRightsize, Workload: w, Containers: recs[w]})
	}
	a.group()
	return Change{Action: a, Apply: func(m *Model) { m.Changes = append(m.Changes, changes...) }}
}

// resizeItem is one workload's request change.
func resizeItem(w string, recs []rightsize.ContainerRec) Item {
	var cpuNow, cpuNew, memNow, memNew, cpuP95, memP99 float64
	names := make([]string, len(recs))
	it := Item{Target: w, key: LeverRightsize + ":" + KindResize + ":" + w, EffortHours: effortResize, Files: patchFiles(w)}
	for i, c := range recs {
		names[i] = c.Container
		cpuNow, cpuNew = cpuNow+float64(c.CurrentCPUMilli)/1000, cpuNew+float64(c.CPUMilli)/1000
		memNow, memNew = memNow+gib(c.CurrentMemoryBytes), memNew+gib(c.MemoryBytes)
		cpuP95, memP99 = cpuP95+c.CPUEvidence.Percentiles["p95"], memP99+c.MemoryEvidence.Percentiles["p99"]/(1<<30)
		it.weight += c.MonthlySavingsUSD
	}
	it.Why = fmt.Sprintf("requests %s CPU, %s memory → %s CPU, %s memory (containers %s)",
		coresText(cpuNow), gibText(memNow), coresText(cpuNew), gibText(memNew), strings.Join(names, ", "))
	it.Evidence = []Evidence{
		{Name: "cpu_request_now", Value: round2(cpuNow), Unit: "cores"}, {Name: "cpu_request_new", Value: round2(cpuNew), Unit: "cores"},
		{Name: "cpu_p95", Value: round2(cpuP95), Unit: "cores"},
		{Name: "memory_request_now", Value: round2(memNow), Unit: "GiB"}, {Name: "memory_request_new", Value: round2(memNew), Unit: "GiB"},
		{Name: "memory_p99", Value: round2(memP99), Unit: "GiB"},
		{Name: "history", Value: round2(recs[0].CPUEvidence.Span.Hours() / 24), Unit: "days"},
	}
	it.Confidence, it.ConfidenceReason = resizeConfidence(recs)
	it.Risk, it.RiskReason = resizeRisk(recs)
	return it
}

// resizeConfidence is the weakest container's.
func resizeConfidence(recs []rightsize.ContainerRec) (Level, string) {
	level, why := High, ""
	for _, c := range recs {
		l, r := usageConfidence(c.Confidence, c.CPUEvidence, c.MemoryEvidence)
		l, r = cpuVariability(l, r, c.CPUEvidence)
		if why == "" || l.Rank() < level.Rank() {
			level, why = l, r
		}
	}
	return level, why
}

// resizeRisk: a memory limit below the window's peak working set risks
// OOM kills; an OOM in the window or a deep memory cut needs watching.
func resizeRisk(recs []rightsize.ContainerRec) (Level, string) {
	for _, c := range recs {
		if peak := c.MemoryEvidence.Percentiles["max"]; peak > float64(c.MemoryBytes) {
			return High, fmt.Sprintf("container %s: peak working set %s is above the new memory limit %s (request = limit): OOM-kill risk at the peak",
				c.Container, gibText(peak/(1<<30)), gibText(gib(c.MemoryBytes)))
		}
	}
	for _, c := range recs {
		if c.OOMBumped {
			return Medium, fmt.Sprintf("container %s was OOM-killed in the window; its memory is raised, watch for more kills", c.Container)
		}
		if c.MemoryBytes*2 < c.CurrentMemoryBytes {
			return Medium, fmt.Sprintf("container %s: memory cut by more than half; watch for OOM kills after the rollout", c.Container)
		}
	}
	return Low, "requests only, sized on measured use with headroom; undone by re-applying the old requests"
}

// patchFiles names the patch file generate writes for a workload (bare
// pods and custom resources get none: change what creates them).
func patchFiles(workload string) []string {
	ns, kind, name := splitWorkload(workload)
	if !slices.Contains([]string{"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"}, kind) {
		return nil
	}
	return []string{fmt.Sprintf("patches/%s/%s-%s.yaml", ns, strings.ToLower(kind), name)}
}

// splitWorkload splits "namespace/Kind/name".
func splitWorkload(w string) (ns, kind, name string) {
	parts := strings.SplitN(w, "/", 3)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return parts[0], parts[1], parts[2]
}

func gib(b int64) float64 { return float64(b) / (1 << 30) }

func gibText(v float64) string { return fmt.Sprintf("%.1f GiB", v) }

func coresText(v float64) string { return fmt.Sprintf("%.2f", v) }
