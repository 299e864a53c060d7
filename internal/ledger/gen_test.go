package ledger

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

// genPool is a node shape for generated clusters; "test.unpriced" is in
// no catalog.
type genPool struct {
	instance, model string
	gpus            int
	cores, gib      int64
}

var genPools = []genPool{
	{a100x4, "A100-80GB", 4, 32, 256},
	{h100x1, "H100-80GB", 1, 8, 64},
	{l4x2, "L4", 2, 8, 32},
	{"test.unpriced", "T4", 1, 4, 16},
}

var genNamespaces = []string{"inference", "train", "dev", "batch"}

// genCluster is a random week: 2–4 pools of 1–4 nodes, some created or
// deleted during the window; GPU pods on about 60% of GPUs with random
// requests, lives, activity and usage (some unmeasured), bare pods and
// Jobs among Deployments, and a few pods without GPUs.
func genCluster(t *testing.T, rng *rand.Rand) *cluster.Prepared {
	t.Helper()
	s := &cluster.Snapshot{Window: clustertest.Window(weekHours), Source: "generated"}
	for _, pi := range rng.Perm(len(genPools))[:2+rng.IntN(3)] {
		gp := genPools[pi]
		for j := range 1 + rng.IntN(4) {
			n := node(fmt.Sprintf("%s-%d", gp.model, j), gp.instance, gp.gpus, gp.model, gp.cores, gp.gib)
			switch rng.IntN(10) {
			case 0:
				n.Deleted = clustertest.At(float64(24 + rng.IntN(120)))
			case 1:
				n.Created = clustertest.At(float64(24 + rng.IntN(120)))
			}
			s.Nodes = append(s.Nodes, n)
			s.Pods = append(s.Pods, genPods(rng, &n, gp)...)
		}
	}
	return prepareTest(t, s)
}

// genPods fills a node's GPUs and CPU with random pods that fit it now:
// up to one per GPU, sharing 90% of its CPU; half of them nearly idle
// (MIG and time-slice candidates), most using far less CPU than they ask.
func genPods(rng *rand.Rand, n *cluster.Node, gp genPool) []cluster.Pod {
	var out []cluster.Pod
	k := rng.IntN(gp.gpus + 1)
	for g := range k {
		ns := genNamespaces[rng.IntN(len(genNamespaces))]
		fb := -1.0
		if rng.IntN(5) != 0 {
			fb = float64(1024 * (1 + rng.IntN(70)))
		}
		use := -1.0
		if rng.IntN(5) != 0 {
			use = 0.1 + rng.Float64()
		}
		act := rng.Float64()
		if rng.IntN(2) == 0 {
			act *= 0.1
		}
		cpu := 500 + rng.Int64N(gp.cores*900/int64(k))
		p := pod(ns, fmt.Sprintf("%s-g%d", n.Name, g), n.Name, g, act, fb, cpu, 1+rng.Int64N(8), use, 1+rng.Float64())
		switch rng.IntN(6) {
		case 0:
			p.Owner = cluster.Owner{Kind: "Pod", Name: p.Name}
		case 1:
			p.Owner = cluster.Owner{Kind: "Job", Name: p.Name}
			p.End = clustertest.At(float64(12 + rng.IntN(150)))
		}
		out = append(out, p)
	}
	if rng.IntN(3) == 0 {
		out = append(out, clustertest.Pod("web", n.Name+"-web").On(n.Name).Requests(250, 1).Obj())
	}
	return out
}

// TestGeneratedClustersReconcile checks the ledger's invariants on random
// clusters: Build's own Reconcile passes; the actions add up to before −
// after, none negative; and the total does not depend on the order of the
// levers that commute (right-sizing and shapes: consolidation takes the
// cheapest plan over every subset of their changes).
func TestGeneratedClustersReconcile(t *testing.T) {
	t.Parallel()
	kinds := map[string]int{}
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		s := genCluster(t, rng)
		in := Input{Snapshot: s, Prices: testPrices()}
		l, err := Build(in, DefaultOptions())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var sum Cents
		for _, a := range l.Actions {
			if a.saving < 0 {
				t.Errorf("seed %d: %s saves %s", seed, a.Key, a.saving)
			}
			sum += a.saving
			if a.saving > 0 {
				kinds[a.Kind]++
			}
		}
		if sum != l.Before()-l.After() || l.After() > l.Before() {
			t.Errorf("seed %d: actions save %s, before %s after %s", seed, sum, l.Before(), l.After())
		}
		swapped, err := buildWith(in, DefaultOptions(), []Lever{shapeLever{}, rightsizeLever{}, consolidateLever{}, autoscaleLever{}, reclaimLever{}, spotLever{}, commitLever{}, quantizeLever{}})
		if err != nil {
			t.Fatalf("seed %d: swapped: %v", seed, err)
		}
		if swapped.Saving() != l.Saving() {
			t.Errorf("seed %d: shape before rightsize saves %s, rightsize before shape %s", seed, swapped.Saving(), l.Saving())
		}
	}
	// The generator must exercise both kinds of money action, or the
	// checks above prove little.
	if kinds[kindRemoveNodes] < 10 || kinds[kindRepack] < 3 {
		t.Errorf("money actions by kind %v: want at least 10 removals and 3 repacks over 40 clusters", kinds)
	}
	t.Logf("money actions by kind: %v", kinds)
}
