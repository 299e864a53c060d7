package packing

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/gpushape"
)

func TestAdvertised(t *testing.T) {
	tests := []struct {
		name   string
		node   NodePlan
		want   map[string]int64
		wantOK bool
	}{
		{"removed node advertises nothing", NodePlan{Keep: false, GPUs: []GPUPlan{{Mode: ModeWhole}}}, nil, true},
		{"whole and free GPUs are nvidia.com/gpu",
			NodePlan{Keep: true, GPUs: []GPUPlan{{Mode: ModeWhole}, {Mode: ModeFree}, {Mode: ModeWhole}}},
			map[string]int64{"nvidia.com/gpu": 3}, true},
		{"MIG GPUs advertise every instance, free ones too; the rest stay nvidia.com/gpu (mixed strategy)",
			NodePlan{Keep: true, GPUs: []GPUPlan{
				{Mode: ModeMIG, Layout: gpushape.Layout{"3g.40gb": 1, "1g.10gb": 4}},
				{Mode: ModeMIG, Layout: gpushape.Layout{"1g.10gb+me": 1, "1g.10gb": 6}},
				{Mode: ModeWhole}, {Mode: ModeFree}}},
			map[string]int64{"nvidia.com/mig-3g.40gb": 1, "nvidia.com/mig-1g.10gb": 10, "nvidia.com/mig-1g.10gb.me": 1, "nvidia.com/gpu": 2}, true},
		{"a time-sliced node offers R replicas of every full GPU, free ones included, and no nvidia.com/gpu",
			NodePlan{Keep: true, TimeSlicingReplicas: 4, GPUs: []GPUPlan{{Mode: ModeTimeSlice}, {Mode: ModeFree}, {Mode: ModeMIG, Layout: gpushape.Layout{"7g.80gb": 1}}}},
			map[string]int64{"nvidia.com/gpu.shared": 8, "nvidia.com/mig-7g.80gb": 1}, true},
		{"milli-GPU shares have no device-plugin count", NodePlan{Keep: true, GPUs: []GPUPlan{{Mode: ModeShared}}}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.node.Advertised()
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Advertised (-want +got):\n%s", diff)
			}
		})
	}
}

// What the scheduler checks: on every kept node, the pods the plan puts
// there request no more of each extended resource than the node
// advertises under the plan's configs. (The integration tier has the real
// kube-scheduler bind them; this is the same invariant on many plans.)
func TestPlacementsFitAdvertisedCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 3))
	for i := range 200 {
		p := genProblem(rng, 1+rng.IntN(20), 1+rng.IntN(8))
		for j := range p.Workloads {
			if w := &p.Workloads[j]; w.Demand.Kind == Shared {
				w.Demand = Demand{Kind: Whole, GPUs: 1}
			}
		}
		withHistory(rng, p)
		pl, err := Solve(p)
		if err != nil {
			t.Fatalf("problem %d: %v", i, err)
		}
		requested := map[string]map[string]int64{}
		for _, pc := range pl.Placements {
			if r, n := pc.Demand.Resource(); r != "" {
				if requested[pc.Node] == nil {
					requested[pc.Node] = map[string]int64{}
				}
				requested[pc.Node][r] += n
			}
		}
		for j := range pl.Nodes {
			np := &pl.Nodes[j]
			adv, ok := np.Advertised()
			if !ok {
				t.Fatalf("problem %d node %s: shared GPU without milli demands", i, np.Name)
			}
			for r, n := range requested[np.Name] {
				if n > adv[r] {
					t.Errorf("problem %d node %s: pods request %d %s, the node advertises %d", i, np.Name, n, r, adv[r])
				}
			}
		}
	}
}
