package cluster_test

import (
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// TestMerged: two clusters' snapshots become one: names and namespaces
// prefixed with the cluster, nodes labelled with it and their lives
// clipped to their own cluster's window, the window the union (with a
// note that the windows differ), sources and notes named by cluster; the
// hourly series go when a cluster has none over the same window.
func TestMerged(t *testing.T) {
	t.Parallel()
	week, day := clustertest.Window(168), clustertest.Window(24)
	prod := &cluster.Snapshot{Window: week, Source: "prom", Notes: []string{"one note"},
		Nodes:  []cluster.Node{clustertest.Node("n1").GPUs(1, "L4").Obj()},
		Pods:   []cluster.Pod{clustertest.Pod("ml", "p").On("n1").Holds("n1/gpu0", 0.5, 3600).Obj()},
		Hourly: &cluster.Hourly{IdleThreshold: 0.05}}
	dev := &cluster.Snapshot{Window: day, Source: "file", Nodes: []cluster.Node{clustertest.Node("n1").GPUs(1, "L4").Obj()}}
	var m cluster.Merged
	m.Add("prod", prod)
	m.Add("dev", dev)
	s := m.Snapshot()
	if s.Window != week || s.Source != "prod: prom; dev: file" {
		t.Errorf("window %v, source %q; want the union and both sources", s.Window, s.Source)
	}
	if len(s.Nodes) != 2 || s.Nodes[0].Name != "prod/n1" || s.Nodes[1].Name != "dev/n1" || s.Nodes[1].Labels[cluster.ClusterLabel] != "dev" {
		t.Fatalf("nodes %+v: want both, prefixed and labelled", s.Nodes)
	}
	if !s.Nodes[1].Deleted.Equal(day.End) || !s.Nodes[0].Deleted.Equal(week.End) {
		t.Errorf("node lives end %v and %v; want each cluster's own window end", s.Nodes[0].Deleted, s.Nodes[1].Deleted)
	}
	if p := s.Pods[0]; p.Namespace != "prod/ml" || p.Node != "prod/n1" || p.GPUs[0].UnitID != "prod/n1/gpu0" || s.Nodes[0].GPUs[0].Units[0].ID != "prod/n1/gpu0" {
		t.Errorf("pod %s/%s on %s holding %s; want everything prefixed with its cluster", p.Namespace, p.Name, p.Node, p.GPUs[0].UnitID)
	}
	notes := strings.Join(s.Notes, "\n")
	if s.Hourly != nil || !strings.Contains(notes, "cluster dev covers") || !strings.Contains(notes, "cluster dev has no hourly series") || !strings.Contains(notes, "prod: one note") {
		t.Errorf("hourly %v, notes %q; want the series dropped and every note named", s.Hourly, s.Notes)
	}
	if prod.Nodes[0].Name != "n1" || prod.Pods[0].GPUs[0].UnitID != "n1/gpu0" || prod.Nodes[0].Labels[cluster.ClusterLabel] != "" {
		t.Error("merging changed a cluster's own snapshot")
	}
}
