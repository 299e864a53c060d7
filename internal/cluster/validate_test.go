package cluster_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

func TestFractions(t *testing.T) {
	tests := []struct {
		name string
		node cluster.Node
		want []float64
	}{
		{"whole", ct.Node("n").GPUs(1, "H100-80GB").Obj(), []float64{1}},
		{"3g+2g+1g leaves one slice", ct.Node("n").MIG("H100-80GB", "3g.40gb", "2g.20gb", "1g.10gb").Obj(), []float64{0.5, 2.0 / 7, 1.0 / 7}},
		{"4g+3g normalized to 1", ct.Node("n").MIG("H100-80GB", "4g.40gb", "3g.40gb").Obj(), []float64{(4.0 / 7) / (4.0/7 + 0.5), 0.5 / (4.0/7 + 0.5)}},
		{"7x1g sums to 1", ct.Node("n").MIG("H100-80GB", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb").Obj(), []float64{1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7}},
		{"4x1g.20gb is memory bound", ct.Node("n").MIG("H100-80GB", "1g.20gb", "1g.20gb", "1g.20gb", "1g.20gb").Obj(), []float64{0.25, 0.25, 0.25, 0.25}},
		{"time-slice 4 replicas", ct.Node("n").TimeSliced("L4", 4).Obj(), []float64{0.25, 0.25, 0.25, 0.25}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &cluster.Snapshot{Window: ct.Window(1), Nodes: []cluster.Node{tt.node}}
			if _, err := cluster.Prepare(s); err != nil {
				t.Fatal(err)
			}
			units := s.Nodes[0].GPUs[0].Units
			for i, want := range tt.want {
				if math.Abs(units[i].Fraction-want) > 1e-12 {
					t.Errorf("unit %s fraction = %v, want %v", units[i].ID, units[i].Fraction, want)
				}
			}
		})
	}
}

func TestPrepareRejects(t *testing.T) {
	n := ct.Node("n1").GPUs(1, "H100-80GB").Obj()
	tests := []struct {
		name    string
		s       cluster.Snapshot
		wantErr string
	}{
		{"two pods on one unit at once", cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{n}, Pods: []cluster.Pod{
			ct.Pod("a", "p1").On("n1").Life(ct.At(0), ct.At(6)).Holds("n1/gpu0", 0, 1).Obj(),
			ct.Pod("a", "p2").On("n1").Life(ct.At(5), time.Time{}).Holds("n1/gpu0", 0, 1).Obj(),
		}}, "held by pods a/p1 and a/p2 at the same time"},
		{"unit on no node", cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{n}, Pods: []cluster.Pod{
			ct.Pod("a", "p1").On("n1").Holds("n9/gpu0", 0, 1).Obj()}}, `holds GPU unit "n9/gpu0", which no node has`},
		{"node missing", cluster.Snapshot{Window: ct.Window(10), Pods: []cluster.Pod{
			ct.Pod("a", "p1").On("gone").Holds("gone/gpu0", 0, 1).Obj()}}, `node "gone", which is not in the snapshot`},
		{"empty window", cluster.Snapshot{Window: cluster.Window{Start: ct.At(1), End: ct.At(1)}}, "is not after start"},
		{"MIG overfull", cluster.Snapshot{Window: ct.Window(1), Nodes: []cluster.Node{
			ct.Node("m").MIG("H100-80GB", "7g.80gb", "1g.10gb").Obj()}}, "8/7 compute"},
		{"duplicate node", cluster.Snapshot{Window: ct.Window(1), Nodes: []cluster.Node{n, n}}, "duplicate name"},
		{"negative CPU request", cluster.Snapshot{Window: ct.Window(1), Nodes: []cluster.Node{n}, Pods: []cluster.Pod{
			ct.Pod("a", "p1").On("n1").Requests(-31000, 1).Obj()}}, `pod a/p1 container "main": CPU request (millicores) -31000 is negative`},
		{"negative memory limit", cluster.Snapshot{Window: ct.Window(1), Nodes: []cluster.Node{n}, Pods: []cluster.Pod{
			withContainer(ct.Pod("a", "p1").On("n1").Obj(), cluster.Container{Name: "side", MemoryLimit: -1})}}, `container "side": memory limit (bytes) -1 is negative`},
		{"negative GPU request", cluster.Snapshot{Window: ct.Window(1), Nodes: []cluster.Node{n}, Pods: []cluster.Pod{
			withContainer(ct.Pod("a", "p1").On("n1").Obj(), cluster.Container{Name: "g", GPURequests: map[string]int64{"nvidia.com/gpu": -1}})}}, "nvidia.com/gpu request -1 is negative"},
		{"same pod listed twice", cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{n}, Pods: []cluster.Pod{
			ct.Pod("web", "api").On("n1").Requests(1000, 1).Obj(), ct.Pod("web", "api").On("n1").Requests(1000, 1).Obj()}}, "pod web/api: listed twice with overlapping lifetimes"},
		{"same name overlapping in time", cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{n}, Pods: []cluster.Pod{
			ct.Pod("web", "api").On("n1").Life(ct.At(0), ct.At(5)).Obj(), ct.Pod("web", "api").On("n1").Life(ct.At(4), time.Time{}).Obj()}}, "pod web/api: listed twice"},
		{"same UID twice", cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{n}, Pods: []cluster.Pod{
			withUID(ct.Pod("web", "a").On("n1").Life(ct.At(0), ct.At(1)).Obj(), "u1"), withUID(ct.Pod("web", "b").On("n1").Life(ct.At(2), ct.At(3)).Obj(), "u1")}}, "pod web/b: UID u1 is already pod web/a"},
		{"window past what a duration holds", cluster.Snapshot{Window: cluster.Window{Start: ct.At(0), End: ct.At(0).AddDate(300, 0, 0)}}, "longer than the 292 years gpuwise can measure"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := cluster.Prepare(&tt.s)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Prepare = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func withContainer(p cluster.Pod, c cluster.Container) cluster.Pod {
	p.Containers = append(p.Containers, c)
	return p
}

func withUID(p cluster.Pod, uid string) cluster.Pod {
	p.UID = uid
	return p
}

// TestPrepareListsEveryProblem: one snapshot with several faults gets one
// error naming each, so the user fixes them in one pass.
func TestPrepareListsEveryProblem(t *testing.T) {
	s := cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{ct.Node("n1").GPUs(1, "H100-80GB").Obj()}, Pods: []cluster.Pod{
		ct.Pod("a", "neg").On("n1").Requests(-1, 1).Obj(),
		ct.Pod("a", "dup").On("n1").Obj(), ct.Pod("a", "dup").On("n1").Obj(),
	}}
	_, err := cluster.Prepare(&s)
	for _, want := range []string{"pod a/neg container", "pod a/dup: listed twice"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Prepare = %v, want it to contain %q", err, want)
		}
	}
}

// The good half of the pairs above: what Kubernetes allows is accepted.
func TestPrepareAccepts(t *testing.T) {
	n := ct.Node("n1").GPUs(1, "H100-80GB").Obj()
	tests := []struct {
		name string
		s    cluster.Snapshot
	}{
		{"same name re-created later (StatefulSet)", cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{n}, Pods: []cluster.Pod{
			withUID(ct.Pod("db", "pg-0").On("n1").Life(ct.At(0), ct.At(4)).Obj(), "u1"),
			withUID(ct.Pod("db", "pg-0").On("n1").Life(ct.At(4), time.Time{}).Obj(), "u2")}}},
		{"same name in two namespaces", cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{n}, Pods: []cluster.Pod{
			ct.Pod("a", "api").On("n1").Obj(), ct.Pod("b", "api").On("n1").Obj()}}},
		{"zero requests", cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{n}, Pods: []cluster.Pod{
			ct.Pod("a", "api").On("n1").Requests(0, 0).Obj()}}},
		{"a 200-year window", cluster.Snapshot{Window: cluster.Window{Start: ct.At(0), End: ct.At(0).AddDate(200, 0, 0)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := cluster.Prepare(&tt.s); err != nil {
				t.Errorf("Prepare = %v, want nil", err)
			}
		})
	}
}

func TestSequentialHoldersAreFine(t *testing.T) {
	s := cluster.Snapshot{Window: ct.Window(10), Nodes: []cluster.Node{ct.Node("n1").GPUs(1, "H100-80GB").Obj()}, Pods: []cluster.Pod{
		ct.Pod("a", "p1").On("n1").Life(ct.At(0), ct.At(5)).Holds("n1/gpu0", 0, 1).Obj(),
		ct.Pod("a", "p2").On("n1").Life(ct.At(5), time.Time{}).Holds("n1/gpu0", 0, 1).Obj(),
	}}
	if _, err := cluster.Prepare(&s); err != nil {
		t.Errorf("Prepare = %v, want nil", err)
	}
}
