package cost

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// Two nodes of $23.60 over 10 h. n1: pod "a" holds its GPU; n2: pod "b"
// holds nothing (CPU only), so n2's GPU is unallocated.
func shareFixture() *cluster.Snapshot {
	return &cluster.Snapshot{Window: ct.Window(10),
		Nodes: []cluster.Node{ct.Node("n1").GPUs(2, "H100-80GB").Obj(), ct.Node("n2").GPUs(1, "H100-80GB").Obj()},
		Pods: []cluster.Pod{
			ct.Pod("team-a", "a").On("n1").Requests(1000, 4).Holds("n1/gpu0", 0.5, 10*hour).Obj(),
			ct.Pod("team-b", "b").On("n2").Requests(1000, 4).Obj(),
		}}
}

func TestIdleShareModes(t *testing.T) {
	tests := []struct {
		mode            IdleShare
		wantAUnalloc    float64 // GPU $ unallocated on team-a's row
		wantUnallocated float64 // GPU $ left on the __unallocated__ row
	}{
		{ShareNone, 0, 40},
		// n1's idle GPU ($20) goes to a; n2's GPU ($20) has no GPU payer on n2.
		{ShareNode, 20, 20},
		// cluster: all $40 goes to the only GPU payer, a.
		{ShareCluster, 40, 0},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			r := report(t, shareFixture(), func(o *settings) { o.IdleShare = tt.mode })
			if got := row(t, r, "team-a").GPUCost.Unallocated; math.Abs(got-tt.wantAUnalloc) > 1e-9 {
				t.Errorf("team-a unallocated share = %v, want %v", got, tt.wantAUnalloc)
			}
			if got := row(t, r, UnallocatedKey).GPUCost.Unallocated; math.Abs(got-tt.wantUnallocated) > 1e-9 {
				t.Errorf("unallocated row = %v, want %v", got, tt.wantUnallocated)
			}
			if got := row(t, r, UnallocatedKey).GPUHours.Unallocated; got != 20 {
				t.Errorf("unallocated GPU-hours moved: %v, want 20 (only dollars are shared)", got)
			}
		})
	}
}

func TestGroupings(t *testing.T) {
	s := shareFixture()
	s.Pods[0].Labels = map[string]string{"team": "vision"}
	for by, want := range map[string][]string{
		"namespace":  {"team-a", "team-b", UnallocatedKey},
		"node":       {"n1", "n2"},
		"gpu-model":  {"H100-80GB"},
		"label:team": {"vision", "(no team)", UnallocatedKey},
		"workload":   {"team-a/Deployment/a", "team-b/Deployment/b", UnallocatedKey},
	} {
		r := report(t, shareFixture(), func(o *settings) { o.By = by })
		if by == "label:team" {
			r = report(t, s, func(o *settings) { o.By = by })
		}
		if len(r.Rows) != len(want) {
			t.Errorf("by %s: %d rows, want %v", by, len(r.Rows), want)
		}
		for _, k := range want {
			row(t, r, k)
		}
	}
}

// Property: any snapshot the generator makes reconciles to the cent under
// every sharing mode, and no GPU's fractions sum past 1.
func TestRandomSnapshotsReconcile(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		for _, mode := range []IdleShare{ShareNone, ShareNode, ShareCluster} {
			s := randomSnapshot(rng)
			r := report(t, s, func(o *settings) { o.IdleShare = mode; o.By = "pod" })
			if err := r.Reconcile(); err != nil {
				t.Fatalf("seed %d mode %s: %v", seed, mode, err)
			}
			for _, n := range s.Nodes {
				for _, g := range n.GPUs {
					var sum float64
					for _, u := range g.Units {
						sum += u.Fraction
					}
					if sum > 1+1e-12 {
						t.Fatalf("seed %d: node %s gpu %d fractions sum to %v", seed, n.Name, g.Index, sum)
					}
				}
			}
		}
	}
}

var migProfiles = []string{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}

func randomSnapshot(rng *rand.Rand) *cluster.Snapshot {
	s := &cluster.Snapshot{Window: ct.Window(24)}
	for i := range 1 + rng.IntN(5) {
		name := string(rune('a'+i)) + "node"
		b := ct.Node(name).Resources(int64(8+rng.IntN(64)), int64(32+rng.IntN(512)))
		if rng.IntN(6) == 0 {
			b.Instance("unknown", cluster.Spot)
		}
		switch rng.IntN(3) {
		case 0:
			b.GPUs(1+rng.IntN(8), "H100-80GB")
		case 1:
			b.MIG("H100-80GB", migProfiles[rng.IntN(5)], migProfiles[rng.IntN(3)])
		default:
			b.TimeSliced("L4", 1+rng.IntN(8))
		}
		if rng.IntN(4) == 0 {
			b.Life(ct.At(rng.Float64()*12), ct.At(12+rng.Float64()*24))
		}
		n := b.Obj()
		s.Nodes = append(s.Nodes, n)
		s.Pods = append(s.Pods, randomPods(rng, n)...)
	}
	return s
}

func randomPods(rng *rand.Rand, n cluster.Node) []cluster.Pod {
	var pods []cluster.Pod
	for gi, g := range n.GPUs {
		for ui, u := range g.Units {
			if rng.IntN(3) == 0 {
				continue
			}
			start := rng.Float64() * 20
			p := ct.Pod("ns"+string(rune('0'+rng.IntN(3))), n.Name+"-p"+string(rune('a'+gi))+string(rune('a'+ui))).
				On(n.Name).Requests(int64(rng.IntN(200000)), int64(rng.IntN(2048))).
				Life(ct.At(start), ct.At(start+rng.Float64()*10))
			act := -1.0
			if rng.IntN(5) > 0 {
				act = rng.Float64()
			}
			pods = append(pods, p.Holds(u.ID, act, rng.Float64()*40*hour).Obj())
		}
	}
	if rng.IntN(2) == 0 {
		pods = append(pods, ct.Pod("web", n.Name+"-web").On(n.Name).Requests(int64(rng.IntN(4000)), 2).Obj())
	}
	return pods
}
