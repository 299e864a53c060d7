package billing

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/pricing"
)

// NodeCost is gpuwise's cost of one GPU node over the window, from the
// cost engine.
type NodeCost struct {
	Node        string
	Hours       float64
	USDPerHour  float64
	Priced      bool
	PriceSource string
	PriceOrigin string
	PriceAsOf   string
}

// Reconciliation is the bill against gpuwise's node cost over one
// window (report's "reconciliation").
type Reconciliation struct {
	Files []FileInfo `json:"files"`
	// BillUSD is every compute charge in the bill that falls in the
	// window (pro rata), in or out of the cluster; MatchedUSD the part
	// charged to the cluster's GPU nodes, CPUNodesUSD to its CPU-only
	// nodes (outside the cost report), UnmatchedBillUSD the rest.
	BillUSD          float64 `json:"bill_usd"`
	MatchedUSD       float64 `json:"matched_usd"`
	CPUNodesUSD      float64 `json:"cpu_nodes_usd"`
	UnmatchedBillUSD float64 `json:"unmatched_bill_usd"`
	// GPUwiseMatchedUSD is gpuwise's cost of the billed node-hours;
	// DifferenceUSD = GPUwiseMatchedUSD - MatchedUSD (0 to the cent when
	// the bill prices them).
	GPUwiseMatchedUSD float64 `json:"gpuwise_matched_usd"`
	DifferenceUSD     float64 `json:"difference_usd"`
	// GPUwiseNodeUSD is the cost report's node cost (every GPU node, all
	// its hours); UnbilledNodeUSD the part not covered by the bill
	// (nodes without a bill line, hours the bill does not cover).
	GPUwiseNodeUSD  float64 `json:"gpuwise_node_usd"`
	UnbilledNodeUSD float64 `json:"unbilled_node_usd"`
	// NodesWithoutBill are GPU nodes no bill line covers;
	// NodesWithoutProviderID those of them with no cloud providerID to
	// match (on-prem, kind): never on a cloud bill.
	NodesWithoutBill       []string `json:"nodes_without_bill"`
	NodesWithoutProviderID []string `json:"nodes_without_provider_id"`
	// UnmatchedGPULines are billed resources with GPU instance types that
	// no node of the cluster claims: nodes that left, another cluster.
	UnmatchedGPULines []UnmatchedLine `json:"unmatched_gpu_lines"`
	// UnmatchedOtherUSD is the unmatched compute cost of other instances.
	UnmatchedOtherUSD float64 `json:"unmatched_other_usd"`
	// CommittedUSD is the matched cost commitments (savings plans,
	// reservations) covered; CommitmentCoverage its share of MatchedUSD.
	CommittedUSD       float64  `json:"committed_usd"`
	CommitmentCoverage *float64 `json:"commitment_coverage"`
	// UnusedCommitmentUSD is the commitments' unused cost in the window:
	// never a node's (it sits on the commitment's own id).
	UnusedCommitmentUSD float64            `json:"unused_commitment_usd"`
	UnusedCommitments   []UnusedCommitment `json:"unused_commitments,omitempty"`
	Nodes               []NodeReconciled   `json:"nodes"`
	// Split is AWS's split cost allocation per namespace beside gpuwise's
	// (CUR 2.0 with split cost allocation data only).
	Split     []NamespaceSplit `json:"split,omitempty"`
	SplitNote string           `json:"split_note,omitempty"`
}

// UnmatchedLine is a billed GPU instance no node claims.
type UnmatchedLine struct {
	ResourceID   string  `json:"resource_id"`
	Provider     string  `json:"provider"`
	InstanceType string  `json:"instance_type"`
	USD          float64 `json:"usd"`
}

// UnusedCommitment is one commitment's unused cost in the window.
type UnusedCommitment struct {
	ID  string  `json:"id"`
	USD float64 `json:"usd"`
}

// NodeReconciled is one GPU node: its bill against gpuwise's cost.
type NodeReconciled struct {
	Node         string  `json:"node"`
	ResourceID   string  `json:"resource_id,omitempty"`
	Hours        float64 `json:"hours"`
	BilledHours  float64 `json:"billed_hours"`
	BillUSD      float64 `json:"bill_usd"`
	GPUwiseUSD   float64 `json:"gpuwise_usd"`
	PriceSource  string  `json:"price_source"`
	PriceOrigin  string  `json:"price_origin"`
	PriceAsOf    string  `json:"price_as_of,omitempty"`
	Committed    bool    `json:"committed,omitempty"`
	Spot         bool    `json:"spot,omitempty"`
	SharedCharge bool    `json:"shared_charge,omitempty"`
}

// NamespaceSplit is one namespace's cost two ways.
type NamespaceSplit struct {
	Namespace  string  `json:"namespace"`
	AWSUSD     float64 `json:"aws_split_usd"`
	GPUwiseUSD float64 `json:"gpuwise_usd"`
}

// IsGPU says whether a provider's instance type has GPUs (the catalog
// knows); nil: only instance types matched to GPU nodes count.
type IsGPU func(provider, instanceType string) bool

// Reconcile sets the match against the cost engine's node costs.
// nsCost is gpuwise's cost per namespace (for the split comparison).
func (m *Match) Reconcile(costs []NodeCost, nsCost map[string]float64, isGPU IsGPU) *Reconciliation {
	rc := &Reconciliation{Files: m.Bill.Files, NodesWithoutBill: []string{}, NodesWithoutProviderID: []string{}, UnmatchedGPULines: []UnmatchedLine{}, Nodes: []NodeReconciled{}}
	// Sums in one order (resources by provider and id, nodes by name):
	// the same bill gives the same bytes, to the last digit.
	resources := slices.SortedFunc(maps.Keys(m.resourceUSD), func(a, b *Resource) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.ID, b.ID), cmp.Compare(a.InstanceType, b.InstanceType))
	})
	for _, r := range resources {
		rc.BillUSD += m.resourceUSD[r]
	}
	byName := map[string]NodeCost{}
	for _, c := range costs {
		byName[c.Node] = c
	}
	for _, name := range slices.Sorted(maps.Keys(m.nodes)) {
		nb := m.nodes[name]
		if !nb.GPU {
			rc.CPUNodesUSD += nb.USD
			continue
		}
		c, ok := byName[name]
		if !ok {
			continue
		}
		rc.MatchedUSD += nb.USD
		rc.CommittedUSD += nb.CommittedUSD
		gw := c.USDPerHour * c.Hours
		if c.Priced {
			// A bill-priced node's cost is its billed hours at the bill
			// plus its other hours at the fallback rate (Pricer).
			rate := c.USDPerHour
			if c.PriceOrigin == pricing.OriginBill {
				m.mu.Lock()
				rate = m.fallback[name]
				m.mu.Unlock()
			}
			unbilled := rate * max(c.Hours-nb.BilledHours, 0)
			rc.GPUwiseNodeUSD += gw
			rc.UnbilledNodeUSD += unbilled
			rc.GPUwiseMatchedUSD += gw - unbilled
		}
		if nb.BilledHours <= 0 {
			rc.NodesWithoutBill = append(rc.NodesWithoutBill, name)
			if !nb.Matchable {
				rc.NodesWithoutProviderID = append(rc.NodesWithoutProviderID, name)
			}
		}
		rc.Nodes = append(rc.Nodes, NodeReconciled{Node: name, ResourceID: nb.ResourceID, Hours: c.Hours, BilledHours: nb.BilledHours,
			BillUSD: nb.USD, GPUwiseUSD: gw, PriceSource: c.PriceSource, PriceOrigin: c.PriceOrigin, PriceAsOf: c.PriceAsOf,
			Committed: nb.CommittedUSD > 0, Spot: nb.Spot, SharedCharge: nb.Shared})
	}
	rc.DifferenceUSD = rc.GPUwiseMatchedUSD - rc.MatchedUSD
	for _, r := range resources {
		left := m.resourceUSD[r] - m.attributedUSD[r]
		if math.Abs(left) < 1e-9 {
			continue
		}
		rc.UnmatchedBillUSD += left
		if isGPU != nil && r.InstanceType != "" && isGPU(r.Provider, r.InstanceType) {
			rc.UnmatchedGPULines = append(rc.UnmatchedGPULines, UnmatchedLine{ResourceID: r.ID, Provider: r.Provider, InstanceType: r.InstanceType, USD: left})
		} else {
			rc.UnmatchedOtherUSD += left
		}
	}
	if rc.MatchedUSD > 0 {
		v := rc.CommittedUSD / rc.MatchedUSD
		rc.CommitmentCoverage = &v
	}
	unused := m.unusedUSD()
	for _, id := range slices.Sorted(maps.Keys(unused)) {
		usd := unused[id]
		rc.UnusedCommitmentUSD += usd
		rc.UnusedCommitments = append(rc.UnusedCommitments, UnusedCommitment{ID: id, USD: usd})
	}
	if split := m.splitUSD(); len(split) > 0 {
		for ns, usd := range split {
			rc.Split = append(rc.Split, NamespaceSplit{Namespace: ns, AWSUSD: usd, GPUwiseUSD: nsCost[ns]})
		}
		for ns, usd := range nsCost {
			if _, ok := split[ns]; !ok && usd != 0 {
				rc.Split = append(rc.Split, NamespaceSplit{Namespace: ns, GPUwiseUSD: usd})
			}
		}
		sort.Slice(rc.Split, func(i, j int) bool { return rc.Split[i].Namespace < rc.Split[j].Namespace })
		rc.SplitNote = "AWS splits an instance's amortized cost by each pod's CPU and memory (and GPU) requests or usage, " +
			"whichever is larger, weighting GPU:vCPU:GiB 9:0.9:0.1, and spreads unused capacity over the pods; " +
			"gpuwise charges GPU units held at the node's GPU rate and CPU/memory at reference rates, and keeps unallocated GPU time " +
			"in its own rows (unless --idle-share), so namespaces that hold GPUs idle cost more in gpuwise and CPU-heavy ones more in AWS's split"
	}
	sort.Strings(rc.NodesWithoutBill)
	sort.Strings(rc.NodesWithoutProviderID)
	sort.Slice(rc.Nodes, func(i, j int) bool { return rc.Nodes[i].Node < rc.Nodes[j].Node })
	sort.Slice(rc.UnmatchedGPULines, func(i, j int) bool {
		a, b := rc.UnmatchedGPULines[i], rc.UnmatchedGPULines[j]
		return a.USD > b.USD || (a.USD == b.USD && a.ResourceID < b.ResourceID)
	})
	sort.Slice(rc.UnusedCommitments, func(i, j int) bool { return rc.UnusedCommitments[i].ID < rc.UnusedCommitments[j].ID })
	return rc
}

// Cents rounds dollars to cents, as the reconciliation compares them.
func Cents(v float64) float64 { return math.Round(v*100) / 100 }

// providerCloud maps a FOCUS ProviderName to gpuwise's cloud names.
func providerCloud(provider string) string {
	p := strings.ToLower(provider)
	switch {
	case strings.Contains(p, "aws") || strings.Contains(p, "amazon"):
		return "aws"
	case strings.Contains(p, "microsoft") || strings.Contains(p, "azure"):
		return "azure"
	case strings.Contains(p, "google") || strings.Contains(p, "gcp"):
		return "gcp"
	}
	return ""
}

// Cloud is gpuwise's name for a bill's provider ("aws", "azure", "gcp", "").
func Cloud(provider string) string { return providerCloud(provider) }
