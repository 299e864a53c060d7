package app

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// TestClustersNeverMixed (issue 26.4), a property over seeds: two
// clusters' snapshots merged (--from a=… --from b=…) give each cluster the
// ledger it has alone, so the merged savings are the sum of the clusters'
// own to the cent; the plan moves no pod from one cluster to the other
// and saves what the two plans alone save.
func TestClustersNeverMixed(t *testing.T) {
	t.Parallel()
	a := testApp()
	ctx := context.Background()
	for _, seeds := range [][2]uint64{{1, 2}, {5, 9}, {13, 4}} {
		dir := t.TempDir()
		var files []ClusterFile
		alone := map[string]ledger.Cents{}
		var planAlone float64
		for i, seed := range seeds {
			cfg := sim.DefaultConfig()
			cfg.Seed = seed
			snap, err := sim.Generate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			name := []string{"prod", "staging"}[i]
			path := filepath.Join(dir, name+".snap")
			if err := SaveSnapshot(path, snap); err != nil {
				t.Fatal(err)
			}
			files = append(files, ClusterFile{Name: name, Path: path})
			req := DefaultAdviseRequest()
			req.Source = Source{File: path}
			res, err := a.Advise(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			alone[name] = res.Ledger.Saving()
			preq := DefaultPlanRequest()
			preq.Source = Source{File: path}
			pl, err := a.Plan(ctx, preq)
			if err != nil {
				t.Fatal(err)
			}
			planAlone += *pl.Plan.SavingsUSDPerMonth
		}
		req := DefaultAdviseRequest()
		req.Source = Source{Clusters: files}
		res, err := a.Advise(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Ledger != nil || len(res.Clusters) != 2 {
			t.Fatalf("seeds %v: merged advise gave ledger %v and %d cluster ledgers; want one per cluster", seeds, res.Ledger != nil, len(res.Clusters))
		}
		var sum, want ledger.Cents
		for _, c := range res.Clusters {
			if got := c.Ledger.Saving(); got != alone[c.Cluster] {
				t.Errorf("seeds %v: cluster %s saves %s merged, %s alone", seeds, c.Cluster, got, alone[c.Cluster])
			}
			sum, want = sum+c.Ledger.Saving(), want+alone[c.Cluster]
		}
		if sum != want || sum <= 0 {
			t.Errorf("seeds %v: merged savings %s, the clusters' own %s", seeds, sum, want)
		}
		preq := DefaultPlanRequest()
		preq.Source = Source{Clusters: files}
		pl, err := a.Plan(ctx, preq)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range pl.Plan.Moves {
			if from, to, _ := strings.Cut(m.From, "/"); !strings.HasPrefix(m.To, from+"/") {
				t.Errorf("seeds %v: move %s from %s to %s crosses clusters (%s)", seeds, m.Workload, m.From, m.To, to)
			}
		}
		for _, pool := range pl.Plan.Pools {
			if !strings.HasPrefix(pool.Pool, "prod:") && !strings.HasPrefix(pool.Pool, "staging:") {
				t.Errorf("seeds %v: pool %s names no cluster: the plan's pools are per cluster", seeds, pool.Pool)
			}
		}
		if got := *pl.Plan.SavingsUSDPerMonth; math.Abs(got-planAlone) > 0.005 {
			t.Errorf("seeds %v: merged plan saves $%.2f, the clusters' own plans $%.2f", seeds, got, planAlone)
		}
		preq.By = ByCluster // plan --by cluster: each cluster packed alone
		byc, err := a.Plan(ctx, preq)
		if err != nil {
			t.Fatal(err)
		}
		var bySum float64
		for _, c := range byc.Clusters {
			bySum += *c.Plan.SavingsUSDPerMonth
		}
		if byc.Plan != nil || len(byc.Clusters) != 2 || math.Abs(bySum-planAlone) > 0.005 {
			t.Errorf("seeds %v: plan by cluster: whole plan %v, %d cluster plans saving $%.2f; the clusters' own $%.2f", seeds, byc.Plan != nil, len(byc.Clusters), bySum, planAlone)
		}
	}
}
