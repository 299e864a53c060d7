package packing

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/gpushape"
)

func decisionOf(pl *Plan, id string) *ShapeDecision {
	for i := range pl.Shapes {
		if pl.Shapes[i].Workload == id {
			return &pl.Shapes[i]
		}
	}
	return nil
}

// One notebook right-sized to a half-GPU time-slice would turn a node
// time-sliced for itself alone; the plan reverts that one shape and keeps
// the MIG right-sizing that lets a node go.
func TestRightSizingIsChosenPerWorkload(t *testing.T) {
	p := &Problem{Nodes: []Node{
		gpuNode("nb-1", "nc24", "A100-80GB", 1, 3.67),
		gpuNode("nb-2", "nc24", "A100-80GB", 1, 3.67),
		gpuNode("big", "p4de", "A100-80GB", 6, 20),
	}}
	nb := whole("nb/playground", "nb-1", 1)
	nb.Current, nb.Demand = nb.Demand, Demand{Kind: TimeSlice, Replicas: 2, Class: DevClass}
	p.Workloads = []Workload{nb, whole("nb/other", "nb-2", 1), whole("big/a", "big", 1), whole("big/b", "big", 1),
		mig("serve/x", "big", "3g.40gb"), mig("serve/y", "big", "3g.40gb")}
	pl := mustSolve(t, p)
	if pl.After.Nodes != 1 {
		t.Fatalf("after: %d nodes, want 1 (everything on big)", pl.After.Nodes)
	}
	if d := decisionOf(pl, "nb/playground"); d == nil || d.Decision != ShapeReverted || !strings.Contains(d.Reason, "time-slic") {
		t.Errorf("notebook decision = %+v, want reverted because of time-slicing", d)
	}
	for _, id := range []string{"serve/x", "serve/y"} {
		if d := decisionOf(pl, id); d == nil || d.Decision != ShapeApplied {
			t.Errorf("%s decision = %+v, want applied", id, d)
		}
	}
	cur := make(map[string]string)
	for _, w := range p.Workloads {
		if reshaped(&w) {
			cur[w.ID] = "test"
		}
	}
	alone, err := solve(p, cur)
	if err != nil {
		t.Fatal(err)
	}
	if cheaper(alone, pl) {
		t.Errorf("current shapes ($%.2f, %d nodes) beat the plan ($%.2f, %d nodes)", alone.After.USD(), alone.After.Nodes, pl.After.USD(), pl.After.Nodes)
	}
}

// A MIG slice alone on its GPU frees nothing: the pod keeps its shape.
func TestLonelyMIGSliceKeepsCurrentShape(t *testing.T) {
	p := &Problem{Nodes: []Node{gpuNode("a", "p5", "H100-80GB", 2, 10)}}
	p.Workloads = []Workload{whole("train", "a", 1), mig("serve", "a", "1g.10gb")}
	p.Workloads[1].CurrentGPUs = []int{1}
	pl := mustSolve(t, p)
	pc := placementOf(pl, "serve")
	if pc.Demand.Kind != Whole || !pc.CurrentShape || len(pl.Moves) != 0 {
		t.Errorf("serve placed %+v, moves %+v; want its whole GPU, no move", pc, pl.Moves)
	}
	if d := decisionOf(pl, "serve"); d == nil || d.Decision != ShapeReverted || !strings.Contains(d.Reason, "alone on its GPU") {
		t.Errorf("decision = %+v", d)
	}
}

// Unknown prices are null, never $0.
func TestUnpricedIsNeverZero(t *testing.T) {
	onprem := gpuNode("dgx", "dgx", "A100-80GB", 8, 0)
	onprem.Priced = false
	p := &Problem{Nodes: []Node{onprem, gpuNode("cloud", "p4de", "A100-80GB", 8, 40)}}
	p.Workloads = []Workload{whole("a", "dgx", 2), whole("b", "cloud", 2)}
	pl := mustSolve(t, p)
	b, err := json.Marshal(pl)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Pools []map[string]any `json:"pools"`
		Nodes []map[string]any `json:"nodes"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, pp := range got.Pools {
		if pp["pool"] == "dgx" && (pp["usd_per_month_before"] != nil || pp["usd_per_month_after"] != nil || pp["priced"] != false) {
			t.Errorf("unpriced pool reads %v", pp)
		}
	}
	for _, n := range got.Nodes {
		if n["name"] == "dgx" && (n["usd_per_hour"] != nil || n["priced"] != false) {
			t.Errorf("unpriced node reads %v", n)
		}
	}
	if pl.SavingsUSDPerMonth == nil || pl.Before.USDPerMonth == nil || pl.Before.UnpricedNodes != 1 {
		t.Errorf("priced totals must stay numbers: savings %v, before %v", pl.SavingsUSDPerMonth, pl.Before.USDPerMonth)
	}
	all := &Problem{Nodes: []Node{onprem}, Workloads: []Workload{whole("a", "dgx", 2)}}
	if pl := mustSolve(t, all); pl.Before.USDPerMonth != nil || pl.After.USDPerMonth != nil || pl.SavingsUSDPerMonth != nil {
		t.Errorf("an all-unpriced plan has dollars: %v %v %v", pl.Before.USDPerMonth, pl.After.USDPerMonth, pl.SavingsUSDPerMonth)
	}
}

// MIG pods whose shape and node stay keep their GPU and its layout; only
// the GPU that must make room is re-cut, and it counts.
func TestMIGPodsStayOnTheirGPU(t *testing.T) {
	n := gpuNode("mig", "p4de", "A100-80GB", 3, 40)
	n.CurrentMIG = map[int]gpushape.Layout{0: {"3g.40gb": 2}, 1: {"1g.10gb": 7}, 2: {"7g.80gb": 1}}
	p := &Problem{Nodes: []Node{n, gpuNode("nb", "nc24", "A100-80GB", 1, 3.67)}}
	add := func(id, prof string, g int) {
		p.Workloads = append(p.Workloads, Workload{ID: id, Group: id, Demand: Demand{Kind: MIG, Profile: prof}, Node: "mig",
			CurrentGPUs: []int{g}, CPUMilli: 100, MemoryBytes: 1 << 30})
	}
	// GPUs 0 and 1 are full as cut and stay; only GPU 2 changes.
	add("a", "3g.40gb", 0)
	add("b", "3g.40gb", 0)
	for _, id := range []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7"} {
		add(id, "1g.10gb", 1)
	}
	add("d", "1g.10gb", 2) // a 1g.10gb on a 7g.80gb cut: the layout must change
	p.Workloads = append(p.Workloads, whole("nb/x", "nb", 1))
	pl := mustSolve(t, p)
	for _, m := range pl.Moves {
		if m.Workload != "d" && m.Workload != "nb/x" {
			t.Errorf("unexpected disruption %+v", m)
		}
	}
	for _, np := range pl.Nodes {
		if np.Name == "mig" {
			if !maps.Equal(np.GPUs[0].Layout, gpushape.Layout{"3g.40gb": 2}) || np.GPUs[0].Recut || np.GPUs[1].Recut {
				t.Errorf("mig GPUs = %+v, want 0 and 1 kept as cut", np.GPUs)
			}
		}
	}
	for _, r := range pl.Recuts {
		if r.Node != "mig" || r.GPU != 2 {
			t.Errorf("re-cut %+v, want only mig GPU 2", r)
		}
	}
}

// A node is time-sliced the smallest count its pods ask for; pods that
// asked for less get more, and the plan says so.
func TestTimeSliceGrantedShareIsExplicit(t *testing.T) {
	p := &Problem{Nodes: []Node{gpuNode("l4", "g6", "L4", 1, 1)}}
	for _, w := range []struct {
		id   string
		reps int
	}{{"half", 2}, {"quarter", 4}} {
		p.Workloads = append(p.Workloads, Workload{ID: w.id, Node: "l4", Demand: Demand{Kind: TimeSlice, Replicas: w.reps, Class: DevClass},
			Current: Demand{Kind: TimeSlice, Replicas: 2, Class: DevClass}})
	}
	pl := mustSolve(t, p)
	if pl.Nodes[0].TimeSlicingReplicas != 2 {
		t.Fatalf("replicas = %d, want 2", pl.Nodes[0].TimeSlicingReplicas)
	}
	if pc := placementOf(pl, "quarter"); pc.GrantedReplicas != 2 {
		t.Errorf("quarter granted %d, want 2", pc.GrantedReplicas)
	}
	if pc := placementOf(pl, "half"); pc.GrantedReplicas != 0 {
		t.Errorf("half granted %d, want 0 (gets what it asked)", pc.GrantedReplicas)
	}
	if d := decisionOf(pl, "quarter"); d == nil || d.Decision != ShapeNoEffect || !strings.Contains(d.Reason, "1/2 of a GPU, more than the 1/4") {
		t.Errorf("decision = %+v", d)
	}
	// The after-allocation counts what each pod gets: 1/2 + 1/2 of the one
	// GPU = 100%, not 1/2 + 1/4 = 75%.
	if pl.After.AllocatedGPUs != 1 || pl.After.Allocation != 1 {
		t.Errorf("after: %v GPUs allocated (%v), want 1 (100%%): the quarter pod holds half a GPU", pl.After.AllocatedGPUs, pl.After.Allocation)
	}
}
