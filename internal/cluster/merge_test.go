package cluster_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

func mergeFixture(w cluster.Window, source string) *cluster.Snapshot {
	n := clustertest.Node("n1").GPUs(2, "L4").Life(w.Start.Add(-time.Hour), time.Time{}).Obj()
	p := clustertest.Pod("ml", "train").On("n1").Holds("n1/gpu0", 0.5, 3600).Life(w.Start, time.Time{}).Obj()
	return &cluster.Snapshot{Window: w, Source: source, Nodes: []cluster.Node{n}, Pods: []cluster.Pod{p}, Notes: []string{"a note"}}
}

// Two clusters merge into one snapshot that prepares: names prefixed,
// nodes labelled and clipped to their own window, the windows' union,
// the sources and notes kept under each name, the inputs left as they
// were.
func TestMergerKeepsClustersApart(t *testing.T) {
	t.Parallel()
	w := clustertest.Window(24)
	later := cluster.Window{Start: w.Start.Add(2 * time.Hour), End: w.End.Add(2 * time.Hour)}
	a, b := mergeFixture(w, "file a"), mergeFixture(later, "file b")
	var m cluster.Merger
	if err := m.Add("prod", a); err != nil {
		t.Fatal(err)
	}
	if err := m.Add("dev", b); err != nil {
		t.Fatal(err)
	}
	if err := m.Add("prod", a); err == nil || !strings.Contains(err.Error(), `"prod" given twice`) {
		t.Errorf("a name given twice: %v", err)
	}
	s := m.Snapshot()
	if s.Window.Start != w.Start || s.Window.End != later.End {
		t.Errorf("window %v, want the union %v..%v", s.Window, w.Start, later.End)
	}
	if s.Source != "prod: file a; dev: file b" {
		t.Errorf("source %q", s.Source)
	}
	if len(s.Nodes) != 2 || s.Nodes[0].Name != "prod/n1" || s.Nodes[1].Name != "dev/n1" {
		t.Fatalf("nodes %v", s.Nodes)
	}
	if got := s.Nodes[1]; got.Labels[cluster.ClusterLabel] != "dev" || !got.Created.Equal(later.Start) || !got.Deleted.Equal(later.End) {
		t.Errorf("dev/n1: label %q, life %v..%v, want dev and its own window", got.Labels[cluster.ClusterLabel], got.Created, got.Deleted)
	}
	if p := s.Pods[1]; p.Namespace != "dev/ml" || p.Node != "dev/n1" || p.GPUs[0].UnitID != "dev/n1/gpu0" {
		t.Errorf("dev's pod: %s on %s holding %s", p.Namespace, p.Node, p.GPUs[0].UnitID)
	}
	notes := strings.Join(s.Notes, "\n")
	if !strings.Contains(notes, "prod: a note") || !strings.Contains(notes, "cluster dev covers") {
		t.Errorf("notes %q", s.Notes)
	}
	if a.Nodes[0].Name != "n1" || a.Nodes[0].Labels != nil || a.Pods[0].GPUs[0].UnitID != "n1/gpu0" {
		t.Error("merging changed an input snapshot")
	}
	if _, err := cluster.Prepare(s); err != nil {
		t.Errorf("the merged snapshot does not prepare: %v", err)
	}
}
