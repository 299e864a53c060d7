package audit

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/nodeprice"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// GPUTaintKey is the taint key GPU pools are expected to carry, and
// GPUTaint the one spelling gpuwise writes everywhere (audit fixes,
// generated NodePools, the plan): nvidia.com/gpu=true:NoSchedule.
const (
	GPUTaintKey   = "nvidia.com/gpu"
	GPUTaintValue = "true"
	GPUTaint      = GPUTaintKey + "=" + GPUTaintValue + ":NoSchedule"
)

// Options tune the rules: settings only (the prices are Run's own
// argument, loaded by the caller).
type Options struct {
	// NodeAgents are path.Match globs over "namespace/owner-name" (and
	// "namespace/pod-name") of pods that belong on every node.
	NodeAgents []string
	// DevNamespaces are globs over namespace names where whole GPUs are
	// flagged.
	DevNamespaces []string
}

// DefaultNodeAgents are the GPU stack's and common monitoring agents
// (cluster.DefaultNodeAgents, shared with the admission policies).
var DefaultNodeAgents = cluster.DefaultNodeAgents

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{NodeAgents: DefaultNodeAgents, DevNamespaces: cluster.DefaultDevNamespaces}
}

// Validate lists every malformed glob, naming its option.
func (o Options) Validate() error {
	var probs []string
	for name, globs := range map[string][]string{"node agents": o.NodeAgents, "dev namespaces": o.DevNamespaces} {
		for _, g := range globs {
			if _, err := path.Match(g, ""); err != nil {
				probs = append(probs, fmt.Sprintf("%s: %q is not a valid glob", name, g))
			}
		}
	}
	if len(probs) == 0 {
		return nil
	}
	sort.Strings(probs)
	return errors.New(strings.Join(probs, "; "))
}

// auditor holds the indexes every rule reads.
type auditor struct {
	s        *cluster.Prepared
	o        Options
	prices   *nodeprice.Memo
	unpriced map[string]bool // nodes whose missing price is noted
	kinds    map[string]cluster.UnitKind
	notes    []string
	unknown  map[string]*undecidedRule // rules left undecided (unknown.go)
}

// Run checks every rule against s, pricing the $/month at stake with
// prices (nil leaves it unpriced). Findings come back sorted by severity
// (worst first), then money at stake (most first; unpriced after priced),
// then rule, then object.
func Run(s *cluster.Prepared, prices pricing.Pricer, o Options) *Result {
	a := &auditor{s: s, o: o, unpriced: map[string]bool{}}
	if prices != nil {
		a.prices = nodeprice.New(prices)
	}
	var fs []Finding
	fs = append(fs, a.nodeRules()...)
	fs = append(fs, a.podRules()...)
	sortFindings(fs)
	if fs == nil {
		fs = []Finding{}
	}
	undecided, unknownNotes := a.undecidedList()
	notes := append(append(append([]string{}, s.Notes()...), a.notes...), unknownNotes...)
	return &Result{Source: s.Source(), Findings: fs, Summary: summarize(fs), Notes: notes, Undecided: undecided}
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
	if a.prices == nil {
		return nil
	}
	p, err := a.prices.Node(n)
	if err == nil {
		return &p
	}
	if !a.unpriced[n.Name] {
		a.unpriced[n.Name] = true
		a.notes = append(a.notes, "impact not priced: "+err.Error())
	}
	return nil
}

func usd(v float64) *float64 { return &v }

// gpuNodes are nodes with at least one GPU.
func (a *auditor) gpuNodes() []*cluster.Node {
	var out []*cluster.Node
	for i := range a.s.Nodes() {
		if a.s.Nodes()[i].HasGPUs() {
			out = append(out, &a.s.Nodes()[i])
		}
	}
	return out
}

// hasGPUTaint reports a NoSchedule taint meant to keep non-GPU pods off:
// the nvidia.com/gpu key, any key naming a GPU, or another accelerator
// vendor's resource name (aws.amazon.com/neuron, habana.ai/gaudi).
func hasGPUTaint(n *cluster.Node) bool {
	for _, t := range n.Taints {
		if t.Effect == "NoSchedule" && (t.Key == GPUTaintKey || strings.Contains(strings.ToLower(t.Key), "gpu") || cluster.IsAcceleratorResource(t.Key)) {
			return true
		}
	}
	return false
}
