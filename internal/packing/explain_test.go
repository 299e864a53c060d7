package packing

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// TestExplainMemoGivesTheSameReason: the remembered reason of every
// workload (as planned and pinned to its node) is the one computed afresh,
// on random problems with workloads that fail each constraint, twice each.
func TestExplainMemoGivesTheSameReason(t *testing.T) {
	t.Parallel()
	kinds := map[string]bool{}
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 17))
		p := genProblem(rng, 40, 4)
		for i := range 60 {
			w := misfit(rng, &p.Nodes[rng.IntN(len(p.Nodes))], fmt.Sprintf("ns/misfit-%02d", i))
			p.Workloads = append(p.Workloads, w, w) // two replicas: the second is remembered
			p.Workloads[len(p.Workloads)-1].ID += "-b"
		}
		s := newSolver(p, nil)
		for wi := range s.works {
			for _, pin := range []bool{false, true} {
				if pin {
					s.works[wi] = s.newWork(s.works[wi].w, true)
				}
				got, want := s.explain(int32(wi)), s.explainNow(&s.works[wi])
				if got != want {
					t.Fatalf("seed %d, %s (pinned %v): remembered %q, computed %q", seed, s.works[wi].w.ID, pin, got, want)
				}
				kinds[strings.SplitN(want, " ", 3)[0]+" "+strings.SplitN(want, " ", 3)[1]] = true
			}
		}
		if len(s.explained) >= 2*len(s.works) {
			t.Errorf("seed %d: %d reasons remembered for %d calls: nothing shared", seed, len(s.explained), 2*len(s.works))
		}
	}
	if len(kinds) < 6 {
		t.Errorf("only %d kinds of reason (%v): the misfits do not exercise the constraints", len(kinds), kinds)
	}
}

// misfit is a workload on n that fails one constraint or none at random.
func misfit(rng *rand.Rand, n *Node, id string) Workload {
	w := genWorkload(rng, n, id)
	switch rng.IntN(7) {
	case 0:
		w.Demand, w.Models = Demand{Kind: Whole, GPUs: 1}, []string{"no-such-model"}
	case 1:
		w.Demand, w.Models = Demand{Kind: Whole, GPUs: 64}, nil
	case 2:
		w.Tolerations = []cluster.Toleration{{Key: "other", Operator: "Exists", Effect: "NoSchedule"}}
		w.Demand, w.Models = Demand{Kind: Whole, GPUs: 1}, nil
	case 3:
		w.NodeSelector = map[string][]string{"zone": {"z9"}}
	case 4:
		w.CPUMilli = 1 << 40
	case 5:
		w.MemoryBytes = 1 << 60
	}
	return w
}
