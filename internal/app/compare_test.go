package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/compare"
	"github.com/gpuwise/gpuwise/internal/usage"
)

// change is the diff's change of key.
func change(d *compare.Diff, key string) *compare.Change {
	for i := range d.Changes {
		if d.Changes[i].Key == key {
			return &d.Changes[i]
		}
	}
	return nil
}

func TestDiffUseCase(t *testing.T) {
	t.Parallel()
	before := fixtureFile(t, nil)
	// After: the notebook works (50% active): its idle dollars go.
	after := fixtureFile(t, func(s *cluster.Snapshot) {
		a := &usage.Activity{}
		a.Add(0.5, fixtureHours*3600)
		s.Pods[1].GPUs[0].Activity = a
	})
	rep := DefaultReportRequest()
	rep.Source = Source{File: before}
	res, err := testApp().Report(context.Background(), rep)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	reportFile := writeFile(t, "before.json", string(b))
	cases := []struct {
		name          string
		before, after string
		by            string
		wantErr       string
		kind          Kind
		// the dev namespace's utilization change in points
		devPoints float64
	}{
		{name: "two snapshots", before: before, after: after, by: "namespace", devPoints: 48},
		{name: "a report and a snapshot", before: reportFile, after: after, by: "namespace", devPoints: 48},
		{name: "a report grouped otherwise", before: reportFile, after: after, by: "workload", kind: Usage, wantErr: "grouped by namespace"},
		{name: "one file", before: before, kind: Usage, wantErr: "diff needs two files"},
		{name: "not a snapshot", before: before, after: writeFile(t, "x.txt", "hello"), by: "namespace", kind: Input, wantErr: "x.txt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := DefaultDiffRequest()
			req.Before, req.After, req.By = tc.before, tc.after, tc.by
			d, err := testApp().Diff(context.Background(), req)
			if tc.wantErr != "" {
				if err == nil || KindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v (kind %v), want kind %v with %q", err, KindOf(err), tc.kind, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			dev := change(d, "dev")
			if dev == nil || dev.UtilizationPoints == nil || !near(*dev.UtilizationPoints, tc.devPoints) {
				t.Fatalf("dev: %+v, want %v utilization points", dev, tc.devPoints)
			}
			if dev.IdleUSD == nil || *dev.IdleUSD >= 0 {
				t.Errorf("dev's idle dollars change %v, want a fall", dev.IdleUSD)
			}
			if ml := change(d, "ml"); ml == nil || ml.UtilizationPoints == nil || *ml.UtilizationPoints != 0 {
				t.Errorf("ml changed: %+v", ml)
			}
		})
	}
}

func TestComparePeriodsUseCase(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		req     func(r *CompareRequest)
		wantErr string
	}{
		{name: "the demo a week apart"},
		{name: "a file holds one window", req: func(r *CompareRequest) { r.Source = Source{File: fixtureFile(t, nil)} }, wantErr: "a snapshot file holds one window"},
		{name: "no period", req: func(r *CompareRequest) { r.Period = 0 }, wantErr: "the period must be positive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := CompareRequest{Data: Data{Source: Source{Demo: DefaultDemo()}}, Period: 7 * 24 * time.Hour, By: "namespace",
				Cost: DefaultReportRequest().Cost}
			if tc.req != nil {
				tc.req(&req)
			}
			d, err := testApp().ComparePeriods(context.Background(), req)
			if tc.wantErr != "" {
				if KindOf(err) != Usage || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want a usage error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := d.After.Window.Start.Sub(d.Before.Window.Start); got != req.Period {
				t.Errorf("the windows are %v apart, want %v", got, req.Period)
			}
			if d.Before.Label == d.After.Label || len(d.Changes) == 0 {
				t.Errorf("labels %q and %q, %d changes", d.Before.Label, d.After.Label, len(d.Changes))
			}
		})
	}
}

// Several clusters' files make one report: each cluster's objects under
// its name, grouped back by cluster.
func TestClustersUseCase(t *testing.T) {
	t.Parallel()
	one, two := fixtureFile(t, nil), fixtureFile(t, nil)
	later := fixtureFile(t, func(s *cluster.Snapshot) {
		s.Window.Start, s.Window.End = s.Window.Start.Add(time.Hour), s.Window.End.Add(time.Hour)
		for i := range s.Pods {
			s.Pods[i].Start = s.Window.Start
		}
	})
	cases := []struct {
		name     string
		files    []ClusterFile
		wantErr  string
		nodeCost float64
		note     string
	}{
		{name: "two named clusters", files: []ClusterFile{ParseClusterFile("prod=" + one), ParseClusterFile("dev=" + two)}, nodeCost: 2 * fixtureNodeCost},
		{name: "the same name twice", files: []ClusterFile{{Path: one}, {Path: two}}, wantErr: `both name cluster "fixture"`},
		{name: "windows that differ", files: []ClusterFile{ParseClusterFile("prod=" + one), ParseClusterFile("dev=" + later)},
			nodeCost: 2 * fixtureNodeCost, note: "not the same window as the others"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := DefaultReportRequest()
			req.Source, req.Report.By = Source{Clusters: tc.files}, "cluster"
			res, err := testApp().Report(context.Background(), req)
			if tc.wantErr != "" {
				if KindOf(err) != Usage || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want a usage error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !near(res.Report.Totals.NodeCost, tc.nodeCost) {
				t.Errorf("node cost $%v, want $%v", res.Report.Totals.NodeCost, tc.nodeCost)
			}
			if keys := rowKeys(res.Report); !sameSet(keys, []string{"prod", "dev"}) && !sameSet(keys, []string{"prod", "dev", "__unallocated__"}) {
				t.Errorf("rows %q, want prod and dev", keys)
			}
			if n := res.Snapshot.Index().Nodes["prod/train-1"]; n == nil || n.Labels[cluster.ClusterLabel] != "prod" {
				t.Error("prod's train-1 is not prod/train-1 labelled with its cluster")
			}
			if tc.note != "" && !strings.Contains(strings.Join(res.Snapshot.Notes(), "\n"), tc.note) {
				t.Errorf("notes %q lack %q", res.Snapshot.Notes(), tc.note)
			}
		})
	}
}
