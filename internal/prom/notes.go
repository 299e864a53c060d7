package prom

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/query"
)

// notes are the data-quality notes: coverage of allocated GPU-hours by
// DCGM data, nodes whose exporter sent nothing, gaps, counter resets and
// holdings left out.
func notes(s *cluster.Snapshot, a assembly, conflicts int, step time.Duration) []string {
	out := coverage(s, a.gpu, step) // no DCGM series at all: missingFamilies
	out = append(out, rangeNotes(a.gpu, a.ctr, a.serve)...)

	out = append(out, counterNote(a.ctr.usage)...)
	if conflicts > 0 {
		out = append(out, fmt.Sprintf("%d DCGM holding(s) overlap another pod's on the same GPU unit and were left out", conflicts))
	}
	return out
}

// coverage notes the share of allocated GPU-hours with DCGM data, nodes
// running GPU pods that sent no DCGM series, and holdings with gaps.
func coverage(s *cluster.Snapshot, g gpuRead, step time.Duration) []string {
	var out []string
	var allocated, measured float64
	var gappy int
	silent := map[string]bool{}
	ix := cluster.NewIndex(s)
	for _, p := range s.Pods {
		life := s.Window.Clip(p.Start, p.End)
		for _, h := range p.GPUs {
			ref, ok := ix.Units[h.UnitID]
			if !ok {
				continue
			}
			frac := unitFraction(ref)
			allocated += frac * life
			if h.Activity == nil {
				if !g.usage.hosts[p.Node] {
					silent[p.Node] = true
				}
				continue
			}
			measured += frac * min(h.Activity.Seconds, life)
			if h.Activity.Seconds < 0.9*life-step.Seconds() {
				gappy++
			}
		}
	}
	if allocated > 0 {
		out = append(out, fmt.Sprintf("DCGM data (%s) covers %.1f%% of allocated GPU-hours (%.1f of %.1f h)",
			orNone(g.metric), 100*measured/allocated, measured/3600, allocated/3600))
	}
	if len(silent) > 0 {
		out = append(out, fmt.Sprintf("no DCGM series from %d node(s) running GPU pods (%s): exporter down or not scraped; their GPU pods are unmeasured",
			len(silent), list(silent)))
	}
	if gappy > 0 {
		out = append(out, fmt.Sprintf("%d GPU holding(s) have DCGM gaps over more than 10%% of their life (stale exporter or scrape failures)", gappy))
	}
	return out
}

func counterNote(u *ctrUsage) []string {
	resets := 0
	for _, c := range u.ctrs {
		resets += c.resets
	}
	if resets == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d CPU counter reset(s) (container restarts) handled", resets)}
}

// unitFraction is the unit's share of its GPU as Prepare will set it.
func unitFraction(ref cluster.UnitRef) float64 {
	g := *ref.GPU
	g.Units = append([]cluster.Unit(nil), g.Units...)
	if g.Normalize() != nil {
		return 0
	}
	for _, u := range g.Units {
		if u.ID == ref.Unit.ID {
			return u.Fraction
		}
	}
	return 0
}

// expected are the kube-state-metrics metrics every cluster has series of
// (for every node, for every pod, for every container with requests),
// with what their absence changes. kube_pod_info, without which there is
// nothing to report, is required (usable).
var expected = []struct{ metric, effect string }{
	{"kube_node_labels", "node labels (instance type, region, capacity type, GPU model and count) are unknown, so nodes cannot be priced and GPUs are counted from DCGM only"},
	{"kube_node_status_allocatable", "node CPU and memory capacity are unknown"},
	{"kube_node_created", "node creation times are unknown, so nodes count from the window's start"},
	{"kube_pod_owner", "pod owners are unknown, so every pod is its own workload"},
	{"kube_pod_labels", "pod labels are unknown, so --by label:KEY puts every pod in one group"},
	{"kube_pod_start_time", "pod start times are estimated as one info step before kube_pod_info's first sighting (the earliest start its sightings allow; cut at the end of the GPU unit's previous holder)"},
}

// missing says, one sentence each, what the snapshot lacks and which
// figures that changes: expected series that are absent, and usage that
// failed requests left out.
func (r *reader) missing(a assembly) []string {
	out := missingFamilies(a)
	for _, e := range expected {
		fs := a.nodeFacts
		if strings.HasPrefix(e.metric, "kube_pod_") {
			fs = a.podFacts
		}
		if fs.facts[e.metric].len() == 0 {
			out = append(out, fmt.Sprintf("no %s series in the window: %s", e.metric, e.effect))
		}
	}
	if a.podFacts.facts["kube_pod_container_resource_requests"].len() == 0 {
		out = append(out, requestsMissing(a.podFacts.gpuFromLimits))
	}
	if s := failedUsage(a.gpu.failed, a.gpu.queries, "DCGM usage",
		"their GPU pods are unmeasured (neither active nor idle), so utilization and idle cost cover the measured pods only"); s != "" {
		out = append(out, s)
	}
	if s := failedUsage(a.ctr.failed, a.ctr.queries, "cAdvisor usage",
		"their containers' CPU and memory cost counts requests only, and recommendations have no usage for them"); s != "" {
		out = append(out, s)
	}
	if a.neuron != nil {
		if s := failedUsage(a.neuron.failed, a.neuron.queries, "neuron-monitor usage",
			"their Neuron devices' holders are unmeasured (neither active nor idle)"); s != "" {
			out = append(out, s)
		}
	}
	if a.gaudi != nil {
		if s := failedUsage(a.gaudi.failed, a.gaudi.queries, "Gaudi exporter usage",
			"their Gaudi devices' holders are unmeasured (neither active nor idle)"); s != "" {
			out = append(out, s)
		}
	}
	if n := len(a.serve.failed); n > 0 {
		out = append(out, fmt.Sprintf("inference-server series (vLLM, Triton) could not be read (%d of %d requests failed; first: %v): request, token and queue counts are missing from the hourly series",
			n, a.serve.queries, a.serve.failed[0].Err))
	}
	return out
}

func requestsMissing(gpuFromLimits bool) string {
	const head = "no kube_pod_container_resource_requests series in the window: container requests are unknown, so CPU and memory cost counts measured usage only (a container without usage data costs $0 for CPU and memory)"
	if gpuFromLimits {
		return head + "; GPU requests are taken from kube_pod_container_resource_limits (equal for GPUs)"
	}
	return head + ", and GPU pods without DCGM data cannot be placed on their GPUs, so their GPU-hours count as unallocated"
}

// failedUsage says which nodes' usage failed requests left out.
func failedUsage(failed []query.Failure, total int, what, effect string) string {
	if len(failed) == 0 {
		return ""
	}
	nodes, others := map[string]bool{}, false
	for _, f := range failed {
		for _, n := range f.Task.Nodes {
			nodes[n] = true
		}
		others = others || f.Task.Nodes == nil
	}
	var where []string
	if len(nodes) > 0 {
		where = append(where, fmt.Sprintf("%d node(s) (%s)", len(nodes), list(nodes)))
	}
	if others {
		where = append(where, "hosts whose labels count no GPUs")
	}
	return fmt.Sprintf("%s of %s could not be read (%d of %d requests failed; first: %v): %s",
		what, strings.Join(where, " and "), len(failed), total, failed[0].Err, effect)
}

func errorsOf(fs []query.Failure) []error {
	out := make([]error, len(fs))
	for i, f := range fs {
		out[i] = f.Err
	}
	return out
}

func list(set map[string]bool) string {
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
