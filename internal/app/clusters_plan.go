package app

import (
	"context"
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// ByCluster is the one --by value advise and plan take: each cluster's
// own ledger or plan, one after the other, with their sum.
const ByCluster = "cluster"

// checkByCluster accepts "" and "cluster": advise and plan group nothing
// else (report and diff group rows; a ledger's actions are not rows).
func checkByCluster(p *problems, by string) {
	if by != "" && by != ByCluster {
		p.add(fmt.Errorf("by: %q: advise and plan split by cluster only (--by cluster); report groups rows by the other keys", by))
	}
}

// ClusterPlan is one cluster's own consolidation plan (plan --by cluster):
// packed on that cluster alone, so the plans' savings add up.
type ClusterPlan struct {
	Cluster string        `json:"cluster"`
	Plan    *packing.Plan `json:"plan"`
}

// soleClusterName names the one cluster of a snapshot that merges none
// (--by cluster on one cluster): a --from file's base name, else
// "default", as the service names its cluster.
func soleClusterName(s *cluster.Prepared, src Source) string {
	if names := clusterNames(s); len(names) == 1 {
		return names[0]
	}
	if src.File != "" {
		return cluster.FileClusterName(src.File)
	}
	return "default"
}

// planPerCluster packs each cluster of a merged snapshot alone: split back
// to its own names (splitCluster), priced on its own nodes, right-sized on
// its own when shapes are recommended.
func (a *App) planPerCluster(s *cluster.Prepared, shapes packing.Shapes, pol rightsize.Policy, prices *Prices) ([]ClusterPlan, error) {
	var out []ClusterPlan
	err := eachCluster(s, prices, func(name string, prep *cluster.Prepared, catalog *nodePrices) error {
		opts := packing.SnapshotOptions{Prices: catalog, Shapes: shapes}
		if shapes == packing.RecommendedShapes {
			recs, err := rightsize.Recommend(prep, pol, catalog)
			if err != nil {
				return fmt.Errorf("cluster %s: recommending: %w", name, err)
			}
			opts.Recs = ledger.PackingRecommendations(recs)
		}
		prob, err := packing.FromSnapshot(prep, opts)
		if err != nil {
			return fmt.Errorf("cluster %s: %w", name, err)
		}
		pl, err := packing.SolveReporting(prob, packing.Progress(a.progress))
		if err != nil {
			return withKind(Input, fmt.Errorf("cluster %s: %w", name, err))
		}
		out = append(out, ClusterPlan{Cluster: name, Plan: pl})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// planByCluster is Plan's --by cluster: each cluster's own plan; one
// snapshot of one cluster is one section, its plan the whole plan.
func (a *App) planByCluster(_ context.Context, req PlanRequest, res *PlanResult, pol rightsize.Policy) error {
	if len(clusterNames(res.Snapshot)) < 2 {
		res.Clusters = []ClusterPlan{{Cluster: soleClusterName(res.Snapshot, req.Source), Plan: res.Plan}}
		return nil
	}
	cl, err := a.planPerCluster(res.Snapshot, req.Shapes, pol, req.Prices)
	if err != nil {
		return err
	}
	res.Clusters = cl
	return nil
}
