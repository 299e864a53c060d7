package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// ClusterLedger is one cluster's own savings ledger, when advise reads
// several clusters' snapshots (--from NAME=FILE, repeated): the levers
// never share a commitment, a spare node or a move between clusters, so
// the savings of the whole are the sum of the clusters'.
type ClusterLedger struct {
	Cluster string         `json:"cluster"`
	Ledger  *ledger.Ledger `json:"ledger"`
}

// clusterNames are the clusters a merged snapshot's nodes name
// (cluster.ClusterLabel), sorted; none for one cluster's snapshot.
func clusterNames(s *cluster.Prepared) []string {
	var out []string
	for i := range s.Nodes() {
		if n := s.Nodes()[i].Labels[cluster.ClusterLabel]; n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// splitCluster is the part of a merged snapshot (readClusters) that is
// cluster name's, as its own snapshot read it: its nodes (without the
// cluster label, alive ones not ended at the window's end), the pods on
// them or in its namespaces, its notes, every name without the "name/"
// prefix addCluster gave it, so that its ledger is the one advise gives
// that cluster alone.
func splitCluster(s *cluster.Snapshot, name string) *cluster.Snapshot {
	out := &cluster.Snapshot{Window: s.Window, Source: s.Source, ActivityMetric: s.ActivityMetric, Unknown: s.Unknown}
	for _, src := range strings.Split(s.Source, "; ") {
		if rest, ok := strings.CutPrefix(src, name+": "); ok {
			out.Source = rest
		}
	}
	px := name + "/"
	un := func(v string) string { return strings.TrimPrefix(v, px) }
	nodes := map[string]bool{}
	for _, n := range s.Nodes {
		if n.Labels[cluster.ClusterLabel] != name {
			continue
		}
		nodes[n.Name] = true
		n.Name = un(n.Name)
		n.Labels = maps.Clone(n.Labels)
		delete(n.Labels, cluster.ClusterLabel)
		if n.Deleted.Equal(s.Window.End) {
			n.Deleted = time.Time{} // addCluster ends alive nodes at the window's end
		}
		n.GPUs = slices.Clone(n.GPUs)
		for j := range n.GPUs {
			n.GPUs[j].Units = slices.Clone(n.GPUs[j].Units)
			for k := range n.GPUs[j].Units {
				n.GPUs[j].Units[k].ID = un(n.GPUs[j].Units[k].ID)
			}
		}
		out.Nodes = append(out.Nodes, n)
	}
	for _, p := range s.Pods {
		if !nodes[p.Node] && (p.Node != "" || !strings.HasPrefix(p.Namespace, px)) {
			continue
		}
		p.Namespace, p.Node = un(p.Namespace), un(p.Node)
		p.GPUs = slices.Clone(p.GPUs)
		for j := range p.GPUs {
			p.GPUs[j].UnitID = un(p.GPUs[j].UnitID)
		}
		out.Pods = append(out.Pods, p)
	}
	if s.Hourly != nil {
		out.Hourly = &cluster.Hourly{IdleThreshold: s.Hourly.IdleThreshold}
		for _, w := range s.Hourly.Workloads {
			if rest, ok := strings.CutPrefix(w.Workload, px); ok {
				w.Workload = rest
				out.Hourly.Workloads = append(out.Hourly.Workloads, w)
			}
		}
	}
	for _, n := range s.Notes {
		if rest, ok := strings.CutPrefix(n, name+": "); ok {
			out.Notes = append(out.Notes, rest)
		}
	}
	return out
}

// perCluster builds each cluster's own ledger from a merged snapshot:
// right-sized and planned on that cluster alone, the prices (a bill)
// bound to that cluster's own nodes.
func perCluster(s *cluster.Prepared, pol rightsize.Policy, prices *Prices, opts ledger.Options) ([]ClusterLedger, error) {
	var out []ClusterLedger
	err := eachCluster(s, prices, func(name string, prep *cluster.Prepared, catalog *nodePrices) error {
		recs, err := rightsize.Recommend(prep, pol, catalog)
		if err != nil {
			return fmt.Errorf("cluster %s: recommending: %w", name, err)
		}
		l, err := ledger.Build(ledger.Input{Snapshot: prep, Prices: catalog, Recs: recs, Groundwork: groundwork(prep, catalog)}, opts)
		if err != nil {
			return fmt.Errorf("cluster %s: building the savings ledger: %w", name, err)
		}
		out = append(out, ClusterLedger{Cluster: name, Ledger: l})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachCluster calls fn for each cluster of a merged snapshot, split back
// to its own names (splitCluster), prepared alone, with the prices (a
// bill) bound to that cluster's own nodes.
func eachCluster(s *cluster.Prepared, prices *Prices, fn func(name string, prep *cluster.Prepared, catalog *nodePrices) error) error {
	for _, name := range clusterNames(s) {
		prep, err := Prepare(splitCluster(s.View(), name))
		if err != nil {
			return fmt.Errorf("cluster %s: %w", name, err)
		}
		catalog, err := prices.forSnapshot(prep)
		if err != nil {
			return err
		}
		if err := fn(name, prep, catalog); err != nil {
			return err
		}
	}
	return nil
}
