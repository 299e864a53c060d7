package app

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/gpuwise/gpuwise/internal/sim"
)

// TestMergedReportIsEachClustersReport (one number, one source): the
// report of two clusters' files merged (--from prod=… --from staging=…
// --by cluster) has one row per cluster whose cost is that cluster's own
// report total, and a total that is their sum, to the cent.
func TestMergedReportIsEachClustersReport(t *testing.T) {
	t.Parallel()
	a, ctx, dir := testApp(), context.Background(), t.TempDir()
	var files []ClusterFile
	alone := map[string]float64{}
	for i, name := range []string{"prod", "staging"} {
		cfg := sim.DefaultConfig()
		cfg.Seed = uint64(3 + i)
		snap, err := sim.Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".snap")
		if err := SaveSnapshot(path, snap); err != nil {
			t.Fatal(err)
		}
		files = append(files, ClusterFile{Name: name, Path: path})
		req := DefaultReportRequest()
		req.Source = Source{File: path}
		res, err := a.Report(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if alone[name] = res.Report.Totals.TotalCost; alone[name] <= 0 {
			t.Fatalf("cluster %s alone costs %v: the test would compare nothing", name, alone[name])
		}
	}
	req := DefaultReportRequest()
	req.Source, req.Report.By = Source{Clusters: files}, "cluster"
	res, err := a.Report(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]float64{}
	for _, r := range res.Report.Rows {
		rows[r.Key] = r.TotalCost
	}
	for name, want := range alone {
		if math.Abs(rows[name]-want) > 0.005 {
			t.Errorf("cluster %s: %.2f in the merged report, %.2f alone", name, rows[name], want)
		}
	}
	if sum := alone["prod"] + alone["staging"]; len(rows) != 2 || math.Abs(res.Report.Totals.TotalCost-sum) > 0.01 {
		t.Errorf("merged rows %v, total %.2f; want the two clusters adding up to %.2f", rows, res.Report.Totals.TotalCost, sum)
	}
}
