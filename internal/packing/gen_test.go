package packing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpushape"
)

// poolSpec is a node shape for generated problems; prices are AWS
// us-east-1 on-demand list prices of similar instances.
type poolSpec struct {
	name, model string
	gpus        int
	cpu         int64
	memGiB      int64
	usd         float64
	tainted     bool
}

var genPools = []poolSpec{
	{"p5.48xlarge", "H100-80GB", 8, 192000, 2048, 55.04, true},
	{"p4de.24xlarge", "A100-80GB", 8, 96000, 1152, 40.97, true},
	{"g6.12xlarge", "L4", 4, 48000, 192, 4.60, false},
	{"g6.xlarge", "L4", 1, 4000, 16, 0.80, false},
	{"g4dn.xlarge", "T4", 1, 4000, 16, 0.53, false},
}

var genProfiles = []string{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}

var gpuTaint = cluster.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}

// genProblem builds nodes pods-per-node-ish pods on each of nodes nodes,
// each pod shaped for its current node (so the current placement is
// roughly feasible), with every demand kind, taints, tolerations and
// selectors.
func genProblem(rng *rand.Rand, nodes, podsPerNode int) *Problem {
	p := &Problem{}
	for i := range nodes {
		ps := genPools[rng.IntN(len(genPools))]
		n := Node{Name: fmt.Sprintf("node-%05d", i), Pool: ps.name, Model: ps.model, GPUs: ps.gpus,
			CPUMilli: ps.cpu, MemoryBytes: ps.memGiB << 30, USDPerHour: ps.usd, Priced: rng.IntN(20) != 0,
			Labels: map[string]string{"kubernetes.io/hostname": fmt.Sprintf("node-%05d", i), "pool": ps.name, "zone": fmt.Sprint("z", rng.IntN(2))}}
		if ps.tainted {
			n.Taints = []cluster.Taint{gpuTaint}
		}
		p.Nodes = append(p.Nodes, n)
		// Pods that fit the node now, up to a GPU budget of 20–70%.
		budget := float64(n.GPUs) * (0.2 + 0.5*rng.Float64())
		cpu, mem := n.CPUMilli, n.MemoryBytes
		want, j := rng.IntN(2*podsPerNode+1), 0
		for try := 0; j < want && try < 4*want; try++ {
			w := genWorkload(rng, &n, fmt.Sprintf("ns/pod-%05d-%02d", i, j))
			f := max(w.Demand.Fraction(genModel(n.Model)), w.current().Fraction(genModel(n.Model)))
			if f > budget || w.CPUMilli > cpu || w.MemoryBytes > mem {
				continue
			}
			j++
			budget, cpu, mem = budget-f, cpu-w.CPUMilli, mem-w.MemoryBytes
			p.Workloads = append(p.Workloads, w)
		}
	}
	return p
}

func genModel(name string) gpushape.Model {
	m, _ := gpushape.Lookup(name)
	return m
}

func genWorkload(rng *rand.Rand, n *Node, id string) Workload {
	w := Workload{ID: id, Group: id, Node: n.Name, CPUMilli: 100 * rng.Int64N(20), MemoryBytes: (1 + rng.Int64N(4)) << 30,
		Tolerations: []cluster.Toleration{{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}}}
	if rng.IntN(4) > 0 {
		w.Models = []string{n.Model}
	}
	if rng.IntN(30) == 0 {
		w.NodeSelector = map[string][]string{"zone": {"z1"}}
	}
	if rng.IntN(200) == 0 {
		w.NodeSelector = map[string][]string{"kubernetes.io/hostname": {n.Name}}
	}
	if rng.IntN(50) == 0 {
		w.Tolerations = nil
	}
	mig := n.Model == "H100-80GB" || n.Model == "A100-80GB"
	switch r := rng.IntN(100); {
	case r < 10:
		w.Demand = Demand{Kind: NoGPU}
	case r < 30:
		w.Demand = Demand{Kind: Whole, GPUs: []int{1, 1, 1, 2, 4, 8}[rng.IntN(6)]}
		w.Demand.GPUs = min(w.Demand.GPUs, n.GPUs)
	case r < 75 && mig:
		w.Demand = Demand{Kind: MIG, Profile: genProfiles[rng.IntN(len(genProfiles))]}
		w.Models = []string{n.Model}
	case r < 85:
		w.Demand = Demand{Kind: TimeSlice, Replicas: 4, Class: []string{"dev", "batch"}[rng.IntN(2)]}
	default:
		w.Demand = Demand{Kind: Shared, Milli: 50 * (1 + rng.Int64N(19))}
	}
	if w.Demand.Kind == MIG && rng.IntN(3) == 0 {
		w.Current = Demand{Kind: Whole, GPUs: 1} // right-sized from a whole GPU
	}
	w.ActiveGPUs, w.Measured = rng.Float64()*0.3, rng.IntN(10) != 0
	if rng.IntN(100) == 0 {
		w.Pinned, w.PinReason = true, "bare pod"
	}
	return w
}

// Every plan of a random problem passes Check (Solve refuses otherwise):
// layouts valid for the model, no overcommit, constraints respected, every
// workload placed or listed with a reason. It also must not remove a node
// that holds a pinned workload.
func TestPropertyRandomProblems(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 300 {
		p := genProblem(rng, 1+rng.IntN(25), 1+rng.IntN(8))
		withHistory(rng, p)
		pl, err := Solve(p)
		if err != nil {
			t.Fatalf("problem %d: %v", i, err)
		}
		kept := map[string]bool{}
		for _, n := range pl.Nodes {
			kept[n.Name] = n.Keep
		}
		for _, w := range p.Workloads {
			if w.Pinned && !kept[w.Node] {
				t.Fatalf("problem %d: node %s removed under pinned %s", i, w.Node, w.ID)
			}
		}
		if pl.After.USD() > pl.Before.USD()+1e-6 {
			t.Fatalf("problem %d: plan costs more: %v > %v", i, pl.After.USDPerMonth, pl.Before.USDPerMonth)
		}
	}
}

// withHistory gives generated workloads what live clusters have too: the
// GPUs each pod holds now, MIG layouts cut for them, and time-slice
// shapes right-sized from whole GPUs.
func withHistory(rng *rand.Rand, p *Problem) {
	nodes := map[string]*Node{}
	for i := range p.Nodes {
		nodes[p.Nodes[i].Name] = &p.Nodes[i]
	}
	for i := range p.Workloads {
		w := &p.Workloads[i]
		n := nodes[w.Node]
		if w.Demand.Kind == TimeSlice && rng.IntN(3) == 0 {
			w.Current = Demand{Kind: Whole, GPUs: 1}
		}
		cur := w.current()
		switch cur.Kind {
		case Whole:
			start := rng.IntN(n.GPUs - cur.GPUs + 1)
			for g := start; g < start+cur.GPUs; g++ {
				w.CurrentGPUs = append(w.CurrentGPUs, g)
			}
		case MIG, TimeSlice, Shared:
			g := rng.IntN(n.GPUs)
			w.CurrentGPUs = []int{g}
			if cur.Kind != MIG {
				break
			}
			l := n.CurrentMIG[g]
			if l == nil {
				l = gpushape.Layout{}
			}
			l[gpushape.CanonicalProfile(cur.Profile)]++
			if genModel(n.Model).Valid(l) != nil {
				if l[gpushape.CanonicalProfile(cur.Profile)]--; l[gpushape.CanonicalProfile(cur.Profile)] == 0 {
					delete(l, gpushape.CanonicalProfile(cur.Profile))
				}
				break
			}
			if n.CurrentMIG == nil {
				n.CurrentMIG = map[int]gpushape.Layout{}
			}
			n.CurrentMIG[g] = l
		}
	}
}

// Check catches what the packer must never produce.
func TestCheckCatchesBrokenPlans(t *testing.T) {
	p := &Problem{Nodes: []Node{gpuNode("a1", "a", "A100-80GB", 1, 1)}}
	p.Workloads = []Workload{
		{ID: "x", Demand: Demand{Kind: MIG, Profile: "4g.40gb"}},
		{ID: "y", Demand: Demand{Kind: MIG, Profile: "3g.40gb"}},
	}
	pl := mustSolve(t, p)
	// 4g + 3g is valid; make it 4g + 4g by hand.
	for i := range pl.Placements {
		if pl.Placements[i].Workload == "y" {
			pl.Placements[i].Demand.Profile = "4g.40gb"
		}
	}
	if err := pl.Check(); err == nil {
		t.Fatal("Check accepted 2 × 4g.40gb on one GPU")
	}
}

// TestSolveLeavesItsProblemAlone: packing never changes its problem, so
// one problem can be packed again (the savings ledger packs the current
// shapes of the problem its model was built from) with the same plan.
func TestSolveLeavesItsProblemAlone(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	for i := range 40 {
		p := genProblem(rng, 1+rng.IntN(25), 1+rng.IntN(8))
		withHistory(rng, p)
		before, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		first, err := Solve(p)
		if err != nil {
			t.Fatalf("problem %d: %v", i, err)
		}
		after, _ := json.Marshal(p)
		if !bytes.Equal(before, after) {
			t.Fatalf("problem %d: Solve changed its problem", i)
		}
		second, err := Solve(p)
		if err != nil {
			t.Fatalf("problem %d: %v", i, err)
		}
		a, _ := json.Marshal(first)
		b, _ := json.Marshal(second)
		if !bytes.Equal(a, b) {
			t.Fatalf("problem %d: packing the same problem twice gave different plans", i)
		}
	}
}
