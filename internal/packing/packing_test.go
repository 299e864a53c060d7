package packing

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Fixture builders.

func gpuNode(name, pool, model string, gpus int, usdPerHour float64) Node {
	return Node{Name: name, Pool: pool, Model: model, GPUs: gpus, CPUMilli: 96000, MemoryBytes: 1 << 40,
		USDPerHour: usdPerHour, Priced: true, Labels: map[string]string{"kubernetes.io/hostname": name, "pool": pool}}
}

func whole(id, node string, gpus int) Workload {
	return Workload{ID: id, Group: id, Demand: Demand{Kind: Whole, GPUs: gpus}, Node: node, CPUMilli: 1000, MemoryBytes: 4 << 30}
}

func mig(id, node, profile string) Workload {
	return Workload{ID: id, Group: id, Demand: Demand{Kind: MIG, Profile: profile}, Current: Demand{Kind: Whole, GPUs: 1},
		Node: node, CPUMilli: 1000, MemoryBytes: 4 << 30}
}

func mustSolve(t *testing.T, p *Problem) *Plan {
	t.Helper()
	pl, err := Solve(p)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	return pl
}

func placementOf(pl *Plan, id string) *Placement {
	for i := range pl.Placements {
		if pl.Placements[i].Workload == id {
			return &pl.Placements[i]
		}
	}
	return nil
}

// The seeds' headline: 20 single-H100 nodes at $6.85/h, each running one
// inference pod on a whole GPU at 18% activity; right-sized to 2g.20gb,
// three fit a GPU (3×2g + a free 1g is a valid layout), so 7 GPUs hold
// all 20: $100,010 → $35,003.50 a month, utilization 18% → 51.4%.
func TestHeadlineTwentyH100sBecomeSeven(t *testing.T) {
	p := &Problem{}
	for i := range 20 {
		node := fmt.Sprintf("h100-%02d", i)
		p.Nodes = append(p.Nodes, gpuNode(node, "p5-1gpu", "H100-80GB", 1, 6.85))
		w := mig(fmt.Sprintf("serve/pod-%02d", i), node, "2g.20gb")
		w.ActiveGPUs, w.Measured = 0.18, true
		p.Workloads = append(p.Workloads, w)
	}
	pl := mustSolve(t, p)
	if pl.After.Nodes != 7 || pl.After.GPUs != 7 {
		t.Fatalf("after: %d nodes, %d GPUs; want 7 and 7", pl.After.Nodes, pl.After.GPUs)
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"before $/month", pl.Before.USD(), 20 * 6.85 * 730},
		{"after $/month", pl.After.USD(), 7 * 6.85 * 730},
		{"savings", *pl.SavingsUSDPerMonth, 13 * 6.85 * 730},
		{"utilization before", *pl.Before.Utilization, 0.18},
		{"utilization after", *pl.After.Utilization, 20 * 0.18 / 7},
		{"allocation before", pl.Before.Allocation, 1},
		{"allocation after", pl.After.Allocation, 20 * (2.0 / 7) / 7},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	layouts := map[string]int{}
	for _, n := range pl.Nodes {
		for _, g := range n.GPUs {
			layouts[g.Layout.String()]++
		}
	}
	if layouts["3x2g.20gb"] != 6 || layouts["2x2g.20gb"] != 1 {
		t.Errorf("layouts = %v, want 6 × 3x2g.20gb and 1 × 2x2g.20gb", layouts)
	}
	// The sticky pass keeps pods on the 7 kept nodes where they already run.
	var moves, reshapes int
	for _, m := range pl.Moves {
		switch m.Kind {
		case "move+reshape":
			moves++
		case "reshape":
			reshapes++
		}
	}
	if moves != 13 || reshapes != 7 {
		t.Errorf("moves: %d move+reshape, %d reshape; want 13 and 7", moves, reshapes)
	}
}

func TestConstraints(t *testing.T) {
	taint := cluster.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}
	tol := cluster.Toleration{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}
	cases := []struct {
		name     string
		nodes    []Node
		work     Workload
		wantNode string // "" = unplaced
		wantWhy  string // substring of the unplaced reason
	}{
		{
			name:     "GPU model spec picks the allowed model even when it costs more",
			nodes:    []Node{gpuNode("t4", "t4", "T4", 1, 0.5), gpuNode("v100", "v100", "V100-32GB", 1, 3)},
			work:     Workload{ID: "a", Demand: Demand{Kind: Whole, GPUs: 1}, Models: []string{"V100-32GB"}},
			wantNode: "v100",
		},
		{
			name:    "no node with the model",
			nodes:   []Node{gpuNode("t4", "t4", "T4", 1, 0.5)},
			work:    Workload{ID: "a", Demand: Demand{Kind: Whole, GPUs: 1}, Models: []string{"A100-80GB"}},
			wantWhy: "no node with GPU model A100-80GB (nodes have T4)",
		},
		{
			name: "untolerated taint sends the pod to the untainted node",
			nodes: []Node{func() Node { n := gpuNode("cheap", "a", "L4", 1, 0.5); n.Taints = []cluster.Taint{taint}; return n }(),
				gpuNode("dear", "b", "L4", 1, 0.9)},
			work:     Workload{ID: "a", Demand: Demand{Kind: Whole, GPUs: 1}},
			wantNode: "dear",
		},
		{
			name:     "tolerated taint is fine",
			nodes:    []Node{func() Node { n := gpuNode("cheap", "a", "L4", 1, 0.5); n.Taints = []cluster.Taint{taint}; return n }()},
			work:     Workload{ID: "a", Demand: Demand{Kind: Whole, GPUs: 1}, Tolerations: []cluster.Toleration{tol}},
			wantNode: "cheap",
		},
		{
			name:    "taint everywhere",
			nodes:   []Node{func() Node { n := gpuNode("cheap", "a", "L4", 1, 0.5); n.Taints = []cluster.Taint{taint}; return n }()},
			work:    Workload{ID: "a", Demand: Demand{Kind: Whole, GPUs: 1}},
			wantWhy: "taint the pod does not tolerate (e.g. nvidia.com/gpu=true:NoSchedule on cheap)",
		},
		{
			name:     "node selector",
			nodes:    []Node{gpuNode("a1", "a", "L4", 1, 0.5), gpuNode("b1", "b", "L4", 1, 0.9)},
			work:     Workload{ID: "a", Demand: Demand{Kind: Whole, GPUs: 1}, NodeSelector: map[string][]string{"pool": {"b"}}},
			wantNode: "b1",
		},
		{
			name:     "hostname selector pins to one of identical nodes",
			nodes:    []Node{gpuNode("a1", "a", "L4", 1, 0.5), gpuNode("a2", "a", "L4", 1, 0.5)},
			work:     Workload{ID: "a", Demand: Demand{Kind: Whole, GPUs: 1}, NodeSelector: map[string][]string{"kubernetes.io/hostname": {"a2"}}},
			wantNode: "a2",
		},
		{
			name:    "too much memory",
			nodes:   []Node{gpuNode("a1", "a", "L4", 1, 0.5)},
			work:    Workload{ID: "a", Demand: Demand{Kind: Whole, GPUs: 1}, MemoryBytes: 2 << 40},
			wantWhy: "requests 2048.0 GiB memory; the largest eligible node has 1024.0 GiB",
		},
		{
			name:    "too many GPUs",
			nodes:   []Node{gpuNode("a1", "a", "L4", 4, 0.5)},
			work:    Workload{ID: "a", Demand: Demand{Kind: Whole, GPUs: 8}},
			wantWhy: "needs 8 GPUs on one node; the largest eligible node has 4",
		},
		{
			name:    "MIG profile on a GPU without MIG",
			nodes:   []Node{gpuNode("a1", "a", "L4", 4, 0.5)},
			work:    Workload{ID: "a", Demand: Demand{Kind: MIG, Profile: "1g.10gb"}},
			wantWhy: "no node's GPU offers MIG profile 1g.10gb (L4)",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pl := mustSolve(t, &Problem{Nodes: c.nodes, Workloads: []Workload{c.work}})
			pc := placementOf(pl, c.work.ID)
			switch {
			case c.wantNode != "" && (pc == nil || pc.Node != c.wantNode):
				t.Errorf("placed %+v, want on %s (unplaced: %+v)", pc, c.wantNode, pl.Unplaced)
			case c.wantNode == "" && (len(pl.Unplaced) != 1 || !strings.Contains(pl.Unplaced[0].Reason, c.wantWhy)):
				t.Errorf("unplaced = %+v, want reason containing %q", pl.Unplaced, c.wantWhy)
			}
		})
	}
}

func TestCPUAndMemoryNeverOvercommitted(t *testing.T) {
	n := gpuNode("a1", "a", "H100-80GB", 8, 50)
	n.CPUMilli, n.MemoryBytes = 10000, 64<<30
	m := n
	m.Name = "a2"
	p := &Problem{Nodes: []Node{n, m}}
	for i := range 8 {
		// 8 × 3 cores > 10 cores: the 8 GPUs cannot all be used on one node.
		p.Workloads = append(p.Workloads, Workload{ID: fmt.Sprintf("w%d", i), Demand: Demand{Kind: MIG, Profile: "1g.10gb"}, CPUMilli: 3000, MemoryBytes: 1 << 30})
	}
	pl := mustSolve(t, p)
	for _, np := range pl.Nodes {
		if np.CPUMilliUsed > np.CPUMilli || np.Workloads > 3 {
			t.Errorf("node %s: %d workloads, %dm of %dm CPU", np.Name, np.Workloads, np.CPUMilliUsed, np.CPUMilli)
		}
	}
	if len(pl.Unplaced) != 2 {
		t.Errorf("unplaced = %d, want 2 (two nodes hold 3 each)", len(pl.Unplaced))
	}
}

func TestTimeSliceNeverMixesClassesOrReplicaCounts(t *testing.T) {
	p := &Problem{Nodes: []Node{gpuNode("a1", "a", "L4", 2, 1), gpuNode("a2", "a", "L4", 2, 1), gpuNode("a3", "a", "L4", 2, 1)}}
	add := func(id, class string, reps int) {
		p.Workloads = append(p.Workloads, Workload{ID: id, Demand: Demand{Kind: TimeSlice, Replicas: reps, Class: class}})
	}
	add("dev1", "dev", 4)
	add("dev2", "dev", 4)
	add("inf1", "inference", 4)
	add("dev8", "dev", 8)
	add("devhalf", "dev", 2)
	p.Workloads = append(p.Workloads, Workload{ID: "whole", Demand: Demand{Kind: Whole, GPUs: 1}})
	pl := mustSolve(t, p)
	if len(pl.Unplaced) != 0 {
		t.Fatalf("unplaced: %+v", pl.Unplaced)
	}
	// Check enforces one replica count per node (the smallest any holder
	// asks for) and one class per node; spot-check the outcome too.
	reps := map[string]int{}
	for _, n := range pl.Nodes {
		reps[n.Name] = n.TimeSlicingReplicas
		for _, g := range n.GPUs {
			if g.Mode == ModeTimeSlice && len(g.Workloads) > g.Replicas {
				t.Errorf("node %s GPU %d: %d pods on %d replicas", n.Name, g.Index, len(g.Workloads), g.Replicas)
			}
		}
	}
	for _, pc := range pl.Placements {
		if pc.Demand.Kind == TimeSlice && reps[pc.Node] > pc.Demand.Replicas {
			t.Errorf("%s asks for 1/%d and sits on a %d-way node", pc.Workload, pc.Demand.Replicas, reps[pc.Node])
		}
		if pc.Demand.Kind == Whole && reps[pc.Node] != 0 {
			t.Errorf("exclusive GPU on a time-sliced node %s", pc.Node)
		}
	}
	inf := placementOf(pl, "inf1")
	for _, id := range []string{"dev1", "dev2", "dev8", "devhalf"} {
		if d := placementOf(pl, id); d.Node == inf.Node {
			t.Errorf("inference shares time-sliced node %s with %s", d.Node, id)
		}
	}
}

// The device plugin offers the replicas of all of a node's GPUs as one
// resource and the kubelet hands any free replica to any pod, so a plan
// that keeps classes apart on different GPUs of one node cannot be
// applied: named classes are kept apart per node. (The plan used to put
// dev and inference on GPUs 0 and 1 of one node.) Unclassified pods (a
// current time-slice without a recommendation) go with any class.
func TestTimeSliceClassesKeptApartPerNode(t *testing.T) {
	p := &Problem{Nodes: []Node{gpuNode("a1", "a", "L4", 2, 1), gpuNode("a2", "a", "L4", 2, 1)}}
	for _, w := range []struct{ id, class string }{{"dev", "dev"}, {"inf", "inference"}} {
		p.Workloads = append(p.Workloads, Workload{ID: w.id, Demand: Demand{Kind: TimeSlice, Replicas: 4, Class: w.class}})
	}
	pl := mustSolve(t, p)
	dev, inf := placementOf(pl, "dev"), placementOf(pl, "inf")
	if dev == nil || inf == nil || dev.Node == inf.Node {
		t.Fatalf("dev on %+v, inference on %+v: want different nodes", dev, inf)
	}
	// Check refuses the per-GPU split on one node.
	*inf = Placement{Workload: "inf", Node: dev.Node, GPUs: []int{1 - dev.GPUs[0]}, Demand: inf.Demand}
	for i := range pl.Nodes {
		n := &pl.Nodes[i]
		n.Keep = n.Name == dev.Node
		n.GPUs = nil
		if n.Keep {
			n.GPUs = []GPUPlan{{Index: 0, Mode: ModeTimeSlice, Replicas: 4}, {Index: 1, Mode: ModeTimeSlice, Replicas: 4}}
		}
	}
	if err := pl.Check(); err == nil || !strings.Contains(err.Error(), "time-slice classes [dev inference] share the node's replicas") {
		t.Errorf("Check on dev and inference on one node: %v", err)
	}
}

func TestPinnedAndFallback(t *testing.T) {
	p := &Problem{Nodes: []Node{gpuNode("a1", "a", "A100-80GB", 1, 1), gpuNode("a2", "a", "A100-80GB", 1, 1)}}
	bare := whole("bare", "a2", 1)
	bare.Pinned, bare.PinReason = true, "bare pod: no controller recreates it"
	// A new shape for a model no node has: keeps its current shape.
	odd := Workload{ID: "odd", Demand: Demand{Kind: MIG, Profile: "1g.10gb"}, Models: []string{"H100-80GB"},
		Current: Demand{Kind: Whole, GPUs: 1}, Node: "a1"}
	p.Workloads = []Workload{bare, odd}
	pl := mustSolve(t, p)
	if pc := placementOf(pl, "bare"); pc == nil || pc.Node != "a2" || !pc.KeptShape {
		t.Errorf("bare: %+v", pc)
	}
	pc := placementOf(pl, "odd")
	if pc == nil || pc.Node != "a1" || pc.Demand.Kind != Whole || !strings.Contains(pc.Note, "no node with GPU model H100-80GB") {
		t.Errorf("odd: %+v; plan %+v", pc, pl)
	}
}

func TestValidateListsEveryProblem(t *testing.T) {
	p := &Problem{
		Nodes:     []Node{{Name: "a", GPUs: 2}, {Name: "a"}},
		Workloads: []Workload{{ID: "x", Demand: Demand{Kind: "quantum"}}, {ID: "y", Demand: Demand{Kind: Shared, Milli: 1500}}},
	}
	_, err := Solve(p)
	for _, want := range []string{"node a: 2 GPUs of unknown model", `node "a": empty or duplicate`, `unknown GPU demand kind "quantum"`, "shared demand of 1500"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

// Without usage data utilization is unknown: null, never 0%.
func TestUtilizationUnknownWithoutUsage(t *testing.T) {
	p := &Problem{Nodes: []Node{gpuNode("a", "p", "H100-80GB", 8, 55)}}
	p.Workloads = append(p.Workloads, whole("ns/w", "a", 2))
	pl := mustSolve(t, p)
	if pl.Before.Utilization != nil || pl.After.Utilization != nil {
		t.Errorf("utilization %v → %v without usage data, want nil", pl.Before.Utilization, pl.After.Utilization)
	}
	if pl.Before.UnmeasuredWorkloads != 1 {
		t.Errorf("unmeasured workloads = %d, want 1", pl.Before.UnmeasuredWorkloads)
	}
	p.Workloads[0].Measured, p.Workloads[0].ActiveGPUs = true, 0.5
	if u := mustSolve(t, p).Before.Utilization; u == nil || *u != 0.5/8 {
		t.Errorf("measured utilization = %v, want %v", u, 0.5/8)
	}
}

// An unclassified time-slice pod (running time-sliced, no recommendation)
// shares a node with a named class: it is what shares that node today.
func TestUnclassifiedTimeSliceGoesWithAnyClass(t *testing.T) {
	p := &Problem{Nodes: []Node{gpuNode("a1", "a", "L4", 1, 1), gpuNode("a2", "a", "L4", 1, 1)}}
	for _, w := range []struct{ id, class string }{{"dev", "dev"}, {"plain", ""}} {
		p.Workloads = append(p.Workloads, Workload{ID: w.id, Demand: Demand{Kind: TimeSlice, Replicas: 4, Class: w.class}})
	}
	pl := mustSolve(t, p)
	if pl.After.Nodes != 1 {
		t.Errorf("after: %d nodes; want 1 (an unclassified pod goes with dev)", pl.After.Nodes)
	}
	// The shared GPU names the named class, whichever holder came last.
	for _, np := range pl.Nodes {
		for _, g := range np.GPUs {
			if g.Mode == ModeTimeSlice && g.Class != "dev" {
				t.Errorf("node %s GPU %d: class %q, want \"dev\"", np.Name, g.Index, g.Class)
			}
		}
	}
}
