package audit

import (
	"path"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// HoursPerMonth converts hourly prices to monthly impact.
const HoursPerMonth = cost.HoursPerMonth

// GPUTaintKey is the taint key GPU pools are expected to carry.
const GPUTaintKey = "nvidia.com/gpu"

// Options tune the rules.
type Options struct {
	// Prices prices nodes for the $/month impact; nil leaves it unpriced.
	Prices *pricing.Catalog
	// NodeAgents are path.Match globs over "namespace/owner-name" (and
	// "namespace/pod-name") of pods that belong on every node.
	NodeAgents []string
	// DevNamespaces are globs over namespace names where whole GPUs are
	// flagged.
	DevNamespaces []string
}

// DefaultNodeAgents are the GPU stack's and common monitoring agents.
var DefaultNodeAgents = []string{
	"*/nvidia-device-plugin*", "*/nvidia-dcgm*", "*/dcgm-exporter*", "*/nvidia-container-toolkit*",
	"*/gpu-feature-discovery*", "*/nvidia-operator-validator*", "*/nvidia-mig-manager*",
	"*/nvidia-driver*", "*/gpu-operator*", "*/node-feature-discovery*", "*/nvidia-node-status-exporter*",
	"*/*node-exporter*", "*/kube-proxy*", "*/hami-*", "kube-system/*",
}

// DefaultDevNamespaces match the usual dev and notebook namespaces.
var DefaultDevNamespaces = []string{"dev", "dev-*", "*-dev", "*notebook*", "jupyter*", "sandbox*", "playground*"}

// DefaultOptions returns the documented defaults.
func DefaultOptions(prices *pricing.Catalog) Options {
	return Options{Prices: prices, NodeAgents: DefaultNodeAgents, DevNamespaces: DefaultDevNamespaces}
}

// auditor holds the indexes every rule reads.
type auditor struct {
	s      *cluster.Snapshot
	o      Options
	nodes  map[string]*cluster.Node
	prices map[string]*pricing.NodePrice
	kinds  map[string]cluster.UnitKind
	notes  []string
}

// Run checks every rule against s. Findings come back sorted by
// severity (worst first), then money at stake (most first; unpriced
// after priced), then rule, then object.
func Run(s *cluster.Snapshot, o Options) *Result {
	a := &auditor{s: s, o: o, nodes: map[string]*cluster.Node{}, prices: map[string]*pricing.NodePrice{}}
	for i := range s.Nodes {
		a.nodes[s.Nodes[i].Name] = &s.Nodes[i]
	}
	var fs []Finding
	fs = append(fs, a.nodeRules()...)
	fs = append(fs, a.podRules()...)
	sortFindings(fs)
	if fs == nil {
		fs = []Finding{}
	}
	notes := append(append([]string{}, s.Notes...), a.notes...)
	return &Result{Source: s.Source, Findings: fs, Summary: summarize(fs), Notes: notes}
}

// sortFindings orders findings worst first, then by money at stake (most
// first; unpriced after priced), then rule, then object.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Severity != fs[j].Severity {
			return fs[i].Severity > fs[j].Severity
		}
		if mi, mj := monthly(fs[i]), monthly(fs[j]); mi != mj {
			return mi > mj
		}
		if fs[i].Rule != fs[j].Rule {
			return fs[i].Rule < fs[j].Rule
		}
		return fs[i].Object < fs[j].Object
	})
}

// monthly is the finding's $/month, or -1 when it has none, so priced
// findings sort first.
func monthly(f Finding) float64 {
	if f.MonthlyUSD == nil {
		return -1
	}
	return *f.MonthlyUSD
}

// price returns the node's price, nil when unpriced (noted once).
func (a *auditor) price(n *cluster.Node) *pricing.NodePrice {
	if p, seen := a.prices[n.Name]; seen {
		return p
	}
	var out *pricing.NodePrice
	if a.o.Prices != nil {
		p, err := a.o.Prices.Price(cost.NodeSpec(n))
		if err == nil {
			out = &p
		} else {
			a.notes = append(a.notes, "impact not priced: "+err.Error())
		}
	}
	a.prices[n.Name] = out
	return out
}

func usd(v float64) *float64 { return &v }

// gpuNodes are nodes with at least one GPU.
func (a *auditor) gpuNodes() []*cluster.Node {
	var out []*cluster.Node
	for i := range a.s.Nodes {
		if a.s.Nodes[i].HasGPUs() {
			out = append(out, &a.s.Nodes[i])
		}
	}
	return out
}

// hasGPUTaint reports a NoSchedule taint meant to keep non-GPU pods off:
// the nvidia.com/gpu key or any key naming a GPU.
func hasGPUTaint(n *cluster.Node) bool {
	for _, t := range n.Taints {
		if t.Effect == "NoSchedule" && (t.Key == GPUTaintKey || strings.Contains(strings.ToLower(t.Key), "gpu")) {
			return true
		}
	}
	return false
}

func matchAny(globs []string, s string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, s); ok {
			return true
		}
	}
	return false
}
