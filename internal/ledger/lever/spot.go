package lever

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/nodeprice"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// spotLever moves on-demand nodes whose GPU pods at the window's end are
// all checkpointed training jobs to spot capacity (docs/capacity.md): the
// node's rate becomes the catalog's spot price over (1 − expected
// rework), rework = interruptions per hour × (half the checkpoint interval
// + the restart). The interruption rate is the instance family's from the
// table in package capacity, or the window's observed rate when higher.
// When a spot GPU node was interrupted more than 3 times a week in the
// window (interruptions ÷ spot node-hours: the seeds' threshold, per
// node), spot is not widened and every candidate is not counted.
type spotLever struct{}

func (spotLever) Name() string { return LeverSpot }

const (
	keySpot    = LeverSpot + ":" + KindSpot + ":"
	genSpot    = "gpuwise generate spot -d out/"
	spotPolicy = "docs/capacity.md"
)

func (spotLever) Propose(m *Model, env *Env) (Proposal, error) {
	var prop Proposal
	s := env.Snapshot
	obs := capacity.ObserveSpot(s.View())
	cands, nc := spotCandidates(m, s)
	prop.NotCounted = nc
	if perNode := perNodeWeek(obs); perNode > capacity.SpotWidenLimit {
		for _, c := range cands {
			prop.NotCounted = append(prop.NotCounted, NotCounted{Lever: LeverSpot, Target: c.node.Name,
				Reason: fmt.Sprintf("spot GPU nodes were interrupted %.1f times a week per node in the window (%d interruptions over %.0f spot node-hours; more than %g a node a week): do not widen spot",
					perNode, obs.Interruptions, obs.NodeHours, capacity.SpotWidenLimit)})
		}
		return prop, nil
	}
	byPool := map[string][]spotNode{}
	var pools []string
	for _, c := range cands {
		sn, why := spotPrice(env, s, c, obs)
		if why != "" {
			prop.NotCounted = append(prop.NotCounted, NotCounted{Lever: LeverSpot, Target: c.node.Name, Reason: why})
			continue
		}
		if byPool[c.node.Pool] == nil {
			pools = append(pools, c.node.Pool)
		}
		byPool[c.node.Pool] = append(byPool[c.node.Pool], sn)
	}
	slices.Sort(pools)
	for _, pool := range pools {
		prop.Changes = append(prop.Changes, spotChange(pool, byPool[pool], obs, env))
	}
	return prop, nil
}

// perNodeWeek is the window's spot interruptions a week per spot GPU
// node (interruptions ÷ spot node-hours × 168): the rate one node
// suffers, the same on a cluster of 2 spot nodes as on one of 40 — the
// seeds' "3 a week" limit is per node, not per cluster.
func perNodeWeek(o capacity.SpotObserved) float64 {
	return o.Rate() * 7 * 24
}

// spotCandidate is an on-demand node of the model whose GPU pods at the
// window's end are checkpointed training jobs.
type spotCandidate struct {
	node       *Node
	cluster    *cluster.Node
	checkpoint time.Duration
	workloads  []string
}

// spotNode is a candidate with its spot rate.
type spotNode struct {
	spotCandidate
	spotUSD, effectiveUSD, rework, rate float64
	// spotDate and nodeDate say where the spot price and the node's own
	// price came from, and their dates (the confidence names both).
	spotDate, nodeDate string
}

// spotCandidates finds the candidates; training nodes that do not qualify
// are not counted, with why.
func spotCandidates(m *Model, s *cluster.Prepared) ([]spotCandidate, []NotCounted) {
	nodes := map[string]*cluster.Node{}
	for i := range s.Nodes() {
		nodes[s.Nodes()[i].Name] = &s.Nodes()[i]
	}
	pods := map[string][]*cluster.Pod{}
	for i := range s.Pods() {
		p := &s.Pods()[i]
		if len(p.GPUs) > 0 && (p.End.IsZero() || !p.End.Before(s.Window().End)) {
			pods[p.Node] = append(pods[p.Node], p)
		}
	}
	var out []spotCandidate
	var nc []NotCounted
	for i := range m.Nodes {
		n := &m.Nodes[i]
		if !n.Kept || !n.Priced || n.Capacity == cluster.Spot || len(pods[n.Name]) == 0 || nodes[n.Name] == nil {
			continue
		}
		c, why := candidate(n, nodes[n.Name], pods[n.Name])
		switch {
		case why == "":
			out = append(out, c)
		case c.workloads != nil: // training pods, but not all of them tolerate it
			nc = append(nc, NotCounted{Lever: LeverSpot, Target: n.Name, Reason: why})
		}
	}
	return out, nc
}

// candidate checks every GPU pod of a node; workloads is set when the node
// runs training at all.
func candidate(n *Node, cn *cluster.Node, pods []*cluster.Pod) (spotCandidate, string) {
	c := spotCandidate{node: n, cluster: cn}
	var why string
	training := false
	for _, p := range pods {
		ok, reason := capacity.SpotTolerant(p)
		training = training || slices.Contains(capacity.TrainingKinds, p.Owner.Kind)
		if !ok && why == "" {
			why = p.WorkloadKey() + ": " + reason
		}
		if !slices.Contains(c.workloads, p.WorkloadKey()) {
			c.workloads = append(c.workloads, p.WorkloadKey())
		}
		c.checkpoint = max(c.checkpoint, time.Duration(p.CheckpointSeconds)*time.Second)
	}
	if !training {
		c.workloads = nil
		return c, "no training"
	}
	return c, why
}

// spotPrice prices a candidate on spot: the catalog's spot price for its
// instance type over (1 − expected rework).
func spotPrice(env *Env, s *cluster.Prepared, c spotCandidate, obs capacity.SpotObserved) (spotNode, string) {
	spec := nodeprice.Spec(c.cluster)
	spec.Capacity = pricing.Spot
	np, err := env.Prices.Price(spec)
	if err != nil || !strings.Contains(np.Source, "spot") || np.NodeUSDPerHour >= c.node.USDPerHour {
		return spotNode{}, fmt.Sprintf("no spot price below on-demand for %s in the catalog (%s)", c.cluster.InstanceType, c.cluster.Region)
	}
	rate := max(capacity.InterruptionRate(c.cluster.InstanceType), obs.Rate())
	rework := capacity.Rework(rate, c.checkpoint)
	if rework >= 0.5 {
		return spotNode{}, fmt.Sprintf("expected rework %.0f%% of its hours: checkpoint more often", rework*100)
	}
	eff := np.NodeUSDPerHour / (1 - rework)
	if eff >= c.node.USDPerHour {
		return spotNode{}, "spot with the expected rework costs no less than on-demand"
	}
	cur, _ := env.Prices.Price(nodeprice.Spec(c.cluster))
	return spotNode{spotCandidate: c, spotUSD: np.NodeUSDPerHour, effectiveUSD: eff, rework: rework, rate: rate,
		spotDate: priceDate(np), nodeDate: priceDate(cur)}, ""
}

// spotChange moves a pool's candidates to spot.
func spotChange(pool string, ns []spotNode, obs capacity.SpotObserved, env *Env) Change {
	slices.SortFunc(ns, func(a, b spotNode) int { return cmp.Compare(a.node.Name, b.node.Name) })
	var names, wls []string
	var od, eff, maxRework, rate float64
	var spotDates, nodeDates []string
	for _, n := range ns {
		if !slices.Contains(spotDates, n.spotDate) {
			spotDates = append(spotDates, n.spotDate)
		}
		if !slices.Contains(nodeDates, n.nodeDate) {
			nodeDates = append(nodeDates, n.nodeDate)
		}
		names = append(names, n.node.Name)
		od, eff = od+n.node.USDPerHour, eff+n.effectiveUSD
		maxRework, rate = max(maxRework, n.rework), max(rate, n.rate)
		for _, w := range n.workloads {
			if !slices.Contains(wls, w) {
				wls = append(wls, w)
			}
		}
	}
	slices.Sort(wls)
	a := Action{Key: keySpot + pool, Kind: KindSpot, Target: pool,
		Targets: append([]Target{{Kind: "pool", Name: pool}}, nodeTargets(names)...),
		Title:   fmt.Sprintf("Run %d checkpointed training node(s) of pool %s on spot", len(ns), pool),
		Why: fmt.Sprintf("%s run only checkpointed training (%s); on spot at $%.2f/h instead of $%.2f/h on demand, with %.2f%% of the hours expected lost to interruptions (%.4f an hour × (half the checkpoint interval + %v restart))",
			ListText(names), ListText(wls), eff/float64(len(ns)), od/float64(len(ns)), maxRework*100, rate, capacity.SpotRestart),
		EffortHours: effortAction + effortSpotWorkload*float64(len(wls)),
		Evidence: []Evidence{
			{Name: "nodes", Value: float64(len(ns)), Unit: "nodes"}, {Name: "on_demand_usd_per_hour", Value: round2(od), Unit: "USD/hour"},
			{Name: "spot_effective_usd_per_hour", Value: round2(eff), Unit: "USD/hour"}, {Name: "expected_rework", Value: round2(maxRework * 100), Unit: "%"},
			{Name: "spot_interruptions_per_week", Value: round2(obs.PerWeek), Unit: "per week"},
			{Name: "spot_interruptions_per_node_week", Value: round2(perNodeWeek(obs)), Unit: "per node per week"},
			{Name: "spot_interruptions_widen_limit", Value: capacity.SpotWidenLimit, Unit: "per node per week"},
		},
		Artefacts: []Artefact{{Command: genSpot, Files: nodePoolFiles(env.Snapshot, names, ns[0].node.GPUModel, "-spot")}},
	}
	slices.Sort(spotDates)
	slices.Sort(nodeDates)
	a.Confidence, a.ConfidenceReason = Medium, fmt.Sprintf("compares the spot price (%s) with the nodes' price (%s), with an assumed interruption rate (%s); spot capacity for the instance type is not guaranteed",
		strings.Join(spotDates, "; "), strings.Join(nodeDates, "; "), spotPolicy)
	a.Risk, a.RiskReason = Medium, "interrupted jobs resume from their last checkpoint; recovery over 15 minutes or more than 3 interruptions a week means: do not widen"
	_ = env
	return Change{Action: a, Apply: func(m *Model) {
		for _, n := range ns {
			if mn := m.Node(n.node.Name); mn != nil {
				mn.USDPerHour, mn.Capacity = n.effectiveUSD, cluster.Spot
			}
		}
	}}
}
